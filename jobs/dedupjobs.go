package jobs

// pdc dedup --jobs (the default for a run made with --hadoop): CLEAN is
// written by MapReduce jobs on the run's runner, the documents never pass
// through pdc's own process. CLEAN gets, each directory with _SUCCESS once
// its job succeeded:
//
//	CLEAN/docs/part-NNNNN     the documents without their removed ranges,
//	                          by document id: docs.jsonl's lines, each
//	                          followed by a TAB (below)
//	CLEAN/removed/part-NNNNN  removed.tsv's lines, without its header
//
// Hadoop's text output writes a line without a TAB as a key with an empty
// value, and so ends it with the TAB that separates them (an empty
// separator is not taken); the local runner does as Hadoop does. JSON
// readers take the TAB for white space, and pdc reads CLEAN/docs as input
// (lib/input: a job output's part files are JSON Lines).
//
// The jobs (jobs/pipeline DedupStages, mappers/dedup, reducers/dedup) read
// the plan this process writes (CLEAN/_plan: the clusters, with the run's
// exact copies as clusters of whole documents, and the kept member of
// each; of a batch run, the batch's ids and what --stored-clean withdraws) and the kept members' records the first job writes
// (CLEAN/_kept); when the run has exact copies, or --keep is longest or
// earliest, a job first reads the documents' lengths and dates
// (CLEAN/_facts, CLEAN/_factsout). These are removed at the end.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/jobs/hadoop"
	"github.com/pdc-mr/pdc/jobs/local"
	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/clean"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/copies"
	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	mrlocal "github.com/pdc-mr/pdc/lib/mr/local"
)

// The directories of CLEAN written by pdc dedup --jobs.
const (
	dedupDocsDir    = "docs"
	dedupRemovedDir = "removed"
)

// dedupJobs writes CLEAN by jobs: see above.
func (m *Main) dedupJobs(ctx context.Context, o dedupOptions, r *runOutput, cs []cluster.Cluster) error {
	cfg := r.ConfigOrDefault()
	d, fsys, clean, closeDriver, err := m.dedupDriver(ctx, o, r, cfg)
	if err != nil {
		return err
	}
	defer closeDriver()
	lock, err := pipeline.AcquireLock(fsys, clean, pipeline.ThisProcess("pdc dedup"), false)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	defer lock.Release()
	if err := prepareCleanJobs(fsys, clean, o); err != nil {
		return err
	}
	if err := d.Prepare(ctx); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	var counters map[string]int64
	run := func(stages ...pipeline.Stage) error {
		jobs, err := pipeline.RunStages(ctx, d, clean, stages, m.Stderr, o.quiet)
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		for _, j := range jobs {
			if j.Name == "dedup-docs" {
				counters = j.Counters
			}
		}
		return nil
	}
	cps, err := copies.Read(r.FS, r.Dir)
	if err != nil {
		return err
	}
	need := map[string]bool{}
	for _, c := range cps {
		need[c.Doc], need[c.Of] = true, true
	}
	if o.keep != dedup.KeepFirst {
		for _, c := range cs {
			for _, mem := range c.Members {
				need[mem.Doc] = true
			}
		}
	}
	lengths, dates := map[string]int{}, map[string]string{}
	if len(need) > 0 {
		if err := writeSide(fsys, clean+"/"+dedup.FactsFile, func(w io.Writer) error {
			return dedup.WriteFacts(w, slices.Sorted(maps.Keys(need)), o.dateField)
		}); err != nil {
			return err
		}
		if err := run(pipeline.DedupFactsStage()); err != nil {
			return err
		}
		if err := readFacts(fsys, clean+"/"+dedup.FactsDir, lengths, dates); err != nil {
			return err
		}
	}
	cs = append(copies.Clusters(cps, lengths), cs...)
	kept, undated := o.keepRule().Choose(cs, lengths, dates)
	kept = dedup.Coordinate(cs, kept, o.withdrawn)
	plan := dedup.PlanInput{Clusters: cs, Kept: kept, MinWords: cfg.MinTokens, DropEmpty: o.dropEmpty, Withdrawn: o.withdrawn}
	if o.batch != nil {
		plan.Batch = slices.Sorted(maps.Keys(o.batch))
		plan.Replaced = slices.Sorted(maps.Keys(o.replaced))
		for n, ins := range o.byRun {
			for _, in := range ins {
				plan.Sources = append(plan.Sources, dedup.Source{Batch: n, Path: in})
			}
		}
	}
	if err := writeSide(fsys, clean+"/"+dedup.PlanFile, func(w io.Writer) error { return dedup.WritePlan(w, plan) }); err != nil {
		return err
	}
	if err := run(pipeline.DedupStages()...); err != nil {
		return err
	}
	st, err := checkRemoved(fsys, clean, plan, counters)
	if err != nil {
		return err
	}
	for _, name := range []string{dedup.PlanFile, dedup.KeptDir, dedup.FactsFile, dedup.FactsDir, "_tmp"} {
		if err := fsys.RemoveAll(clean + "/" + name); err != nil {
			return fmt.Errorf("dedup: %w", hdfsfs.UnwrapPath(err))
		}
	}
	if err := writeCleanManifest(fsys, clean, r, o); err != nil {
		return err
	}
	return m.dedupDone(st, o, undated)
}

// dedupDriver returns the driver of the dedup jobs of run r: Hadoop for a
// run made with --hadoop (CLEAN on its HDFS), else the local runner, with
// CLEAN's file system and path there, and what to call when done.
func (m *Main) dedupDriver(ctx context.Context, o dedupOptions, r *runOutput, cfg jobconf.Config) (pipeline.Driver, hdfsfs.FS, string, func(), error) {
	inputs := o.inputs
	if r.man != nil && r.man.Hadoop {
		streaming, err := hadoop.FindStreaming(m.Getenv)
		if err != nil {
			return nil, nil, "", nil, fmt.Errorf("dedup: the run was made on Hadoop, and its dedup runs there: %w (or give --jobs=false to write CLEAN through this process)", err)
		}
		fsys, clean, err := hdfsfs.Resolve(o.clean, true)
		if err != nil {
			return nil, nil, "", nil, fmt.Errorf("dedup: output %s: %w", o.clean, err)
		}
		if !strings.HasPrefix(clean, "/") || strings.ContainsAny(clean, ",*?[]{}\\") {
			return nil, nil, "", nil, usagef("dedup --jobs: --output must be an HDFS path without Hadoop's glob characters (hdfs://HOST:PORT/PATH or /PATH), got %q", o.clean)
		}
		bin, err := shippableBinary(m.Getenv)
		if err != nil {
			return nil, nil, "", nil, err
		}
		for _, in := range inputs {
			if !m.isRemote(in) {
				return nil, nil, "", nil, usagef("dedup --jobs: input %s is not on HDFS (the jobs read the run's documents there)", in)
			}
		}
		progress := m.Stderr
		if o.quiet {
			progress = io.Discard
		}
		sub, ticket, err := m.submitter(streaming, progress)
		if err != nil {
			return nil, nil, "", nil, err
		}
		reducers := o.reducers
		if reducers < 1 {
			reducers = 2
		}
		d := &hadoop.Driver{Submitter: sub, FileSystem: fsys, Out: clean, URI: hdfsURI(o.clean), Binary: bin, Inputs: inputs,
			Config: cfg, Fault: m.Getenv("PDC_FAULT"), Reducers: reducers, Queue: o.queue, Stderr: m.Stderr, Quiet: o.quiet}
		done := func() {
			if ticket != nil {
				ticket.Close()
			}
		}
		return d, fsys, clean, done, nil
	}
	if o.queue != "" {
		return nil, nil, "", nil, usagef("dedup: --queue is for runs made with --hadoop (the local runner has no queues)")
	}
	if m.isRemote(o.clean) {
		return nil, nil, "", nil, usagef("dedup --jobs: the run %s was made by the local runner: give a local --output (CLEAN on HDFS is written by the jobs of a run made with --hadoop)", r.arg)
	}
	in, err := input.FindAny(inputs, m.isRemote, o.filter)
	if err != nil {
		return nil, nil, "", nil, fmt.Errorf("dedup: %w", err)
	}
	workers := max(1, o.workers)
	reducers := o.reducers
	if reducers < 1 {
		reducers = 2 * workers
	}
	clean := filepath.Clean(o.clean)
	d := &local.Driver{
		Runner:   &mrlocal.Runner{Workers: workers, SortMem: 256 << 20, TempDir: filepath.Join(clean, "_tmp"), Stderr: input.Positions(m.Stderr)},
		Input:    in,
		Env:      cfg.Env(),
		Read:     input.Options{},
		Reducers: reducers,
		Stderr:   m.Stderr,
		Quiet:    o.quiet,
		Scratch:  filepath.Join(clean, "_tmp"),
		Fault:    m.Getenv("PDC_FAULT"),
	}
	return d, hdfsfs.Local(), clean, func() { d.Close() }, nil
}

// prepareCleanJobs checks CLEAN for pdc dedup --jobs (new, empty, or with
// --overwrite a previous pdc dedup's) and creates it.
func prepareCleanJobs(fsys hdfsfs.FS, dir string, o dedupOptions) error {
	fi, err := fsys.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("dedup: output %s: %w", o.clean, hdfsfs.UnwrapPath(err))
	case !fi.IsDir():
		return fmt.Errorf("dedup: output %s is a file: give a directory (it gets %s/ and %s/)", o.clean, dedupDocsDir, dedupRemovedDir)
	default:
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("dedup: output %s: %w", o.clean, hdfsfs.UnwrapPath(err))
		}
		switch {
		case len(ents) == 0:
		case !o.overwrite:
			return fmt.Errorf("dedup: output %s already exists and is not empty (use --overwrite to replace a previous pdc dedup there)", o.clean)
		case !isDedupJobsDir(ents):
			return fmt.Errorf("dedup: output %s holds other files than a pdc dedup (%s/, %s/): choose a new or empty directory", o.clean, dedupDocsDir, dedupRemovedDir)
		}
		for _, e := range ents {
			if err := fsys.RemoveAll(dir + "/" + e.Name()); err != nil {
				return fmt.Errorf("dedup: output %s: %w", o.clean, hdfsfs.UnwrapPath(err))
			}
		}
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dedup: output %s: %w", o.clean, hdfsfs.UnwrapPath(err))
	}
	return nil
}

// isDedupJobsDir reports whether a directory holds only what pdc dedup
// writes, with or without --jobs (and what an interrupted one leaves).
func isDedupJobsDir(ents []fs.FileInfo) bool {
	for _, e := range ents {
		switch e.Name() {
		case dedupDocsDir, dedupRemovedDir, dedup.PlanFile, dedup.KeptDir, dedup.FactsFile, dedup.FactsDir, "_tmp":
			continue
		}
		if e.IsDir() || !isDedupDir([]fs.FileInfo{e}) {
			return false
		}
	}
	return true
}

// writeSide writes a side input of the jobs, the file part-00000 of
// directory name.
func writeSide(fsys hdfsfs.FS, name string, write func(io.Writer) error) error {
	if err := fsys.MkdirAll(name, 0o755); err != nil {
		return fmt.Errorf("dedup: %w", hdfsfs.UnwrapPath(err))
	}
	f, err := hdfsfs.CreateAtomic(fsys, name+"/part-00000")
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("dedup: write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	return nil
}

// readFacts reads the facts job's output into lengths and dates (those
// not empty).
func readFacts(fsys hdfsfs.FS, dir string, lengths map[string]int, dates map[string]string) error {
	return eachPartLine(fsys, dir, func(name string, n int64, line []byte) error {
		id, chars, date, err := dedup.ParseFact(line)
		if err != nil {
			return fmt.Errorf("dedup: %s line %d: %w", name, n, err)
		}
		lengths[id] = chars
		if date != "" {
			dates[id] = date
		}
		return nil
	})
}

// eachPartLine calls f with every line of the part files of dir.
func eachPartLine(fsys hdfsfs.FS, dir string, f func(name string, n int64, line []byte) error) error {
	parts, err := pipeline.PartFiles(fsys, dir)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	for _, p := range parts {
		rc, err := fsys.Open(p)
		if err != nil {
			return fmt.Errorf("dedup: %w", hdfsfs.UnwrapPath(err))
		}
		r := mr.NewReader(bufio.NewReaderSize(rc, 1<<16))
		for r.Next() {
			if err := f(p, r.LineNumber(), r.Line()); err != nil {
				rc.Close()
				return err
			}
		}
		rc.Close()
		if err := r.Err(); err != nil {
			return fmt.Errorf("dedup: read %s: %w", p, err)
		}
	}
	return nil
}

// checkRemoved counts what the jobs did (the docs job's counters) and
// checks, from CLEAN's removed ranges, that no kept range was cut from its
// own document (the jobs checked each range against its kept text).
func checkRemoved(fsys hdfsfs.FS, cleanDir string, plan dedup.PlanInput, c map[string]int64) (clean.Stats, error) {
	var st clean.Stats
	st.Docs = c["dedup.docs.read"]
	st.Skipped = map[string]int64{}
	for k, v := range c {
		if reason, ok := strings.CutPrefix(k, "dedup.docs.skipped."); ok {
			st.Skipped[reason] = v
		}
	}
	st.Written, st.Dups, st.Unparsable = c["dedup.docs.written"], c["dedup.docs.duplicate-id"], c["dedup.docs.unparsable"]
	st.Emptied, st.Dropped, st.Truncated = c["dedup.docs.emptied"], c["dedup.docs.dropped"], c["dedup.docs.truncated"]
	st.Passages, st.DocsCut, st.Chars, st.Removed = c["dedup.ranges"], c["dedup.docs.cut"], c["dedup.chars"], c["dedup.chars.removed"]
	st.Members, st.Unaligned, st.NotHeld = c["dedup.members"], c["dedup.unaligned"], c["dedup.not-held"]
	p := dedup.NewPlan(plan.Clusters, plan.Kept, plan.MinWords)
	p.Stored(plan.Withdrawn)
	batch := map[string]bool{}
	for _, id := range plan.Batch {
		batch[id] = true
	}
	for id := range p.Need() {
		if plan.Batch == nil || batch[id] {
			st.ClusterDocs++
		}
	}
	if n := c["dedup.docs.clustered"]; n < int64(st.ClusterDocs) {
		for _, dir := range []string{dedupDocsDir, dedupRemovedDir} {
			fsys.RemoveAll(cleanDir + "/" + dir)
		}
		return st, fmt.Errorf("dedup: %d of the %d documents of the clusters are not among the documents read, or cannot be read (give the run's documents with --input)", int64(st.ClusterDocs)-n, st.ClusterDocs)
	}
	v := dedup.NewVerifier(p)
	var doc string
	var o dedup.Outcome
	err := eachPartLine(fsys, cleanDir+"/"+dedupRemovedDir, func(name string, n int64, line []byte) error {
		id, rm, err := dedup.ParseRemoval(line)
		if err != nil {
			return fmt.Errorf("dedup: %s line %d: %w", name, n, err)
		}
		if id != doc && len(o.Removals) > 0 {
			v.Record(doc, o, nil)
			o.Removals = o.Removals[:0]
		}
		doc = id
		o.Removals = append(o.Removals, rm)
		if plan.Batch != nil && rm.Reason == dedup.ReasonCopy && !batch[rm.Kept.Doc] {
			st.AgainstStored++
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if len(o.Removals) > 0 {
		v.Record(doc, o, nil)
	}
	v.Done()
	st.Verified = v.Ranges
	st.Violations = v.Violations + int(c["dedup.check.violations"])
	st.FirstViolation = v.First
	if st.FirstViolation == "" && st.Violations > 0 {
		st.FirstViolation = "see the dedup-docs tasks' logs"
	}
	return st, nil
}
