package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hand-made fixture. Cases (susp [range) <- src [range)):
//
//	c1 verbatim  a [0,100)   <- b [0,100)     |c1| = 200
//	c2 light     a [200,300) <- c [50,150)    |c2| = 200
//	c3 verbatim  d [0,50)    <- b [500,550)   |c3| = 100
//
// Spans (docA [range) ~ docB [range)):
//
//	D1  a [0,100)   ~ b [0,100)    exactly c1                  |D1| = 200
//	D2  a [200,250) ~ c [50,100)   first half of c2            |D2| = 100
//	D3  a [250,300) ~ c [100,150)  second half of c2           |D3| = 100
//	D4  b [520,560) ~ d [20,60)    c3 reversed, overlap 30+30  |D4| = 80
//	D5  a [0,40)    ~ e [0,40)     no case (unmatched)         |D5| = 80
//
// Character level:
//
//	prec = (1 + 1 + 1 + 60/80 + 0) / 5          = 0.75
//	rec  = (200/200 + 200/200 + 60/100) / 3     = 2.6/3 = 0.866667
//	gran = (1 + 2 + 1) / 3                      = 1.333333
//	plagdet = F1(0.75, 0.866667) / log2(1 + 4/3) = 0.804124 / 1.222392 = 0.657828
//
// Span level (overlap >= half the shorter range in both documents): D1..D4
// match (D4: 30 >= 40/2 in d and in b), D5 does not; every case is matched:
//
//	spanP = 4/5 = 0.8, spanR = 3/3 = 1, spanF1 = 1.6/1.8 = 0.888889
//
// Per class (precision over the detections that detect a case of the class):
//
//	verbatim: dets D1, D4: prec (1 + 0.75)/2 = 0.875, rec (1 + 0.6)/2 = 0.8,
//	          gran 1, plagdet = F1(0.875, 0.8) = 1.4/1.675 = 0.835821
//	light:    dets D2, D3: prec 1, rec 1, gran 2, plagdet 1/log2(3) = 0.630930
const (
	fixtureSpans = "a\tb\t0\t0\t2\t0\t100\t0\t100\t1.0000\n" +
		"a\tc\t4\t1\t1\t200\t250\t50\t100\t0.9000\n" +
		"a\tc\t5\t2\t1\t250\t300\t100\t150\t0.8000\n" +
		"a\te\t0\t0\t1\t0\t40\t0\t40\t1.0000\n" +
		"b\td\t9\t1\t1\t520\t560\t20\t60\t0.7000\n"
	fixtureTruthJSONL = `{"susp":"a","susp_offset":0,"susp_length":100,"src":"b","src_offset":0,"src_length":100,"class":"verbatim"}
{"susp":"a","susp_offset":200,"susp_length":100,"src":"c","src_offset":50,"src_length":100,"class":"light"}

{"susp":"d","susp_offset":0,"susp_length":50,"src":"b","src_offset":500,"src_length":50,"class":"verbatim"}
`
	fixturePANa = `<?xml version="1.0" encoding="UTF-8"?>
<document reference="a.txt">
<feature name="plagiarism" obfuscation="verbatim" this_offset="0" this_length="100" source_reference="b.txt" source_offset="0" source_length="100"/>
<feature name="plagiarism" obfuscation="light" this_offset="200" this_length="100" source_reference="c.txt" source_offset="50" source_length="100"/>
</document>
`
	fixturePANd = `<document reference="d.txt">
<feature name="about" authors="nobody"/>
<feature name="plagiarism" obfuscation="verbatim" this_offset="0" this_length="50" source_reference="b.txt" source_offset="500" source_length="50"/>
</document>
`
)

// wantEval is the expected --format json output for the fixture.
var wantEval = evalReport{
	Overall: evalScore{Cases: 3, Detections: 5, Precision: 0.75, Recall: 2.6 / 3, Granularity: 4.0 / 3,
		Plagdet: 0.657828, SpanP: 0.8, SpanR: 1, SpanF1: 0.888889},
	Classes: map[string]evalScore{
		"verbatim": {Cases: 2, Detections: 2, Precision: 0.875, Recall: 0.8, Granularity: 1,
			Plagdet: 0.835821, SpanP: 1, SpanR: 1, SpanF1: 1},
		"light": {Cases: 1, Detections: 2, Precision: 1, Recall: 1, Granularity: 2,
			Plagdet: 0.630930, SpanP: 1, SpanR: 1, SpanF1: 1},
	},
	Unmatched: 1,
}

// evalFixture writes the fixture in every supported form and returns the
// directory.
func evalFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"truth.jsonl":           fixtureTruthJSONL,
		"truth-noext":           fixtureTruthJSONL,
		"pan/a.xml":             fixturePANa,
		"pan/sub/d.xml":         fixturePANd,
		"pan-noext":             fixturePANa,
		"spans.tsv":             fixtureSpans,
		"out/spans/part-00000":  fixtureSpans[:strings.Index(fixtureSpans, "a\te")],
		"out/spans/part-00001":  fixtureSpans[strings.Index(fixtureSpans, "a\te"):],
		"out/spans/_SUCCESS":    "",
		"unfinished/spans/part": "",
		"emptypan/README":       "no xml here",
		"docs.jsonl": `{"id":"a","text":"The quick brown fox jumps over the lazy dog.\n\nA second paragraph."}
{"id":"e","text":"The quick brown fox jumps over the lazy cat, or so they say."}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runEval runs `pdc eval args...` in-process and returns stdout and the
// error.
func runEval(args ...string) (string, error) {
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	err := m.Run(context.Background(), append([]string{"eval"}, args...))
	return out.String(), err
}

func TestEvalJSON(t *testing.T) {
	t.Parallel()
	dir := evalFixture(t)
	for _, truth := range []string{"truth.jsonl", "truth-noext", "pan"} {
		for _, spans := range []string{"spans.tsv", "out", "out/spans"} {
			t.Run(truth+"/"+spans, func(t *testing.T) {
				out, err := runEval("--truth", filepath.Join(dir, truth),
					"--spans", filepath.Join(dir, spans), "--format", "json")
				if err != nil {
					t.Fatal(err)
				}
				var got evalReport
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("output is not one JSON object: %v\n%s", err, out)
				}
				if strings.Count(strings.TrimSpace(out), "\n") != 0 {
					t.Errorf("want one line, got %q", out)
				}
				checkScore(t, "overall", got.Overall, wantEval.Overall)
				if len(got.Classes) != len(wantEval.Classes) {
					t.Errorf("classes = %v, want %v", got.Classes, wantEval.Classes)
				}
				for c, w := range wantEval.Classes {
					checkScore(t, c, got.Classes[c], w)
				}
				if got.Unmatched != wantEval.Unmatched || len(got.UnmatchedSpans) != 0 {
					t.Errorf("unmatched = %d (%d listed), want %d (0 listed)", got.Unmatched, len(got.UnmatchedSpans), wantEval.Unmatched)
				}
			})
		}
	}
}

func checkScore(t *testing.T, name string, got, want evalScore) {
	t.Helper()
	if got.Cases != want.Cases || got.Detections != want.Detections {
		t.Errorf("%s: cases, dets = %d, %d, want %d, %d", name, got.Cases, got.Detections, want.Cases, want.Detections)
	}
	nums := []struct {
		what      string
		got, want float64
	}{
		{"precision", got.Precision, want.Precision}, {"recall", got.Recall, want.Recall},
		{"granularity", got.Granularity, want.Granularity}, {"plagdet", got.Plagdet, want.Plagdet},
		{"spanP", got.SpanP, want.SpanP}, {"spanR", got.SpanR, want.SpanR}, {"spanF1", got.SpanF1, want.SpanF1},
	}
	for _, n := range nums {
		if math.Abs(n.got-n.want) > 1e-6 {
			t.Errorf("%s: %s = %.6f, want %.6f", name, n.what, n.got, n.want)
		}
	}
}

func TestEvalTable(t *testing.T) {
	t.Parallel()
	dir := evalFixture(t)
	out, err := runEval("--truth", filepath.Join(dir, "pan-noext"), "--spans", filepath.Join(dir, "spans.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	// pan-noext holds only a.xml: cases c1 and c2. D4 now detects nothing.
	// prec = (1+1+1+0+0)/5 = 0.6, rec = 1, gran = 3/2,
	// plagdet = 0.75 / log2(2.5) = 0.567356; spanP = 3/5, spanF1 = 0.75.
	// Without --input nothing is natural reuse, and no language is known.
	want := `class          cases  dets  prec    rec     gran    plagdet  spanP   spanR   spanF1
all            2      5     0.6000  1.0000  1.5000  0.5674   0.6000  1.0000  0.7500
all (planted)  2      5     0.6000  1.0000  1.5000  0.5674   0.6000  1.0000  0.7500
light          1      2     1.0000  1.0000  2.0000  0.6309   1.0000  1.0000  1.0000
verbatim       1      1     1.0000  1.0000  1.0000  1.0000   1.0000  1.0000  1.0000
lang (none)    2      5     0.6000  1.0000  1.5000  0.5674   0.6000  1.0000  0.7500
unmatched detections: 2 (natural reuse 0, false positives 2; passages unknown, natural reuse not confirmed)
precision 0.6000, precision (planted) 0.6000

plagdet   (none)
light     0.6309
verbatim  1.0000
all       0.5674
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestEvalUnmatchedText(t *testing.T) {
	t.Parallel()
	dir := evalFixture(t)
	args := []string{"--truth", filepath.Join(dir, "truth.jsonl"), "--spans", filepath.Join(dir, "out"),
		"--input", filepath.Join(dir, "docs.jsonl")}
	out, err := runEval(args...)
	if err != nil {
		t.Fatal(err)
	}
	// D5 a [0,40) ~ e [0,40) has similar passages but overlaps the
	// planted c1 in a: a false positive.
	want := "\n1 of 1 false positives, longest first:\n\n" +
		"1. a [0,40) ~ e [0,40)  1 sentences, score 1.0000\n" +
		"   A: The quick brown fox jumps over the lazy\n" +
		"   B: The quick brown fox jumps over the lazy\n\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("got\n%s\nwant suffix\n%s", out, want)
	}
	out, err = runEval(append(args, "--format", "json", "--unmatched", "1")...)
	if err != nil {
		t.Fatal(err)
	}
	var got evalReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.UnmatchedSpans) != 1 || got.UnmatchedSpans[0].TextB == nil ||
		*got.UnmatchedSpans[0].TextB != "The quick brown fox jumps over the lazy " {
		t.Errorf("unmatched_spans = %+v", got.UnmatchedSpans)
	}
	out, err = runEval(append(args, "--unmatched", "0")...)
	if err != nil || strings.Contains(out, "longest first") {
		t.Errorf("--unmatched 0: err %v, output\n%s", err, out)
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	dir := evalFixture(t)
	truth, spans := filepath.Join(dir, "truth.jsonl"), filepath.Join(dir, "spans.tsv")
	tests := []struct {
		name string
		args []string
		code int
		msg  string // in the error
	}{
		{"no flags", nil, 2, "--truth and --spans are required"},
		{"no spans", []string{"--truth", truth}, 2, "--truth and --spans are required"},
		{"positional", []string{"--truth", truth, "--spans", spans, "extra"}, 2, `unexpected argument "extra"`},
		{"format", []string{"--truth", truth, "--spans", spans, "--format", "xml"}, 2, `unknown --format "xml"`},
		{"bad flag", []string{"--truth", truth, "--spans", spans, "--bogus"}, 2, "bogus"},
		{"unmatched without input", []string{"--truth", truth, "--spans", spans, "--unmatched", "5"}, 2, "needs --input"},
		{"negative unmatched", []string{"--truth", truth, "--spans", spans, "--unmatched", "-1"}, 2, ">= 0"},
		{"missing truth", []string{"--truth", filepath.Join(dir, "nope.xml"), "--spans", spans}, 1, "nope.xml: no such file"},
		{"missing spans", []string{"--truth", truth, "--spans", filepath.Join(dir, "nope")}, 1, "nope: no such file"},
		{"unfinished run", []string{"--truth", truth, "--spans", filepath.Join(dir, "unfinished")}, 1, "no _SUCCESS"},
		{"empty pan dir", []string{"--truth", filepath.Join(dir, "emptypan"), "--spans", spans}, 1, "no PAN *.xml files"},
		{"bad truth", []string{"--truth", spans, "--spans", spans}, 1, "truth line 1"},
		{"bad spans", []string{"--truth", truth, "--spans", truth}, 1, "want 10 fields"},
		{"missing input", []string{"--truth", truth, "--spans", spans, "--input", filepath.Join(dir, "nodocs")}, 1, "nodocs: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runEval(tt.args...)
			if got := ExitCode(err); got != tt.code {
				t.Fatalf("exit code %d (%v), want %d", got, err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.msg) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q", err, tt.msg)
			}
		})
	}
}

// TestEvalNaturalReuse: one planted case p [0,60) <- q [0,60), found; the
// distractors x and y share a real paragraph (natural reuse), and "2. 3."
// enumerations match across x and y (a false positive: too short to
// confirm).
func TestEvalNaturalReuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	para := "The public credit must be kept sound and the currency stable for every citizen of the land."
	para2 := "The public credit must be kept sound, and the currency stable, for every citizen of this land!"
	planted := "Planted sentence one is here. Planted sentence two is here." // 60 runes
	files := map[string]string{
		"truth.jsonl": `{"susp":"p","susp_offset":0,"susp_length":60,"src":"q","src_offset":0,"src_length":60,"class":"verbatim","lang":"en"}` + "\n",
		"spans.tsv": "p\tq\t0\t0\t2\t0\t60\t0\t60\t1.0000\n" +
			"x\ty\t0\t0\t1\t0\t91\t0\t95\t0.9000\n" +
			"x\ty\t2\t2\t2\t92\t97\t96\t101\t1.0000\n",
		"docs.jsonl": fmt.Sprintf(`{"id":"p","text":%q}`+"\n"+`{"id":"q","text":%q}`+"\n"+
			`{"id":"x","text":%q}`+"\n"+`{"id":"y","text":%q}`+"\n",
			planted+" More.", planted, para+" 2. 3.", para2+" 2. 3."),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--truth", filepath.Join(dir, "truth.jsonl"), "--spans", filepath.Join(dir, "spans.tsv"),
		"--input", filepath.Join(dir, "docs.jsonl")}
	out, err := runEval(args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"unmatched detections: 2 (natural reuse 1, false positives 1)\nprecision 0.3333, precision (planted) 0.5000\n",
		"natural reuse (outside the planted text, passages confirmed similar), 1 detections:\n\n" +
			"1. x [0,91) ~ y [0,95)  91+95 chars, 1 sentences, similarity 0.97",
		"   A: " + para + "\n   B: " + para2 + "\n",
		"1 of 1 false positives, longest first:\n\n1. x [92,97) ~ y [96,101)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	out, err = runEval(append(args, "--format", "json", "--check")...)
	if ExitCode(err) != 1 || !strings.Contains(err.Error(), "quality targets not met: light plagdet") {
		t.Errorf("--check on a corpus without most classes: %v", err)
	}
	var got evalReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.NaturalReuse != 1 || got.FalsePositives != 1 || len(got.NaturalSpans) != 1 ||
		got.NaturalSpans[0].Similarity < 0.8 || *got.NaturalSpans[0].TextA != para ||
		got.Planted.Precision != 0.5 || got.Languages["en"].Cases != 1 || len(got.Targets) != 9 ||
		!got.Targets[0].Pass || got.Targets[1].Pass {
		t.Errorf("json: %+v", got)
	}
	if _, err := runEval(args[:4]...); err != nil {
		t.Error(err)
	}
	if _, err := runEval(append(args[:4:4], "--check")...); ExitCode(err) != 2 {
		t.Errorf("--check without --input: %v", err)
	}
}
