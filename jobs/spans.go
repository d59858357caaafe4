package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/span"
	"github.com/pdc-mr/pdc/lib/spanfile"
)

type spanOptions struct {
	format string
	header bool // tsv: a first line naming the columns
	text   bool
	urls   bool // fill URLs (implied by text)
	inputs docRuns
	pair   string // --pair A (B is the second argument)
	// an is the run's analyzer, so that passages are cut from the text
	// the offsets refer to (from OUT/_pdc.json; runOutput Analyzer)
	an *doc.Analyzer
}

func (m *Main) spansCmd(ctx context.Context, args []string) error {
	o := spanOptions{}
	var inputs listFlag
	fs := m.newFlagSet("spans", "OUT [--format tsv|jsonl|avro|parquet] [--text [--input DOCS]]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.StringVar(&o.format, "format", "tsv", "output format: tsv, jsonl, avro (schema lib/avroio/span.avsc) or parquet (lib/parquetio, the same columns)")
	fs.BoolVar(&o.text, "text", false, "add the duplicated passages (read from the run's inputs, or --input)")
	fs.BoolVar(&o.header, "header", false, "tsv: start with a line naming the columns (#doc_a, doc_b, ...)")
	fs.Var(&inputs, "input", "the run's documents, for --text and --pair (default: the inputs the run recorded); repeatable")
	fs.StringVar(&o.pair, "pair", "", "`A` B: the spans of documents A and B found by matching the two alone (for two copies a hub linked, not each other: --hub-df)")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return err
	}
	switch {
	case o.pair != "" && fs.NArg() != 2:
		return usagef("spans: --pair A B wants the output directory and document B")
	case o.pair == "" && fs.NArg() != 1:
		return usagef("spans: want exactly one output directory")
	}
	if !slices.Contains(spanfile.Formats, o.format) {
		return usagef("spans: unknown --format %q (want %s)", o.format, strings.Join(spanfile.Formats, ", "))
	}
	if o.header && o.format != "tsv" {
		return usagef("spans: --header is for --format tsv")
	}
	if spanfile.Binary(o.format) && isTerminal(m.Stdout) {
		return usagef("spans: --format %s writes a binary file: redirect it (pdc spans OUT --format %s > spans.%s)", o.format, o.format, o.format)
	}
	if o.text || o.pair != "" {
		r, err := m.openRun(fs.Arg(0))
		if err != nil {
			return err
		}
		if o.inputs, err = m.docsOf(r, inputs, "spans"); err != nil {
			return err
		}
		if o.an, err = r.Analyzer(ctx, append([]string{"spans"}, args...)); err != nil {
			return err
		}
		if o.pair != "" {
			return m.printPairSpans(r, o.pair, fs.Arg(1), o)
		}
	}
	return m.printSpans(fs.Arg(0), o)
}

// forceFlag adds --force: read the run's input files even if they changed
// since the run (runOutput Inputs).
func (m *Main) forceFlag(fs *flagSet) {
	fs.BoolVar(&m.force, "force", false, "read the run's input files even if they changed since the run (a warning, not an error; offsets may then point at other text)")
}

// reorderArgs moves positional arguments after the flags, so that
// `pdc spans OUT --text` works like `pdc spans --text OUT`; a flag takes
// the next argument as its value unless fs says it is a boolean.
func reorderArgs(fs *flagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) && takesValue(fs, a) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	return append(flags, pos...)
}

func takesValue(fs *flagSet, arg string) bool {
	f := fs.Lookup(strings.TrimLeft(arg, "-"))
	if f == nil {
		return false // -h, --help, unknown: the parser reports it
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

func (m *Main) printSpans(out string, o spanOptions) error {
	return m.writeSpans(m.Stdout, out, o)
}

// writeSpans writes the spans of the run in out to dst in o's format.
// Without passages or URLs it streams them (memory for one span per part
// file); with them, every span is read first, to know which documents to
// fetch. Part files out of order (not written by pdc) are sorted in memory
// when that shows before the first 64 KiB of output, else an error.
func (m *Main) writeSpans(dst io.Writer, out string, o spanOptions) error {
	fsys, dir, err := hdfsfs.Resolve(out, m.isRemote(out))
	if err != nil {
		return fmt.Errorf("spans %s: %w", out, err)
	}
	if _, err := span.Parts(fsys, dir); errors.Is(err, span.ErrNotFinished) {
		if r, rerr := m.openRun(out); rerr == nil && r.manErr != nil {
			return fmt.Errorf("spans %s: not the output of pdc run (no spans/_SUCCESS and no %s)", out, pipeline.ManifestFile)
		}
		return err
	}
	if o.header {
		if _, err := fmt.Fprintln(dst, span.TSVHeader(o.text)); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	cw := &byteCounter{w: dst}
	sw, err := spanfile.NewWriter(cw, o.format, o.text)
	if err != nil {
		return err
	}
	if !o.text && !o.urls {
		err := span.Stream(fsys, dir, sw.Write)
		if err == nil {
			return sw.Close()
		}
		if !errors.Is(err, span.ErrOrder) || cw.n > 0 {
			return err
		}
		// Parts not written by pdc, out of order, and nothing written
		// yet: start again, sorting in memory.
		if sw, err = spanfile.NewWriter(cw, o.format, o.text); err != nil {
			return err
		}
	}
	spans, err := span.Read(fsys, dir)
	if err != nil {
		return err
	}
	switch {
	case o.text:
		an := o.an
		if an == nil {
			an = jobconf.Default().Analyzer()
			if r, err := m.openRun(out); err == nil {
				an = r.ConfigOrDefault().Analyzer()
			}
		}
		if err := m.addText(spans, o.inputs, an); err != nil {
			return err
		}
	case o.urls:
		if err := m.addURLs(spans, o.inputs); err != nil {
			return err
		}
	}
	for i := range spans {
		if err := sw.Write(&spans[i]); err != nil {
			return err
		}
	}
	return sw.Close()
}

// addURLs fills the spans' document URLs from the documents.
func (m *Main) addURLs(spans []span.Span, inputs docRuns) error {
	need := map[string]bool{}
	for _, s := range spans {
		need[s.DocA], need[s.DocB] = true, true
	}
	in, err := m.findDocs(inputs)
	if err != nil {
		return err
	}
	urls := map[string]string{}
	_, err = in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		if _, seen := urls[d.ID]; need[d.ID] && !seen {
			urls[d.ID] = d.URL
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range spans {
		spans[i].URLA, spans[i].URLB = urls[spans[i].DocA], urls[spans[i].DocB]
	}
	return nil
}

// docTexts returns the extracted text (what span offsets refer to) and
// the URL of the documents in need, read from inputs.
func (m *Main) docTexts(need map[string]bool, inputs docRuns, an *doc.Analyzer) (texts, urls map[string]string, err error) {
	texts, urls = map[string]string{}, map[string]string{}
	err = m.analyzeNeeded(need, inputs, an, func(d *doc.Doc, a doc.Analysis) {
		texts[d.ID], urls[d.ID] = strings.Clone(a.Text), d.URL
	})
	return texts, urls, err
}

// analyzeNeeded analyses the first document of each id in need, read from
// inputs, and gives it to fn (the analysis is valid until fn returns).
func (m *Main) analyzeNeeded(need map[string]bool, inputs docRuns, an *doc.Analyzer, fn func(d *doc.Doc, a doc.Analysis)) error {
	in, err := m.findDocs(inputs)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	_, err = in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		if !need[d.ID] || done[d.ID] {
			return nil // the parse job keeps the first occurrence too
		}
		a, err := an.Analyze(d)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		done[strings.Clone(d.ID)] = true
		fn(d, a)
		return nil
	})
	return err
}

// addText fills the spans' passages (and URLs) from the documents.
func (m *Main) addText(spans []span.Span, inputs docRuns, an *doc.Analyzer) error {
	need := map[string]bool{}
	for _, s := range spans {
		need[s.DocA], need[s.DocB] = true, true
	}
	texts, urls, err := m.docTexts(need, inputs, an)
	if err != nil {
		return err
	}
	for i := range spans {
		s := &spans[i]
		ta, oka := texts[s.DocA]
		tb, okb := texts[s.DocB]
		if !oka || !okb {
			missing := s.DocA
			if oka {
				missing = s.DocB
			}
			return fmt.Errorf("spans --text: document %q is not in --input %s (give the run's documents)", missing, inputs)
		}
		a, b := runeSlice(ta, s.CharStartA, s.CharEndA), runeSlice(tb, s.CharStartB, s.CharEndB)
		s.TextA, s.TextB, s.URLA, s.URLB = &a, &b, urls[s.DocA], urls[s.DocB]
	}
	return nil
}

// runeSlice returns s[start:end] in rune offsets, clamped to s.
func runeSlice(s string, start, end int) string {
	if start < 0 {
		start = 0
	}
	bs, be, i := len(s), len(s), 0
	for b := range s {
		if i == start {
			bs = b
		}
		if i == end {
			be = b
			break
		}
		i++
	}
	if bs > be {
		return ""
	}
	return s[bs:be]
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// isRemote reports whether a path names HDFS (hdfsfs.IsRemote, with the
// local disk as the default file system).
func (m *Main) isRemote(p string) bool { return hdfsfs.IsRemote(p, false, m.Getenv) }
