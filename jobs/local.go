package jobs

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/mr/local"
)

// jobCounters are one finished job's counters.
type jobCounters struct {
	job      string
	counters map[string]int64
}

func (m *Main) runLocal(ctx context.Context, cfg jobconf.Config, o *runOptions) error {
	start := time.Now()
	tuneGC(m.Getenv, o.sortMem)
	in, err := findInputs(o.inputs)
	if err != nil {
		return err
	}
	warnBroken(m.Stderr, in)
	man := manifest{Inputs: absAll(sortedInputs(in)), Env: cfg.EnvList()}
	resumed, err := prepareOutput(hdfsfs.Local(), o.output, man, o.overwrite)
	if err != nil {
		return err
	}
	if resumed && !o.quiet {
		fmt.Fprintf(m.Stderr, "pdc: resuming the unfinished run in %s\n", o.output)
	}
	cfg.Stats = filepath.Join(o.output, "stats")
	reducers := o.reducers
	if reducers < 1 {
		// Two partitions per worker: a document pair with many sentence
		// pairs makes its partition slow, and smaller partitions spread
		// that over the workers (about 5% faster on the bench corpus).
		reducers = 2 * o.workers
	}
	tmp := o.tmpDir
	if tmp == "" {
		tmp = filepath.Join(o.output, "_tmp")
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(filepath.Join(o.output, "_tmp"))
	prog := newProgress(m.Stderr, o.quiet)
	runner := &local.Runner{
		Workers:  o.workers,
		SortMem:  o.sortMem,
		TempDir:  tmp,
		Stderr:   m.Stderr,
		Progress: prog.update,
	}
	stages := Stages()
	var all []jobCounters
	r := &localRun{m: m, runner: runner, cfg: cfg, in: in, o: o, reducers: reducers, prog: prog}
	for i := 0; i < len(stages); i++ {
		st, then := stages[i], (*Stage)(nil)
		done := succeeded(filepath.Join(o.output, st.OutputDir()))
		if i+1 < len(stages) && st.Feeds == stages[i+1].Name && !done &&
			!succeeded(filepath.Join(o.output, stages[i+1].OutputDir())) {
			jcs, err := r.feeding(ctx, st, stages[i+1])
			if err != nil {
				return err
			}
			all = append(all, jcs...)
			i++
			continue
		}
		if i+1 < len(stages) && chains(st, stages[i+1]) && !o.keepIntermediate && !done {
			then = &stages[i+1]
			i++
		}
		jc, err := r.stage(ctx, st, then)
		if err != nil {
			return err
		}
		all = append(all, jc)
	}
	return m.finish(hdfsfs.Local(), o.output, o, stages, all, time.Since(start))
}

// chains reports whether the local runner runs stage next inside st's
// reduce tasks, with st's withNext program (the join's reducer and the
// match in one, joinred.ReduceMatch): next is map-only and reads st's
// reduce part files whole, so it sees the same lines either way, and the
// intermediate output is neither written nor read back. On Hadoop the join
// and the match stay two jobs.
func chains(st, next Stage) bool {
	return !st.MapOnly && next.MapOnly && next.WholeFiles && !next.InputKeys && next.Input == st.OutputDir() &&
		programs[st.Name].withNext != nil
}

// localRun is one pipeline run on the local runner.
type localRun struct {
	m        *Main
	runner   *local.Runner
	cfg      jobconf.Config
	in       *inputSet
	o        *runOptions
	reducers int
	prog     *progress
}

// stage runs stage st, with stage then chained onto its reduce tasks when
// then is not nil (the output is then's).
func (r *localRun) stage(ctx context.Context, st Stage, then *Stage) (jobCounters, error) {
	job, err := r.job(st, then, false)
	if err != nil {
		return jobCounters{}, err
	}
	if job == nil {
		return r.skip(st, then), nil
	}
	t0 := time.Now()
	counters, err := r.runner.Run(ctx, job)
	r.prog.done()
	if err != nil {
		return jobCounters{}, r.failed(ctx, job.Name, err)
	}
	return r.done(job, counters, t0)
}

// feeding runs stage st, whose mappers also write next's map output
// (Stage.Feeds), then next's reduce phase.
func (r *localRun) feeding(ctx context.Context, st, next Stage) ([]jobCounters, error) {
	job, err := r.job(st, nil, false)
	if err != nil {
		return nil, err
	}
	fed, err := r.job(next, nil, true)
	if err != nil {
		return nil, err
	}
	// The feeding mappers sum their counts themselves (the stats
	// Collector holds a task's counts until it ends), so a combiner would
	// find nothing to sum; the reducer sums whatever it gets.
	fed.Combine = nil
	t0 := time.Now()
	counters, feed, err := r.runner.RunFeeding(ctx, job, fed)
	r.prog.done()
	if err != nil {
		return nil, r.failed(ctx, job.Name, err)
	}
	defer feed.Close()
	jc, err := r.done(job, counters, t0)
	if err != nil {
		return nil, err
	}
	t0 = time.Now()
	counters, err = feed.Run(ctx)
	r.prog.done()
	if err != nil {
		return nil, r.failed(ctx, fed.Name, err)
	}
	nc, err := r.done(fed, counters, t0)
	return []jobCounters{jc, nc}, err
}

// skip reports a stage finished in an earlier run and returns its counters.
func (r *localRun) skip(st Stage, then *Stage) jobCounters {
	name, dir := stageOutput(r.o.output, st, then)
	jc := jobCounters{job: name}
	jc.counters, _ = readCountersFS(hdfsfs.Local(), filepath.Join(dir, "_counters.tsv"))
	if !r.o.quiet {
		fmt.Fprintf(r.m.Stderr, "job %s: finished in an earlier run, skipped\n", name)
	}
	return jc
}

func (r *localRun) failed(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("job %s: %w (rerun the same command to resume)", name, errInterrupted)
	}
	return err // the runner's error names the job and task
}

// done records a finished job's counters and reports it.
func (r *localRun) done(job *local.Job, counters map[string]int64, t0 time.Time) (jobCounters, error) {
	if err := writeCountersFS(hdfsfs.Local(), filepath.Join(job.Output, "_counters.tsv"), counters); err != nil {
		return jobCounters{}, err
	}
	if !r.o.quiet {
		fmt.Fprintf(r.m.Stderr, "job %s: done in %s\n", job.Name, elapsed(time.Since(t0)))
		printCounters(r.m.Stderr, counters)
	}
	return jobCounters{job: job.Name, counters: counters}, nil
}

// stageOutput returns the name and output directory of stage st, with then
// chained onto it.
func stageOutput(out string, st Stage, then *Stage) (name, dir string) {
	if then != nil {
		return st.Name + "+" + then.Name, filepath.Join(out, then.OutputDir())
	}
	return st.Name, filepath.Join(out, st.OutputDir())
}

// job returns the local job of stage st (with then chained onto it), or nil
// if it finished in an earlier run. A fed job (RunFeeding) has no inputs.
func (r *localRun) job(st Stage, then *Stage, fed bool) (*local.Job, error) {
	o := r.o
	name, dir := stageOutput(o.output, st, then)
	if succeeded(dir) {
		return nil, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("job %s: %w", name, err)
	}
	var splits []local.Split
	var err error
	var size int64 // split size; small files are packed up to it (local.Job.PackSize)
	switch {
	case fed:
	case st.Input == "":
		size = splitSize(o.splitSize, r.in.bytes, o.workers)
		splits, err = r.in.splits(size)
	default:
		var parts []string
		parts, err = partFiles(filepath.Join(o.output, st.Input))
		if err == nil {
			size = splitSize(o.splitSize, totalSize(parts), o.workers)
			if st.WholeFiles {
				size = 0 // one split per file, never cut (local.FileSplits)
			}
			splits, err = local.FileSplits(parts, size)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", name, err)
	}
	p := programs[st.Name]
	job := &local.Job{
		Name:            name,
		Map:             p.mapper,
		Reduce:          p.reducer, // nil for map-only stages
		KeyFields:       st.KeyFields,
		PartitionFields: st.PartitionFields,
		Reducers:        r.reducers,
		Env:             r.cfg.Env(),
		Inputs:          splits,
		Output:          dir,
		InputKeys:       st.InputKeys,
	}
	if !st.WholeFiles {
		job.PackSize = size
	}
	if st.Combine {
		job.Combine = p.combiner
	}
	if then != nil {
		job.Reduce, job.OutputKeyFields = p.withNext, then.KeyFields
	}
	return job, nil
}

func skipped(c map[string]int64) int64 {
	var n int64
	for k, v := range c {
		if strings.HasPrefix(k, "parse.docs.skipped.") {
			n += v
		}
	}
	return n
}

// partFiles lists a job output's part files in name order.
func partFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read job output: %w", err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "part-") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// Counters file: one `name TAB value` line per counter, sorted by name.
func formatCounters(c map[string]int64) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(c)) {
		fmt.Fprintf(&b, "%s\t%d\n", k, c[k])
	}
	return b.String()
}

func parseCounters(s string) map[string]int64 {
	c := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		k, v, ok := strings.Cut(line, "\t")
		if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
			c[k] = n
		}
	}
	return c
}

func printCounters(w io.Writer, c map[string]int64) {
	keys := slices.Sorted(maps.Keys(c))
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		fmt.Fprintf(w, "  %-*s %12d\n", width, k, c[k])
	}
}

// boilerplateReport collects the index job's B and T records: `df TAB kind
// TAB signature TAB docid TAB sentence TAB charStart TAB charEnd`, most
// frequent first, where kind is max-df (a posting list over --max-df; df
// counts sentences) or site-template (df counts one site's documents) and
// the doc and sentence are an example.
func boilerplateReport(fsys hdfsfs.FS, dir string) ([]byte, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("boilerplate report: %w", err)
	}
	type entry struct {
		df   int64
		line string
	}
	var es []entry
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "part-") {
			continue
		}
		f, err := fsys.Open(path.Join(filepath.ToSlash(dir), e.Name()))
		if err != nil {
			return nil, fmt.Errorf("boilerplate report: %w", err)
		}
		r := mr.NewReader(bufio.NewReaderSize(f, 1<<16))
		for r.Next() {
			line := r.Line()
			// Only B and T records; posting lists (P) are most of the bytes.
			if i := bytes.IndexByte(line, '\t'); i < 0 || i+2 >= len(line) ||
				(line[i+1] != 'B' && line[i+1] != 'T') || line[i+2] != '\t' {
				continue
			}
			f := strings.SplitN(string(line), "\t", 5)
			if len(f) != 4 || (f[1] != "B" && f[1] != "T") {
				continue
			}
			kind := "max-df"
			if f[1] == "T" {
				kind = "site-template"
			}
			df, _ := strconv.ParseInt(f[2], 10, 64)
			pf := strings.SplitN(f[3], ",", 6)
			if len(pf) != 6 {
				continue
			}
			sent := strings.TrimLeft(pf[0], "0")
			if sent == "" {
				sent = "0"
			}
			es = append(es, entry{df, fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s", df, kind, f[0], pf[5], sent, pf[2], pf[3])})
		}
		err = r.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("boilerplate report: %w", err)
		}
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		if a.df != b.df {
			return cmp.Compare(b.df, a.df)
		}
		return strings.Compare(a.line, b.line)
	})
	var b strings.Builder
	b.WriteString("# df\tkind\tsignature\texample_doc\tsentence\tchar_start\tchar_end\n")
	for _, e := range es {
		b.WriteString(e.line)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

// progress prints the local runner's progress on stderr: a bar rewritten in
// place on a terminal, a line every 5 seconds otherwise.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	quiet bool
	tty   bool
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet, last: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(job, phase string, done, total int64) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	every := 5 * time.Second
	if p.tty {
		every = 200 * time.Millisecond
	}
	if now.Sub(p.last) < every {
		return
	}
	p.last = now
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	if p.tty {
		const width = 30
		n := min(width, int(pct/100*width))
		fmt.Fprintf(p.w, "\rjob %-5s %-6s [%s%s] %5.1f%%", job, phase, strings.Repeat("#", n), strings.Repeat(".", width-n), pct)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "job %s: %s %.1f%% (%d/%d)\n", job, phase, pct, done, total)
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// writeAvroOutput writes OUT/spans.avro for --output-format avro, through a
// temporary name so that a failure leaves no partial file.
func (m *Main) writeAvroOutput(fsys hdfsfs.FS, name string, o *runOptions) error {
	if o.outputFormat != "avro" {
		return nil
	}
	w, err := fsys.Create(name + "._tmp")
	if err != nil {
		return fmt.Errorf("avro output: %w", err)
	}
	err = m.writeSpans(w, o.output, spanOptions{format: "avro", text: o.outputText, urls: true, inputs: o.inputs})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fsys.RemoveAll(name + "._tmp")
		return fmt.Errorf("avro output: %w", err)
	}
	return fsys.Rename(name+"._tmp", name)
}

// Automatic split sizes (--split-size 0): inputs are cut into about
// splitsPerWorker splits per worker, so that a small input still keeps
// every core busy and a slow split does not leave the others idle at the
// end of a job, but splits stay between minSplit and maxSplit bytes.
const (
	splitsPerWorker = 4
	minSplit        = 1 << 20
	maxSplit        = 32 << 20
)

// splitSize returns the split size for total input bytes: flag when it is
// set (> 0), else the automatic size.
func splitSize(flag, total int64, workers int) int64 {
	if flag > 0 {
		return flag
	}
	n := int64(max(workers, 1) * splitsPerWorker)
	return min(max((total+n-1)/n, minSplit), maxSplit)
}

// totalSize is the total size of files (unreadable ones count 0: opening
// them reports the error).
func totalSize(paths []string) int64 {
	var n int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// tuneGC trades memory for speed in the local runner: a GC target of 200%
// (the pipeline allocates many short-lived records) under a soft memory
// limit of 3x the sort buffer (at least 768 MiB), unless GOGC or
// GOMEMLIMIT say otherwise. Measured on 100 MB of HTML: 10% less time,
// peak RSS 585 MiB instead of 540 MiB.
func tuneGC(getenv func(string) string, sortMem int64) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(max(3*sortMem, 768<<20))
	}
}
