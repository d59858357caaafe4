package jobs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// runOutput is the output directory of pdc run as a command that reads it
// opens it, once: its file system, its path there and its _pdc.json (read
// once; a directory without a readable one, such as a copy of the spans
// alone, gives the defaults and no inputs).
type runOutput struct {
	m      *Main
	arg    string // OUT as given, without a trailing "/" or "/spans"
	FS     hdfsfs.FS
	Dir    string // OUT's path on FS
	man    *pipeline.Manifest
	manErr error
}

// openRun opens the output directory of a run, given as OUT or OUT/spans.
func (m *Main) openRun(out string) (*runOutput, error) {
	arg := strings.TrimSuffix(strings.TrimSuffix(out, "/"), "/spans")
	fsys, p, err := hdfsfs.Resolve(arg, m.isRemote(arg))
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", arg, err)
	}
	r := &runOutput{m: m, arg: arg, FS: fsys, Dir: p}
	r.man, r.manErr = pipeline.ReadManifest(fsys, p)
	return r, nil
}

// openRunDir is openRun for command cmd, which needs a run's output
// directory: one that is not there, or holds neither the run's manifest
// nor its spans, is an error that says so (a tree of documents given for
// OUT, a mistyped path), not a later one about its missing parts.
func (m *Main) openRunDir(cmd, out string) (*runOutput, error) {
	r, err := m.openRun(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	fi, err := r.FS.Stat(r.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %s: no such directory (give the --output directory of a pdc run)", cmd, r.arg)
	case err != nil:
		return nil, fmt.Errorf("%s: %s: %w", cmd, r.arg, hdfsfs.UnwrapPath(err))
	case !fi.IsDir():
		return nil, fmt.Errorf("%s: %s is a file, not the output directory of a pdc run", cmd, r.arg)
	case r.man != nil:
		return r, nil
	}
	for _, name := range []string{"spans", "clusters", "_SUCCESS"} { // a run without its manifest, or its spans directory
		if _, err := r.FS.Stat(r.Dir + "/" + name); err == nil {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%s: %s is not the output of a pdc run (no %s, no spans/ or clusters/): give the --output directory of pdc run", cmd, r.arg, pipeline.ManifestFile)
}

// Config returns the run's job parameters, from its _pdc.json.
func (r *runOutput) Config() (jobconf.Config, error) {
	if r.manErr != nil {
		return jobconf.Config{}, r.manErr
	}
	return r.man.Config()
}

// ConfigOrDefault returns Config, or the defaults when the run has no
// readable _pdc.json.
func (r *runOutput) ConfigOrDefault() jobconf.Config {
	cfg, err := r.Config()
	if err != nil {
		return jobconf.Default()
	}
	return cfg
}

// Filter is the selection of files under input directories that the run
// was made with (--include, --exclude), or none.
func (r *runOutput) Filter() input.Filter {
	if r.manErr != nil {
		return input.Filter{}
	}
	return input.Filter{Include: r.man.Include, Exclude: r.man.Exclude}
}

// Analyzer returns the run's analyzer (jobconf Config Analyzer; the
// defaults without a readable _pdc.json). A run made with --extract main
// needs main-content extraction: a binary without it hands the command
// (cmdline) over to pdc-extract (needMain), and the *handedOver error is
// to be returned as is.
func (r *runOutput) Analyzer(ctx context.Context, cmdline []string) (*doc.Analyzer, error) {
	an := r.ConfigOrDefault().Analyzer()
	if an.Main {
		if err := r.m.needMain(ctx, cmdline); err != nil {
			return nil, err
		}
	}
	return an, nil
}

// Inputs returns the run's documents, from its _pdc.json: the uploaded
// copy (OUT/input) for Hadoop runs when there is one, else the inputs as
// given; for a batch run, those of the stored runs it ran against too,
// before its own.
//
// Local input files that changed since the run (their size or modification
// time, recorded in _pdc.json) are an error, or a warning with --force
// (forceFlag): the run's offsets may no longer fit their text.
func (r *runOutput) Inputs() (docRuns, error) {
	return r.inputsByRun()
}

// docRuns are the documents a command reads: the inputs of each run of a
// chain, each with its run's --include/--exclude (runOutput.Inputs: a batch
// run's stored runs first, its own last), or the --input paths given (one
// run, given). findDocs reads them so that of the records of one id the
// first read is the one the run kept.
type docRuns []input.Run

// given returns the --input paths as docRuns, local ones made absolute as
// a run records and reads them (pdc run), nil when there are none.
func (m *Main) given(paths []string) docRuns {
	if len(paths) == 0 {
		return nil
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = p
		if !m.isRemote(p) {
			abs[i] = absAll([]string{p})[0]
		}
	}
	return docRuns{{Paths: abs}}
}

// docsOf returns the documents a command reads for run r: the --input
// paths given, else the run's (Inputs). A batch run's documents are those
// of every run of its chain, each read with its run: --input is refused
// for one, in a line that cmd begins.
func (m *Main) docsOf(r *runOutput, inputs []string, cmd string) (docRuns, error) {
	if len(inputs) == 0 {
		return r.Inputs()
	}
	if r.manErr == nil && len(r.man.Against) > 0 {
		return nil, usagef("%s: %s is a batch run: its documents are those of every run of its chain, read from their _pdc.json; leave --input out", cmd, r.arg)
	}
	return m.given(inputs), nil
}

// String lists the paths, comma separated.
func (d docRuns) String() string {
	var all []string
	for _, run := range d {
		all = append(all, run.Paths...)
	}
	return strings.Join(all, ",")
}

// paths returns each run's paths.
func (d docRuns) paths() [][]string {
	var out [][]string
	for _, run := range d {
		out = append(out, run.Paths)
	}
	return out
}

// findDocs finds the documents of d (input.FindRuns).
func (m *Main) findDocs(d docRuns) (*input.Set, error) {
	return input.FindRuns(d, m.isRemote)
}

// inputsByRun returns Inputs by run: for a batch run, each stored run's
// (its batch number the index), then its own (the last); else its own.
func (r *runOutput) inputsByRun() (docRuns, error) {
	own, err := r.ownInputs()
	if err != nil {
		return nil, err
	}
	if err := pipeline.CheckStored(r.FS, r.arg, *r.man); err != nil {
		return nil, err
	}
	// The stored runs' inputs first, oldest first, then the batch's: a
	// reader taking the first record of an id takes the one the run kept
	// (lib/doc AppendOrder: a batch does not replace a stored id).
	var byRun docRuns
	for _, a := range r.man.Against {
		s := &runOutput{m: r.m, arg: a, FS: r.FS, Dir: a}
		if s.man, s.manErr = pipeline.ReadManifest(r.FS, a); s.manErr != nil {
			return nil, fmt.Errorf("stored run %s of the batch run %s: %w", a, r.arg, s.manErr)
		}
		if r.FS != hdfsfs.Local() {
			s.arg = hdfsURI(r.arg) + a
		}
		sin, err := s.ownInputs()
		if err != nil {
			return nil, err
		}
		byRun = append(byRun, input.Run{Paths: sin, Filter: s.Filter()})
	}
	return append(byRun, input.Run{Paths: own, Filter: r.Filter()}), nil
}

// ownInputs is Inputs without the stored runs'.
func (r *runOutput) ownInputs() ([]string, error) {
	m := r.m
	if r.manErr != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("give --input DOCS (the run's documents): %s has no readable _pdc.json to find them: %v", r.arg, hdfsfs.UnwrapPath(r.manErr))}
	}
	if err := r.man.Stamps.ChangedSince(); err != nil {
		if !m.force {
			return nil, fmt.Errorf("%w; run pdc run again, or give --force to read the files as they are now", err)
		}
		fmt.Fprintf(m.Stderr, "pdc: warning: %v (--force)\n", err)
	}
	if r.FS != hdfsfs.Local() {
		if _, err := r.FS.Stat(r.Dir + "/input/_SUCCESS"); err == nil {
			var in []string
			for _, i := range r.man.Inputs {
				if m.isRemote(i) {
					in = append(in, i)
				}
			}
			return append(in, strings.TrimSuffix(r.arg, "/")+"/input"), nil
		}
	}
	return r.man.Inputs, nil
}

// batchDocs returns the ids of a batch run's own documents: those of its
// parsed records (OUT/parsed holds the batch's alone).
func batchDocs(r *runOutput) (map[string]bool, error) {
	if !pipeline.Succeeded(r.FS, r.Dir+"/parsed") {
		return nil, fmt.Errorf("dedup: the batch run %s has no finished parsed/ (its documents' records): rerun it", r.arg)
	}
	return parsedIDs(r.FS, r.Dir+"/parsed", nil)
}

// storedDocs returns the ids of the documents a batch run's stored runs
// hold: those of their parsed records.
func storedDocs(r *runOutput) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, a := range r.man.Against {
		if _, err := parsedIDs(r.FS, a+"/parsed", ids); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// parsedIDs adds to ids (made when nil) the ids of the parsed records
// (lib/doc) of the part files of dir, and returns it.
func parsedIDs(fsys hdfsfs.FS, dir string, ids map[string]bool) (map[string]bool, error) {
	if ids == nil {
		ids = map[string]bool{}
	}
	err := eachPartLine(fsys, dir, func(name string, n int64, line []byte) error {
		rec, err := doc.SplitRecord(line)
		if err != nil {
			return fmt.Errorf("dedup: %s line %d: %w", name, n, err)
		}
		id, err := mr.Unescape(string(rec.ID))
		if err != nil {
			return fmt.Errorf("dedup: %s line %d: %w", name, n, err)
		}
		ids[id] = true
		return nil
	})
	return ids, err
}
