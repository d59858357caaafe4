package jobs

// pdc eval scores a run's spans against ground truth with lib/eval.
//
// Truth (--truth) is one of:
//
//	a directory          PAN XML files (*.xml in it and its subdirectories)
//	FILE.xml             one PAN XML file
//	FILE.jsonl, .json    truth JSON Lines (lib/eval), one case per line
//	any other file       PAN XML if its first non-blank byte is '<', else JSON Lines
//
// Spans (--spans) are a run's output directory (OUT or OUT/spans, read as
// `pdc spans` reads them) or a spans TSV file (`pdc spans OUT > FILE`).
//
// --format json prints one object:
//
//	{"truth": PATH, "spans": PATH, "overall": SCORE, "classes": {CLASS: SCORE, ...},
//	 "unmatched": N, "unmatched_spans": [SPAN, ...]}
//
// where SCORE is evalScore and SPAN is a Span as `pdc spans --format jsonl
// --text` prints it (unmatched_spans only with --input).

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/eval"
	"github.com/pdc-mr/pdc/lib/mr"
)

type evalOptions struct {
	truth, spans string
	inputs       listFlag
	format       string
	unmatched    int
}

// defaultUnmatched is how many unmatched detections --input lists when
// --unmatched is not given.
const defaultUnmatched = 10

// maxPassage is the longest passage, in runes, printed in the table format.
const maxPassage = 600

func (m *Main) evalCmd(ctx context.Context, args []string) error {
	var o evalOptions
	fs := m.newFlagSet("eval", "--truth TRUTH --spans OUT [--input DOCS] [--format table|json] [--unmatched N]")
	fs.StringVar(&o.truth, "truth", "", "ground truth: PAN XML file or directory, or truth JSON Lines")
	fs.StringVar(&o.spans, "spans", "", "the run's output directory, or a spans TSV file")
	fs.Var(&o.inputs, "input", "the run's documents, to print unmatched detections with their text; repeatable")
	fs.StringVar(&o.format, "format", "table", "output format: table or json")
	fs.IntVar(&o.unmatched, "unmatched", defaultUnmatched, "with --input: list up to this many unmatched detections, longest first")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("eval: unexpected argument %q", fs.Arg(0))
	}
	if o.truth == "" || o.spans == "" {
		fs.Usage()
		return usagef("eval: --truth and --spans are required")
	}
	if o.format != "table" && o.format != "json" {
		return usagef("eval: unknown --format %q (want table or json)", o.format)
	}
	if o.unmatched < 0 {
		return usagef("eval: --unmatched must be >= 0")
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "unmatched" })
	if explicit && o.unmatched > 0 && len(o.inputs) == 0 {
		return usagef("eval: --unmatched needs --input DOCS (the run's documents)")
	}
	if len(o.inputs) == 0 {
		o.unmatched = 0
	}
	return m.evaluate(o)
}

func (m *Main) evaluate(o evalOptions) error {
	cases, err := readTruth(o.truth)
	if err != nil {
		return err
	}
	spans, err := m.evalSpans(o.spans)
	if err != nil {
		return err
	}
	dets := detections(spans)
	unmatched := unmatchedSpans(spans, eval.Unmatched(cases, dets))
	listed := slices.Clone(unmatched)
	slices.SortStableFunc(listed, func(a, b Span) int {
		return cmp.Compare(spanChars(b), spanChars(a))
	})
	listed = listed[:min(len(listed), o.unmatched)]
	if len(listed) > 0 {
		if err := m.addText(listed, o.inputs); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(m.Stdout)
	if o.format == "json" {
		err = writeEvalJSON(w, o, cases, dets, len(unmatched), listed)
	} else {
		err = writeEvalTable(w, cases, dets, len(unmatched), listed)
	}
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write: %w", ferr)
	}
	return err
}

// readTruth reads the cases of a PAN XML file or directory or a truth JSON
// Lines file.
func readTruth(path string) ([]eval.Case, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", path, unwrapPathErr(err))
	}
	if fi.IsDir() {
		return readPANDir(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", path, unwrapPathErr(err))
	}
	var cases []eval.Case
	if isPAN(path, b) {
		cases, err = eval.ReadPANXML(path)
	} else {
		cases, err = eval.ReadTruthJSONL(bytes.NewReader(b))
	}
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", path, err)
	}
	return cases, nil
}

func isPAN(path string, b []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml":
		return true
	case ".jsonl", ".json", ".ndjson":
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n\ufeff"), []byte("<"))
}

// readPANDir reads a PAN XML directory, which must hold some *.xml files.
func readPANDir(dir string) ([]eval.Case, error) {
	top, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	sub, _ := filepath.Glob(filepath.Join(dir, "*", "*.xml"))
	if len(top)+len(sub) == 0 {
		return nil, fmt.Errorf("truth %s: no PAN *.xml files in the directory", dir)
	}
	cases, err := eval.ReadPANXML(dir)
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", dir, err)
	}
	return cases, nil
}

// evalSpans reads a spans TSV file, or the spans of a run's output directory
// sorted as `pdc spans` prints them.
func (m *Main) evalSpans(path string) ([]Span, error) {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return readSpanFile(path)
	}
	fsys, dir, err := m.spanFS(path)
	if err != nil {
		return nil, err
	}
	return readSpans(fsys, dir)
}

func readSpanFile(path string) ([]Span, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spans %s: %w", path, unwrapPathErr(err))
	}
	defer f.Close()
	var spans []Span
	r := mr.NewReader(bufio.NewReaderSize(f, 1<<16))
	for r.Next() {
		line := string(r.Line())
		if strings.TrimSpace(line) == "" {
			continue
		}
		s, err := ParseSpan(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, r.LineNumber(), err)
		}
		spans = append(spans, s)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return spans, nil
}

// detections converts spans to lib/eval detections (Susp = docA).
func detections(spans []Span) []eval.Detection {
	dets := make([]eval.Detection, len(spans))
	for i, s := range spans {
		dets[i] = spanDetection(s)
	}
	return dets
}

func spanDetection(s Span) eval.Detection {
	return eval.Detection{Susp: s.DocA, Src: s.DocB,
		SuspStart: s.CharStartA, SuspLen: s.CharEndA - s.CharStartA,
		SrcStart: s.CharStartB, SrcLen: s.CharEndB - s.CharStartB}
}

// unmatchedSpans returns, in order, the spans whose detections are among
// unmatched (a multiset: equal detections count once each).
func unmatchedSpans(spans []Span, unmatched []eval.Detection) []Span {
	left := make(map[eval.Detection]int, len(unmatched))
	for _, d := range unmatched {
		left[d]++
	}
	var out []Span
	for _, s := range spans {
		if d := spanDetection(s); left[d] > 0 {
			left[d]--
			out = append(out, s)
		}
	}
	return out
}

func spanChars(s Span) int { return s.CharEndA - s.CharStartA + s.CharEndB - s.CharStartB }

func writeEvalTable(w io.Writer, cases []eval.Case, dets []eval.Detection, nUnmatched int, listed []Span) error {
	if err := eval.WriteReport(w, cases, dets); err != nil {
		return err
	}
	if len(listed) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%d of %d unmatched detections, longest first:\n", len(listed), nUnmatched)
	for i, s := range listed {
		fmt.Fprintf(w, "\n%d. %s [%d,%d) ~ %s [%d,%d)  %d sentences, score %.4f\n", i+1,
			s.DocA, s.CharStartA, s.CharEndA, s.DocB, s.CharStartB, s.CharEndB, s.Length, s.Score)
		fmt.Fprintf(w, "   A: %s\n   B: %s\n", passage(*s.TextA), passage(*s.TextB))
	}
	_, err := fmt.Fprintln(w)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// passage flattens a passage to one line and shortens it to maxPassage
// runes.
func passage(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxPassage {
		return s
	}
	r := []rune(s)
	return string(r[:maxPassage/2]) + " […] " + string(r[len(r)-maxPassage/2:])
}

// evalScore is the JSON form of an eval.Score.
type evalScore struct {
	Cases       int     `json:"cases"`
	Detections  int     `json:"detections"`
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	Granularity float64 `json:"granularity"`
	Plagdet     float64 `json:"plagdet"`
	SpanP       float64 `json:"span_precision"`
	SpanR       float64 `json:"span_recall"`
	SpanF1      float64 `json:"span_f1"`
}

func jsonScore(s eval.Score) evalScore {
	return evalScore{Cases: s.Cases, Detections: s.Detections, Precision: s.Precision, Recall: s.Recall,
		Granularity: s.Granularity, Plagdet: s.Plagdet, SpanP: s.SpanP, SpanR: s.SpanR, SpanF1: s.SpanF1}
}

type evalReport struct {
	Truth          string               `json:"truth"`
	Spans          string               `json:"spans"`
	Overall        evalScore            `json:"overall"`
	Classes        map[string]evalScore `json:"classes"`
	Unmatched      int                  `json:"unmatched"`
	UnmatchedSpans []Span               `json:"unmatched_spans,omitempty"`
}

func writeEvalJSON(w io.Writer, o evalOptions, cases []eval.Case, dets []eval.Detection, nUnmatched int, listed []Span) error {
	rep := evalReport{Truth: o.truth, Spans: o.spans, Overall: jsonScore(eval.Evaluate(cases, dets)),
		Classes: map[string]evalScore{}, Unmatched: nUnmatched, UnmatchedSpans: listed}
	for class, s := range eval.EvaluateByClass(cases, dets) {
		rep.Classes[class] = jsonScore(s) // encoding/json sorts the keys
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
