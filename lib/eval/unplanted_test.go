package eval

import (
	"strings"
	"testing"
)

func TestSimilarity(t *testing.T) {
	tests := []struct {
		name    string
		a, b    string
		atLeast float64
		want    float64 // exact, or -1: anything below atLeast
	}{
		{"identical", "The cat sat.", "The cat sat.", 0.8, 1},
		{"case, space and punctuation", "The  cat, sat!", "the cat sat", 0.8, 1},
		{"full-width", "ＡＢＣ１２３", "abc123", 0.8, 1},
		// "abcd" vs "abxd": LCS 3, 2*3/8 = 0.75.
		{"one substitution", "abcd", "abxd", 0, 0.75},
		{"below threshold", "abcd", "abxd", 0.8, -1},
		// "abcdefghij" vs "abcdefghi": LCS 9, 18/19.
		{"one deletion", "abcdefghij", "abcdefghi", 0.8, 18.0 / 19},
		{"disjoint", "abc", "xyz", 0, 0},
		{"empty", "", "...", 0.8, 0},
		{"chinese", "我们今天去公园。", "我们今天去公园", 0.8, 1},
		{"length ratio rules it out", "a", strings.Repeat("a", 20), 0.8, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Similarity(tt.a, tt.b, tt.atLeast)
			if tt.want < 0 {
				if got >= tt.atLeast {
					t.Errorf("Similarity = %v, want below %v", got, tt.atLeast)
				}
				return
			}
			if !near(got, tt.want) {
				t.Errorf("Similarity = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEditDistance checks Myers' distance against the quadratic LCS.
func TestEditDistance(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "abc", "acb", "abcabba", "cbabac", "xyz", "aaaa", "abab"}
	for _, x := range words {
		for _, y := range words {
			a, b := []rune(x), []rune(y)
			want := len(a) + len(b) - 2*lcs(a, b)
			if got := editDistance(a, b, len(a)+len(b)); got != want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", x, y, got, want)
			}
			if want > 0 {
				if got := editDistance(a, b, want-1); got != -1 {
					t.Errorf("editDistance(%q, %q, %d) = %d, want -1", x, y, want-1, got)
				}
			}
		}
	}
}

func lcs(a, b []rune) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				dp[i][j] = dp[i-1][j-1] + 1
			} else {
				dp[i][j] = max(dp[i-1][j], dp[i][j-1])
			}
		}
	}
	return dp[len(a)][len(b)]
}

// The hand-made corpus of TestClassify: a planted case t[100,200) <- s[0,100)
// and three unmatched detections.
const (
	reused  = "We must keep the public credit sound and the currency stable for all the people."
	reused2 = "We must keep the public credit sound, and the currency stable, for all of the people!"
)

func TestClassify(t *testing.T) {
	cases := []Case{{Susp: "t", Src: "s", SuspStart: 100, SuspLen: 100, SrcStart: 0, SrcLen: 100, Class: "verbatim", Lang: "en"}}
	natural := det("x", "y", 0, 81, 500, 586)   // real reuse between two unplanted documents
	enum := det("x", "y", 900, 906, 40, 46)     // "2. 3." ~ "2. 3.": too short
	diff := det("x", "y", 1000, 1081, 0, 81)    // dissimilar passages
	inside := det("t", "y", 150, 231, 600, 686) // overlaps the planted range in t, but not the case's pair
	text := map[Detection][2]string{
		natural: {reused, reused2},
		enum:    {"2. 3.", "2. 3."},
		diff:    {reused, "The harvest was plentiful this year in every one of the Western States."},
		inside:  {reused, reused2},
	}
	passages := func(d Detection) (string, string, bool) { p, ok := text[d]; return p[0], p[1], ok }
	dets := []Detection{det("t", "s", 100, 200, 0, 100), natural, enum, diff, inside}
	got := Classify(cases, dets, passages)
	want := []bool{true, false, false, false}
	if len(got) != len(want) {
		t.Fatalf("%d unmatched, want %d", len(got), len(want))
	}
	for i, u := range got {
		if u.Natural != want[i] || u.Detection != dets[i+1] {
			t.Errorf("unmatched %d %+v: natural %v, want %v", i, u.Detection, u.Natural, want[i])
		}
	}
	if s := got[0].Similarity; s < NaturalSimilarity || s >= 1 {
		t.Errorf("natural reuse similarity %v", s)
	}
	s := Summarize(cases, dets, passages)
	// precision: (1 + 0*4)/5 overall; without the natural reuse (1+0*3)/4.
	if !near(s.Overall.Precision, 0.2) || !near(s.Planted.Precision, 0.25) || s.Planted.Detections != 4 {
		t.Errorf("precision %v, planted %v (%d dets)", s.Overall.Precision, s.Planted.Precision, s.Planted.Detections)
	}
	if n, f := len(s.Natural()), len(s.FalsePositives()); n != 1 || f != 3 || !s.Classified {
		t.Errorf("natural %d, false positives %d, classified %v", n, f, s.Classified)
	}
	if got := Classify(cases, dets, nil); got[0].Natural || got[0].Known {
		t.Error("natural reuse without passages")
	}
}

func TestSummaryLangs(t *testing.T) {
	cases := []Case{
		{Susp: "en1", Src: "en2", SuspLen: 100, SrcLen: 100, Class: "verbatim", Lang: "en"},
		{Susp: "zh1", Src: "zh2", SuspLen: 100, SrcLen: 100, Class: "verbatim", Lang: "zh"},
		{Susp: "zh1", Src: "zh3", SuspStart: 200, SuspLen: 100, SrcLen: 100, Class: "light", Lang: "zh"},
	}
	fp := det("zh4", "zh5", 0, 10, 0, 10) // a false positive between two distractors
	dets := []Detection{det("en1", "en2", 0, 100, 0, 100), det("zh1", "zh2", 0, 100, 0, 100), fp}
	passages := func(d Detection) (string, string, bool) { return "第一。", "第二。", true }
	s := Summarize(cases, dets, passages)
	en, zh := s.Langs["en"], s.Langs["zh"]
	// zh: cases 2 (one missed), dets: the hit and the false positive
	// (language guessed from its text): prec 1/2, rec 1/2.
	if en.Cases != 1 || en.Plagdet != 1 || zh.Cases != 2 || zh.Detections != 2 || !near(zh.Precision, 0.5) || !near(zh.Recall, 0.5) {
		t.Errorf("en %+v\nzh %+v", en, zh)
	}
	if l := s.LangClasses["zh"]; l["verbatim"].Plagdet != 1 || l["light"].Recall != 0 {
		t.Errorf("zh classes %+v", l)
	}
	for _, tt := range []struct{ text, want string }{{"Hello, world", "en"}, {"你好，世界", "zh"}, {"12 34", ""}} {
		if got := GuessLang(tt.text); got != tt.want {
			t.Errorf("GuessLang(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestTargets(t *testing.T) {
	good := Score{Cases: 10, Detections: 10, Precision: 1, Recall: 1, Granularity: 1, Plagdet: 1}
	s := Summary{
		Planted: Score{Detections: 10, Precision: 0.96},
		Classes: map[string]Score{"verbatim": good, "light": good, "word-edits": good,
			"sentence-rewritten": good, "sentence-dropped": {Cases: 10, Recall: 0.95, Granularity: 1.2}},
		Langs: map[string]Score{"en": {Cases: 5, Plagdet: 0.99}, "zh": {Cases: 5, Plagdet: 0.98}},
	}
	var failed []string
	for _, tg := range s.Targets() {
		if !tg.Pass() {
			failed = append(failed, tg.Name)
		}
	}
	want := "sentence-dropped granularity; precision (planted)"
	if got := strings.Join(failed, "; "); got != want {
		t.Errorf("failed targets %q, want %q", got, want)
	}
	s.Langs["zh"] = Score{Cases: 5, Plagdet: 0.96}
	delete(s.Classes, "light")
	ts := s.Targets()
	if ts[1].Pass() || !strings.Contains(ts[1].String(), "not measured") || ts[len(ts)-1].Pass() {
		t.Errorf("missing class or zh gap passes: %v, %v", ts[1], ts[len(ts)-1])
	}
}

// TestHardTargets: each hard-tier class is checked per language (recall)
// and overall (granularity), with edits-30's lower bound; a language
// without cases fails as not measured.
func TestHardTargets(t *testing.T) {
	ok := Score{Cases: 10, Recall: 0.98, Granularity: 1}
	s := Summary{
		Planted: Score{Detections: 10, Precision: 0.995},
		Classes: map[string]Score{"edits-10": ok, "edits-20": ok, "edits-30": ok, "merge-split": {Cases: 10, Recall: 0.98, Granularity: 1.03}},
		LangClasses: map[string]map[string]Score{
			"en": {"edits-10": ok, "edits-20": ok, "edits-30": {Cases: 5, Recall: 0.95}, "merge-split": ok},
			"zh": {"edits-10": ok, "edits-20": {Cases: 5, Recall: 0.96}, "edits-30": {Cases: 5, Recall: 0.93}},
		},
	}
	var failed []string
	for _, tg := range s.HardTargets() {
		if !tg.Pass() {
			failed = append(failed, tg.Name)
		}
	}
	want := "zh edits-20 recall; zh edits-30 recall; zh merge-split recall; merge-split granularity"
	if got := strings.Join(failed, "; "); got != want {
		t.Errorf("failed targets %q, want %q", got, want)
	}
}
