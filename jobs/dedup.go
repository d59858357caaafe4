package jobs

// pdc dedup OUT --output CLEAN: the documents of a run with their
// duplicated passages cut out, for building corpora. Of each passage
// cluster (pdc run --clusters, lib/cluster) one member is kept (--keep:
// the earliest in input order, the one of the longest document, or the one
// of the document with the smallest --date-field); from the others,
// lib/dedup cuts what is aligned, sentence by sentence, to the kept member,
// and of a kept member only what is a copy of another cluster's kept text
// (lib/dedup, Plan settle). CLEAN gets two files, each
// written atomically:
//
// docs.jsonl: every document of the input, in input order (of duplicate
// ids the first, as the run reads them; of a batch run, the batch's own
// documents but those whose id is stored, whose stored record the run kept), one JSON object per line,
// {"id", "url", "text", ...} (lib/doc AppendJSONKeeping: url left out when
// empty, so that pdc reads the file back as input; then the other fields of
// a JSON Lines record, as it has them). text is the document's extracted
// text, what the clusters' offsets refer to (the run's --extract and
// --max-doc-bytes), without its removed ranges. With --drop-empty, a
// document left with no text but white space is not written.
//
// removed.tsv: what was cut, after a header line, one line per cut range,
// in the order of docs.jsonl, then by position (the format is lib/dedup's,
// records.go).
//
// With --jobs (the default for a run made with --hadoop), CLEAN is written
// by MapReduce jobs instead: dedupjobs.go.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/copies"
	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/signature"
	"github.com/pdc-mr/pdc/lib/sitetemplate"
)

// The files pdc dedup writes in CLEAN.
const (
	dedupDocs    = "docs.jsonl"
	dedupRemoved = "removed.tsv"
)

type dedupOptions struct {
	out, clean string
	keep       string // first, longest or earliest
	dateField  string
	inputs     []string     // --input, or every run's inputs (docs)
	docs       docRuns      // the documents read: --input, or the run's (Inputs)
	filter     input.Filter // the run's --include/--exclude, with its inputs
	overwrite  bool
	dropEmpty  bool
	verify     bool
	jobs       bool   // CLEAN by MapReduce jobs (dedupjobs.go)
	queue      string // their YARN queue
	reducers   int    // their reduce tasks (0: the runner's default)
	workers    int    // local runner: parallel tasks
	quiet      bool
	jobsSet    bool // --jobs given (else the run decides)
	// batch holds the ids of a batch run's own documents (batchDocs), nil
	// for a run of its own: of the documents, only those are written, and
	// a cluster keeps a stored member when it has one. ownInputs are the
	// batch's own inputs, when the run's are read.
	batch     map[string]bool
	ownInputs []string
	byRun     [][]string // the inputs of each run of the chain, the batch's last (inputsByRun)
	// storedClean are the stored runs' pdc dedup outputs (--stored-clean),
	// withdrawn what they cut, by document (storedCuts).
	storedClean []string
	withdrawn   map[string][]dedup.Range
	replaced    map[string]bool // ids of the batch that are stored: the run kept the stored records
	read        input.Options   // how the run read its documents (readOptions)
	templates   bool            // also cut site templates (lib/sitetemplate)
}

func (m *Main) dedupCmd(ctx context.Context, args []string) error {
	o, err := m.dedupFlags(args)
	if err != nil {
		return err
	}
	r, err := m.openRun(o.out)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	cs, err := dedupClusters(r, o.out)
	if err != nil {
		return err
	}
	if !o.jobsSet {
		o.jobs = r.man != nil && r.man.Hadoop
	}
	if r.man != nil && len(r.man.Against) > 0 {
		if o.batch, err = batchDocs(r); err != nil {
			return err
		}
		if err := pipeline.CheckStored(r.FS, r.arg, *r.man); err != nil {
			return err
		}
		stored, err := storedDocs(r)
		if err != nil {
			return err
		}
		o.replaced = map[string]bool{}
		for id := range o.batch {
			// The run kept the stored record of the id (a batch does
			// not replace stored documents): not the batch's to write.
			if stored[id] {
				delete(o.batch, id)
				o.replaced[id] = true
			}
		}

		if o.withdrawn, err = m.storedCuts(o.storedClean, o.batch, stored); err != nil {
			return err
		}
	} else if len(o.storedClean) > 0 {
		return usagef("dedup: --stored-clean is for a batch run (pdc run --against); %s is a run of its own", o.out)
	}
	cfg := r.ConfigOrDefault()
	o.read = readOptions(cfg)
	if o.templates {
		switch {
		case cfg.MaxSiteDF <= 0:
			return usagef("dedup: --templates: the run %s has no site templates (it was made with --max-site-df 0)", o.out)
		case cfg.Signature.Method != signature.Words:
			return usagef("dedup: --templates needs a run made with --signature words (the default; %s used %s)", o.out, cfg.Signature.Method)
		case o.jobs:
			return usagef("dedup: --templates is not supported with --jobs yet: give --jobs=false to write CLEAN through this process")
		}
	}
	if !o.jobs && (o.queue != "" || o.reducers != 0) {
		return usagef("dedup: --queue and --reducers are for --jobs (the run %s was made by the local runner, so pdc dedup writes CLEAN itself unless --jobs)", o.out)
	}
	if len(o.inputs) == 0 {
		o.filter = r.Filter()
		if o.docs, err = dedupInputs(r, o.out); err != nil {
			return err
		}
		for _, run := range o.docs {
			o.inputs = append(o.inputs, run.Paths...)
		}
		if o.batch != nil {
			o.byRun = o.docs.paths()
			o.ownInputs = o.byRun[len(o.byRun)-1]
		}
	} else {
		if o.docs, err = m.docsOf(r, o.inputs, "dedup"); err != nil {
			return err
		}
		o.inputs = o.docs[0].Paths // absolute, as the run's
	}
	an, err := r.Analyzer(ctx, append([]string{"dedup"}, args...))
	if err != nil {
		return err
	}
	if o.jobs {
		return m.dedupJobs(ctx, o, r, cs)
	}
	cfs, cdir, err := m.prepareClean(o.clean, o.overwrite)
	if err != nil {
		return err
	}
	in, err := m.findDocs(o.docs)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	out := in // the documents written
	if o.batch != nil && o.ownInputs != nil {
		if out, err = input.FindAny(o.ownInputs, m.isRemote, o.filter); err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
	}
	if cs, err = withCopies(r, cs, in, an); err != nil {
		return err
	}
	kept, undated, err := keptMembers(cs, o, in, an)
	if err != nil {
		return err
	}
	minWords := cfg.MinTokens
	var tmpl *templateRule
	if o.templates {
		if tmpl, err = countTemplates(in, an, cfg); err != nil {
			return err
		}
	}
	p := dedup.NewPlan(cs, dedup.Coordinate(cs, kept, o.withdrawn), minWords)
	p.Stored(o.withdrawn)
	st, err := writeClean(in, out, an, p, tmpl, cfs, cdir, o)
	if err != nil {
		return err
	}
	return m.dedupDone(st, o, undated)
}

// dedupDone prints the summary of pdc dedup, and the check's failures:
// an error with --verify.
func (m *Main) dedupDone(st dedupStats, o dedupOptions, undated int) error {
	m.dedupSummary(st, o, undated)
	if st.violations > 0 {
		removed := dedupRemoved
		if o.jobs {
			removed = dedupRemovedDir + "/"
		}
		fmt.Fprintf(m.Stderr, "pdc dedup: %s failed the check of the cuts (first: %s)\n", plural(int64(st.violations), "cut range"), st.firstViolation)
		if o.verify {
			return fmt.Errorf("dedup: --verify: %d cut ranges of %s/%s are not held by their kept ranges in the output", st.violations, strings.TrimSuffix(o.clean, "/"), removed)
		}
	}
	return nil
}

// dedupFlags parses the command line of pdc dedup.
func (m *Main) dedupFlags(args []string) (dedupOptions, error) {
	o := dedupOptions{keep: "first"}
	var inputs, storedClean listFlag
	fs := m.newFlagSet("dedup", "OUT --output CLEAN [--keep first|longest|earliest] [--date-field NAME] [--drop-empty] [--templates] [--verify] [--input DOCS] [--stored-clean CLEAN0] [--overwrite] [--jobs] [--queue Q] [--reducers N]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.StringVar(&o.clean, "output", "", "`directory` to write (created): docs.jsonl, the documents without their removed passages, and removed.tsv, what was removed")
	fs.StringVar(&o.keep, "keep", o.keep, "the member of each cluster to keep (a `rule`): first (earliest in input order), longest (of the longest document) or earliest (of the document with the smallest --date-field)")
	fs.StringVar(&o.dateField, "date-field", "", "for --keep earliest: the `field` of a document's date in JSON Lines records, a string compared as text (ISO 8601); documents without it, and documents of other input formats, come last")
	fs.Var(&inputs, "input", "the run's documents (a `path`; default: the run's inputs); repeatable")
	fs.Var(&storedClean, "stored-clean", "of a batch run (pdc run --against): the pdc dedup output (a `directory`) of a stored run of its chain, whose cut text is kept elsewhere, not in its stored documents; repeatable, one per stored run deduped (default: the stored documents as they are)")
	fs.BoolVar(&o.overwrite, "overwrite", false, "replace the files of a previous pdc dedup in CLEAN")
	fs.BoolVar(&o.dropEmpty, "drop-empty", false, "leave out of docs.jsonl the documents left with no text (every passage of theirs kept elsewhere)")
	fs.BoolVar(&o.verify, "verify", false, "exit 1 when a cut range fails the check that its kept range holds 80% of its words and is in the output (always run, and reported)")
	fs.BoolVar(&o.jobs, "jobs", false, "write CLEAN by MapReduce jobs on the run's runner, as part files (docs/, removed/); the default for a run made with --hadoop (--jobs=false: through this process)")
	fs.StringVar(&o.queue, "queue", "", "with --jobs on Hadoop: the YARN `queue` of the jobs (default: the cluster's)")
	fs.IntVar(&o.reducers, "reducers", 0, "with --jobs: reduce tasks per job (default: 2 on Hadoop, 2 per worker locally)")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "with --jobs, local runner: parallel map and reduce tasks")
	fs.BoolVar(&o.quiet, "quiet", false, "with --jobs: no progress lines")
	fs.BoolVar(&o.templates, "templates", false, "also cut site templates: text in more than the run's --max-site-df pages of a site (copies of a page counting once), what the run left out of matching as templates (reason template in removed.tsv, no kept copy)")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return o, err
	}
	o.out, o.inputs, o.storedClean = fs.Arg(0), inputs, storedClean
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "jobs" {
			o.jobsSet = true
		}
	})
	switch {
	case fs.NArg() != 1:
		return o, usagef("dedup: want exactly one run output directory")
	case o.clean == "":
		return o, usagef("dedup: --output CLEAN is required")
	case !slices.Contains([]string{"first", "longest", "earliest"}, o.keep):
		return o, usagef("dedup: unknown --keep %q (want first, longest or earliest)", o.keep)
	case o.keep == "earliest" && o.dateField == "":
		return o, usagef("dedup: --keep earliest needs --date-field NAME, the input field of the documents' dates")
	case o.dateField != "" && o.keep != "earliest":
		return o, usagef("dedup: --date-field is for --keep earliest")
	}
	return o, nil
}

// dedupClusters reads the passage clusters of run r (given as out).
func dedupClusters(r *runOutput, out string) ([]cluster.Cluster, error) {
	fsys, dir := r.FS, r.Dir
	if _, err := fsys.Stat(dir); err != nil {
		return nil, fmt.Errorf("dedup: run output %s: %w", out, hdfsfs.UnwrapPath(err))
	}
	cs, err := cluster.ReadPlaces(fsys, dir+"/clusters")
	if errors.Is(err, cluster.ErrNotFinished) {
		against := ""
		if r.man != nil && len(r.man.Against) > 0 {
			against = " --against " + r.man.Against[len(r.man.Against)-1]
		}
		return nil, fmt.Errorf("dedup: %s has no passage clusters: run it with them (pdc run --input DOCS%s --output %s --clusters --overwrite)", out, against, out)
	}
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	return cs, nil
}

// withCopies adds to cs run r's groups of exact copies (OUT/copies.tsv)
// as clusters of whole documents.
func withCopies(r *runOutput, cs []cluster.Cluster, in *input.Set, an *doc.Analyzer) ([]cluster.Cluster, error) {
	cps, err := copies.Read(r.FS, r.Dir)
	if err != nil || len(cps) == 0 {
		return cs, err
	}
	need := map[string]bool{}
	for _, c := range cps {
		need[c.Doc], need[c.Of] = true, true
	}
	lengths, err := docRuneLengths(in, need, an)
	if err != nil {
		return nil, err
	}
	return append(copies.Clusters(cps, lengths), cs...), nil
}

// dedupInputs returns the documents of run r, given as out (Inputs).
func dedupInputs(r *runOutput, out string) (docRuns, error) {
	in, err := r.Inputs()
	var u *UsageError
	if errors.As(err, &u) {
		return nil, usagef("dedup: give the run's documents with --input DOCS (%s has no readable %s)", out, pipeline.ManifestFile)
	}
	return in, err
}

// prepareClean checks CLEAN (new, empty, or with overwrite a previous
// dedup's) and creates it; it returns its file system and path there.
func (m *Main) prepareClean(clean string, overwrite bool) (hdfsfs.FS, string, error) {
	fsys, dir, err := hdfsfs.Resolve(clean, m.isRemote(clean))
	if err != nil {
		return nil, "", fmt.Errorf("dedup: output %s: %w", clean, err)
	}
	fi, err := fsys.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, "", fmt.Errorf("dedup: output %s: %w", clean, hdfsfs.UnwrapPath(err))
	case !fi.IsDir():
		return nil, "", fmt.Errorf("dedup: output %s is a file: give a directory (it gets %s and %s)", clean, dedupDocs, dedupRemoved)
	default:
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			return nil, "", fmt.Errorf("dedup: output %s: %w", clean, hdfsfs.UnwrapPath(err))
		}
		switch {
		case len(ents) == 0:
		case !overwrite:
			return nil, "", fmt.Errorf("dedup: output %s already exists and is not empty (use --overwrite to replace a previous pdc dedup there)", clean)
		case !isDedupDir(ents):
			return nil, "", fmt.Errorf("dedup: output %s holds other files than a pdc dedup (%s, %s): choose a new or empty directory", clean, dedupDocs, dedupRemoved)
		}
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("dedup: output %s: %w", clean, hdfsfs.UnwrapPath(err))
	}
	return fsys, dir, nil
}

// isDedupDir reports whether a directory holds only what pdc dedup writes:
// its two files and the hidden temporary files of an interrupted one.
func isDedupDir(ents []fs.FileInfo) bool {
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.IsDir():
			return false
		case name == dedupDocs, name == dedupRemoved:
		case strings.HasPrefix(name, "."+dedupDocs+".") || strings.HasPrefix(name, "."+dedupRemoved+"."):
		default:
			return false
		}
	}
	return true
}

// keptMembers returns the index of the kept member of each cluster by
// o.keep (ties: the first), and for earliest the number of the clusters'
// documents without a date, reading the lengths or dates the rule needs
// from in.
func keptMembers(cs []cluster.Cluster, o dedupOptions, in *input.Set, an *doc.Analyzer) ([]int, int, error) {
	if o.keep == "first" {
		kept, undated := chooseKept(cs, o, nil, nil)
		return kept, undated, nil
	}
	need := map[string]bool{}
	for _, c := range cs {
		for _, mem := range c.Members {
			need[mem.Doc] = true
		}
	}
	var lengths map[string]int
	var dates map[string]string
	var err error
	if o.keep == "longest" {
		lengths, err = docRuneLengths(in, need, an)
	} else {
		dates, err = jsonlField(in, need, o.dateField)
	}
	if err != nil {
		return nil, 0, err
	}
	kept, undated := chooseKept(cs, o, lengths, dates)
	return kept, undated, nil
}

// chooseKept returns the index of the kept member of each cluster by
// o.keep (ties: the first), given the documents' lengths (longest) or
// dates (earliest), and for earliest the number of the clusters'
// documents without a date.
func chooseKept(cs []cluster.Cluster, o dedupOptions, lengths map[string]int, dates map[string]string) ([]int, int) {
	kept := make([]int, len(cs))
	if o.keep == "first" && o.batch == nil {
		return kept, 0
	}
	better := func(a, b string) bool { return false } // document a's member beats b's
	undated := 0
	switch o.keep {
	case "longest":
		better = func(a, b string) bool { return lengths[a] > lengths[b] }
	case "earliest":
		seen := map[string]bool{}
		for _, c := range cs {
			for _, mem := range c.Members {
				if _, ok := dates[mem.Doc]; !ok && !seen[mem.Doc] {
					seen[mem.Doc] = true
					undated++
				}
			}
		}
		better = func(a, b string) bool {
			da, oka := dates[a]
			db, okb := dates[b]
			return oka && (!okb || da < db)
		}
	}
	for i, c := range cs {
		for j := 1; j < len(c.Members); j++ {
			x, y := &c.Members[j], &c.Members[kept[i]]
			if rx, ry := o.storedRank(x), o.storedRank(y); rx != ry {
				if rx > ry {
					kept[i] = j
				}
				continue
			}
			if better(x.Doc, y.Doc) {
				kept[i] = j
			}
		}
	}
	return kept, undated
}

// storedRank ranks a member for the kept one of a batch run's cluster: a
// stored document's member first (the stored collection holds it
// already), one of whose text the stored dedup cut nothing before one it
// cut from (--stored-clean), then the batch's; 0 for all of a run of its
// own.
func (o dedupOptions) storedRank(m *cluster.Member) int {
	switch {
	case o.batch == nil || o.batch[m.Doc]:
		return 0
	case dedup.Meets(o.withdrawn[m.Doc], dedup.Range{Start: m.CharStart, End: m.CharEnd}):
		return 1
	}
	return 2
}

// storedCuts reads what the stored runs' dedup outputs dirs cut (their
// removed.tsv, or removed/ part files of pdc dedup --jobs), by document,
// merged; none of it may be of a document of the batch.
func (m *Main) storedCuts(dirs []string, batch, stored map[string]bool) (map[string][]dedup.Range, error) {
	cuts := map[string][]dedup.Range{}
	for _, dir := range dirs {
		fsys, p, err := hdfsfs.Resolve(dir, m.isRemote(dir))
		if err != nil {
			return nil, fmt.Errorf("dedup: --stored-clean %s: %w", dir, err)
		}
		files := []string{p + "/" + dedupRemoved}
		if strings.HasSuffix(p, "/"+dedupRemoved) {
			files = []string{p} // the file itself
		}
		if _, err := fsys.Stat(files[0]); err != nil {
			if files, err = pipeline.PartFiles(fsys, p+"/"+dedupRemovedDir); err != nil || len(files) == 0 {
				return nil, fmt.Errorf("dedup: --stored-clean %s: not a pdc dedup output (no %s, nor %s/ part files)", dir, dedupRemoved, dedupRemovedDir)
			}
		}
		for _, f := range files {
			rc, err := fsys.Open(f)
			if err != nil {
				return nil, fmt.Errorf("dedup: --stored-clean: %w", hdfsfs.UnwrapPath(err))
			}
			err = dedup.ReadCuts(rc, func(id string, r dedup.Removal) error {
				switch {
				case batch[id]:
					return fmt.Errorf("it cuts %q, a document of this batch: give the dedup outputs of the stored runs", id)
				case !stored[id]:
					return fmt.Errorf("it cuts %q, which no stored run of this batch holds: give the dedup outputs of the batch's stored runs", id)
				}
				cuts[id] = append(cuts[id], r.Range)
				return nil
			})
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("dedup: --stored-clean %s: %w", f, err)
			}
		}
	}
	for id, rs := range cuts {
		cuts[id] = ranges.Merge(rs)
	}
	return cuts, nil
}

// docRuneLengths returns the length in characters of the extracted text
// of the documents in need (the first of each id).
func docRuneLengths(in *input.Set, need map[string]bool, an *doc.Analyzer) (map[string]int, error) {
	lengths := map[string]int{}
	_, err := in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		if _, seen := lengths[d.ID]; seen || !need[d.ID] {
			return nil
		}
		a, err := an.Analyze(d)
		if err != nil {
			return nil // left out, as the run does; writeClean says so
		}
		lengths[strings.Clone(d.ID)] = len([]rune(a.Text))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	return lengths, nil
}

// jsonlField returns the value of the string field named field (non-empty)
// of the JSON Lines records of the documents in need (the first record of
// each id), read from the JSON Lines files of in, local or on HDFS. Other
// input formats have no such field.
func jsonlField(in *input.Set, need map[string]bool, field string) (map[string]string, error) {
	vals, seen := map[string]string{}, map[string]bool{}
	for _, p := range in.JSONL {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, hdfsfs.UnwrapPath(err))
		}
		if err := readField(p, f, field, need, seen, vals); err != nil {
			return nil, err
		}
	}
	for _, r := range in.Remote {
		f, err := r.FS.Open(r.Path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", r.Path, err)
		}
		if err := readField(r.Path, f, field, need, seen, vals); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// readField reads field from the records of one JSON Lines file (gzipped
// when its name ends in .gz) into vals, and closes it.
func readField(name string, rc io.ReadCloser, field string, need, seen map[string]bool, vals map[string]string) error {
	defer rc.Close()
	var r io.Reader = bufio.NewReaderSize(rc, 1<<16)
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("input %s: %w", name, err)
		}
		defer zr.Close()
		r = zr
	}
	lr := mr.NewReader(r)
	for lr.Next() {
		line := lr.Line()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		d, err := doc.ParseJSON(line)
		if err != nil || !need[d.ID] || seen[d.ID] {
			continue // no document (the readers skip it too), or not the first of its id
		}
		seen[d.ID] = true
		if v := doc.JSONStringField(line, field); v != "" {
			vals[d.ID] = v
		}
	}
	if err := lr.Err(); err != nil {
		return fmt.Errorf("input %s: %w", name, err)
	}
	return nil
}

// dedupStats are the counts of pdc dedup's summary.
type dedupStats struct {
	input.Counts
	written, dups, unparsable, emptied, dropped, truncated int64
	passages, docsCut, chars, removed                      int64
	templates, templateChars, templatesLeft                int64 // --templates: blocks cut, their characters, characters left in kept passages
	members, unaligned, notHeld                            int64
	clusterDocs                                            int
	verified, violations                                   int
	firstViolation                                         string
	againstStored                                          int64 // of a batch run: ranges cut against a stored document
}

// writeClean writes CLEAN's files: every document of out (the first of its
// id; of a batch run, the batch's alone) without what p cuts from it, and
// the cuts. It reads the input twice: first the documents of in (out's and,
// of a batch run, the stored runs') that hold kept members, for their
// passages, kept in a temporary file (in $TMPDIR, about the size of the
// kept text) until every document is cut.
func writeClean(in, out *input.Set, an *doc.Analyzer, p *dedup.Plan, tmpl *templateRule, fsys hdfsfs.FS, dir string, o dedupOptions) (dedupStats, error) {
	w := &cleanWriter{an: an, p: p, tmpl: tmpl, written: map[string]bool{}, dropEmpty: o.dropEmpty, batch: o.batch}
	w.st.clusterDocs = len(p.Need())
	workers := runtime.GOMAXPROCS(0)
	spill, err := os.CreateTemp("", "pdc-dedup-kept-*")
	if err != nil {
		return w.st, fmt.Errorf("dedup: the kept passages' file: %w", err)
	}
	defer os.Remove(spill.Name())
	defer spill.Close()
	p.Spill(spill)
	keep := func(c *cleanDoc, wk *worker) {
		if a, err := wk.an.Analyze(&c.d); err == nil {
			c.kept = p.KeptOf(&wk.tok, c.d.ID, a)
		}
	}
	keptRead := map[string]bool{}
	if _, _, err := ordered(in, o.read, workers, an, p.HoldsKept, false, keep, func(c *cleanDoc) error {
		keptRead[c.d.ID] = true
		p.AddKept(c.kept)
		return nil
	}); err != nil {
		return w.st, fmt.Errorf("dedup: %w", err)
	}
	if o.batch != nil {
		// A stored document is not written, so the check of the written
		// ones below does not see it missing: its kept passages must be
		// read here.
		for _, id := range p.KeptDocs() {
			if !keptRead[id] && !o.batch[id] {
				return w.st, fmt.Errorf("dedup: stored document %q, which holds a kept passage, is not in the inputs %s (give the stored runs' documents too)", id, strings.Join(o.inputs, ","))
			}
		}
	}
	if err := p.Err(); err != nil {
		return w.st, fmt.Errorf("dedup: the kept passages' file %s: %w", spill.Name(), err)
	}
	w.verify = dedup.NewVerifier(p)
	if w.docs, err = hdfsfs.CreateAtomic(fsys, dir+"/"+dedupDocs); err != nil {
		return w.st, fmt.Errorf("dedup: %w", err)
	}
	defer w.docs.Abort()
	if w.removed, err = hdfsfs.CreateAtomic(fsys, dir+"/"+dedupRemoved); err != nil {
		return w.st, fmt.Errorf("dedup: %w", err)
	}
	defer w.removed.Abort()
	if _, err := io.WriteString(w.removed, dedup.RemovedHeader); err != nil {
		return w.st, fmt.Errorf("dedup: write %s: %w", w.removed.Name(), err)
	}
	written := func(string) bool { return true }
	switch {
	case o.batch != nil && o.ownInputs != nil:
		// The batch's own documents, those the parse job skipped too,
		// but for the records of stored ids.
		written = func(id string) bool { return !o.replaced[id] }
	case o.batch != nil:
		written = func(id string) bool { return o.batch[id] }
	}
	if w.st.Counts, w.st.dups, err = ordered(out, o.read, workers, an, written, true, w.process, w.write); err != nil {
		return w.st, fmt.Errorf("dedup: %w", err)
	}
	if o.batch != nil {
		// The batch's documents read, as the jobs count them: not the
		// records of stored ids the run left out.
		w.st.Docs = int64(len(w.written)) + w.st.dups
	}
	if err := p.Err(); err != nil {
		return w.st, fmt.Errorf("dedup: the kept passages' file %s: %w", spill.Name(), err)
	}
	w.verify.Done()
	w.st.verified, w.st.violations, w.st.firstViolation = w.verify.Ranges, w.verify.Violations, w.verify.First
	var missing []string
	for id := range p.Need() {
		if !w.written[id] && (o.batch == nil || o.batch[id]) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		id := slices.Min(missing)
		return w.st, fmt.Errorf("dedup: document %q of cluster %s is not in --input %s (give the run's documents)", id, p.Need()[id], strings.Join(o.inputs, ","))
	}
	for _, f := range []*hdfsfs.AtomicFile{w.docs, w.removed} {
		if err := f.Close(); err != nil {
			return w.st, fmt.Errorf("dedup: %w", err)
		}
	}
	return w.st, nil
}

// cleanWriter writes the documents and their cuts to CLEAN's files.
type cleanWriter struct {
	an            *doc.Analyzer
	p             *dedup.Plan
	tmpl          *templateRule // with --templates
	docs, removed *hdfsfs.AtomicFile
	written       map[string]bool // every id read: whether it was analyzed
	dropEmpty     bool
	verify        *dedup.Verifier
	st            dedupStats
	batch         map[string]bool // dedupOptions.batch
}

// cleanDoc is one document on its way through writeClean: read in order,
// worked on by any worker (keep, process), recorded or written in order
// (AddKept, write).
type cleanDoc struct {
	seq   int
	d     doc.Doc
	raw   []byte // its JSON Lines record, or nil
	where string

	analyzed  bool // else unparsable: the run leaves it out too
	truncated bool
	n         int    // characters before the cut
	text      string // after it
	cut       dedup.Outcome
	tmplLeft  int    // characters of template blocks left in kept passages
	site      string // countTemplates: its site and sentences
	sents     []doc.Sentence
	bad       []string // what the Verifier's check found wrong
	line      []byte   // its line of docs.jsonl, nil when dropped
	removed   []byte   // its lines of removed.tsv
	kept      dedup.KeptDoc
	err       error
}

// worker is one goroutine's analyzer, tokenizer and checker.
type worker struct {
	an  doc.Analyzer
	tok sentence.Tokenizer
	chk dedup.Checker
}

// process analyses c's document, cuts it and renders its lines.
func (w *cleanWriter) process(c *cleanDoc, wk *worker) {
	a, err := wk.an.Analyze(&c.d)
	if err != nil {
		return
	}
	c.analyzed, c.truncated = true, a.Truncated
	if c.cut, err = w.p.CutWith(&wk.tok, c.d.ID, a); err == nil {
		if w.tmpl != nil {
			c.tmplLeft = w.p.AddTemplates(&c.cut, c.d.ID, w.tmpl.blocks(&c.d, &a))
		}
		c.text, c.n, err = dedup.CutText(a.Text, dedup.Ranges(c.cut.Removals))
	}
	switch {
	case err != nil && w.p.Err() != nil: // the kept passages' file, not the document
		c.err = fmt.Errorf("document %q (%s): the kept passages' file: %w", c.d.ID, c.where, err)
		return
	case err != nil:
		c.err = fmt.Errorf("document %q (%s): %w: give the run's documents with --input", c.d.ID, c.where, err)
		return
	}
	c.bad = wk.chk.Check(w.p, c.d.ID, a.Text, c.cut)
	if !w.dropEmpty || strings.TrimSpace(c.text) != "" || len(c.cut.Removals) == 0 {
		c.line = append(doc.AppendJSONKeeping(nil, &doc.Doc{ID: c.d.ID, URL: c.d.URL, Text: c.text}, c.raw), '\n')
	}
	for _, r := range c.cut.Removals {
		c.removed = dedup.AppendRemoval(c.removed, c.d.ID, r)
	}
	c.raw = nil
}

// write counts c and writes its lines, in input order.
func (w *cleanWriter) write(c *cleanDoc) error {
	w.written[c.d.ID] = c.analyzed
	if !c.analyzed {
		w.st.unparsable++
		return nil
	}
	if c.err != nil {
		return c.err
	}
	w.st.add(c.truncated, c.text, c.n, c.cut)
	if w.batch != nil {
		for _, r := range c.cut.Removals {
			if r.Reason == dedup.ReasonCopy && !w.batch[r.Kept.Doc] {
				w.st.againstStored++
			}
		}
	}
	w.st.templatesLeft += int64(c.tmplLeft)
	w.verify.Record(c.d.ID, c.cut, c.bad)
	if c.line == nil {
		w.st.dropped++
	} else {
		w.st.written++
		if _, err := w.docs.Write(c.line); err != nil {
			return fmt.Errorf("write %s: %w", w.docs.Name(), err)
		}
	}
	if _, err := w.removed.Write(c.removed); err != nil {
		return fmt.Errorf("write %s: %w", w.removed.Name(), err)
	}
	return nil
}

// inFlight is how many documents per worker ordered reads ahead of the
// one it writes next.
const inFlight = 8

// errStopped stops the reader of ordered after a failure.
var errStopped = errors.New("stopped")

// ordered reads the documents of in (the first of each id; with opts,
// as the run read them: readOptions) that want accepts, with their records when keepRaw, has workers process them, and
// hands them to write in input order. It returns the input's counts and
// the documents skipped as repeated ids. At most inFlight documents per
// worker are read and not yet written, so that a slow document does not
// leave every later one waiting in memory.
func ordered(in *input.Set, opts input.Options, workers int, an *doc.Analyzer, want func(id string) bool, keepRaw bool,
	process func(c *cleanDoc, wk *worker), write func(c *cleanDoc) error) (input.Counts, int64, error) {
	jobs, results := make(chan *cleanDoc, 2*workers), make(chan *cleanDoc, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &worker{an: doc.Analyzer{MaxBytes: an.MaxBytes, Main: an.Main, ContentType: an.ContentType}}
			for c := range jobs {
				process(c, wk)
				results <- c
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	stop := make(chan struct{})
	window := make(chan struct{}, inFlight*workers)
	type read struct {
		counts input.Counts
		dups   int64
		err    error
	}
	done := make(chan read, 1)
	go func() {
		var r read
		seen, seq := map[string]bool{}, 0
		r.counts, r.err = in.EachRecord(opts, func(d *doc.Doc, where string, raw []byte) error {
			if !want(d.ID) {
				return nil
			}
			if seen[d.ID] {
				r.dups++
				return nil
			}
			seen[strings.Clone(d.ID)] = true
			c := &cleanDoc{seq: seq, where: where, d: doc.Doc{ID: strings.Clone(d.ID), URL: strings.Clone(d.URL),
				HTML: strings.Clone(d.HTML), Text: strings.Clone(d.Text), Site: strings.Clone(d.Site), IsHTML: d.IsHTML, ValidUTF8: d.ValidUTF8}}
			if keepRaw {
				c.raw = bytes.Clone(raw)
			}
			seq++
			select {
			case window <- struct{}{}:
			case <-stop:
				return errStopped
			}
			select {
			case jobs <- c:
				return nil
			case <-stop:
				return errStopped
			}
		})
		close(jobs)
		done <- r
	}()
	var err error
	pending, next := map[int]*cleanDoc{}, 0
	for c := range results {
		pending[c.seq] = c
		for c := pending[next]; c != nil; c = pending[next] {
			delete(pending, next)
			next++
			<-window
			if err == nil {
				if err = write(c); err != nil {
					close(stop)
				}
			}
		}
	}
	r := <-done
	if err == nil && r.err != nil {
		err = r.err
	}
	return r.counts, r.dups, err
}

// add counts a document read: whether it was truncated, its text after
// cutting (n characters before) and what was cut.
func (st *dedupStats) add(truncated bool, text string, n int, cut dedup.Outcome) {
	st.chars += int64(n)
	if truncated {
		st.truncated++
	}
	st.members += int64(cut.Members)
	st.unaligned += int64(cut.Unaligned)
	st.notHeld += int64(cut.NotHeld)
	if len(cut.Removals) == 0 {
		return
	}
	st.docsCut++
	st.passages += int64(len(cut.Removals))
	for _, r := range cut.Removals {
		if r.Reason == dedup.ReasonTemplate {
			st.templates++
			st.templateChars += int64(r.End - r.Start)
		}
	}
	st.removed += int64(n - utf8.RuneCountInString(text))
	if strings.TrimSpace(text) == "" {
		st.emptied++
	}
}

// dedupSummary prints the one-line summary of pdc dedup.
func (m *Main) dedupSummary(st dedupStats, o dedupOptions, undated int) {
	clean := strings.TrimSuffix(o.clean, "/")
	var b strings.Builder
	docs, removed := dedupDocs, dedupRemoved
	if o.jobs {
		docs, removed = dedupDocsDir+"/", dedupRemovedDir+"/"
	}
	of := ""
	if o.batch != nil {
		of = " of the batch"
	}
	fmt.Fprintf(&b, "pdc dedup: %s%s read, %d written to %s/%s", plural(st.Docs, "document"), of, st.written, clean, docs)
	var notes []string
	if st.dups > 0 {
		notes = append(notes, plural(st.dups, "duplicate id")+" skipped")
	}
	if st.unparsable > 0 {
		notes = append(notes, fmt.Sprintf("%d unparsable skipped", st.unparsable))
	}
	if n := st.SkippedTotal(); n > 0 {
		notes = append(notes, fmt.Sprintf("%s skipped (%s)", plural(n, "bad record"), input.ReasonList(st.Skipped)))
	}
	if st.emptied > 0 && st.dropped == 0 {
		notes = append(notes, fmt.Sprintf("%d left empty", st.emptied))
	}
	if st.dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d left empty and dropped", st.dropped))
	}
	if st.truncated > 0 {
		notes = append(notes, fmt.Sprintf("%d cut at --max-doc-bytes", st.truncated))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	share := 0.0
	if st.chars > 0 {
		share = 100 * float64(st.removed) / float64(st.chars)
	}
	held := "each held by its kept copy (checked)"
	if st.templates > 0 {
		held = "each held by its kept copy (checked) or a site template"
	}
	if st.violations > 0 {
		held = fmt.Sprintf("%d of the ranges not held by their kept copy", st.violations)
	}
	fmt.Fprintf(&b, "; %s removed from %s (%s/%s), %d of %d characters (%.1f%%), %s; %d characters of %s left, aligned to no kept copy",
		plural(st.passages, "range"), plural(st.docsCut, "document"), clean, removed,
		st.removed, st.chars, share, held, st.unaligned, plural(st.members, "removed member"))
	if st.notHeld > 0 {
		fmt.Fprintf(&b, " (%s whose kept copy holds under 80%% of their words)", plural(st.notHeld, "run"))
	}
	if o.templates {
		fmt.Fprintf(&b, "; --templates: %s of them site templates (%d characters, reason template, no kept copy)", plural(st.templates, "range"), st.templateChars)
		if st.templatesLeft > 0 {
			fmt.Fprintf(&b, ", %d characters of templates left inside kept passages", st.templatesLeft)
		}
	}
	if o.keep == "earliest" {
		fmt.Fprintf(&b, "; %d of %d cluster documents without %s", undated, st.clusterDocs, o.dateField)
	}
	if o.batch != nil {
		as := "as they are"
		if len(o.storedClean) > 0 {
			as = "as their dedup (--stored-clean) left them"
		}
		fmt.Fprintf(&b, "; %s cut against a stored document, the stored documents %s", plural(st.againstStored, "range"), as)
		if n := len(o.replaced); n > 0 {
			fmt.Fprintf(&b, "; %s of the batch left out: their ids are stored, and the run kept the stored records", plural(int64(n), "document"))
		}
	}
	fmt.Fprintln(m.Stderr, b.String())
}

// templateRule is what pdc dedup --templates cuts: the template sentences
// of each document's site (lib/sitetemplate), counted over every document
// of the run.
type templateRule struct {
	counter   *sitetemplate.Counter
	layout    bool // a page's layout is its site (--site-from)
	minTokens int
}

// countTemplates reads every document of in (the first of each id, as the
// run read them) and counts its sentences by site for cfg's
// --max-site-df.
func countTemplates(in *input.Set, an *doc.Analyzer, cfg jobconf.Config) (*templateRule, error) {
	t := &templateRule{counter: sitetemplate.NewCounter(cfg.MaxSiteDF, cfg.MinTokens), layout: jobconf.LayoutSites(cfg.SiteFrom), minTokens: cfg.MinTokens}
	all := func(string) bool { return true }
	process := func(c *cleanDoc, wk *worker) {
		if a, err := wk.an.Analyze(&c.d); err == nil {
			c.site, c.sents = t.site(&c.d, &a), cloneSentences(a.Sentences) // the analyzer reuses its own
		}
		c.d.HTML, c.d.Text = "", ""
	}
	_, _, err := ordered(in, readOptions(cfg), runtime.GOMAXPROCS(0), an, all, false, process, func(c *cleanDoc) error {
		t.counter.Add(c.d.ID, c.site, c.sents)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dedup: --templates: %w", err)
	}
	return t, nil
}

// site is the site of document d, analysed as a, as the run took it.
func (t *templateRule) site(d *doc.Doc, a *doc.Analysis) string {
	v, _ := doc.URLField(d, a, t.layout)
	return sitetemplate.SiteOf(v)
}

// blocks returns the template blocks of document d, analysed as a.
func (t *templateRule) blocks(d *doc.Doc, a *doc.Analysis) []dedup.Range {
	site := t.site(d, a)
	return sitetemplate.Blocks(a.Sentences, t.counter.Templates(site, a.Sentences), t.minTokens)
}

// cloneSentences copies ss and their tokens (into one slice).
func cloneSentences(ss []doc.Sentence) []doc.Sentence {
	n := 0
	for _, s := range ss {
		n += len(s.Tokens)
	}
	toks := make([]uint64, 0, n)
	out := make([]doc.Sentence, len(ss))
	for i, s := range ss {
		toks = append(toks, s.Tokens...)
		out[i] = doc.Sentence{Start: s.Start, End: s.End, Tokens: toks[len(toks)-len(s.Tokens):], NotContent: s.NotContent}
	}
	return out
}
