package plant

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/pdc-mr/pdc/lib/eval"
)

// defaultCorpusSHA256 is the hash of the corpus TestBuildDefaultPinned
// builds with the default classes. The hard tier draws from the random
// generator only in its own runs, so adding classes must not change it; if
// a change to scripts/plant (or lib/sentence) changes it on purpose, every
// cached corpus is rebuilt, and this constant is updated.
const defaultCorpusSHA256 = "e4745532e10a9578cd1e3c9255c76aa38433a7e62ef3802d8d680b7cd44f8be3"

func TestBuildDefaultPinned(t *testing.T) {
	b := build(t, Config{Seed: 3, Pairs: 40, Distractors: -1}, fixture(40, 40))
	if got := fmt.Sprintf("%x", sha256.Sum256(b.raw)); got != defaultCorpusSHA256 {
		t.Errorf("default corpus changed: sha256 %s, want %s", got, defaultCorpusSHA256)
	}
}

func TestBuildHard(t *testing.T) {
	src := fixture(60, 60)
	input := make(map[string]string)
	for _, s := range src {
		input[s.ID] = s.Text
	}
	for _, copies := range []int{1, 3} {
		t.Run(fmt.Sprint("copies", copies), func(t *testing.T) {
			cfg := Config{Seed: 5, Pairs: 120, MinRun: 3, MaxRun: 8, Classes: HardClasses, Copies: copies, Distractors: 10}
			b := build(t, cfg, src)
			if b.stats.Runs != 120 || b.stats.Cases != 120*copies {
				t.Fatalf("stats %+v", b.stats)
			}
			for _, c := range HardClasses {
				for _, lang := range []string{"en", "zh"} {
					if !slices.ContainsFunc(b.cases, func(x eval.Case) bool { return x.Class == c && x.Lang == lang }) {
						t.Errorf("no %s case of class %s", lang, c)
					}
				}
			}
			checkCases(t, b, input)
		})
	}
}

// checkCases checks every case of b against the source texts input.
func checkCases(t *testing.T, b built, input map[string]string) {
	t.Helper()
	var edited, budget, merges, splits, runs, sents int
	for i, c := range b.cases {
		susp := slice(b.docs[c.Susp], c.SuspStart, c.SuspLen)
		orig := slice(input[c.Src], c.SrcStart, c.SrcLen)
		if err := checkClass(c, susp, orig); err != nil {
			t.Errorf("case %d (%s %s<-%s):\n%v\nsusp: %q\nsrc:  %q", i, c.Class, c.Susp, c.Src, err, susp, orig)
		}
		if c.Class == MergeSplit {
			a, b := foldedEnds(orig), foldedEnds(susp)
			merges += len(slices.DeleteFunc(slices.Clone(a), func(x int) bool { return slices.Contains(b, x) }))
			splits += len(slices.DeleteFunc(slices.Clone(b), func(x int) bool { return slices.Contains(a, x) }))
			runs++
			sents += len(a)
		}
		if editRate[c.Class] > 0 {
			for k, s := range sentences(orig) {
				n := editBudget(sentenceWords(s, c.Lang == "zh"), editRate[c.Class])
				budget += n
				edited += distance(units(s, c.Lang == "zh"), units(sentences(susp)[k], c.Lang == "zh"))
			}
		}
	}
	// Edits hardly ever cancel out: the distance is nearly the budget.
	if budget > 0 && float64(edited) < 0.9*float64(budget) {
		t.Errorf("edit distance %d of a budget of %d", edited, budget)
	}
	t.Logf("edit distance %d of a budget of %d; merge-split: %d merges and %d splits in %d runs of %d sentences",
		edited, budget, merges, splits, runs, sents)
}

// checkHard checks the classes of the hard tier (see checkClass).
func checkHard(c eval.Case, susp, src string) error {
	zh := c.Lang == "zh"
	switch {
	case editRate[c.Class] > 0:
		a, b := sentences(src), sentences(susp)
		if len(a) != len(b) {
			return fmt.Errorf("%d sentences, %d in the source", len(b), len(a))
		}
		for k := range a {
			n := editBudget(sentenceWords(a[k], zh), editRate[c.Class])
			if d := distance(units(a[k], zh), units(b[k], zh)); d == 0 || d > n {
				return fmt.Errorf("sentence %d: edit distance %d, budget %d:\n%q\n%q", k, d, n, a[k], b[k])
			}
		}
	case c.Class == MergeSplit:
		if susp == src || fold(susp) != fold(src) {
			return fmt.Errorf("words changed")
		}
		if slices.Equal(foldedEnds(src), foldedEnds(susp)) {
			return fmt.Errorf("same sentence boundaries")
		}
	default:
		return fmt.Errorf("unknown class")
	}
	return nil
}

// sentenceWords counts what the edits-N classes take a rate of: words, or
// Han characters in Chinese.
func sentenceWords(s string, zh bool) int {
	if zh {
		return len(units(s, true))
	}
	return countWords(s)
}

// units are the Han characters of s (zh), or its runs of letters and
// digits, lower-cased.
func units(s string, zh bool) []string {
	if zh {
		var out []string
		for _, r := range s {
			if unicode.Is(unicode.Han, r) {
				out = append(out, string(r))
			}
		}
		return out
	}
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// distance is the Damerau-Levenshtein distance: substitutions, insertions,
// deletions and swaps of neighbours, also of units made neighbours by an
// earlier deletion (Lowrance and Wagner's algorithm).
func distance(a, b []string) int {
	inf := len(a) + len(b)
	d := make([][]int, len(a)+2)
	for i := range d {
		d[i] = make([]int, len(b)+2)
	}
	d[0][0] = inf
	for i := 0; i <= len(a); i++ {
		d[i+1][0], d[i+1][1] = inf, i
	}
	for j := 0; j <= len(b); j++ {
		d[0][j+1], d[1][j+1] = inf, j
	}
	last := make(map[string]int) // last row of each unit of a seen so far
	for i := 1; i <= len(a); i++ {
		db := 0
		for j := 1; j <= len(b); j++ {
			i1, j1 := last[b[j-1]], db
			cost := 1
			if a[i-1] == b[j-1] {
				cost, db = 0, j
			}
			d[i+1][j+1] = min(d[i][j]+cost, d[i+1][j]+1, d[i][j+1]+1, d[i1][j1]+(i-i1-1)+1+(j-j1-1))
		}
		last[a[i-1]] = i
	}
	return d[len(a)+1][len(b)+1]
}

// foldedEnds returns where the sentences of s end, in letters and digits.
func foldedEnds(s string) []int {
	var out []int
	n := 0
	for _, x := range sentences(s) {
		n += len([]rune(fold(x)))
		out = append(out, n)
	}
	return out
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"a b c", "a b c", 0}, {"a b c", "a c b", 1}, {"a b c", "a x c", 1}, {"a b c", "a c", 1},
		{"a b c", "a b y c", 1}, {"a b c d", "b a d c", 2}, {"", "a b", 2}, {"x y z", "z x", 2}, {"c a", "a b c", 2},
	} {
		if got := distance(strings.Fields(tt.a), strings.Fields(tt.b)); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestEditBudget(t *testing.T) {
	for _, tt := range []struct{ n, pct, want int }{
		{0, 10, 1}, {4, 10, 1}, {14, 10, 1}, {15, 10, 2}, {10, 20, 2}, {12, 20, 2}, {13, 20, 3},
		{2, 30, 1}, {5, 30, 2}, {10, 30, 3}, {25, 30, 8},
	} {
		if got := editBudget(tt.n, tt.pct); got != tt.want {
			t.Errorf("editBudget(%d, %d) = %d, want %d", tt.n, tt.pct, got, tt.want)
		}
	}
}

func TestLowerFirstWord(t *testing.T) {
	for in, want := range map[string]string{
		"The end.": "the end.", `"We won."`: `"we won."`, "I think.": "I think.", "NATO acts.": "NATO acts.",
		"A day.": "a day.", "1882 was.": "1882 was.", "already.": "already.",
	} {
		if got := lowerFirstWord(in); got != want {
			t.Errorf("lowerFirstWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitPoints(t *testing.T) {
	long := "We have won the war at great cost, and the peace that follows must be kept by all of us."
	got := wordSplits(long, false)
	if want := []string{"We have won the war at great cost. And the peace that follows must be kept by all of us."}; !slices.Equal(got, want) {
		t.Errorf("wordSplits at the comma:\n got %q\nwant %q", got, want)
	}
	if got := wordSplits("Too short to split here.", false); got != nil {
		t.Errorf("short sentence split: %q", got)
	}
	if got, want := wordSplits("Too short to split here.", true), []string{"Too short. To split here.", "Too short to. Split here."}; !slices.Equal(got, want) {
		t.Errorf("relaxed split: %q", got)
	}
	zh := []rune("窗口管理器装饰当前运行程序的窗口，包括框架和标题栏以及别的很多东西。")
	if got := hanSplits(zh, false); len(got) != 1 || got[0] != "窗口管理器装饰当前运行程序的窗口。包括框架和标题栏以及别的很多东西。" {
		t.Errorf("hanSplits at the comma: %q", got)
	}
	if got := hanSplits([]rune("太短了。"), false); got != nil {
		t.Errorf("short Chinese sentence split: %q", got)
	}
}

func TestEditorEdits(t *testing.T) {
	src := fixture(10, 10)
	var docs []*document
	for _, s := range src {
		docs = append(docs, newDocument(s))
	}
	e := newEditor(rand.New(rand.NewPCG(1, 1)), docs)
	// The fixture's words have 3 to 11 letters.
	for range 200 {
		n := 3 + e.rng.IntN(6)
		if w := e.similarWord(n, ""); len(w) < n-1 || len(w) > n+1 {
			t.Errorf("similarWord(%d) = %q", n, w)
		}
		if w := e.similarWord(1, ""); len(w) != 3 {
			t.Errorf("similarWord(1) = %q", w)
		}
	}
	s := "Mr. Smith went to the U.S. capital, and he said: no."
	for range 200 {
		out := e.wordRated(s, 30)
		if a, b := sentences(s), sentences(out); len(a) != len(b) || out == s {
			t.Fatalf("wordRated(%q) = %q: %d sentences", s, out, len(b))
		}
		if !strings.HasPrefix(out, "Mr. ") || !strings.HasSuffix(out, ".") {
			t.Fatalf("wordRated(%q) = %q changed the ends", s, out)
		}
	}
}

// TestBuildRealHard plants the hard classes into the real sources written
// by scripts/sources.sh when they are present ($PDC_DATA/sources.jsonl).
func TestBuildRealHard(t *testing.T) {
	src, input := realSources(t)
	b := build(t, Config{Seed: 1, Pairs: 800, Classes: HardClasses, Distractors: 0}, src)
	checkCases(t, b, input)
	t.Logf("real corpus: %+v", b.stats)
}

// FuzzBuildHard plants the hard classes into fuzzed documents next to
// generated ones and checks that every case lies inside its documents.
func FuzzBuildHard(f *testing.F) {
	f.Add("One. Two! Three? Four.\n\nFive. Six.", "甲乙。丙丁！“戊己？”庚辛。", int64(1))
	f.Add("Mr. A. B. went. \"Quoted.\" (Paren.) End", "a\n\n\nb. c. d.", int64(2))
	// A small base keeps one execution in the milliseconds: every new
	// input is minimized, and the planting's random paths keep finding
	// new ones.
	base := fixture(3, 3)
	f.Fuzz(func(t *testing.T, a, b string, seed int64) {
		src := append(slices.Clone(base), Source{ID: "fa", Text: a, Lang: "en"}, Source{ID: "fb", Text: b})
		var docs, truth bytes.Buffer
		cfg := Config{Seed: seed, Pairs: 4, MinRun: 1, MaxRun: 4, Classes: HardClasses, Distractors: -1}
		if _, err := Build(cfg, src, &docs, &truth, ""); err != nil {
			t.Fatal(err)
		}
		recs, err := ReadSources(&docs)
		if err != nil {
			t.Fatal(err)
		}
		text := make(map[string][]rune)
		for _, r := range recs {
			text[r.ID] = []rune(r.Text)
		}
		cases, err := eval.ReadTruthJSONL(&truth)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			s, r := text[c.Susp], text[c.Src]
			if c.SuspStart+c.SuspLen > len(s) || c.SrcStart+c.SrcLen > len(r) || c.SuspLen == 0 || c.SrcLen == 0 {
				t.Fatalf("case out of bounds: %+v", c)
			}
		}
	})
}
