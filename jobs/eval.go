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
// With --input (the run's documents) the unmatched detections, those that
// detect no case, are told apart (lib/eval Classify): natural reuse (outside
// every planted range and confirmed similar character by character: reuse
// the real source texts share) or false positives. The table lists every
// natural reuse (the first 200 characters of each passage) and the longest
// false positives (--unmatched). "all (planted)" and "precision (planted)"
// leave natural reuse out. --check checks the quality targets (lib/eval
// Target) and fails when one is not met.
//
// --format json prints one object:
//
//	{"truth": PATH, "spans": PATH, "overall": SCORE, "planted": SCORE,
//	 "classes": {CLASS: SCORE, ...}, "languages": {LANG: SCORE, ...},
//	 "language_classes": {LANG: {CLASS: SCORE, ...}, ...},
//	 "unmatched": N, "natural_reuse": N, "false_positives": N,
//	 "natural_reuse_spans": [SPAN + "similarity", ...], "unmatched_spans": [SPAN, ...],
//	 "targets": [{"name", "value", "op", "bound", "pass", "line"}, ...]}
//
// where SCORE is evalScore and SPAN is a span as `pdc spans --format jsonl
// --text` prints it (the spans lists only with --input; natural reuse text
// shortened to 200 characters; unmatched_spans are the longest false
// positives; targets only with --check).

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/eval"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/span"
)

type evalOptions struct {
	truth, spans string
	inputs       listFlag
	format       string
	unmatched    int
	check        bool
	// checkClusters checks the cluster targets only: on a corpus whose
	// runs were planted into several targets, the truth lists no
	// copy-to-copy case, so span precision is not measured there.
	checkClusters bool
	// checkHard checks the hard tier's targets (lib/eval HardTargets).
	checkHard bool
}

// defaultUnmatched is how many false positives --input lists when
// --unmatched is not given.
const defaultUnmatched = 10

// maxPassage is the longest passage, in runes, printed for a false positive
// in the table format; naturalPassage is the length of the beginning of a
// natural-reuse passage printed (and put in the JSON).
const (
	maxPassage     = 600
	naturalPassage = 200
)

func (m *Main) evalCmd(ctx context.Context, args []string) error {
	var o evalOptions
	fs := m.newFlagSet("eval", "--truth TRUTH --spans OUT [--input DOCS] [--format table|json] [--unmatched N] [--check]")
	fs.kerberosFlags()
	fs.StringVar(&o.truth, "truth", "", "ground truth: PAN XML file or directory, or truth JSON Lines")
	fs.StringVar(&o.spans, "spans", "", "the run's output directory, or a spans TSV file")
	fs.Var(&o.inputs, "input", "the run's documents, to tell natural reuse from false positives and print them with their text; repeatable")
	fs.StringVar(&o.format, "format", "table", "output format: table or json")
	fs.IntVar(&o.unmatched, "unmatched", defaultUnmatched, "with --input: list up to this many false positives, longest first")
	fs.BoolVar(&o.check, "check", false, "check the quality targets; fail if one is not met (needs --input)")
	fs.BoolVar(&o.checkHard, "check-hard", false, "check the hard tier's targets (a corpus of scripts/eval.sh --tier hard) instead")
	fs.BoolVar(&o.checkClusters, "check-clusters", false, "check only the passage-cluster targets (a run with --clusters on a corpus planted with copies)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := o.validate(fs); err != nil {
		return err
	}
	return m.evaluate(ctx, args, o)
}

func (o *evalOptions) validate(fs *flagSet) error {
	if fs.NArg() > 0 {
		return usagef("eval: unexpected argument %q", fs.Arg(0))
	}
	if o.truth == "" || o.spans == "" {
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
	if (o.check || o.checkHard) && len(o.inputs) == 0 {
		return usagef("eval: --check needs --input DOCS (the run's documents, to tell natural reuse from false positives)")
	}
	if len(o.inputs) == 0 {
		o.unmatched = 0
	}
	return nil
}

// evalResult is what pdc eval reports: the summary and the unmatched spans
// (index-aligned with sum.Unmatched) split by kind.
type evalResult struct {
	sum       eval.Summary
	natural   []naturalSpan // in span order
	falsePos  []span.Span   // the longest false positives, longest first
	nFalsePos int
	targets   []eval.Target      // with --check
	clusters  *eval.ClusterStats // when the run has clusters (--clusters)
}

// naturalSpan is a natural-reuse span with the similarity of its passages;
// its text is the first naturalPassage runes of each passage.
type naturalSpan struct {
	span.Span
	Similarity float64 `json:"similarity"`
}

func (m *Main) evaluate(ctx context.Context, args []string, o evalOptions) error {
	cases, err := eval.ReadTruth(o.truth)
	if err != nil {
		return err
	}
	spans, err := m.evalSpans(o.spans)
	if err != nil {
		return err
	}
	dets := detections(spans)
	unmatched := unmatchedSpans(spans, eval.Unmatched(cases, dets))
	var text eval.Passages
	if len(o.inputs) > 0 && len(unmatched) > 0 {
		r, err := m.openRun(o.spans)
		if err != nil {
			return err
		}
		an, err := r.Analyzer(ctx, append([]string{"eval"}, args...))
		if err != nil {
			return err
		}
		if err := m.addText(unmatched, m.given(o.inputs), an); err != nil {
			return err
		}
		text = spanPassages(unmatched)
	}
	res := evalResult{sum: eval.Summarize(cases, dets, text)}
	if fsys, dir, err := hdfsfs.Resolve(o.spans, m.isRemote(o.spans)); err == nil {
		if _, err := fsys.Stat(dir + "/clusters/_SUCCESS"); err == nil {
			cs, err := cluster.Read(fsys, dir+"/clusters")
			if err != nil {
				return err
			}
			st := eval.Clusters(cases, cs)
			res.clusters = &st
		}
	}
	res.split(unmatched, o.unmatched)
	switch {
	case o.checkClusters && res.clusters == nil:
		return fmt.Errorf("eval: --check-clusters: %s has no clusters (run pdc run with --clusters)", o.spans)
	case o.checkClusters:
		res.targets = res.clusters.Targets()
	case o.checkHard:
		res.targets = res.sum.HardTargets()
	case o.check:
		res.targets = res.sum.Targets()
		if res.clusters != nil {
			res.targets = append(res.targets, res.clusters.Targets()...)
		}
	}
	w := bufio.NewWriter(m.Stdout)
	if o.format == "json" {
		err = writeEvalJSON(w, o, res)
	} else {
		err = writeEvalTable(w, res)
	}
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write: %w", ferr)
	}
	if err == nil && (o.check || o.checkClusters || o.checkHard) {
		err = targetsError(res.targets)
	}
	return err
}

// targetsError returns an error naming the failed targets, if any.
func targetsError(ts []eval.Target) error {
	var failed []string
	for _, t := range ts {
		if !t.Pass() {
			failed = append(failed, t.Name)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("eval: %d of %d quality targets not met: %s", len(failed), len(ts), strings.Join(failed, "; "))
}

// spanPassages reads the passages of unmatched detections from the text of
// their spans (filled by addText).
func spanPassages(spans []span.Span) eval.Passages {
	text := make(map[eval.Detection][2]string, len(spans))
	for _, s := range spans {
		if s.TextA != nil && s.TextB != nil {
			text[spanDetection(s)] = [2]string{*s.TextA, *s.TextB}
		}
	}
	return func(d eval.Detection) (string, string, bool) {
		t, ok := text[d]
		return t[0], t[1], ok
	}
}

// split sorts the unmatched spans (index-aligned with r.sum.Unmatched) into
// natural reuse, with shortened text, and the longest n false positives.
func (r *evalResult) split(unmatched []span.Span, n int) {
	var fps []span.Span
	for i, s := range unmatched {
		u := r.sum.Unmatched[i]
		if !u.Natural {
			fps = append(fps, s)
			continue
		}
		a, b := head(*s.TextA, naturalPassage), head(*s.TextB, naturalPassage)
		s.TextA, s.TextB = &a, &b
		r.natural = append(r.natural, naturalSpan{Span: s, Similarity: u.Similarity})
	}
	r.nFalsePos = len(fps)
	slices.SortStableFunc(fps, func(a, b span.Span) int {
		return cmp.Compare(spanChars(b), spanChars(a))
	})
	r.falsePos = fps[:min(len(fps), n)]
}

// head flattens s to one line and keeps its first n runes.
func head(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// evalSpans reads a spans TSV file, or the spans of a run's output directory
// sorted as `pdc spans` prints them.
func (m *Main) evalSpans(path string) ([]span.Span, error) {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return span.ReadFile(hdfsfs.Local(), path)
	}
	fsys, dir, err := hdfsfs.Resolve(path, m.isRemote(path))
	if err != nil {
		return nil, fmt.Errorf("spans %s: %w", path, err)
	}
	return span.Read(fsys, dir)
}

// detections converts spans to lib/eval detections (Susp = docA).
func detections(spans []span.Span) []eval.Detection {
	dets := make([]eval.Detection, len(spans))
	for i, s := range spans {
		dets[i] = spanDetection(s)
	}
	return dets
}

func spanDetection(s span.Span) eval.Detection {
	return eval.Detection{Susp: s.DocA, Src: s.DocB,
		SuspStart: s.CharStartA, SuspLen: s.CharEndA - s.CharStartA,
		SrcStart: s.CharStartB, SrcLen: s.CharEndB - s.CharStartB}
}

// unmatchedSpans returns, in order, the spans whose detections are among
// unmatched (a multiset: equal detections count once each).
func unmatchedSpans(spans []span.Span, unmatched []eval.Detection) []span.Span {
	left := make(map[eval.Detection]int, len(unmatched))
	for _, d := range unmatched {
		left[d]++
	}
	var out []span.Span
	for _, s := range spans {
		if d := spanDetection(s); left[d] > 0 {
			left[d]--
			out = append(out, s)
		}
	}
	return out
}

func spanChars(s span.Span) int { return s.CharEndA - s.CharStartA + s.CharEndB - s.CharStartB }

func writeEvalTable(w io.Writer, r evalResult) error {
	if err := eval.WriteReport(w, r.sum); err != nil {
		return err
	}
	if len(r.natural) > 0 {
		fmt.Fprintf(w, "\nnatural reuse (outside the planted text, passages confirmed similar), %d detections:\n", len(r.natural))
		for i, s := range r.natural {
			fmt.Fprintf(w, "\n%d. %s [%d,%d) ~ %s [%d,%d)  %d+%d chars, %d sentences, similarity %.4f\n", i+1,
				s.DocA, s.CharStartA, s.CharEndA, s.DocB, s.CharStartB, s.CharEndB,
				s.CharEndA-s.CharStartA, s.CharEndB-s.CharStartB, s.Length, s.Similarity)
			fmt.Fprintf(w, "   A: %s\n   B: %s\n", *s.TextA, *s.TextB)
		}
	}
	if c := r.clusters; c != nil {
		fmt.Fprintf(w, "\nclusters: %d of %d cases (%.4f) have both passages in one cluster; %d of %d planted passages (%.4f) are in one cluster with all their copies, %d (%.4f) in a cluster of exactly their documents\n",
			c.CasesClustered, c.Cases, eval.Share(c.CasesClustered, c.Cases), c.PassagesWhole, c.Passages, eval.Share(c.PassagesWhole, c.Passages),
			c.PassagesExact, eval.Share(c.PassagesExact, c.Passages))
	}
	if len(r.falsePos) > 0 {
		fmt.Fprintf(w, "\n%d of %d false positives, longest first:\n", len(r.falsePos), r.nFalsePos)
		for i, s := range r.falsePos {
			fmt.Fprintf(w, "\n%d. %s [%d,%d) ~ %s [%d,%d)  %d sentences, score %.4f\n", i+1,
				s.DocA, s.CharStartA, s.CharEndA, s.DocB, s.CharStartB, s.CharEndB, s.Length, s.Score)
			fmt.Fprintf(w, "   A: %s\n   B: %s\n", passage(*s.TextA), passage(*s.TextB))
		}
	}
	if len(r.targets) > 0 {
		fmt.Fprintln(w, "\nquality targets:")
		if _, err := eval.WriteTargets(w, r.targets); err != nil {
			return err
		}
	}
	if len(r.natural)+len(r.falsePos)+len(r.targets) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return fmt.Errorf("write: %w", err)
		}
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
	// Boundary: mean characters a detecting span covers outside its
	// cases (lib/eval Score.Boundary).
	Boundary float64 `json:"boundary_chars"`
}

func jsonScore(s eval.Score) evalScore {
	return evalScore{Cases: s.Cases, Detections: s.Detections, Precision: s.Precision, Recall: s.Recall,
		Granularity: s.Granularity, Plagdet: s.Plagdet, SpanP: s.SpanP, SpanR: s.SpanR, SpanF1: s.SpanF1,
		Boundary: s.Boundary}
}

type evalReport struct {
	Truth           string                          `json:"truth"`
	Spans           string                          `json:"spans"`
	Overall         evalScore                       `json:"overall"`
	Planted         evalScore                       `json:"planted"`
	Classes         map[string]evalScore            `json:"classes"`
	Languages       map[string]evalScore            `json:"languages"`
	LanguageClasses map[string]map[string]evalScore `json:"language_classes"`
	Unmatched       int                             `json:"unmatched"`
	NaturalReuse    int                             `json:"natural_reuse"`
	FalsePositives  int                             `json:"false_positives"`
	NaturalSpans    []naturalSpan                   `json:"natural_reuse_spans,omitempty"`
	UnmatchedSpans  []span.Span                     `json:"unmatched_spans,omitempty"`
	Targets         []evalTarget                    `json:"targets,omitempty"`
	Clusters        *eval.ClusterStats              `json:"clusters,omitempty"`
}

// evalTarget is the JSON form of an eval.Target.
type evalTarget struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Op    string  `json:"op"`
	Bound float64 `json:"bound"`
	Pass  bool    `json:"pass"`
	Line  string  `json:"line"`
}

func jsonScores(m map[string]eval.Score) map[string]evalScore {
	out := make(map[string]evalScore, len(m))
	for k, s := range m {
		out[k] = jsonScore(s) // encoding/json sorts the keys
	}
	return out
}

func writeEvalJSON(w io.Writer, o evalOptions, r evalResult) error {
	s := r.sum
	rep := evalReport{Truth: o.truth, Spans: o.spans, Overall: jsonScore(s.Overall), Planted: jsonScore(s.Planted),
		Classes: jsonScores(s.Classes), Languages: jsonScores(s.Langs),
		LanguageClasses: make(map[string]map[string]evalScore, len(s.LangClasses)),
		Unmatched:       len(s.Unmatched), NaturalReuse: len(r.natural), FalsePositives: r.nFalsePos,
		NaturalSpans: r.natural, UnmatchedSpans: r.falsePos, Clusters: r.clusters}
	for l, m := range s.LangClasses {
		rep.LanguageClasses[l] = jsonScores(m)
	}
	for _, t := range r.targets {
		op := ">="
		if t.AtMost {
			op = "<="
		}
		rep.Targets = append(rep.Targets, evalTarget{Name: t.Name, Value: t.Value, Op: op, Bound: t.Bound,
			Pass: t.Pass(), Line: t.String()})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
