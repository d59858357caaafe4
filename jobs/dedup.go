package jobs

// pdc dedup OUT --output CLEAN: the documents of a run with their
// duplicated passages cut out, for building corpora. Of each passage
// cluster (pdc run --clusters, lib/cluster) one member is kept (--keep:
// the earliest in input order, the one of the longest document, or the one
// of the document with the smallest --date-field); from the others,
// lib/dedup cuts what is aligned, sentence by sentence, to the kept member,
// and of a kept member only what is a copy of another cluster's kept text
// (lib/dedup, Plan settle). lib/clean writes CLEAN (docs.jsonl, the
// documents without their removed ranges, and removed.tsv, what was cut;
// their formats are documented there).
//
// With --jobs (the default for a run made with --hadoop), CLEAN is written
// by MapReduce jobs instead: dedupjobs.go.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/clean"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/copies"
	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/signature"
)

// The files pdc dedup writes in CLEAN.
const (
	dedupDocs     = clean.DocsFile
	dedupRemoved  = clean.RemovedFile
	dedupManifest = clean.ManifestFile
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
	// coverage says which dedup output left each stored run as taken
	// (clean.Cover; every run as it is without --stored-clean).
	storedClean []string
	coverage    clean.Coverage
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
	r, err := m.openRunDir("dedup", o.out)
	if err != nil {
		return err
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

		if o.coverage, o.withdrawn, err = m.storedCuts(r, o.storedClean, o.batch, stored); err != nil {
			return err
		}
		if slices.Contains(o.coverage.Clean, m.dirName(o.clean)) {
			return usagef("dedup: --output %s is a dedup output this dedup reads (--stored-clean, or one its manifest names): give a new directory", o.clean)
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
	co := clean.Options{Read: o.read, DropEmpty: o.dropEmpty, Batch: o.batch, OwnInputs: o.ownInputs != nil, Replaced: o.replaced, Inputs: o.inputs}
	if o.templates {
		if co.Templates, err = clean.CountTemplates(in, o.read, an, cfg); err != nil {
			return fmt.Errorf("dedup: --templates: %w", err)
		}
	}
	p := dedup.NewPlan(cs, dedup.Coordinate(cs, kept, o.withdrawn), cfg.MinTokens)
	p.Stored(o.withdrawn)
	st, err := clean.Write(in, out, an, p, cfs, cdir, co)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	if err := writeCleanManifest(cfs, cdir, r, o); err != nil {
		return err
	}
	return m.dedupDone(st, o, undated)
}

// dedupDone prints the summary of pdc dedup, and the check's failures:
// an error with --verify.
func (m *Main) dedupDone(st clean.Stats, o dedupOptions, undated int) error {
	m.dedupSummary(st, o, undated)
	if st.Violations > 0 {
		removed := dedupRemoved
		if o.jobs {
			removed = dedupRemovedDir + "/"
		}
		fmt.Fprintf(m.Stderr, "pdc dedup: %s failed the check of the cuts (first: %s)\n", plural(int64(st.Violations), "cut range"), st.FirstViolation)
		if o.verify {
			return fmt.Errorf("dedup: --verify: %d cut ranges of %s/%s are not held by their kept ranges in the output", st.Violations, strings.TrimSuffix(o.clean, "/"), removed)
		}
	}
	return nil
}

// dedupFlags parses the command line of pdc dedup.
func (m *Main) dedupFlags(args []string) (dedupOptions, error) {
	o := dedupOptions{keep: dedup.KeepFirst}
	var inputs, storedClean listFlag
	fs := m.newFlagSet("dedup", "OUT --output CLEAN [--keep first|longest|earliest] [--date-field NAME] [--drop-empty] [--templates] [--verify] [--input DOCS] [--stored-clean CLEAN0] [--overwrite] [--jobs] [--queue Q] [--reducers N]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.StringVar(&o.clean, "output", "", "`directory` to write (created): docs.jsonl, the documents without their removed passages, and removed.tsv, what was removed")
	fs.StringVar(&o.keep, "keep", o.keep, "the member of each cluster to keep (a `rule`): first (earliest in input order), longest (of the longest document) or earliest (of the document with the smallest --date-field)")
	fs.StringVar(&o.dateField, "date-field", "", "for --keep earliest: the `field` of a document's date in JSON Lines records, a string compared as text (ISO 8601); documents without it, and documents of other input formats, come last")
	fs.Var(&inputs, "input", "the run's documents (a `path`; default: the run's inputs); repeatable")
	fs.Var(&storedClean, "stored-clean", "of a batch run (pdc run --against): the pdc dedup output (a `directory`, or its removed.tsv) of the stored run it ran against, whose cut text is kept elsewhere, not in its stored documents; the outputs that one was made with are taken from its _dedup.json (repeatable: an output given at a new place; default: the stored documents as they are)")
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
	case !slices.Contains([]string{dedup.KeepFirst, dedup.KeepLongest, dedup.KeepEarliest}, o.keep):
		return o, usagef("dedup: unknown --keep %q (want first, longest or earliest)", o.keep)
	case o.keep == dedup.KeepEarliest && o.dateField == "":
		return o, usagef("dedup: --keep earliest needs --date-field NAME, the input field of the documents' dates")
	case o.dateField != "" && o.keep != dedup.KeepEarliest:
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
	lengths, err := clean.TextLengths(in, need, an)
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
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
	// The manifest of the dedup replaced goes first: CLEAN has one again
	// when it is whole.
	if err := fsys.RemoveAll(dir + "/" + dedupManifest); err != nil {
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
		case name == dedupDocs, name == dedupRemoved, name == dedupManifest:
		case strings.HasPrefix(name, "."+dedupDocs+".") || strings.HasPrefix(name, "."+dedupRemoved+".") || strings.HasPrefix(name, "."+dedupManifest+"."):
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
	if o.keep == dedup.KeepFirst {
		kept, undated := o.keepRule().Choose(cs, nil, nil)
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
	if o.keep == dedup.KeepLongest {
		lengths, err = clean.TextLengths(in, need, an)
	} else {
		dates, err = input.FieldValues(in, need, o.dateField)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("dedup: %w", err)
	}
	kept, undated := o.keepRule().Choose(cs, lengths, dates)
	return kept, undated, nil
}

// keepRule is the choice of the kept members of o's clusters.
func (o dedupOptions) keepRule() dedup.Keep {
	return dedup.Keep{Rule: o.keep, Batch: o.batch, Withdrawn: o.withdrawn}
}

// storedCuts decides which dedup output left each stored run of the batch
// run r as its dedup takes it (dirs: --stored-clean, each a pdc dedup
// output or its removed.tsv; the outputs their manifests name are
// followed, clean.Cover), and reads what those cut, by document, merged;
// none of it may be of a document of the batch.
func (m *Main) storedCuts(r *runOutput, dirs []string, batch, stored map[string]bool) (clean.Coverage, map[string][]dedup.Range, error) {
	var given []clean.Given
	for _, dir := range dirs {
		dir = strings.TrimSuffix(m.dirName(dir), "/"+dedupRemoved) // or its removed.tsv
		man, err := m.cleanManifest(dir)
		if parent, ok := strings.CutSuffix(dir, "/"+dedupRemovedDir); err != nil && ok {
			// its removed/ part files
			if pm, perr := m.cleanManifest(parent); !errors.Is(perr, errNotDedup) && !errors.Is(perr, errNoDir) {
				dir, man, err = parent, pm, perr
			}
		}
		if err != nil {
			return clean.Coverage{}, nil, fmt.Errorf("dedup: --stored-clean %s: %w", dir, err)
		}
		given = append(given, clean.Given{Dir: dir, Man: man})
	}
	cov, err := clean.Cover(r.man.Against, r.man.AgainstStamps, given, m.cleanManifest)
	if err != nil {
		return clean.Coverage{}, nil, fmt.Errorf("dedup: %w", err)
	}
	cuts := map[string][]dedup.Range{}
	for _, dir := range cov.Clean {
		if dir == "" {
			continue
		}
		fsys, p, err := hdfsfs.Resolve(dir, m.isRemote(dir))
		if err != nil {
			return clean.Coverage{}, nil, fmt.Errorf("dedup: --stored-clean %s: %w", dir, err)
		}
		files := []string{p + "/" + dedupRemoved}
		if _, err := fsys.Stat(files[0]); err != nil {
			if files, err = pipeline.PartFiles(fsys, p+"/"+dedupRemovedDir); err != nil || len(files) == 0 {
				return clean.Coverage{}, nil, fmt.Errorf("dedup: --stored-clean %s: not a pdc dedup output (no %s, nor %s/ part files)", dir, dedupRemoved, dedupRemovedDir)
			}
		}
		for _, f := range files {
			rc, err := fsys.Open(f)
			if err != nil {
				return clean.Coverage{}, nil, fmt.Errorf("dedup: --stored-clean: %w", hdfsfs.UnwrapPath(err))
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
				return clean.Coverage{}, nil, fmt.Errorf("dedup: --stored-clean %s: %w", f, err)
			}
		}
	}
	for id, rs := range cuts {
		cuts[id] = ranges.Merge(rs)
	}
	return cov, cuts, nil
}

// dirName is how a pdc dedup output directory p is named in manifests and
// compared: an HDFS path as given, a local one absolute (a file:// URI
// resolved), without a trailing '/'.
func (m *Main) dirName(p string) string {
	if q := strings.TrimRight(p, "/"); q != "" {
		p = q
	}
	if m.isRemote(p) {
		return p
	}
	if _, lp, err := hdfsfs.Resolve(p, false); err == nil {
		p = lp
	}
	return absAll([]string{p})[0]
}

// cleanManifest's errors for a directory that is not there, or holds no
// pdc dedup output.
var (
	errNoDir    = errors.New("no such directory")
	errNotDedup = errors.New("not a pdc dedup output")
)

// cleanManifest reads the manifest of the pdc dedup output dir
// (clean.ManifestFile).
func (m *Main) cleanManifest(dir string) (clean.Manifest, error) {
	fsys, p, err := hdfsfs.Resolve(dir, m.isRemote(dir))
	if err != nil {
		return clean.Manifest{}, err
	}
	if _, err := fsys.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return clean.Manifest{}, errNoDir
	}
	f, err := fsys.Open(p + "/" + clean.ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := fsys.Stat(p + "/" + dedupRemoved); err != nil {
			if _, err := fsys.Stat(p + "/" + dedupRemovedDir); err != nil {
				return clean.Manifest{}, fmt.Errorf("%w (no %s, nor %s/ part files)", errNotDedup, dedupRemoved, dedupRemovedDir)
			}
		}
		return clean.Manifest{}, fmt.Errorf("no %s: an older pdc dedup made it, or it did not finish; run its pdc dedup again", clean.ManifestFile)
	}
	if err != nil {
		return clean.Manifest{}, hdfsfs.UnwrapPath(err)
	}
	defer f.Close()
	return clean.ReadManifest(f)
}

// writeCleanManifest writes CLEAN's manifest (clean.ManifestFile), last:
// what r's dedup o was made from.
func writeCleanManifest(fsys hdfsfs.FS, dir string, r *runOutput, o dedupOptions) error {
	run := r.Dir
	if !r.m.isRemote(r.arg) {
		run = absAll([]string{run})[0]
	}
	man := clean.Manifest{ID: fmt.Sprintf("%016x", rand.Uint64()), Run: run, Stored: o.coverage.Stored()}
	if stamp, err := pipeline.StoredStamp(r.FS, r.Dir); err == nil {
		man.Stamp = stamp
	}
	f, err := hdfsfs.CreateAtomic(fsys, dir+"/"+clean.ManifestFile)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	defer f.Abort()
	if err := clean.WriteManifest(f, man); err != nil {
		return fmt.Errorf("dedup: write %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	return nil
}

// dedupSummary prints the one-line summary of pdc dedup.
func (m *Main) dedupSummary(st clean.Stats, o dedupOptions, undated int) {
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
	fmt.Fprintf(&b, "pdc dedup: %s%s read, %d written to %s/%s", plural(st.Docs, "document"), of, st.Written, clean, docs)
	var notes []string
	if st.Dups > 0 {
		notes = append(notes, plural(st.Dups, "duplicate id")+" skipped")
	}
	if st.Unparsable > 0 {
		notes = append(notes, fmt.Sprintf("%d unparsable skipped", st.Unparsable))
	}
	if n := st.SkippedTotal(); n > 0 {
		notes = append(notes, fmt.Sprintf("%s skipped (%s)", plural(n, "bad record"), input.ReasonList(st.Skipped)))
	}
	if st.Emptied > 0 && st.Dropped == 0 {
		notes = append(notes, fmt.Sprintf("%d left empty", st.Emptied))
	}
	if st.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d left empty and dropped", st.Dropped))
	}
	if st.Truncated > 0 {
		notes = append(notes, fmt.Sprintf("%d cut at --max-doc-bytes", st.Truncated))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	share := 0.0
	if st.Chars > 0 {
		share = 100 * float64(st.Removed) / float64(st.Chars)
	}
	held := "each held by its kept copy (checked)"
	if st.Templates > 0 {
		held = "each held by its kept copy (checked) or a site template"
	}
	if st.Violations > 0 {
		held = fmt.Sprintf("%d of the ranges not held by their kept copy", st.Violations)
	}
	fmt.Fprintf(&b, "; %s removed from %s (%s/%s), %d of %d characters (%.1f%%), %s; %d characters of %s left, aligned to no kept copy",
		plural(st.Passages, "range"), plural(st.DocsCut, "document"), clean, removed,
		st.Removed, st.Chars, share, held, st.Unaligned, plural(st.Members, "removed member"))
	if st.NotHeld > 0 {
		fmt.Fprintf(&b, " (%s of sentences whose kept copy holds under 80%% of their words or lacks a name of theirs)", plural(st.NotHeld, "run"))
	}
	if o.templates {
		fmt.Fprintf(&b, "; --templates: %s of them site templates (%d characters, reason template, no kept copy)", plural(st.Templates, "range"), st.TemplateChars)
		if st.TemplatesLeft > 0 {
			fmt.Fprintf(&b, ", %d characters of templates left inside kept passages", st.TemplatesLeft)
		}
	}
	if o.keep == dedup.KeepEarliest {
		fmt.Fprintf(&b, "; %d of %d cluster documents without %s", undated, st.ClusterDocs, o.dateField)
	}
	if o.batch != nil {
		fmt.Fprintf(&b, "; %s cut against a stored document, the stored documents %s", plural(st.AgainstStored, "range"), o.coverage.Describe())
		if n := len(o.replaced); n > 0 {
			fmt.Fprintf(&b, "; %s of the batch left out: their ids are stored, and the run kept the stored records", plural(int64(n), "document"))
		}
	}
	fmt.Fprintln(m.Stderr, b.String())
}
