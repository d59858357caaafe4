package jobs

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/jobs/hadoop"
	"github.com/pdc-mr/pdc/jobs/local"
	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/kerberos"
	mrlocal "github.com/pdc-mr/pdc/lib/mr/local"
	"github.com/pdc-mr/pdc/lib/signature"
)

// runOptions are the flags of `pdc run` that are not job parameters.
type runOptions struct {
	// ticket is the private ticket cache of the Hadoop client on a
	// secured cluster with --keytab (closed when the run ends).
	ticket           *kerberos.PrivateCache
	inputs           listFlag
	clusters         bool
	output           string
	overwrite        bool
	forceUnlock      bool
	keepIntermediate bool
	workers          int
	queue            string // YARN queue of the jobs (--hadoop)
	componentEdges   int    // --component-edges
	reducers         int
	sortMem          int64
	splitSize        int64
	tmpDir           string
	quiet            bool
	verbose          bool
	print            bool
	hadoop           bool
	idfRange         string
	cpuProfile       string
	outputFormat     string
	outputText       bool
	allowEmpty       bool
	maxSiteDF        int // the run's --max-site-df, for the summary
	filter           input.Filter
	listInputs       bool
	store            bool   // --store
	against          string // --against
	batch            pipeline.BatchRun
}

// addJobFlags registers the job parameters on fs, with cfg's values as
// defaults.
func addJobFlags(fs *flag.FlagSet, cfg *jobconf.Config, idfRange *string) {
	s := &cfg.Signature
	fs.Func("signature", "sentence representation (a `method`): words (token set, PPJoin), imatch, shingle or spotsig (default words)", func(v string) error {
		m, err := signature.ParseMethod(v)
		s.Method = m
		return err
	})
	fs.IntVar(&s.ShingleN, "shingle-n", s.ShingleN, "shingle width in tokens (--signature shingle)")
	fs.StringVar(idfRange, "idf-range", "0.1,1.0", "I-Match: keep tokens whose normalized IDF log(N/df)/log(N) is in LOW,HIGH")
	fs.IntVar(&s.Antecedents, "antecedents", s.Antecedents, "SpotSigs: number of most frequent tokens used as antecedents")
	fs.IntVar(&s.SpotChain, "spot-chain", s.SpotChain, "SpotSigs: tokens chained after an antecedent")
	fs.IntVar(&s.SpotDistance, "spot-distance", s.SpotDistance, "SpotSigs: distance between chained tokens")
	fs.Float64Var(&cfg.Tau, "tau", 0, "sentence Jaccard threshold and length filter |A|/|B| >= tau (default 0.7 for words, 0.9 otherwise)")
	fs.IntVar(&cfg.Lambda, "lambda", cfg.Lambda, "minimum span length in duplicated sentence pairs")
	fs.IntVar(&cfg.Gap, "gap", cfg.Gap, "sentences a span may skip on either side (0: exact diagonals)")
	fs.Float64Var(&cfg.ExtendTau, "extend-tau", cfg.ExtendTau, "extend spans over neighbouring sentences (1:1, merged or split) with token Jaccard at least this (0: no extension)")
	fs.IntVar(&cfg.MinEvidence, "min-evidence", cfg.MinEvidence, "words: a span's sentence pairs must share this many words in all (identical pairs count twice; one identical pair of a quarter of them, or one at Jaccard 0.8 sharing half, is enough; 0: none needed)")
	fs.IntVar(&cfg.MinTokens, "min-tokens", cfg.MinTokens, "sentences with fewer tokens are not matched (a gap can cross them)")
	fs.IntVar(&cfg.MaxDF, "max-df", cfg.MaxDF, "posting lists longer than this are not joined (boilerplate report; bounds one list's memory)")
	fs.IntVar(&cfg.HubDF, "hub-df", cfg.HubDF, "posting lists of more documents than this pair each sentence with the first similar one (a hub), not with all: linear in copies (0: all pairs)")
	fs.IntVar(&cfg.MaxSiteDF, "max-site-df", cfg.MaxSiteDF, "a sentence signature in more than this many pages of one site (URL host; copies of a page count once) is a template and not joined (0: no limit)")
	fs.Var(intSizeFlag{&cfg.MaxDocBytes}, "max-doc-bytes", "truncate documents larger than this `size` (bytes, or with K, M, G; 0: no limit)")
	fs.BoolVar(&cfg.CrossSiteOnly, "cross-site-only", cfg.CrossSiteOnly, "drop sentence pairs whose URLs share a host (sites named by a tree or --site-field are not hosts)")
	fs.BoolVar(&cfg.NoFilter, "no-filter", cfg.NoFilter, "words: index every token and skip PPJoin's index-prefix and positional filters (to measure the filters; frequent tokens' lists then hit --max-df)")
	fs.BoolVar(&cfg.Strict, "strict", cfg.Strict, "stop at the first bad input record instead of skipping it")
	fs.StringVar(&cfg.Extract, "extract", cfg.Extract, "HTML text: all (all visible text) or main (main content only)")
	fs.StringVar(&cfg.SiteFrom, "site-from", cfg.SiteFrom, "site of a tree's pages without URL (for --max-site-df): tree (one site per --input directory), path:N (the directory and the first N directories under it), name:NAME (the site NAME for every tree: the trees of a chain of batches, week1/ and week2/, as one site), layout (pages whose header and footer elements are alike, as for any document without a site) or none (no site, not even the layout)")
	fs.StringVar(&cfg.SiteField, "site-field", cfg.SiteField, "input field naming a document's site when it has no URL (JSON Lines: read besides \"site\"; Avro, Parquet: only this field)")
}

func (m *Main) runCmd(ctx context.Context, args []string) error {
	cfg := jobconf.Default()
	o := runOptions{}
	fs := m.newFlagSet("run", "--input DOCS... --output OUT [flags]")
	fs.kerberosFlags()
	fs.Var(&o.inputs, "input", "documents (a `path`): "+input.Kinds()+", or directories of them and of .html/.txt pages; repeatable (local paths, or HDFS with --hadoop)")
	fs.StringVar(&o.output, "output", "", "output directory (spans in OUT/spans)")
	fs.BoolVar(&o.overwrite, "overwrite", false, "replace an existing output directory")
	fs.BoolVar(&o.forceUnlock, "force-unlock", false, "remove another run's lock on the output directory (only when that run is dead)")
	fs.BoolVar(&o.clusters, "clusters", false, "also group the spans' passages into clusters of the same text across documents (OUT/clusters; read with pdc clusters OUT)")
	fs.IntVar(&o.componentEdges, "component-edges", pipeline.MaxComponentEdges, "with --clusters: a graph of passages of at most this many edges gets its clusters in one job (one reduce task holds it), a larger one in rounds of two jobs (the one job once a round leaves it that small; the rounds shrink it to about its number of passages at most) (0: rounds only)")
	fs.BoolVar(&o.store, "store", false, "keep the run's parsed documents (OUT/parsed, about a fifth of the input's size), so that later batches can run --against OUT")
	fs.StringVar(&o.against, "against", "", "run the --input documents as a batch against the stored collection of this earlier run `OUT` (made with --store): spans of the pairs with a new document, as a run over all of them finds; OUT is only read, and this run stores in turn")
	fs.BoolVar(&o.keepIntermediate, "keep-intermediate", false, "keep the intermediate job outputs (parsed, stats, index, pairs; the match job then runs as a job of its own, not inside the join's reduce tasks)")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "local runner: parallel map and reduce tasks")
	fs.IntVar(&o.reducers, "reducers", 0, "reduce tasks per job (default: 2 per worker locally, 2 on Hadoop)")
	o.sortMem = 256 << 20
	fs.Var(sizeFlag{&o.sortMem}, "sort-mem", "local runner: in-memory sort buffer `size` (bytes, or with K, M, G: 512M); larger map outputs spill to disk")
	fs.Var(sizeFlag{&o.splitSize}, "split-size", "input split `size` (bytes, or with K, M, G); locally 0 is about 4 splits per worker, 1 to 32 MiB each; on Hadoop the largest split of the jobs reading the run's own files, whose small files are packed together (0: 128 MiB)")
	fs.StringVar(&o.tmpDir, "tmp", "", "local runner: directory for sort spills (default OUT/_tmp)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress output")
	fs.BoolVar(&o.verbose, "verbose", false, "print every job's counters as it finishes (they are in OUT/counters.tsv)")
	fs.BoolVar(&o.print, "print", false, "print the spans with their text when done")
	fs.Var((*listFlag)(&o.filter.Include), "include", "read only the files under --input directories that match this `glob` (on the name, or on the path under the directory when it has a /); repeatable")
	fs.Var((*listFlag)(&o.filter.Exclude), "exclude", "leave out the files under --input directories that match this `glob` (as --include); repeatable")
	fs.BoolVar(&o.listInputs, "list-inputs", false, "list the files the run would read, and what it leaves out, and exit")
	fs.BoolVar(&o.allowEmpty, "allow-empty", false, "a run that parses no document succeeds (else it exits 1 saying what its inputs look like)")
	fs.StringVar(&o.outputFormat, "output-format", "tsv", "also write the spans as OUT/spans.avro when avro (Avro OCF, schema lib/avroio/span.avsc, with URLs)")
	fs.BoolVar(&o.outputText, "output-text", false, "with --output-format avro, include the duplicated passages")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the local run to this file (go tool pprof)")
	fs.BoolVar(&o.hadoop, "hadoop", false, "submit the jobs to Hadoop (HADOOP_CONF_DIR) instead of running locally")
	fs.StringVar(&o.queue, "queue", "", "with --hadoop: submit every job to this YARN `queue` (mapreduce.job.queuename; default: the cluster's)")
	paper := fs.Bool("paper", false, "the paper's exact configuration: --signature imatch --tau 0.9 --gap 0 --min-tokens 1 --max-site-df 0 --extend-tau 0 --min-evidence 0 (other flags given with it still apply)")
	addJobFlags(fs.FlagSet, &cfg, &o.idfRange)
	fs.groups = []flagGroup{
		{"Input", []string{"input", "include", "exclude", "list-inputs", "extract", "max-doc-bytes", "site-from", "site-field", "strict"}},
		{"Detection", []string{"signature", "tau", "lambda", "gap", "extend-tau", "min-evidence", "min-tokens", "max-df", "hub-df", "max-site-df", "cross-site-only", "paper",
			"idf-range", "shingle-n", "antecedents", "spot-chain", "spot-distance", "no-filter"}},
		{"Runner", []string{"hadoop", "queue", "principal", "keytab", "workers", "reducers", "sort-mem", "split-size", "tmp", "cpuprofile"}},
		{"Output", []string{"output", "store", "against", "clusters", "component-edges", "overwrite", "force-unlock", "keep-intermediate", "output-format", "output-text", "print", "quiet", "verbose", "allow-empty"}},
	}
	if err := fs.parse(args); err != nil {
		return err
	}
	if *paper {
		cfg = paperWith(cfg, fs.FlagSet)
	}
	if cfg.Tau == 0 {
		cfg.Tau = jobconf.DefaultTau(cfg.Signature.Method)
	}
	if fs.NArg() > 0 {
		return usagef("run: unexpected argument %q (inputs go after --input)", fs.Arg(0))
	}
	if err := o.filter.Check(); err != nil {
		return usagef("run: --include/--exclude: %v", err)
	}
	if o.listInputs {
		return m.listInputs(&o)
	}
	if len(o.inputs) == 0 || o.output == "" {
		return usagef("run: --input and --output are required")
	}
	lo, hi, err := jobconf.ParseRange(o.idfRange)
	if err != nil {
		return usagef("run: --idf-range: %v", err)
	}
	cfg.Signature.IDFLow, cfg.Signature.IDFHigh = lo, hi
	cfg.Signature.Tau = cfg.Tau
	if err := cfg.Validate(); err != nil {
		return usagef("run: %v", err)
	}
	if o.workers < 1 {
		o.workers = 1
	}
	if o.outputFormat != "tsv" && o.outputFormat != "avro" {
		return usagef("run: --output-format must be tsv or avro, got %q", o.outputFormat)
	}
	if cfg.Extract == "main" {
		if err := m.needMain(ctx, append([]string{"run"}, args...)); err != nil {
			return err
		}
	}
	start := time.Now()
	var d pipeline.Driver
	var po pipeline.Options
	if o.componentEdges < 0 {
		return usagef("run: --component-edges must be >= 0 (0: rounds only)")
	}
	if o.queue != "" && !o.hadoop {
		return usagef("run: --queue needs --hadoop (the local runner has no queues)")
	}
	if o.against != "" {
		fsys, old, err := hdfsfs.Resolve(o.against, o.hadoop)
		if err != nil {
			return fmt.Errorf("--against %s: %w", o.against, err)
		}
		_, out, err := hdfsfs.Resolve(o.output, o.hadoop)
		if err != nil {
			return fmt.Errorf("output %s: %w", o.output, err)
		}
		if o.hadoop {
			// The jobs read the stored runs from the default file system,
			// as they do OUT.
			if !strings.HasPrefix(old, "/") || hdfsURI(o.against) != hdfsURI(o.output) {
				return usagef("run --hadoop: --against %q: give the stored run as an absolute path on --output's file system (%s)", o.against, hdfsURI(o.output))
			}
		} else {
			old, out = absAll([]string{old})[0], absAll([]string{out})[0]
		}
		if o.batch, err = pipeline.Against(fsys, old, out, cfg.EnvList(), o.hadoop); err != nil {
			return err
		}
		if tree := newTreeSite(fsys, o.batch.Against, o.inputs, cfg.SiteFrom, o.hadoop); tree != "" {
			fmt.Fprintf(m.Stderr, "pdc: warning: --site-from %s: the pages of %s are a site of their own, apart from the stored runs' trees, so what they share as a site's template is learnt on this batch alone; to take a chain's trees as one site, give every run of it --site-from name:NAME (its first run too: run the chain again)\n", cfg.SiteFrom, tree)
		}
		cfg.Batch, o.store = o.batch.Batch, true
	}
	if o.hadoop {
		d, po, err = m.hadoopDriver(cfg, &o)
		if o.ticket != nil {
			defer o.ticket.Close()
		}
	} else {
		if err := inputUnder(o.output, o.inputs); err != nil {
			return err
		}
		if o.cpuProfile != "" {
			f, err := os.Create(o.cpuProfile)
			if err != nil {
				return fmt.Errorf("cpu profile: %w", err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				return fmt.Errorf("cpu profile: %w", err)
			}
			defer func() {
				pprof.StopCPUProfile()
				f.Close()
			}()
		}
		d, po, err = m.localDriver(cfg, &o)
	}
	if err != nil {
		return err
	}
	po.Finished = func([]pipeline.Job) error { return m.writeAvroOutput(d.FS(), po.Out+"/spans.avro", &o) }
	jobs, err := pipeline.Run(ctx, d, po)
	if err != nil {
		return err
	}
	o.maxSiteDF = cfg.MaxSiteDF
	return m.finish(&o, jobs, time.Since(start))
}

// localDriver returns the local runner's driver for a run.
func (m *Main) localDriver(cfg jobconf.Config, o *runOptions) (pipeline.Driver, pipeline.Options, error) {
	local.TuneGC(m.Getenv, o.sortMem)
	// Absolute paths, as _pdc.json records them: the records' srcpos
	// (lib/doc) then order them as the commands that read the run do.
	in, err := input.Find(absAll(o.inputs), o.filter)
	if err != nil {
		return nil, pipeline.Options{}, err
	}
	in.Warn(m.Stderr)
	cfg.Stats = filepath.Join(o.output, "stats")
	cfg.Seeds = filepath.Join(o.output, "matches")
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
	d := &local.Driver{
		Runner:    &mrlocal.Runner{Workers: o.workers, SortMem: o.sortMem, TempDir: tmp, Stderr: input.Positions(m.Stderr)}, // tasks name records as FILE:LINE
		Input:     in,
		Env:       cfg.Env(),
		Read:      readOptions(cfg),
		Reducers:  reducers,
		SplitSize: o.splitSize,
		MaxLine:   cfg.MaxRecordBytes(),
		Stderr:    m.Stderr,
		Quiet:     o.quiet,
		Scratch:   filepath.Join(o.output, "_tmp"),
		Fault:     m.Getenv("PDC_FAULT"),
	}
	stamps, err := in.Stamp()
	if err != nil {
		return nil, pipeline.Options{}, err
	}
	d.Stamps = stamps // one snapshot: the one checked after reading is the one recorded
	recorded := slices.Clone(stamps)
	for i := range recorded {
		recorded[i].Path = absAll([]string{recorded[i].Path})[0]
	}
	man := pipeline.Manifest{Inputs: absAll(o.inputs), Files: absAll(in.Paths()), Env: cfg.EnvList(), Clusters: o.clusters, Stamps: recorded,
		Include: o.filter.Include, Exclude: o.filter.Exclude, Store: o.store, Against: o.batch.Against, AgainstStamps: o.batch.Stamps}
	d.InputCounters = in.Counters()
	return d, m.pipelineOptions(o, o.output, man), nil
}

// hadoopDriver returns the Hadoop Streaming driver for a run.
func (m *Main) hadoopDriver(cfg jobconf.Config, o *runOptions) (pipeline.Driver, pipeline.Options, error) {
	// Hadoop splits job paths (-input, -files) at commas and expands
	// glob characters in them, with no escape that works for both
	// (--input splits at commas already).
	if i := strings.IndexAny(o.output, ",*?[]{}\\"); i >= 0 {
		return nil, pipeline.Options{}, usagef("run --hadoop: --output %q: Hadoop reads job paths as comma-separated globs; use a path without %q", o.output, o.output[i:i+1])
	}
	streaming, err := hadoop.FindStreaming(m.Getenv)
	if err != nil {
		return nil, pipeline.Options{}, err
	}
	fsys, out, err := hdfsfs.Resolve(o.output, true)
	if err != nil {
		return nil, pipeline.Options{}, fmt.Errorf("output %s: %w", o.output, err)
	}
	if !strings.HasPrefix(out, "/") {
		return nil, pipeline.Options{}, usagef("run --hadoop: --output must be an HDFS path (hdfs://HOST:PORT/PATH or /PATH), got %q", o.output)
	}
	bin, err := shippableBinary(m.Getenv)
	if err != nil {
		return nil, pipeline.Options{}, err
	}
	reducers := o.reducers
	if reducers < 1 {
		reducers = 2
	}
	progress := m.Stderr
	if o.quiet {
		progress = io.Discard
	}
	man := pipeline.Manifest{Inputs: o.inputs, Env: cfg.EnvList(), Hadoop: true, Clusters: o.clusters, Include: o.filter.Include, Exclude: o.filter.Exclude,
		Store: o.store, Against: o.batch.Against, AgainstStamps: o.batch.Stamps}
	local, _ := splitInputs(o.inputs, m.Getenv) // the local ones are uploaded
	var localSet *input.Set
	if len(local) > 0 {
		if localSet, err = input.Find(absAll(local), o.filter); err != nil { // absolute, as the local driver reads them
			return nil, pipeline.Options{}, err
		}
		man.Files = absAll(localSet.Paths())
		localSet.Warn(m.Stderr)
	}
	var inputCounters map[string]int64
	if localSet != nil {
		inputCounters = localSet.Counters()
	}
	sub, ticket, err := m.submitter(streaming, progress)
	if err != nil {
		return nil, pipeline.Options{}, err
	}
	o.ticket = ticket
	d := &hadoop.Driver{
		Submitter:     sub,
		FileSystem:    fsys,
		Out:           out,
		URI:           hdfsURI(o.output),
		Binary:        bin,
		Inputs:        o.inputs,
		Local:         localSet,
		InputCounters: inputCounters,
		Config:        cfg,
		Read:          readOptions(cfg),
		Fault:         m.Getenv("PDC_FAULT"),
		Reducers:      reducers,
		SplitSize:     o.splitSize,
		Queue:         o.queue,
		Stderr:        m.Stderr,
		Quiet:         o.quiet,
	}
	return d, m.pipelineOptions(o, out, man), nil
}

// submitter returns the Hadoop job submitter, progress going to
// progress, and the private ticket cache it logs in from when a keytab is
// given (to be closed once the jobs are done), else nil.
func (m *Main) submitter(streaming []string, progress io.Writer) (*hadoop.Submitter, *kerberos.PrivateCache, error) {
	sub := &hadoop.Submitter{Streaming: streaming, ConfDir: m.Getenv("HADOOP_CONF_DIR"), Stderr: progress,
		Secure: hadoop.Secured(m.Getenv("HADOOP_CONF_DIR")), Env: hadoop.ClientEnv(m.Getenv)}
	id := hdfsfs.Identity().Resolve(m.Getenv)
	if id.Keytab == "" {
		return sub, nil, nil
	}
	// The Hadoop client logs in from a ticket cache: one of pdc's own,
	// kept fresh from the keytab for as long as the jobs last. (Made
	// whenever a keytab is given: the client's configuration may be one
	// pdc does not read, $HADOOP_HOME/etc/hadoop.)
	ticket, err := kerberos.NewPrivateCache(id, m.Getenv)
	if err != nil {
		return nil, nil, err
	}
	ticket.Keep(func(err error) { fmt.Fprintf(m.Stderr, "pdc: renew the Hadoop client's ticket: %v (retrying)\n", err) })
	sub.Env = append(sub.Env, ticket.Env())
	return sub, ticket, nil
}

func (m *Main) pipelineOptions(o *runOptions, out string, man pipeline.Manifest) pipeline.Options {
	return pipeline.Options{Out: out, Display: o.output, Manifest: man, Overwrite: o.overwrite,
		KeepIntermediate: o.keepIntermediate, Clusters: o.clusters, Store: o.store, Stored: o.batch.Stored, ComponentEdges: o.componentEdges, Stderr: m.Stderr, Quiet: o.quiet, Verbose: o.verbose,
		Holder: pipeline.ThisProcess(""), ForceUnlock: o.forceUnlock}
}

// hdfsURI returns the hdfs:// prefix of an output path: "hdfs://HOST:PORT"
// for an hdfs://HOST:PORT/PATH URI, else "hdfs://" (the default file
// system).
func hdfsURI(output string) string {
	if strings.HasPrefix(output, "hdfs://") {
		host := strings.TrimPrefix(output, "hdfs://")
		host, _, _ = strings.Cut(host, "/")
		return "hdfs://" + host
	}
	return "hdfs://"
}

// finish prints the run's summary and, with --print, the spans.
func (m *Main) finish(o *runOptions, jobs []pipeline.Job, took time.Duration) error {
	c := pipeline.Merged(jobs)
	m.summary(c, o, took, jobs)
	if c["parse.docs.ok"] == 0 && !o.allowEmpty {
		return emptyRun(c, o.inputs, m.Getenv)
	}
	if o.print {
		return m.printSpans(o.output, spanOptions{format: "tsv", text: true, inputs: m.runDocs(o)})
	}
	return nil
}

// writeAvroOutput writes OUT/spans.avro for --output-format avro, through a
// temporary name so that a failure leaves no partial file.
func (m *Main) writeAvroOutput(fsys hdfsfs.FS, name string, o *runOptions) error {
	if o.outputFormat != "avro" {
		return nil
	}
	err := hdfsfs.RewriteAtomic(context.Background(), fsys, name, func(w io.Writer) error {
		return m.writeSpans(w, o.output, spanOptions{format: "avro", text: o.outputText, urls: true, inputs: m.runDocs(o)})
	})
	if err != nil {
		return fmt.Errorf("avro output: %w", err)
	}
	return nil
}

// listInputs prints the files a run of o would read, one per line (the
// local files, then the inputs on HDFS as given), what walking the input
// directories left out (Set.Warn) and a count.
func (m *Main) listInputs(o *runOptions) error {
	if len(o.inputs) == 0 {
		return usagef("run: --list-inputs needs --input")
	}
	local, remote := splitInputs(o.inputs, m.Getenv)
	in := &input.Set{}
	if len(local) > 0 {
		var err error
		if in, err = input.Find(local, o.filter); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(m.Stdout)
	paths := in.Paths()
	for _, p := range append(paths, remote...) {
		fmt.Fprintln(w, p)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	in.Warn(m.Stderr)
	onHDFS := ""
	if len(remote) > 0 {
		onHDFS = fmt.Sprintf(" and %s on HDFS", plural(int64(len(remote)), "input"))
	}
	fmt.Fprintf(m.Stderr, "pdc: the run would read %s%s\n", plural(int64(len(paths)), "local file"), onHDFS)
	return nil
}

// templateNote says how much of what was indexed the run left out as site
// templates when that is most of it, or when the run found no span and
// left out a percent or more: then the templates may be copies of one site
// (a mirror, versions side by side), and the note says what to try. ""
// otherwise.
func templateNote(c map[string]int64, maxSiteDF int, out string) string {
	indexed := c["index.postings.prefix"] // the words method indexes prefixes
	if indexed == 0 {
		indexed = c["index.postings"]
	}
	left := c["index.postings.site-template"]
	if indexed == 0 || left == 0 {
		return ""
	}
	share := float64(left) / float64(indexed)
	if share < 0.5 && (c["extend.spans"] > 0 || share < 0.01) {
		return ""
	}
	return fmt.Sprintf("pdc: %.0f%% of what was indexed is left out as site templates (sentences in more than %d pages of one site; %s/boilerplate.tsv): "+
		"if the inputs hold several sites or copies that are not one site's pages, give each its site (--site-from path:1, --site-field) or raise --max-site-df (0: off)",
		100*share, maxSiteDF, out)
}

// emptyRun is the error of a run that parsed no document: what was read
// and skipped, and what its first local input that is not JSON Lines looks
// like, or that it is empty.
func emptyRun(c map[string]int64, inputs []string, getenv func(string) string) error {
	const hint = "pass --allow-empty if a run may find no document"
	what := ""
	local, _ := splitInputs(inputs, getenv)
	if in, err := input.Find(local, input.Filter{}); err == nil && len(local) > 0 {
		for _, p := range in.JSONL {
			if l := input.Looks(p); l != "" && l != "JSON Lines" {
				what = fmt.Sprintf("; %s is %s", p, l)
				if l != "empty" && l != "blank (white space only)" {
					what += ", not JSON Lines (one JSON object per line; WARC, Avro and Parquet files need their extension)"
				}
				break
			}
		}
	}
	from := strings.Join(inputs, ", ")
	if c["parse.docs.read"] == 0 {
		return fmt.Errorf("run: no document read from %s%s (%s)", from, what, hint)
	}
	return fmt.Errorf("run: no document parsed from %s: %s read, all skipped (%s)%s (%s)",
		from, plural(c["parse.docs.read"], "record"), input.ReasonList(skipReasons(c)), what, hint)
}

// splitInputs splits --input paths into local ones and ones on HDFS
// (hdfsfs.IsRemote).
func splitInputs(inputs []string, getenv func(string) string) (local, remote []string) {
	for _, p := range inputs {
		if hdfsfs.IsRemote(p, true, getenv) {
			remote = append(remote, p)
		} else {
			local = append(local, p)
		}
	}
	return local, remote
}

// skipReasons returns the run's skipped documents by reason, from its
// parse.docs.skipped.REASON counters.
func skipReasons(c map[string]int64) map[string]int64 {
	reasons := map[string]int64{}
	for k, v := range c {
		if r, ok := strings.CutPrefix(k, "parse.docs.skipped."); ok && v > 0 {
			reasons[r] = v
		}
	}
	return reasons
}

// summary prints the end of a run: what was read and skipped, what was
// found, where it is and what to run next. Every counter is in
// OUT/counters.tsv (and printed per job with --verbose).
func (m *Main) summary(c map[string]int64, o *runOptions, took time.Duration, jobs []pipeline.Job) {
	reasons := skipReasons(c)
	skipped := ""
	if len(reasons) > 0 {
		skipped = fmt.Sprintf(", %d skipped: %s", countSum(reasons), input.ReasonList(reasons))
	}
	out := strings.TrimSuffix(o.output, "/")
	fmt.Fprintf(m.Stderr, "pdc: %s between %s in %s/spans (%s read%s) in %s by %s\n",
		plural(c["extend.spans"], "span"), plural(c["extend.doc-pairs.with-spans"], "document pair"),
		out, plural(c["parse.docs.read"], "document"), skipped, elapsed(took), plural(int64(len(jobs)), "job"))
	stored := c["stats.duplicate-ids.stored"]
	if stored > 0 {
		fmt.Fprintf(m.Stderr, "pdc: %s of the batch left out: a stored run holds their ids, and a batch does not replace a stored document (the stored record is kept; to take the new versions, run the whole collection again)\n",
			plural(stored, "record"))
	}
	if n := c["parse.docs.skipped.duplicate-id"] - stored; n > 0 {
		fmt.Fprintf(m.Stderr, "pdc: %s left out: an earlier record had their id, and the run keeps the first; if your files number their ids each from 0, make them unique first: pdc ingest --input ... --id-prefix file --output DOCS.jsonl.gz\n",
			plural(n, "record"))
	}
	if line := templateNote(c, o.maxSiteDF, out); line != "" {
		fmt.Fprintln(m.Stderr, line)
	}
	if o.quiet {
		return
	}
	if o.hadoop {
		// On a cluster each job costs its start-up at least: say where the
		// time went.
		fmt.Fprintf(m.Stderr, "pdc: jobs: %s\n", jobTimes(jobs))
	}
	fmt.Fprintf(m.Stderr, "pdc: each job's time in %s/jobs.tsv, counters in %s/counters.tsv, templates and boilerplate left out in %s/boilerplate.tsv\n", out, out, out)
	if c["extend.spans"] > 0 && !o.print {
		fmt.Fprintf(m.Stderr, "pdc: to read the spans with their passages: pdc spans %s --text\n", out)
	}
	if n := c["stats.copies.documents"]; n > 0 {
		what := plural(n, "document") + " are exact copies of earlier ones"
		if n == 1 {
			what = "1 document is an exact copy of an earlier one"
		}
		fmt.Fprintf(m.Stderr, "pdc: %s (%s) in %s/copies.tsv\n", what, plural(c["stats.copies.groups"], "group"), out)
	}
	if o.clusters {
		fmt.Fprintf(m.Stderr, "pdc: %s (their sizes add up to %s; %s) in %s/clusters: pdc clusters %s\n",
			plural(c["clusters.clusters"], "passage cluster"), plural(c["clusters.documents"], "document"),
			plural(c["clusters.rounds"], "round"), out, out)
	}
}

// jobTimes lists jobs with their times ("parse 2m1.9s, stats 17.6s, ...";
// a job finished by an earlier run says so).
func jobTimes(jobs []pipeline.Job) string {
	var b strings.Builder
	for i, j := range jobs {
		if i > 0 {
			b.WriteString(", ")
		}
		if j.Skipped {
			fmt.Fprintf(&b, "%s (earlier run)", j.Name)
			continue
		}
		fmt.Fprintf(&b, "%s %s", j.Name, j.Took.Round(100*time.Millisecond))
	}
	return b.String()
}

func countSum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// newTreeSite returns an input of a batch run (local, not hadoop) that is
// a directory tree whose pages get a site of its own by the rule siteFrom
// (tree or path:N: named by the tree's path) while no stored run of the
// chain (runs, on fsys) read it: its site templates are learnt apart from
// the stored trees'. "" when there is none.
func newTreeSite(fsys hdfsfs.FS, runs, inputs []string, siteFrom string, hadoop bool) string {
	if hadoop || siteFrom == "layout" || siteFrom == "none" {
		return ""
	}
	if _, ok := jobconf.SiteName(siteFrom); ok {
		return ""
	}
	stored := map[string]bool{}
	for _, run := range runs {
		man, err := pipeline.ReadManifest(fsys, run)
		if err != nil {
			return ""
		}
		for _, in := range man.Inputs {
			stored[filepath.Clean(in)] = true
		}
	}
	for _, in := range inputs {
		if fi, err := os.Stat(in); err == nil && fi.IsDir() && !stored[absAll([]string{in})[0]] {
			return in
		}
	}
	return ""
}

// treeRoot returns the input.Options TreeRoot of the SiteFrom rule
// siteFrom: for name:NAME every root is NAME, else names.
func treeRoot(siteFrom string, names func(string) string) func(string) string {
	if name, ok := jobconf.SiteName(siteFrom); ok {
		return func(string) string { return name }
	}
	return names
}

// readOptions are how a run reads its documents: the sites of tree pages
// (--site-from) and the site field (--site-field).
func readOptions(cfg jobconf.Config) input.Options {
	n, _ := jobconf.ParseSiteFrom(cfg.SiteFrom) // validated
	o := input.Options{TreeSite: n, TreeRoot: treeRoot(cfg.SiteFrom, nil)}
	o.Fields.Site = cfg.SiteField
	return o
}

// paperWith returns the paper's configuration with the flags the user set
// explicitly applied on top.
func paperWith(cfg jobconf.Config, fs *flag.FlagSet) jobconf.Config {
	p := jobconf.Paper()
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	keep := func(name string, apply func()) {
		if set[name] {
			apply()
		}
	}
	keep("signature", func() { p.Signature.Method = cfg.Signature.Method })
	keep("tau", func() { p.Tau = cfg.Tau })
	keep("gap", func() { p.Gap = cfg.Gap })
	keep("extend-tau", func() { p.ExtendTau = cfg.ExtendTau })
	keep("min-tokens", func() { p.MinTokens = cfg.MinTokens })
	keep("min-evidence", func() { p.MinEvidence = cfg.MinEvidence })
	keep("max-site-df", func() { p.MaxSiteDF = cfg.MaxSiteDF })
	p.Signature.ShingleN, p.Signature.Antecedents = cfg.Signature.ShingleN, cfg.Signature.Antecedents
	p.Signature.SpotChain, p.Signature.SpotDistance = cfg.Signature.SpotChain, cfg.Signature.SpotDistance
	p.Lambda, p.MaxDF, p.HubDF, p.MaxDocBytes = cfg.Lambda, cfg.MaxDF, cfg.HubDF, cfg.MaxDocBytes
	p.CrossSiteOnly, p.Strict, p.Extract = cfg.CrossSiteOnly, cfg.Strict, cfg.Extract
	p.SiteFrom, p.SiteField = cfg.SiteFrom, cfg.SiteField
	return p
}

// inputUnder reports an input that lies inside the output directory.
func inputUnder(out string, inputs []string) error {
	absOut, err := filepath.Abs(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		a, err := filepath.Abs(in)
		if err != nil {
			continue
		}
		if input.Within(a, absOut) {
			return usagef("run: input %s is inside --output %s; choose another output directory", in, out)
		}
		if fi, err := os.Stat(a); err == nil && fi.IsDir() && input.Within(absOut, a) {
			return usagef("run: --output %s is inside input directory %s (the run would read its own output); choose another output directory", out, in)
		}
	}
	return nil
}

// runDocs are the documents of the run o made, as the commands that read
// it take them (runOutput.Inputs: on Hadoop its upload, for a batch run
// the stored runs' inputs first), else its --input.
func (m *Main) runDocs(o *runOptions) docRuns {
	if r, err := m.openRun(o.output); err == nil {
		if d, err := r.Inputs(); err == nil {
			return d
		}
	}
	return m.given(o.inputs)
}

func absAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		out[i] = p
	}
	return out
}

func elapsed(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }

func plural(n int64, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, strings.TrimSuffix(word, "s"))
}
