// Package local is the pipeline's driver for the embedded local runner
// (lib/mr/local): it runs each step's jobs as local.Jobs, cutting the
// documents (lib/input) and the jobs' outputs into map splits, and fuses
// stages as the stage table allows (pipeline.Feeding: the parse mappers
// feed the stats reducers; pipeline.Chained: the match runs inside the
// join's reduce tasks).
package local

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	mrlocal "github.com/pdc-mr/pdc/lib/mr/local"
	"github.com/pdc-mr/pdc/mappers/parse"
)

// Driver runs the pipeline on the local runner.
type Driver struct {
	// Runner runs the jobs; its Progress is set by the driver.
	Runner *mrlocal.Runner
	// Input are the documents.
	Input *input.Set
	// Env are the job parameters (jobconf.Config.Env, with PDC_STATS set
	// to the stats job's output directory).
	Env map[string]string
	// Read configures how documents are read (sites of tree pages, site
	// fields).
	Read input.Options
	// Reducers is the number of reduce tasks per job.
	Reducers int
	// SplitSize is the input split size (0: automatic, see splitSize).
	SplitSize int64
	// MaxLine is the longest input line the parse job reads
	// (jobconf.Config.MaxRecordBytes; 0: no limit): longer ones are
	// skipped unread and counted (parse.LongLineCounters).
	MaxLine int64
	// Stderr receives progress and the container files' summaries
	// ("pdc: input FILE: N records, ..."); Quiet leaves out progress.
	Stderr io.Writer
	Quiet  bool
	// Scratch is a directory that Close removes if Prepare ran (OUT/_tmp,
	// which holds the default TempDir).
	Scratch string

	// Stamps are the input files' sizes and modification times before
	// they are read (the ones the run's manifest records); Prepare takes
	// them when nil. A file that differs after the parse job is an error.
	Stamps input.Stamps
	// InputCounters are added to the counters of the job that reads the
	// input files (input.Set Counters: what walking the input directories
	// left out or read once).
	InputCounters map[string]int64
	// Fault is PDC_FAULT: a hold fault (pipeline.Hold) holds a step
	// before it starts.
	Fault string

	prog *progress
	mu   sync.Mutex // serialises the container summaries and guards containers
	// containers are the counts of the container files read.
	containers input.Counts
}

var _ pipeline.Driver = (*Driver)(nil)

// FS is the local disk.
func (d *Driver) FS() hdfsfs.FS { return hdfsfs.Local() }

// Fuses is true: the local runner fuses stages both ways.
func (d *Driver) Fuses(pipeline.Fusion) bool { return true }

// Prepare creates the runner's spill directory and the progress display.
func (d *Driver) Prepare(ctx context.Context) error {
	if err := os.MkdirAll(d.Runner.TempDir, 0o755); err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	d.prog = newProgress(d.Stderr, d.Quiet)
	d.Runner.Progress = d.prog.update
	if d.Input != nil && d.Stamps == nil {
		var err error
		if d.Stamps, err = d.Input.Stamp(); err != nil {
			return err
		}
	}
	return nil
}

// readInput is called once a job that read the input files is done: a
// file that changed meanwhile is an error.
func (d *Driver) readInput(st pipeline.Stage) error {
	if st.Input != "" {
		return nil
	}
	return d.Stamps.Changed()
}

// addInputCounters adds InputCounters (those not 0) to the counters of a
// job that read the input files.
func (d *Driver) addInputCounters(st pipeline.Stage, counters map[string]int64) {
	if st.Input != "" || counters == nil {
		return
	}
	for k, v := range d.InputCounters {
		if v != 0 {
			counters[k] += v
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, v := range d.containers.ContainerCounters() {
		counters[k] += v
	}
}

// Close removes Scratch, once Prepare has run (before it, the output
// directory may not be pdc's).
func (d *Driver) Close() error {
	if d.prog == nil || d.Scratch == "" {
		return nil
	}
	return os.RemoveAll(d.Scratch)
}

// Run runs one step.
func (d *Driver) Run(ctx context.Context, s pipeline.Step, done func(pipeline.Job) error) error {
	names := []string{s.Name()}
	for _, st := range s.Stages {
		names = append(names, st.JobName())
	}
	for _, name := range names {
		if err := pipeline.Hold(ctx, d.Fault, name); err != nil {
			return err
		}
	}
	switch s.Fusion {
	case pipeline.Feeding:
		return d.feeding(ctx, s, done)
	case pipeline.Chained:
		return d.single(ctx, s, s.Stages[0], &s.Stages[1], done)
	}
	return d.single(ctx, s, s.Stages[0], nil, done)
}

// single runs stage st, with stage then chained onto its reduce tasks when
// then is not nil (the output is then's).
func (d *Driver) single(ctx context.Context, s pipeline.Step, st pipeline.Stage, then *pipeline.Stage, done func(pipeline.Job) error) error {
	job, err := d.job(s, st, then, false)
	if err != nil {
		return err
	}
	t0 := time.Now()
	counters, err := d.Runner.Run(ctx, job)
	d.prog.done()
	if err != nil {
		return err // the runner's error names the job and task
	}
	if err := d.readInput(st); err != nil {
		return err
	}
	d.addInputCounters(st, counters)
	return done(pipeline.Job{Name: job.Name, Dir: job.Output, Counters: counters, Took: time.Since(t0)})
}

// feeding runs the step's first stage, whose mappers also write the second
// stage's map output (Stage.Feeds), then the second's reduce phase.
func (d *Driver) feeding(ctx context.Context, s pipeline.Step, done func(pipeline.Job) error) error {
	job, err := d.job(s, s.Stages[0], nil, false)
	if err != nil {
		return err
	}
	fed, err := d.job(s, s.Stages[1], nil, true)
	if err != nil {
		return err
	}
	// The feeding mappers sum their counts themselves (the stats
	// Collector holds a task's counts until it ends), so a combiner would
	// find nothing to sum; the reducer sums whatever it gets.
	fed.Combine = nil
	t0 := time.Now()
	counters, feed, err := d.Runner.RunFeeding(ctx, job, fed)
	d.prog.done()
	if err != nil {
		return err
	}
	defer feed.Close()
	if err := d.readInput(s.Stages[0]); err != nil {
		return err
	}
	d.addInputCounters(s.Stages[0], counters)
	if err := done(pipeline.Job{Name: job.Name, Dir: job.Output, Counters: counters, Took: time.Since(t0)}); err != nil {
		return err
	}
	t0 = time.Now()
	counters, err = feed.Run(ctx)
	d.prog.done()
	if err != nil {
		return err
	}
	return done(pipeline.Job{Name: fed.Name, Dir: fed.Output, Counters: counters, Took: time.Since(t0)})
}

// job returns the local job of stage st (with then chained onto it). A
// fed job (RunFeeding) has no inputs.
func (d *Driver) job(s pipeline.Step, st pipeline.Stage, then *pipeline.Stage, fed bool) (*mrlocal.Job, error) {
	name, dir := st.JobName(), filepath.Join(s.Out, st.OutputDir())
	if then != nil {
		name, dir = s.Name(), s.Dir()
	}
	var splits []mrlocal.Split
	var err error
	var size int64 // split size; small files are packed up to it (local.Job.PackSize)
	workers := d.Runner.Workers
	switch {
	case fed:
	case st.Input == "":
		size = splitSize(d.SplitSize, d.Input.Bytes, workers)
		splits, err = d.inputSplits(size)
	default:
		var parts []string
		dirs := []string{filepath.Join(s.Out, st.Input)}
		for _, in := range st.Extra {
			dirs = append(dirs, filepath.Join(s.Out, in))
		}
		dirs = append(dirs, s.StoredInputs(st)...)
		for _, dir := range dirs {
			var p []string
			if p, err = pipeline.PartFiles(hdfsfs.Local(), dir); err != nil {
				break
			}
			parts = append(parts, p...)
		}
		if err == nil {
			size = splitSize(d.SplitSize, totalSize(parts), workers)
			if st.WholeFiles {
				size = 0 // one split per file, never cut (local.FileSplits)
			}
			splits, err = mrlocal.FileSplits(parts, size)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", name, err)
	}
	job := &mrlocal.Job{
		Name:            name,
		KeyFields:       st.KeyFields,
		PartitionFields: st.PartitionFields,
		Reducers:        d.Reducers,
		Env:             d.Env,
		Inputs:          splits,
		Output:          dir,
		InputKeys:       st.InputKeys,
	}
	if len(st.Side) > 0 {
		// The tasks find the side inputs in the step's output directory.
		job.Env = maps.Clone(d.Env)
		job.Env[jobconf.EnvSide] = s.Out
	}
	job.Map, _ = pipeline.Program("map", st.Name)
	if !st.MapOnly {
		job.Reduce, _ = pipeline.Program("reduce", st.Name)
	}
	if !st.WholeFiles {
		job.PackSize = size
	}
	if st.Input == "" && !fed && st.SkipsLongLines {
		job.MaxLine, job.LongLineCounters = d.MaxLine, parse.LongLineCounters
	}
	if st.Combine {
		job.Combine, _ = pipeline.Program("combine", st.Name)
	}
	if then != nil {
		job.Reduce, _ = pipeline.Program("reduce", s.Name())
		job.OutputKeyFields = s.ChainedKeyFields()
	}
	return job, nil
}

// inputSplits returns the parse job's splits: JSON Lines files cut at
// size, then every other source (container files, batches of tree files)
// rendered as JSON Lines on the fly. Rendered splits may be shared out
// between map tasks (Divisible): one big WARC file does not hold the parse
// job to one core. A container file read to the end reports its counts on
// Stderr: the parse job cannot count what never reaches it.
func (d *Driver) inputSplits(size int64) ([]mrlocal.Split, error) {
	sp, err := mrlocal.FileSplits(d.Input.JSONL, size)
	if err != nil {
		return nil, err
	}
	others := &input.Set{Containers: d.Input.Containers, Tree: d.Input.Tree}
	for _, op := range others.Sources() {
		sp = append(sp, mrlocal.Split{Name: op.Name, Length: op.Size, Divisible: true, Open: func() (io.ReadCloser, error) {
			src, err := op.Open(d.Read)
			if err != nil {
				return nil, err
			}
			report := func(c input.Counts) {
				if len(c.Decoded) > 0 { // text files that were not UTF-8
					d.mu.Lock()
					fmt.Fprintf(d.Stderr, "pdc: input %s: %s\n", op.Name, c.Summary())
					d.mu.Unlock()
				}
			}
			if op.Container {
				report = func(c input.Counts) {
					d.mu.Lock()
					fmt.Fprintf(d.Stderr, "pdc: input %s: %s\n", op.Name, c.Summary())
					d.containers.Add(c)
					d.mu.Unlock()
				}
			}
			return input.Lines(src, report), nil
		}})
	}
	return sp, nil
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

// TuneGC trades memory for speed in the local runner: a GC target of 200%
// (the pipeline allocates many short-lived records) under a soft memory
// limit of 3x the sort buffer (at least 768 MiB), unless GOGC or
// GOMEMLIMIT say otherwise. Measured on 100 MB of HTML: 10% less time,
// peak RSS 585 MiB instead of 540 MiB.
func TuneGC(getenv func(string) string, sortMem int64) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(max(3*sortMem, 768<<20))
	}
}
