package jobs

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/signature"
)

// runOptions are the flags of `pdc run` that are not job parameters.
type runOptions struct {
	inputs           listFlag
	output           string
	overwrite        bool
	keepIntermediate bool
	workers          int
	reducers         int
	sortMem          int64
	splitSize        int64
	tmpDir           string
	quiet            bool
	print            bool
	hadoop           bool
	idfRange         string
	cpuProfile       string
	outputFormat     string
	outputText       bool
}

// addJobFlags registers the job parameters on fs, with cfg's values as
// defaults.
func addJobFlags(fs *flag.FlagSet, cfg *jobconf.Config, idfRange *string) {
	s := &cfg.Signature
	fs.Func("signature", "sentence representation: words (token set, PPJoin), imatch, shingle or spotsig (default words)", func(v string) error {
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
	fs.IntVar(&cfg.MinTokens, "min-tokens", cfg.MinTokens, "sentences with fewer tokens are not matched (a gap can cross them)")
	fs.IntVar(&cfg.MaxDF, "max-df", cfg.MaxDF, "posting lists longer than this are not joined (boilerplate report)")
	fs.IntVar(&cfg.MaxSiteDF, "max-site-df", cfg.MaxSiteDF, "a sentence signature in more than this many documents of one site (URL host) is a template and not joined (0: no limit)")
	fs.IntVar(&cfg.MaxDocBytes, "max-doc-bytes", cfg.MaxDocBytes, "truncate documents larger than this many bytes (0: no limit)")
	fs.BoolVar(&cfg.CrossSiteOnly, "cross-site-only", cfg.CrossSiteOnly, "drop sentence pairs whose URLs share a host")
	fs.BoolVar(&cfg.NoFilter, "no-filter", cfg.NoFilter, "words: index every token and skip PPJoin's index-prefix and positional filters (to measure the filters; frequent tokens' lists then hit --max-df)")
	fs.BoolVar(&cfg.Strict, "strict", cfg.Strict, "stop at the first bad input record instead of skipping it")
	fs.StringVar(&cfg.Extract, "extract", cfg.Extract, "HTML text: all (all visible text) or main (main content only)")
}

func (m *Main) runCmd(ctx context.Context, args []string) error {
	cfg := jobconf.Default()
	o := runOptions{}
	fs := m.newFlagSet("run", "--input DOCS... --output OUT [flags]")
	fs.Var(&o.inputs, "input", "documents: JSON Lines (.jsonl[.gz]), WARC (.warc[.gz]), Avro (.avro), or directories of them and of .html/.txt pages; repeatable (local paths, or HDFS with --hadoop)")
	fs.StringVar(&o.output, "output", "", "output directory (spans in OUT/spans)")
	fs.BoolVar(&o.overwrite, "overwrite", false, "replace an existing output directory")
	fs.BoolVar(&o.keepIntermediate, "keep-intermediate", false, "keep the intermediate job outputs (parsed, stats, index, pairs; the match job then runs as a job of its own, not inside the join's reduce tasks)")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "local runner: parallel map and reduce tasks")
	fs.IntVar(&o.reducers, "reducers", 0, "reduce tasks per job (default: 2 per worker locally, 2 on Hadoop)")
	fs.Int64Var(&o.sortMem, "sort-mem", 256<<20, "local runner: in-memory sort buffer in bytes; larger map outputs spill to disk")
	fs.Int64Var(&o.splitSize, "split-size", 0, "local runner: input split size in bytes (0: about 4 splits per worker, 1 to 32 MiB each)")
	fs.StringVar(&o.tmpDir, "tmp", "", "local runner: directory for sort spills (default OUT/_tmp)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress output")
	fs.BoolVar(&o.print, "print", false, "print the spans with their text when done")
	fs.StringVar(&o.outputFormat, "output-format", "tsv", "also write the spans as OUT/spans.avro when avro (Avro OCF, schema lib/avroio/span.avsc, with URLs)")
	fs.BoolVar(&o.outputText, "output-text", false, "with --output-format avro, include the duplicated passages")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the local run to this file (go tool pprof)")
	fs.BoolVar(&o.hadoop, "hadoop", false, "submit the jobs to Hadoop (HADOOP_CONF_DIR) instead of running locally")
	paper := fs.Bool("paper", false, "the paper's exact configuration: --signature imatch --tau 0.9 --gap 0 --min-tokens 1 --max-site-df 0 (other flags given with it still apply)")
	addJobFlags(fs, &cfg, &o.idfRange)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *paper {
		cfg = paperWith(cfg, fs)
	}
	if cfg.Tau == 0 {
		cfg.Tau = jobconf.DefaultTau(cfg.Signature.Method)
	}
	if fs.NArg() > 0 {
		return usagef("run: unexpected argument %q (inputs go after --input)", fs.Arg(0))
	}
	if len(o.inputs) == 0 || o.output == "" {
		fs.Usage()
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
		if err := m.needMain(); err != nil {
			return err
		}
	}
	if o.hadoop {
		return m.runHadoop(ctx, cfg, &o)
	}
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
	return m.runLocal(ctx, cfg, &o)
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
	keep("min-tokens", func() { p.MinTokens = cfg.MinTokens })
	keep("max-site-df", func() { p.MaxSiteDF = cfg.MaxSiteDF })
	p.Signature.ShingleN, p.Signature.Antecedents = cfg.Signature.ShingleN, cfg.Signature.Antecedents
	p.Signature.SpotChain, p.Signature.SpotDistance = cfg.Signature.SpotChain, cfg.Signature.SpotDistance
	p.Lambda, p.MaxDF, p.MaxDocBytes = cfg.Lambda, cfg.MaxDF, cfg.MaxDocBytes
	p.CrossSiteOnly, p.Strict, p.Extract = cfg.CrossSiteOnly, cfg.Strict, cfg.Extract
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
		if within(a, absOut) {
			return usagef("run: input %s is inside --output %s; choose another output directory", in, out)
		}
	}
	return nil
}

func succeeded(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "_SUCCESS"))
	return err == nil
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

var errInterrupted = errors.New("interrupted")

func plural(n int64, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, strings.TrimSuffix(word, "s"))
}
