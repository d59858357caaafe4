package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/report"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/span"
)

// reportCmd is `pdc report OUT --output DIR`: the HTML report of a run
// (lib/report), from its output directory, locally or on HDFS, and its
// documents for the passages (--input, else the run's inputs).
func (m *Main) reportCmd(ctx context.Context, args []string) error {
	opts := report.DefaultOptions()
	var inputs listFlag
	var output string
	var overwrite bool
	fs := m.newFlagSet("report", "OUT --output DIR [--input DOCS] [flags]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.StringVar(&output, "output", "", "directory of the report (index.html, a page per pair, style.css), created")
	fs.Var(&inputs, "input", "the run's documents, for the passages (default: the run's inputs); repeatable")
	fs.BoolVar(&overwrite, "overwrite", false, "replace an existing report directory")
	fs.IntVar(&opts.TopPairs, "top-pairs", opts.TopPairs, "document pairs listed and given a page")
	fs.IntVar(&opts.TopBoilerplate, "top-boilerplate", opts.TopBoilerplate, "boilerplate signatures listed")
	fs.IntVar(&opts.MaxText, "max-text", opts.MaxText, "characters shown of each stretch between spans in a pair view (spans are shown whole)")
	fs.IntVar(&opts.TopClusters, "top-clusters", opts.TopClusters, "passage clusters listed (a run with --clusters)")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("report: want exactly one run output directory")
	case output == "":
		return usagef("report: --output DIR is required")
	case opts.TopPairs < 0 || opts.TopBoilerplate < 0 || opts.TopClusters < 0 || opts.MaxText < 1:
		return usagef("report: --top-pairs, --top-boilerplate and --top-clusters must be >= 0, --max-text >= 1")
	}
	out := fs.Arg(0)
	r, err := m.openRunDir("report", out)
	if err != nil {
		return err
	}
	run, err := readRun(r, out, opts.TopClusters)
	if err != nil {
		return err
	}
	// The pairs are streamed: the report holds the top ones and counts.
	tally := report.NewTally(opts.TopPairs)
	if err := span.StreamPairs(r.FS, r.Dir, func(p span.DocPair) error { tally.Add(p); return nil }); err != nil {
		return err
	}
	var runDocs docRuns
	if len(inputs) > 0 {
		if runDocs, err = m.docsOf(r, inputs, "report"); err != nil {
			return err
		}
	} else {
		runDocs = m.given(run.Inputs)
		mi, err := r.Inputs()
		var u *UsageError
		switch {
		case err == nil:
			runDocs = mi
		case !errors.As(err, &u): // the inputs changed since the run
			return err
		}
	}
	top := tally.Top()
	need := map[string]bool{}
	for _, p := range top {
		need[p.A], need[p.B] = true, true
	}
	for _, c := range opts.ListedClusters(run.Clusters) {
		need[c.Earliest().Doc] = true
	}
	_, ids := opts.ListedBoilerplate(run.Boilerplate)
	for _, id := range ids {
		need[id] = true
	}
	docs := map[string]report.Doc{}
	if len(need) > 0 {
		an, err := r.Analyzer(ctx, append([]string{"report"}, args...))
		if err != nil {
			return err
		}
		minTokens := r.ConfigOrDefault().MinTokens
		var tok sentence.Tokenizer
		err = m.analyzeNeeded(need, runDocs, an, func(d *doc.Doc, a doc.Analysis) {
			docs[strings.Clone(d.ID)] = report.Doc{Text: strings.Clone(a.Text), URL: d.URL, Content: span.ContentOf(a, minTokens),
				Sentences: dedup.Sentences(a, &tok, minTokens)}
		})
		if err != nil {
			return fmt.Errorf("report: read the documents (give them with --input): %w", err)
		}
	}
	if err := prepareReportDir(output, overwrite); err != nil {
		return err
	}
	site := &report.Site{Opts: opts, Generated: time.Now(), Create: func(name string) (io.WriteCloser, error) {
		return hdfsfs.CreateAtomic(hdfsfs.Local(), filepath.Join(output, name))
	}}
	if err := site.Write(run, tally, docs); err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "pdc: report of %s in %s/index.html (%d document pairs, %d with a page)\n", out, output, tally.Pairs(), len(top))
	return nil
}

// prepareReportDir creates the report directory; an existing one must be
// empty, or a pdc report (its index.html names report.Generator) with
// overwrite.
func prepareReportDir(dir string, overwrite bool) error {
	ents, err := os.ReadDir(dir)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return fmt.Errorf("report %s: %w", dir, err)
	case len(ents) == 0:
	case !overwrite:
		return fmt.Errorf("report %s already exists (use --overwrite to replace it)", dir)
	default:
		index, err := os.ReadFile(filepath.Join(dir, "index.html"))
		if err != nil || !strings.Contains(string(index), `<meta name="generator" content="`+report.Generator+`">`) {
			return fmt.Errorf("report %s exists and is not a pdc report: choose a new or empty directory", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("report %s: %w", dir, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report %s: %w", dir, err)
	}
	return nil
}

// readRun reads what the report shows of run r (given as out) but its
// pairs: counters, jobs, parameters, boilerplate report and the
// topClusters largest clusters.
func readRun(r *runOutput, out string, topClusters int) (report.Run, error) {
	fsys, root := r.FS, r.Dir
	run := report.Run{Out: strings.TrimSuffix(out, "/")}
	man, err := r.man, r.manErr
	if err != nil {
		return run, fmt.Errorf("report: %s is not the output of pdc run: %w", out, hdfsfs.UnwrapPath(err))
	}
	run.Inputs, run.Against = man.Inputs, man.Against
	for _, kv := range man.Env {
		k, v, _ := strings.Cut(kv, "=")
		if k != "PDC_STATS" && k != "PDC_SEEDS" && k != "PDC_BATCH" {
			run.Params = append(run.Params, report.Param{Name: pipeline.FlagName(k), Value: v})
		}
	}
	if run.Counters, err = pipeline.ReadCounters(fsys, root+"/counters.tsv"); err != nil {
		return run, fmt.Errorf("report: %s: the run did not finish (rerun pdc run to resume): %w", out, hdfsfs.UnwrapPath(err))
	}
	if jobs, err := pipeline.ReadJobs(fsys, root); err == nil {
		for _, j := range jobs {
			secs := j.Took.Seconds()
			if j.Skipped {
				secs = -1
			}
			run.Jobs = append(run.Jobs, report.Job{Name: j.Name, Seconds: secs, ID: j.ID})
		}
	}
	if data, err := hdfsfs.ReadFile(fsys, root+"/boilerplate.tsv"); err == nil {
		rows, err := boilerplate.Read(bytes.NewReader(data))
		if err != nil {
			return run, fmt.Errorf("report: %s: %w", out, err)
		}
		for _, row := range rows {
			run.Boilerplate = append(run.Boilerplate, report.Boilerplate{Row: row})
		}
	}
	if _, err := fsys.Stat(root + "/clusters/_SUCCESS"); err == nil {
		if run.Clusters, run.ClusterCount, err = cluster.Top(fsys, root+"/clusters", topClusters); err != nil {
			return run, fmt.Errorf("report: %w", err)
		}
		if run.Clusters == nil {
			run.Clusters = []cluster.Cluster{}
		}
	}
	return run, nil
}
