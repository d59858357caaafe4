package hadoop

// On Hadoop, `pdc run --hadoop --output OUT` keeps the local layout (see
// jobs/pipeline) on HDFS, plus OUT/input/ for documents uploaded from the
// local disk. Each job writes OUT/_tmp/NAME and is renamed to its
// directory only when it succeeds, so a job directory never holds partial
// results.

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
)

// Driver runs the pipeline as Hadoop Streaming jobs.
type Driver struct {
	Submitter *Submitter
	// FileSystem is the cluster's HDFS; Out the run's output directory on
	// it, and URI its hdfs:// prefix ("hdfs://HOST:PORT" or "hdfs://").
	FileSystem hdfsfs.FS
	Out        string
	URI        string
	// Binary is the local path of the static pdc binary the tasks run; it
	// is uploaded once per run (ship).
	Binary string
	// Inputs are the --input paths: hdfs:// URIs and paths missing from the
	// local disk are read in place; local ones are uploaded (Prepare) from
	// Local, what they expand to (nil when there are none).
	Inputs []string
	Local  *input.Set
	// Config are the job parameters; Stats is set per job.
	Config jobconf.Config
	// Read configures how local documents are read while uploading (sites
	// of tree pages, site fields).
	Read input.Options
	// Fault is PDC_FAULT, passed on to the tasks (fault injection for
	// tests: jobs/program.go).
	Fault string
	// Reducers is the number of reduce tasks per job.
	Reducers int
	// SplitSize is the largest input split of the jobs that read the
	// run's own part files (0: DefaultSplitSize); see CombineFormat.
	SplitSize int64
	// Queue is the YARN queue every job is submitted to ("": the
	// cluster's default).
	Queue string
	// Stderr receives the upload's progress; Quiet leaves it out.
	Stderr io.Writer
	Quiet  bool

	// InputCounters are added to the counters of the job that reads the
	// inputs (the counts of walking the input directories: input.Set
	// Counters), with those of the container files converted while
	// uploading (input.Counts ContainerCounters).
	InputCounters map[string]int64

	input      []string     // the job input paths on HDFS, after Prepare
	shipped    bool         // the binary is at shippedPath (ship)
	containers input.Counts // of the container files converted
}

var _ pipeline.Driver = (*Driver)(nil)

// FS is the cluster's HDFS.
func (d *Driver) FS() hdfsfs.FS { return d.FileSystem }

// CombineFormat is the input format of the jobs that read the run's own
// part files: their small files and blocks are packed into splits of up to
// Driver.SplitSize bytes, so that a job over many small parts (a map-only
// job writes one per input split) runs a few map tasks, not one per file
// or block. Lines are never cut, and no program of such a job needs its
// input's file name or offsets. Jobs that read the documents (parse, pdc
// dedup's: each record is placed by file and offset) or whole files
// (match) keep TextInputFormat.
const CombineFormat = "org.apache.hadoop.mapred.lib.CombineTextInputFormat"

// DefaultSplitSize is the default Driver.SplitSize: an HDFS block as
// Hadoop ships it.
const DefaultSplitSize = 128 << 20

// Fuses is true for Chained steps: the match runs in the join's reduce
// tasks, one job. Hadoop Streaming has no second output for a map task, so
// a Feeding stage and the next are two jobs.
func (d *Driver) Fuses(f pipeline.Fusion) bool { return f == pipeline.Chained }

// Prepare finds the job input paths on HDFS: hdfs:// URIs and paths
// missing from the local disk are read in place; local JSON Lines files
// are uploaded to OUT/input as they are; other local inputs (directories
// of pages, WARC, Avro, Parquet) are converted to JSON Lines while
// uploading. An upload finished by an earlier run (OUT/input/_SUCCESS) is
// kept.
func (d *Driver) Prepare(ctx context.Context) error {
	// Applications of an earlier run of OUT that still run lost their
	// driver (killed, or its machine gone): they would compete with this
	// run and write into its output. The lock on OUT says no live run
	// owns them.
	killed, err := d.Submitter.KillTagged(ctx, d.tag())
	if err != nil {
		return fmt.Errorf("applications of an earlier run of %s: %w", d.Out, err)
	}
	for _, id := range killed {
		fmt.Fprintf(d.Stderr, "pdc: killed %s, left running by an earlier run of %s whose driver stopped\n", id, d.Out)
	}
	var remote []string
	for _, p := range d.Inputs {
		if hdfsfs.IsRemote(p, true, nil) {
			fsys, rp, err := hdfsfs.Resolve(p, true)
			if err != nil {
				return fmt.Errorf("input %s: %w", p, err)
			}
			if _, err := fsys.Stat(rp); err != nil {
				return fmt.Errorf("input %s: not on the local disk nor on HDFS: %w", p, hdfsfs.UnwrapPath(err))
			}
			if _, err := input.ListRemote(fsys, rp); err != nil {
				return err
			}
			remote = append(remote, p)
		}
	}
	d.input = remote
	if d.Local == nil {
		return nil
	}
	dst := path.Join(d.Out, "input")
	if pipeline.Succeeded(d.FileSystem, dst) {
		d.input = append(d.input, dst)
		return nil
	}
	in := d.Local
	in.Warn(d.Stderr)
	stamps, err := in.Stamp()
	if err != nil {
		return err
	}
	if err := d.FileSystem.RemoveAll(dst); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	if err := d.FileSystem.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	progress := hdfsfs.ThrottledProgress(uploadProgressEvery, func(done, total int64) {
		if !d.Quiet {
			fmt.Fprintf(d.Stderr, "upload: %d/%d MB\n", done>>20, total>>20)
		}
	})
	// The uploaded files' names keep the records in the order of their
	// srcpos on the local disk (lib/input Sources), so that of the records
	// of one id the run keeps the one a local run keeps: the pages of
	// trees first (their srcpos is their local path, before any hdfs://
	// URI), then the JSON Lines files and the containers in the order of
	// their paths, each run of containers converted into one file.
	converted := 0
	if len(in.Tree) > 0 {
		if err := d.uploadConverted(ctx, &input.Set{Tree: in.Tree}, dst+"/part-0-pages.jsonl", &converted); err != nil {
			return err
		}
	}
	srcs := (&input.Set{JSONL: in.JSONL, Containers: in.Containers}).Sources()
	// Numbers of one width, so that the names sort as the numbers do.
	width := max(5, len(strconv.Itoa(len(srcs))))
	part := 0
	var containers []string
	convert := func() error {
		if len(containers) == 0 {
			return nil
		}
		name := fmt.Sprintf("%s/part-%0*d-converted.jsonl", dst, width, part)
		part++
		err := d.uploadConverted(ctx, &input.Set{Containers: containers}, name, &converted)
		containers = nil
		return err
	}
	for _, op := range srcs {
		if op.Container {
			containers = append(containers, op.Name)
			continue
		}
		if err := convert(); err != nil {
			return err
		}
		name := fmt.Sprintf("%s/part-%0*d-%s", dst, width, part, path.Base(filepath.ToSlash(op.Name)))
		part++
		if err := hdfsfs.Upload(ctx, d.FileSystem, name, op.Name, progress); err != nil {
			return fmt.Errorf("upload %s: %w", op.Name, err)
		}
	}
	if err := convert(); err != nil {
		return err
	}
	if converted > 0 && !d.Quiet {
		fmt.Fprintf(d.Stderr, "upload: %d documents converted to JSON Lines\n", converted)
	}
	if err := stamps.Changed(); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	if err := hdfsfs.WriteFile(d.FileSystem, dst+"/_SUCCESS", nil); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	d.input = append(d.input, dst)
	return nil
}

// uploadProgressEvery is how often the upload reports progress.
const uploadProgressEvery = 5 * time.Second

// uploadConverted writes the documents of in as one JSON Lines file on
// HDFS, and adds their number to converted. A block the NameNode refuses
// for now has the file converted again (hdfsfs.RewriteAtomic).
func (d *Driver) uploadConverted(ctx context.Context, in *input.Set, name string, converted *int) error {
	n := 0
	var got input.Counts
	err := hdfsfs.RewriteAtomic(ctx, d.FileSystem, name, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		var line []byte
		n = 0
		var total input.Counts
		for _, op := range in.Sources() {
			c, err := op.Each(d.Read, func(dc *doc.Doc, _ string, _ []byte) error {
				line = append(doc.AppendJSON(line[:0], dc), '\n')
				if _, err := bw.Write(line); err != nil {
					return err
				}
				n++
				return ctx.Err()
			})
			if err != nil {
				return err
			}
			// As the local driver: a container's counts (what the parse
			// job never sees) are said and counted, a tree's said when
			// some of its text files were not UTF-8.
			if d.Stderr != nil && (op.Container || len(c.Decoded) > 0) {
				fmt.Fprintf(d.Stderr, "pdc: input %s: %s\n", op.Name, c.Summary())
			}
			if op.Container {
				total.Add(c)
			}
		}
		got = total // a rewrite reads the files again
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("upload converted documents: %w", err)
	}
	*converted += n
	d.containers.Add(got)
	return nil
}

// Run runs one step as a job writing OUT/_tmp/DIR, renamed to OUT/DIR
// when it succeeds (for a chained step, DIR is its second stage's).
func (d *Driver) Run(ctx context.Context, s pipeline.Step, done func(pipeline.Job) error) error {
	name, last := s.Name(), s.Stages[len(s.Stages)-1]
	dir := path.Join(d.Out, last.OutputDir())
	tmp := path.Join(d.Out, "_tmp", last.OutputDir())
	if err := d.FileSystem.RemoveAll(tmp); err != nil {
		return fmt.Errorf("job %s: %w", name, err)
	}
	if err := d.FileSystem.MkdirAll(path.Dir(tmp), 0o755); err != nil {
		return fmt.Errorf("job %s: %w", name, err)
	}
	t0 := time.Now()
	if err := d.ship(ctx); err != nil {
		return fmt.Errorf("job %s: %w", name, err)
	}
	res, err := d.Submitter.Run(ctx, d.job(s, tmp))
	if err != nil {
		return fmt.Errorf("job %s: %w", name, err)
	}
	if err := d.FileSystem.Rename(tmp, dir); err != nil {
		return fmt.Errorf("job %s: commit output: %w", name, err)
	}
	if s.Stages[0].Input == "" && res.Counters != nil { // the job that read the inputs
		for k, v := range d.InputCounters {
			if v != 0 {
				res.Counters[k] += v
			}
		}
		for k, v := range d.containers.ContainerCounters() {
			res.Counters[k] += v
		}
	}
	return done(pipeline.Job{Name: name, ID: res.JobID, Dir: dir, Counters: res.Counters, Took: time.Since(t0)})
}

// ship uploads the binary to OUT/_tmp/bin once per driver. Every job links
// it into its tasks' working directory from there (-files URI#NAME), so a
// run uploads it once rather than with each job's submission, and each
// node fetches it once (YARN keeps a localized file by path and
// modification time for later jobs). OUT/_tmp goes when the run ends.
func (d *Driver) ship(ctx context.Context) error {
	if d.shipped {
		return nil
	}
	dst := d.shippedPath()
	if err := d.FileSystem.MkdirAll(path.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("upload the pdc binary for the tasks: %w", err)
	}
	if err := hdfsfs.Upload(ctx, d.FileSystem, dst, d.Binary, nil); err != nil {
		return fmt.Errorf("upload the pdc binary %s for the tasks: %w", d.Binary, err)
	}
	d.shipped = true
	return nil
}

// shippedPath is where ship puts the binary on the cluster.
func (d *Driver) shippedPath() string { return path.Join(d.Out, "_tmp", "bin", d.prog()) }

// tag is the YARN application tag of the run's jobs: "pdc-" and a hash of
// the output directory's path (however OUT was spelled: /p or
// hdfs://nn:8020/p), so that a later run of the same OUT finds them.
func (d *Driver) tag() string {
	h := fnv.New64a()
	h.Write([]byte(d.Out))
	return fmt.Sprintf("pdc-%016x", h.Sum64())
}

// prog is the name of the shipped binary in the tasks' working directory
// (-files links it there under its base name).
func (d *Driver) prog() string { return filepath.Base(d.Binary) }

// job builds the Hadoop Streaming job of a step.
func (d *Driver) job(s pipeline.Step, output string) *Job {
	st := s.Stages[0]
	j := &Job{
		Name:              s.Name(),
		Mapper:            d.prog() + " map " + st.Name,
		KeyFields:         st.KeyFields,
		PartitionFields:   st.PartitionFields,
		Reducers:          d.Reducers,
		Output:            output,
		CompressMapOutput: true,
		Conf:              map[string]string{},
	}
	j.CacheFiles = []string{d.URI + d.shippedPath() + "#" + d.prog()}
	if !st.MapOnly {
		j.Reducer = d.prog() + " reduce " + st.Name
	}
	if s.Fusion == pipeline.Chained {
		// The reducers write the second stage's output (pipeline.Program).
		j.Reducer = d.prog() + " reduce " + s.Name()
		if n := s.ChainedKeyFields(); n > 0 {
			j.Conf["stream.num.reduce.output.key.fields"] = strconv.Itoa(n)
		}
	}
	if st.Combine {
		j.Combiner = d.prog() + " combine " + st.Name
	}
	if st.WholeFiles {
		j.Conf["mapreduce.input.fileinputformat.split.minsize"] = strconv.FormatInt(math.MaxInt64, 10)
	}
	if st.InputKeys {
		j.Conf["stream.map.input.ignoreKey"] = "false" // offset TAB line (mr.InputKeyed)
	}
	if st.Input != "" && !st.WholeFiles && !st.InputKeys {
		size := d.SplitSize
		if size <= 0 {
			size = DefaultSplitSize
		}
		j.InputFormat = CombineFormat
		j.Conf["mapreduce.input.fileinputformat.split.maxsize"] = strconv.FormatInt(size, 10)
		// Streaming passes keys to the mappers for any input format but
		// TextInputFormat unless told not to.
		j.Conf["stream.map.input.ignoreKey"] = "true"
	}
	j.Conf["mapreduce.job.tags"] = d.tag()
	if d.Queue != "" {
		j.Conf["mapreduce.job.queuename"] = d.Queue
	}
	if st.Input == "" {
		j.Inputs = d.input
		if n := d.Config.MaxRecordBytes(); n > 0 && st.SkipsLongLines {
			// Hadoop's LineRecordReader skips longer lines without
			// holding them (and logs each in the task's syslog).
			j.Conf["mapreduce.input.linerecordreader.line.maxlength"] = strconv.FormatInt(min(n, math.MaxInt32), 10)
		}
	} else {
		j.Inputs = []string{path.Join(d.Out, st.Input)}
		for _, in := range st.Extra {
			j.Inputs = append(j.Inputs, path.Join(d.Out, in))
		}
		j.Inputs = append(j.Inputs, s.StoredInputs(st)...)
	}
	cfg := d.Config
	if st.SideStats {
		// The index tasks find the stats in their working directory.
		j.CacheFiles = append(j.CacheFiles, d.URI+path.Join(d.Out, "stats")+"#stats")
		cfg.Stats = "stats"
	}
	if st.SideSeeds {
		// The extend tasks find the match output in their working directory.
		j.CacheFiles = append(j.CacheFiles, d.URI+path.Join(d.Out, "matches")+"#matches")
		cfg.Seeds = "matches"
	}
	j.Env = cfg.Env()
	if len(st.Side) > 0 {
		// The tasks find the side inputs in their working directory.
		for _, name := range st.Side {
			j.CacheFiles = append(j.CacheFiles, d.URI+path.Join(d.Out, name)+"#"+name)
		}
		j.Env[jobconf.EnvSide] = "."
	}
	if d.Fault != "" {
		j.Env["PDC_FAULT"] = d.Fault
	}
	return j
}
