package jobs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/jobs/hadoop"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/jobconf"
)

// On Hadoop, `pdc run --hadoop --output OUT` keeps the local layout (see
// the package comment) on HDFS, plus OUT/input/ for documents uploaded
// from the local disk. Each job writes OUT/_tmp/NAME and is renamed to its
// directory only when it succeeds, so a job directory never holds partial
// results.

// hadoopRun is one pipeline run on a cluster.
type hadoopRun struct {
	m     *Main
	o     *runOptions
	cfg   jobconf.Config
	fsys  hdfsfs.FS
	out   string // OUT on fsys
	sub   *hadoop.Submitter
	pdc   string // local path of the static pdc binary shipped with -files
	input []string
}

func (m *Main) runHadoop(ctx context.Context, cfg jobconf.Config, o *runOptions) error {
	start := time.Now()
	streaming, err := hadoop.FindStreaming(m.Getenv)
	if err != nil {
		return err
	}
	fsys, out, err := hdfsfs.Resolve(o.output, true)
	if err != nil {
		return fmt.Errorf("output %s: %w", o.output, err)
	}
	if !strings.HasPrefix(out, "/") {
		return usagef("run --hadoop: --output must be an HDFS path (hdfs://HOST:PORT/PATH or /PATH), got %q", o.output)
	}
	bin, err := shippableBinary(m.Getenv)
	if err != nil {
		return err
	}
	h := &hadoopRun{m: m, o: o, cfg: cfg, fsys: fsys, out: out, pdc: bin,
		sub: &hadoop.Submitter{Streaming: streaming, ConfDir: m.Getenv("HADOOP_CONF_DIR"), Stderr: m.progressWriter(o.quiet)}}
	man := manifest{Inputs: o.inputs, Env: cfg.EnvList(), Hadoop: true}
	resumed, err := prepareOutput(fsys, out, man, o.overwrite)
	if err != nil {
		return err
	}
	if resumed && !o.quiet {
		fmt.Fprintf(m.Stderr, "pdc: resuming the unfinished run in %s\n", o.output)
	}
	if h.input, err = h.stageInputs(ctx); err != nil {
		return err
	}
	stages := Stages()
	var all []jobCounters
	for _, st := range stages {
		jc, err := h.runStage(ctx, st)
		if err != nil {
			return err
		}
		all = append(all, jc)
	}
	return m.finish(fsys, out, o, stages, all, time.Since(start))
}

func (m *Main) progressWriter(quiet bool) io.Writer {
	if quiet {
		return io.Discard
	}
	return m.Stderr
}

// shippableBinary returns the pdc binary to ship to the cluster:
// PDC_BINARY, else this executable (pdc, or pdc-extract when a run with
// --extract main was handed over to it).
func shippableBinary(getenv func(string) string) (string, error) {
	if p := getenv("PDC_BINARY"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("PDC_BINARY %s: %w", p, unwrapPathErr(err))
		}
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the pdc binary to ship (set PDC_BINARY): %w", err)
	}
	if b := filepath.Base(exe); b != "pdc" && b != ExtractBinary {
		return "", fmt.Errorf("this binary is %s; Hadoop tasks run `pdc map ...`: set PDC_BINARY to a static pdc (scripts/build.sh builds bin/pdc)", exe)
	}
	return exe, nil
}

// stageInputs returns the job input paths on HDFS: hdfs:// URIs and paths
// missing from the local disk are read in place; local JSON Lines files are
// uploaded as they are; other local inputs (directories of pages, WARC,
// Avro) are converted to JSON Lines while uploading.
func (h *hadoopRun) stageInputs(ctx context.Context) ([]string, error) {
	var remote, local []string
	for _, p := range h.o.inputs {
		if _, err := os.Stat(p); err != nil || strings.HasPrefix(p, "hdfs://") {
			fsys, rp, err := hdfsfs.Resolve(p, true)
			if err != nil {
				return nil, fmt.Errorf("input %s: %w", p, err)
			}
			if _, err := fsys.Stat(rp); err != nil {
				return nil, fmt.Errorf("input %s: not on the local disk nor on HDFS: %w", p, unwrapPathErr(err))
			}
			remote = append(remote, p)
			continue
		}
		local = append(local, p)
	}
	if len(local) == 0 {
		return remote, nil
	}
	dst := path.Join(h.out, "input")
	if h.fsSucceeded(dst) {
		return append(remote, dst), nil
	}
	in, err := findInputs(local)
	if err != nil {
		return nil, err
	}
	warnBroken(h.m.Stderr, in)
	if err := h.fsys.RemoveAll(dst); err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	if err := h.fsys.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	progress := func(done, total int64) {
		if !h.o.quiet {
			fmt.Fprintf(h.m.Stderr, "upload: %d/%d MB\n", done>>20, total>>20)
		}
	}
	for i, p := range in.jsonl {
		name := fmt.Sprintf("%s/part-%05d-%s", dst, i, path.Base(filepath.ToSlash(p)))
		if err := hdfsfs.Upload(ctx, h.fsys, name, p, progress); err != nil {
			return nil, fmt.Errorf("upload %s: %w", p, err)
		}
	}
	if len(in.tree) > 0 || len(in.records) > 0 {
		if err := h.uploadConverted(ctx, in, dst+"/part-converted.jsonl"); err != nil {
			return nil, err
		}
	}
	if err := writeFileFS(h.fsys, dst+"/_SUCCESS", nil); err != nil {
		return nil, err
	}
	return append(remote, dst), nil
}

// uploadConverted writes the tree and container documents of in as one
// JSON Lines file on HDFS.
func (h *hadoopRun) uploadConverted(ctx context.Context, in *inputSet, name string) error {
	only := &inputSet{tree: in.tree, records: in.records}
	w, err := h.fsys.Create(name + "._COPYING_")
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	n := 0
	err = eachDoc(only, func(d *doc.Doc, where string) error {
		line = append(doc.AppendJSON(line[:0], d), '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
		n++
		return ctx.Err()
	})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("upload converted documents: %w", err)
	}
	if !h.o.quiet {
		fmt.Fprintf(h.m.Stderr, "upload: %d documents converted to JSON Lines\n", n)
	}
	return h.fsys.Rename(name+"._COPYING_", name)
}

func (h *hadoopRun) fsSucceeded(dir string) bool {
	_, err := h.fsys.Stat(dir + "/_SUCCESS")
	return err == nil
}

// runStage runs one job on the cluster, or skips it when a previous run
// finished it.
func (h *hadoopRun) runStage(ctx context.Context, st Stage) (jobCounters, error) {
	dir := path.Join(h.out, st.OutputDir())
	jc := jobCounters{job: st.Name}
	if h.fsSucceeded(dir) {
		jc.counters, _ = readCountersFS(h.fsys, dir+"/_counters.tsv")
		if !h.o.quiet {
			fmt.Fprintf(h.m.Stderr, "job %s: finished in an earlier run, skipped\n", st.Name)
		}
		return jc, nil
	}
	tmp := path.Join(h.out, "_tmp", st.OutputDir())
	for _, d := range []string{dir, tmp} {
		if err := h.fsys.RemoveAll(d); err != nil {
			return jc, fmt.Errorf("job %s: %w", st.Name, err)
		}
	}
	if err := h.fsys.MkdirAll(path.Dir(tmp), 0o755); err != nil {
		return jc, fmt.Errorf("job %s: %w", st.Name, err)
	}
	job := h.job(st, tmp)
	t0 := time.Now()
	res, err := h.sub.Run(ctx, job)
	if err != nil {
		return jc, fmt.Errorf("job %s: %w", st.Name, err)
	}
	if err := h.fsys.Rename(tmp, dir); err != nil {
		return jc, fmt.Errorf("job %s: commit output: %w", st.Name, err)
	}
	jc.counters = res.Counters
	if err := writeCountersFS(h.fsys, dir+"/_counters.tsv", res.Counters); err != nil {
		return jc, err
	}
	if !h.o.quiet {
		fmt.Fprintf(h.m.Stderr, "job %s: %s done in %s\n", st.Name, res.JobID, elapsed(time.Since(t0)))
		printCounters(h.m.Stderr, res.Counters)
	}
	return jc, nil
}

// prog is the name of the shipped binary in the tasks' working directory
// (-files links it there under its base name).
func (h *hadoopRun) prog() string { return filepath.Base(h.pdc) }

// job builds the Hadoop Streaming job of a stage.
func (h *hadoopRun) job(st Stage, output string) *hadoop.Job {
	cfg := h.cfg
	reducers := h.o.reducers
	if reducers < 1 {
		reducers = 2
	}
	j := &hadoop.Job{
		Name:              st.Name,
		Mapper:            h.prog() + " map " + st.Name,
		KeyFields:         st.KeyFields,
		PartitionFields:   st.PartitionFields,
		Reducers:          reducers,
		Files:             []string{h.pdc},
		Output:            output,
		CompressMapOutput: true,
	}
	if !st.MapOnly {
		j.Reducer = h.prog() + " reduce " + st.Name
	}
	if st.Combine {
		j.Combiner = h.prog() + " combine " + st.Name
	}
	j.Conf = map[string]string{}
	if st.WholeFiles {
		j.Conf["mapreduce.input.fileinputformat.split.minsize"] = strconv.FormatInt(math.MaxInt64, 10)
	}
	if st.InputKeys {
		j.Conf["stream.map.input.ignoreKey"] = "false" // offset TAB line (mr.InputKeyed)
	}
	if st.Input == "" {
		j.Inputs = h.input
	} else {
		j.Inputs = []string{path.Join(h.out, st.Input)}
	}
	if st.SideStats {
		j.CacheFiles = []string{h.uri(path.Join(h.out, "stats")) + "#stats"}
		cfg.Stats = "stats"
	}
	j.Env = cfg.Env()
	if f := h.m.Getenv("PDC_FAULT"); f != "" {
		j.Env["PDC_FAULT"] = f // fault injection for tests (jobs/program.go)
	}
	return j
}

// uri returns the hdfs:// URI of a path on the run's file system.
func (h *hadoopRun) uri(p string) string {
	if strings.HasPrefix(h.o.output, "hdfs://") {
		host := strings.TrimPrefix(h.o.output, "hdfs://")
		host, _, _ = strings.Cut(host, "/")
		return "hdfs://" + host + p
	}
	return "hdfs://" + p
}
