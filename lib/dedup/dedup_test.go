package dedup

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// sents makes sentences from word lists: "a b c" is one sentence of three
// words (each word its own hash), "-" a sentence that does not match.
func sents(specs ...string) []Sentence {
	var out []Sentence
	pos := 0
	for _, sp := range specs {
		var hashes []uint64
		if sp != "-" {
			for _, w := range strings.Fields(sp) {
				hashes = append(hashes, uint64(w[0])<<8|uint64(len(w)))
			}
		}
		out = append(out, newSentence(pos, pos+len(sp), sp, hashes, sp != "-"))
		pos += len(sp) + 1
	}
	return out
}

// TestAlignSimilar: the view's alignment pairs a sentence with the one it
// was edited from where Align, which decides cuts, leaves it unaligned.
func TestAlignSimilar(t *testing.T) {
	m, k := sents("a b c d", "e f g h i j p q"), sents("a b c d", "e f g h i j")
	if got := Align(m, k); !slices.Equal(got, []int{0, -1}) {
		t.Errorf("Align = %v, want [0 -1]", got)
	}
	if got := AlignSimilar(m, k); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("AlignSimilar = %v, want [0 1]", got)
	}
}

func TestAlign(t *testing.T) {
	for _, tc := range []struct {
		name string
		m, k []string
		want []int
	}{
		{"same", []string{"a b c d", "e f g h", "i j k l"}, []string{"a b c d", "e f g h", "i j k l"}, []int{0, 1, 2}},
		{"edited", []string{"a b c d", "e f g x"}, []string{"a b c d", "e f g h"}, []int{0, 1}},
		{"too different", []string{"a b c d", "e f x y"}, []string{"a b c d", "e f g h"}, []int{0, -1}},
		{"words of its own", []string{"a b c d", "e f g h i j p q"}, []string{"a b c d", "e f g h i j"}, []int{0, -1}},
		{"one word of its own", []string{"a b c d", "e f g h i j p"}, []string{"a b c d", "e f g h i j"}, []int{0, 1}},
		{"a run of words of its own", []string{"a b c d", "e f g h i j k l m n o p x y z"}, []string{"a b c d", "e f g h i j k l m n o p"}, []int{0, -1}},
		{"a number of its own", []string{"a b c d", "e f g h 1893"}, []string{"a b c d", "e f g h 1894"}, []int{0, -1}},
		{"the same number", []string{"a b c d", "e f g h 1,893"}, []string{"a b c d", "e f g h 1893"}, []int{0, 1}},
		{"a code name of its own", []string{"a b c d", "e f g h sqlite3_blob_write"}, []string{"a b c d", "e f g h sqlite3_blob_read"}, []int{0, -1}},
		{"a piece of a split sentence with words of its own", []string{"a b c d e f g h i j k l m n o p q r s t u v w x y z", "bb cc dd ee ff gg hh A B C"},
			[]string{"a b c d e f g h i j k l m n o p q r s t u v w x y z bb cc dd ee ff gg hh ii jj kk"}, []int{0, -1}},
		{"words of its own here and there", []string{"a b c d", "e f x g h i y j k l m n o p z"}, []string{"a b c d", "e f g h i j k l m n o p"}, []int{0, 1}},
		{"inserted", []string{"a b c d", "p q r s", "e f g h"}, []string{"a b c d", "e f g h"}, []int{0, -1, 1}},
		{"dropped", []string{"a b c d", "i j k l"}, []string{"a b c d", "e f g h", "i j k l"}, []int{0, 2}},
		{"split", []string{"a b c d", "e f g h"}, []string{"a b c d e f g h"}, []int{0, 0}},
		{"split in three", []string{"a b c", "d e f", "g h i"}, []string{"a b c d e f g h i"}, []int{0, 0, 0}},
		{"a line repeated", []string{"a b c d", "n s m i l", "s m i l"}, []string{"a b c d", "n s m i l"}, []int{0, 1, -1}},
		{"merged", []string{"a b c d e f g h"}, []string{"a b c d", "e f g h"}, []int{0}},
		{"not content", []string{"-", "a b c d"}, []string{"a b c d"}, []int{-1, 0}},
		{"in order", []string{"e f g h", "a b c d"}, []string{"a b c d", "e f g h"}, []int{1, -1}},
		{"nothing kept", []string{"a b c d"}, nil, []int{-1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Align(sents(tc.m...), sents(tc.k...)); !slices.Equal(got, tc.want) {
				t.Errorf("Align = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRuns(t *testing.T) {
	m := sents("a b c d", "-", "e f g h", "x y z w", "i j k l", "m n o p", "q r s t")
	match := []int{0, -1, 1, -1, 2, 3, 4}
	stop := func(i int) bool { return i == 5 }
	got := Runs(m, match, stop)
	want := []Run{{0, 2, 0, 1}, {4, 4, 2, 2}, {6, 6, 4, 4}}
	if !slices.Equal(got, want) {
		t.Errorf("Runs = %v, want %v", got, want)
	}
}

func TestBridge(t *testing.T) {
	k := sents("a b c d", "e f g h", "i j k l", "m n o p", "q r s t")
	none := func(int) bool { return false }
	wide := sents("a b c d", "e f g h i j k l m n o p", "q r s t")
	for _, tc := range []struct {
		name string
		m    []string
		runs []Run
		stop func(int) bool
		want []Run
	}{
		{"a rewritten sentence whose words the kept range holds", []string{"a b c d", "h g f e x", "i j k l"},
			[]Run{{0, 0, 0, 0}, {2, 2, 2, 2}}, none, []Run{{0, 2, 0, 2}}},
		{"a sentence of its own", []string{"a b c d", "x y z w", "i j k l"},
			[]Run{{0, 0, 0, 0}, {2, 2, 2, 2}}, none, []Run{{0, 0, 0, 0}, {2, 2, 2, 2}}},
		{"too many sentences between", []string{"a b c d", "e f", "g h", "f g h", "m n o p"},
			[]Run{{0, 0, 0, 0}, {4, 4, 3, 3}}, none, []Run{{0, 0, 0, 0}, {4, 4, 3, 3}}},
		{"kept sentences out of order", []string{"i j k l", "a b", "a b c d"},
			[]Run{{0, 0, 2, 2}, {2, 2, 0, 0}}, none, []Run{{0, 0, 2, 2}, {2, 2, 0, 0}}},
		{"a stopped sentence between", []string{"a b c d", "e f g h x", "i j k l"},
			[]Run{{0, 0, 0, 0}, {2, 2, 2, 2}}, func(i int) bool { return i == 1 }, []Run{{0, 0, 0, 0}, {2, 2, 2, 2}}},
		{"a sentence with a run of words of its own", []string{"a b c d", "e f g h i j k l m n o p A B C", "q r s t"},
			[]Run{{0, 0, 0, 0}, {2, 2, 2, 2}}, none, []Run{{0, 0, 0, 0}, {2, 2, 2, 2}}},
		{"a sentence whose words the kept range holds only far from where the runs meet", []string{"a b c d", "e f g h", "a b c d", "i j k l", "m n o p"},
			[]Run{{0, 1, 0, 1}, {3, 4, 2, 3}}, none, []Run{{0, 1, 0, 1}, {3, 4, 2, 3}}},
		{"three runs, two bridges", []string{"a b c d", "d c b", "e f g h", "g h i", "i j k l"},
			[]Run{{0, 0, 0, 0}, {2, 2, 1, 1}, {4, 4, 2, 2}}, none, []Run{{0, 4, 0, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, k := sents(tc.m...), k
			if tc.name == "a sentence with a run of words of its own" {
				k = wide
			}
			if got := Bridge(m, k, slices.Clone(tc.runs), tc.stop); !slices.Equal(got, tc.want) {
				t.Errorf("Bridge = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHeld(t *testing.T) {
	for _, tc := range []struct {
		cut, kept []string
		want      float64
	}{
		{[]string{"a b c d"}, []string{"a b c d"}, 1},
		{[]string{"a b c d"}, []string{"a b"}, 0.5},
		{[]string{"a b", "c d"}, []string{"d c b"}, 0.75},
		{[]string{"a b a b"}, []string{"a b"}, 0.5},
		{[]string{"x a", "x b"}, []string{"x a b"}, 0.75},
		{[]string{"a b a b"}, []string{"b a", "a b"}, 1},
		{[]string{"-"}, []string{"a"}, 1},
	} {
		if got := Held(sents(tc.cut...), sents(tc.kept...)); got != tc.want {
			t.Errorf("Held(%q, %q) = %v, want %v", tc.cut, tc.kept, got, tc.want)
		}
	}
}

// TestPlanModel checks the plan on random documents made of shared
// sentences against what dedup must guarantee: no character of a kept
// member is cut, and every cut range has a kept range inside its
// cluster's kept member that holds at least MinHeld of its words (as
// reported); and that identical copies are cut.
func TestPlanModel(t *testing.T) {
	var an doc.Analyzer
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 11))
		pool := make([]string, 12)
		for i := range pool {
			var ws []string
			for range 5 + rng.IntN(4) {
				ws = append(ws, fmt.Sprintf("w%dx%d", i, rng.IntN(1000)))
			}
			pool[i] = strings.Join(ws, " ") + "."
		}
		ndocs := 3 + rng.IntN(4)
		texts := map[string]string{}
		runesOf := map[string][]int{} // each document's sentences: pool index
		for d := range ndocs {
			var ps []int
			for range 3 + rng.IntN(6) {
				ps = append(ps, rng.IntN(len(pool)))
			}
			id := fmt.Sprint("d", d)
			runesOf[id] = ps
			var b []string
			for _, p := range ps {
				b = append(b, pool[p])
			}
			texts[id] = strings.Join(b, " ")
		}
		analyses := map[string]doc.Analysis{}
		for id, text := range texts {
			a, err := an.Analyze(&doc.Doc{ID: id, Text: text})
			if err != nil {
				t.Fatal(err)
			}
			a.Sentences = slices.Clone(a.Sentences)
			a.Spans = slices.Clone(a.Spans)
			analyses[id] = a
		}
		// Random clusters of random sentence ranges.
		var cs []cluster.Cluster
		for c := range 1 + rng.IntN(4) {
			cl := cluster.Cluster{ID: fmt.Sprint("c", c)}
			for range 2 + rng.IntN(3) {
				id := fmt.Sprint("d", rng.IntN(ndocs))
				ss := analyses[id].Sentences
				i := rng.IntN(len(ss))
				j := i + rng.IntN(len(ss)-i)
				cl.Members = append(cl.Members, cluster.Member{Doc: id, CharStart: ss[i].Start, CharEnd: ss[j].End})
			}
			cs = append(cs, cl)
		}
		// and one cluster of two identical documents' whole texts
		n := len([]rune(texts["d0"]))
		texts["copy"] = texts["d0"]
		analyses["copy"] = analyses["d0"]
		cs = append(cs, cluster.Cluster{ID: "cc", Members: []cluster.Member{{Doc: "d0", CharEnd: n}, {Doc: "copy", CharEnd: n}}})
		kept := make([]int, len(cs))
		p := NewPlan(cs, kept, 3)
		for id, a := range analyses {
			p.Keep(id, a)
		}
		v := NewVerifier(p)
		defer func() {
			if v.Done(); v.Violations > 0 || v.Ranges == 0 {
				t.Fatalf("seed %d: %d of %d ranges fail the Verifier (first: %s)", seed, v.Violations, v.Ranges, v.First)
			}
		}()
		for id, a := range analyses {
			o, err := p.Cut(id, a)
			if err != nil {
				t.Fatal(err)
			}
			v.Doc(id, a.Text, o)
			text := []rune(a.Text)
			if id == "copy" && len(o.Removals) == 0 && !p.HoldsKept(id) {
				t.Fatalf("seed %d: nothing cut from an identical copy", seed)
			}
			for _, r := range o.Removals {
				k := cs[slices.IndexFunc(cs, func(c cluster.Cluster) bool { return c.ID == r.Cluster })].Members[0]
				if r.Kept.Doc != k.Doc || r.Kept.Start < k.CharStart || r.Kept.End > k.CharEnd {
					t.Fatalf("seed %d: %s %v kept range %v outside the kept member %v", seed, id, r.Range, r.Kept, k)
				}
				kt := []rune(texts[r.Kept.Doc])
				if h := Held(Within(Sentences(a, &p.tok, 0), r.Start, r.End), Within(Sentences(analyses[r.Kept.Doc], &p.tok, 0), r.Kept.Start, r.Kept.End)); h < MinHeld || h != r.Held {
					t.Fatalf("seed %d: %s %q held %v (reported %v) by %q", seed, id, string(text[r.Start:r.End]), h, r.Held, string(kt[r.Kept.Start:r.Kept.End]))
				}
			}
		}
	}
}

func TestWithin(t *testing.T) {
	ss := sents("a b", "c d", "e f", "g h") // starts 0, 4, 8, 12; ends 3, 7, 11, 15
	for _, tc := range []struct {
		start, end int
		want       []int // starts
	}{
		{0, 15, []int{0, 4, 8, 12}},
		{1, 15, []int{4, 8, 12}},
		{4, 11, []int{4, 8}},
		{4, 10, []int{4}},
		{5, 7, nil},
		{16, 20, nil},
	} {
		var got []int
		for _, s := range Within(ss, tc.start, tc.end) {
			got = append(got, s.Start)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Within(%d, %d) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
}

// TestVerifier gives the Verifier an honest outcome and outcomes that
// break each of its rules.
func TestVerifier(t *testing.T) {
	var an doc.Analyzer
	texts := map[string]string{
		"k": "Own words of the kept page. The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall.",
		"c": "The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall. A line of its own here.",
	}
	analyses := map[string]doc.Analysis{}
	for id, text := range texts {
		a, err := an.Analyze(&doc.Doc{ID: id, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		a.Sentences, a.Spans = slices.Clone(a.Sentences), slices.Clone(a.Spans) // the Analyzer reuses them
		analyses[id] = a
	}
	passage := "The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall."
	at := func(id string) Range {
		i := len([]rune(texts[id][:strings.Index(texts[id], passage)]))
		return Range{Start: i, End: i + len([]rune(passage))}
	}
	k, c := at("k"), at("c")
	cs := []cluster.Cluster{{ID: "c1", Members: []cluster.Member{{Doc: "k", CharStart: k.Start, CharEnd: k.End}, {Doc: "c", CharStart: c.Start, CharEnd: c.End}}}}
	p := NewPlan(cs, []int{0}, 3)
	p.Keep("k", analyses["k"])
	honest, err := p.Cut("c", analyses["c"])
	if err != nil || len(honest.Removals) != 1 {
		t.Fatalf("Cut: %+v %v", honest, err)
	}
	rm := honest.Removals[0]
	with := func(f func(r *Removal)) Outcome {
		r := rm
		f(&r)
		return Outcome{Removals: []Removal{r}}
	}
	own := len([]rune("Own words of the kept page. "))
	for _, tc := range []struct {
		name  string
		c, k  Outcome
		wrong string
	}{
		{"honest", honest, Outcome{}, ""},
		{"kept range of other words", with(func(r *Removal) { r.Kept.Range = Range{Start: k.Start, End: k.Start + 20} }), Outcome{}, "holds"},
		{"kept range outside the kept member", with(func(r *Removal) { r.Kept.Range = Range{Start: 0, End: own} }), Outcome{}, "not inside a kept member"},
		// (the cut from k claims k's kept range as its own kept range, and
		// fails too)
		{"kept range cut from its document", honest, Outcome{Removals: []Removal{{Range: Range{Start: k.Start, End: k.Start + 20}, Kept: Ref{"k", Range{Start: k.Start, End: k.Start + 20}}}}}, "is cut from k too"},
	} {
		// The kept document recorded before the cut one (checked at once)
		// and after it (checked in Done).
		for _, keptFirst := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/kept first %v", tc.name, keptFirst), func(t *testing.T) {
				v := NewVerifier(p)
				if keptFirst {
					v.Doc("k", texts["k"], tc.k)
				}
				v.Doc("c", texts["c"], tc.c)
				if !keptFirst {
					v.Doc("k", texts["k"], tc.k)
				}
				v.Done()
				switch {
				case tc.wrong == "" && v.Violations != 0:
					t.Errorf("%d violations (first: %s), want none", v.Violations, v.First)
				case tc.wrong != "" && (v.Violations == 0 || !strings.Contains(v.First, tc.wrong)):
					t.Errorf("%d violations (first: %q), want one with %q", v.Violations, v.First, tc.wrong)
				}
			})
		}
	}
}

// TestWiden: a sentence too short to match just outside a removed member
// goes with the run when the kept member has the very same sentence at
// the same place, and only then.
func TestWiden(t *testing.T) {
	const body = "man rulers have been able to hold the land. They did so for many years long ago."
	for _, tc := range []struct {
		name, kept, cut string
		want            string // the text cut
		wantKept        string // its kept range
	}{
		{"same word before", "Intro words here for the page. Ger. " + body, "Other words of this page only. Ger. " + body,
			"Ger. " + body, "Ger. " + body},
		{"other word before", "Intro words here for the page. Ger. " + body, "Other words of this page only. Fra. " + body,
			body, body},
		{"same heading after", body + " See also. Outro of the kept page here.", body + " See also. Another ending of the cut one.",
			body + " See also.", body + " See also."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var an doc.Analyzer
			analyses := map[string]doc.Analysis{}
			for id, text := range map[string]string{"k": tc.kept, "c": tc.cut} {
				a, err := an.Analyze(&doc.Doc{ID: id, Text: text})
				if err != nil {
					t.Fatal(err)
				}
				a.Sentences, a.Spans = slices.Clone(a.Sentences), slices.Clone(a.Spans)
				analyses[id] = a
			}
			member := func(text string) cluster.Member {
				i := len([]rune(text[:strings.Index(text, body)]))
				return cluster.Member{CharStart: i, CharEnd: i + len([]rune(body))}
			}
			mk, mc := member(tc.kept), member(tc.cut)
			mk.Doc, mc.Doc = "k", "c"
			p := NewPlan([]cluster.Cluster{{ID: "c1", Members: []cluster.Member{mk, mc}}}, []int{0}, 3)
			p.Keep("k", analyses["k"])
			o, err := p.Cut("c", analyses["c"])
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Removals) != 1 {
				t.Fatalf("removals %+v, want one", o.Removals)
			}
			rm := o.Removals[0]
			got := string([]rune(tc.cut)[rm.Start:rm.End])
			kept := string([]rune(tc.kept)[rm.Kept.Start:rm.Kept.End])
			if got != tc.want || kept != tc.wantKept || rm.Held != 1 {
				t.Errorf("cut %q kept %q held %v, want %q kept %q held 1", got, kept, rm.Held, tc.want, tc.wantKept)
			}
			v := NewVerifier(p)
			v.Doc("c", tc.cut, o)
			if v.Done(); v.Violations > 0 {
				t.Errorf("Verifier: %s", v.First)
			}
		})
	}
}

// TestKeptOnce: document e holds the kept copy of a text X+Y that d copies,
// and Y alone is also a passage of f, kept for the cluster of Y's copies
// (f, e, d). Y is cut from e against f, so that it is kept once; d's X is
// cut against e and d's Y against f, never against e's Y, which is gone.
func TestKeptOnce(t *testing.T) {
	x := "Alpha beta gamma delta epsilon zeta. Eta theta iota kappa lambda mu. Nu xi omicron pi rho sigma."
	y := "Tau upsilon phi chi psi omega. One two three four five six. Seven eight nine ten eleven twelve."
	texts := map[string]string{
		"e": "Own words of e come first here. " + x + " " + y,
		"d": x + " " + y,
		"f": "Some words of f before it all. " + y,
	}
	analyses, at := analyzeTexts(t, texts)
	cs := []cluster.Cluster{
		{ID: "xy", Members: []cluster.Member{at("e", x+" "+y), at("d", x+" "+y)}},
		{ID: "y", Members: []cluster.Member{at("f", y), at("e", y), at("d", y)}},
	}
	p := NewPlan(cs, []int{0, 0}, 3)
	for _, id := range []string{"e", "f"} {
		p.Keep(id, analyses[id])
	}
	v := NewVerifier(p)
	cut := map[string]string{}
	for _, id := range []string{"d", "e", "f"} {
		o, err := p.Cut(id, analyses[id])
		if err != nil {
			t.Fatal(err)
		}
		v.Doc(id, texts[id], o)
		var kept []string
		for _, r := range Ranges(o.Removals) {
			kept = append(kept, string([]rune(texts[id])[r.Start:r.End]))
		}
		cut[id] = strings.Join(kept, "|")
		for _, r := range o.Removals {
			if r.Kept.Doc == "e" && anyOverlap([]Range{{Start: at("e", y).CharStart, End: at("e", y).CharEnd}}, r.Kept.Range) {
				t.Errorf("%s %v is cut against e's copy of Y, which is cut", id, r.Range)
			}
		}
	}
	if v.Done(); v.Violations > 0 {
		t.Errorf("Verifier: %s", v.First)
	}
	if cut["e"] != y || cut["d"] != x+"|"+y || cut["f"] != "" {
		t.Errorf("cut e %q, d %q, f %q; want Y from e, all of d, nothing from f", cut["e"], cut["d"], cut["f"])
	}
}

// TestInnerCutOwnDocument: a cut inside a kept member is the document's
// own: g holds Y at the offsets e does, in the same cluster with the same
// kept copy, but h relies on g's copy of X+Y and holds no Y of that
// cluster, so g keeps its Y while e's is cut.
func TestInnerCutOwnDocument(t *testing.T) {
	x := "Alpha beta gamma delta epsilon zeta. Eta theta iota kappa lambda mu. Nu xi omicron pi rho sigma."
	y := "Tau upsilon phi chi psi omega. One two three four five six. Seven eight nine ten eleven twelve."
	texts := map[string]string{
		"e": "Own words of e come first here. " + x + " " + y,
		"g": "Own words of g come first here. " + x + " " + y,
		"d": x + " " + y,
		"h": x + " " + y,
		"f": "Some words of f before it all. " + y,
	}
	analyses, at := analyzeTexts(t, texts)
	cs := []cluster.Cluster{
		{ID: "xy", Members: []cluster.Member{at("e", x+" "+y), at("d", x+" "+y)}},
		{ID: "xy2", Members: []cluster.Member{at("g", x+" "+y), at("h", x+" "+y)}},
		{ID: "y", Members: []cluster.Member{at("f", y), at("e", y), at("d", y), at("g", y)}},
	}
	p := NewPlan(cs, []int{0, 0, 0}, 3)
	for _, id := range []string{"e", "f", "g"} {
		p.Keep(id, analyses[id])
	}
	v := NewVerifier(p)
	for _, id := range []string{"d", "e", "f", "g", "h"} {
		o, err := p.Cut(id, analyses[id])
		if err != nil {
			t.Fatal(err)
		}
		v.Doc(id, texts[id], o)
		if id == "g" && len(o.Removals) > 0 {
			t.Errorf("g, relied on by h for all of X+Y, is cut: %+v", o.Removals)
		}
	}
	if v.Done(); v.Violations > 0 {
		t.Errorf("Verifier: %d violations, first: %s", v.Violations, v.First)
	}
}

// analyzeTexts analyses each document of texts (id -> text) and returns
// the analyses and a function giving the member of document d that is
// the first occurrence of sub in its text.
func analyzeTexts(t *testing.T, texts map[string]string) (map[string]doc.Analysis, func(d, sub string) cluster.Member) {
	t.Helper()
	var an doc.Analyzer
	analyses := map[string]doc.Analysis{}
	for id, text := range texts {
		a, err := an.Analyze(&doc.Doc{ID: id, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		a.Sentences, a.Spans = slices.Clone(a.Sentences), slices.Clone(a.Spans)
		analyses[id] = a
	}
	at := func(d, sub string) cluster.Member {
		i := len([]rune(texts[d][:strings.Index(texts[d], sub)]))
		return cluster.Member{Doc: d, CharStart: i, CharEnd: i + len([]rune(sub))}
	}
	return analyses, at
}

// TestRuneIndex checks slicing by rune offsets against []rune, on texts
// with multi-byte and invalid UTF-8 around the index's steps.
func TestRuneIndex(t *testing.T) {
	pieces := []string{"a", "é", "語", "😀", "\xff", " ", "b\xe2\x82"}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		var b strings.Builder
		for range rng.IntN(400) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		runes := []rune(s)
		x := newRuneIndex(s)
		if x.n != len(runes) {
			t.Fatalf("seed %d: %d runes, want %d", seed, x.n, len(runes))
		}
		for range 50 {
			i := rng.IntN(len(runes) + 1)
			j := i + rng.IntN(len(runes)-i+1)
			if got := []rune(x.slice(i, j)); !slices.Equal(got, runes[i:j]) {
				t.Fatalf("seed %d: slice(%d, %d) = %q, want %q", seed, i, j, string(got), string(runes[i:j]))
			}
		}
	}
}

// TestRecordRoundTrip: a kept member's record, written to a store (memory
// or a file) and read back, gives the very sentences, words included, that
// Sentences gives for its range and edges, for real pages and for text
// with accents, CJK, emoji and invalid UTF-8; only its text without a
// tokenizer.
func TestRecordRoundTrip(t *testing.T) {
	var docs []doc.Doc
	b, err := os.ReadFile("../../testdata/sample/pages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		d, err := doc.ParseJSON([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	if len(docs) < 20 {
		t.Fatalf("want sample pages, have %d", len(docs))
	}
	docs = append(docs, doc.Doc{ID: "mixed", Text: "Café au lait, s'il vous plaît, très bien. 東京は日本の首都です。 Emoji 😀 here and there again.\n\nBad \xff bytes in this one sentence here. Short.\n\nThe last sentence of it all is here now."})
	var tok sentence.Tokenizer
	for _, spill := range []bool{false, true} {
		var an doc.Analyzer
		for _, d := range docs {
			a, err := an.Analyze(&d)
			if err != nil {
				t.Fatal(err)
			}
			all := Sentences(a, &tok, 3)
			if len(all) < 3 {
				continue
			}
			n := utf8.RuneCountInString(a.Text)
			for _, r := range []Range{{Start: all[1].Start, End: all[len(all)-2].End}, {Start: all[0].Start, End: n}, {Start: all[len(all)/2].Start, End: all[len(all)/2].End}} {
				ref := Ref{d.ID, r}
				p := &Plan{MinWords: 3, stored: map[Ref]keptLoc{ref: {n: -1}}, store: &memStore{}, whole: map[Ref]bool{}, guarded: map[string][]Range{}, keptBy: map[string][]Ref{d.ID: {ref}}}
				if spill {
					f, err := os.CreateTemp(t.TempDir(), "kept")
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					p.Spill(f)
				}
				p.AddKept(p.KeptOf(&tok, d.ID, a))
				k, ok := p.record(&tok, ref)
				if !ok || p.Err() != nil {
					t.Fatalf("%s %v: no record (%v)", d.ID, r, p.Err())
				}
				e := Edges(all, r.Start, r.End)
				for i, pair := range [][2][]Sentence{{k.sents, Within(all, r.Start, r.End)}, {k.edges[0], e[0]}, {k.edges[1], e[1]}} {
					if msg := sentenceDiff(pair[0], pair[1]); msg != "" {
						t.Fatalf("%s %v (spill %v), group %d after the round trip: %s", d.ID, r, spill, i, msg)
					}
				}
				text, ok := p.keptText(p.records(nil), ref)
				if want := newRuneIndex(a.Text).slice(r.Start, r.End); !ok || text != want {
					t.Fatalf("%s %v: keptText %q (%v), want %q", d.ID, r, text, ok, want)
				}
				if got := p.keptWithin(p.records(&tok), ref); !reflect.DeepEqual(got, Within(all, r.Start, r.End)) {
					t.Fatalf("%s %v: keptWithin differs", d.ID, r)
				}
			}
		}
	}
}

// sentenceDiff describes the first difference of got from want, or "".
func sentenceDiff(got, want []Sentence) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("sentence %d is %v, want %v", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d sentences, want %d", len(got), len(want))
	}
	return ""
}

// brokenStore keeps what is written but cannot read it back.
type brokenStore struct{ memStore }

func (b *brokenStore) ReadAt(p []byte, off int64) (int, error) { return 0, errors.New("disk gone") }

// TestStoreError: a kept member that cannot be read back fails the cut of
// a document that relies on it, with an error naming the kept member.
func TestStoreError(t *testing.T) {
	passage := "The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall. The chair said the work would start in spring."
	analyses, at := analyzeTexts(t, map[string]string{"k": passage + " Own words of the kept page here.", "c": "A line of its own here and now. " + passage})
	cs := []cluster.Cluster{{ID: "c1", Members: []cluster.Member{at("k", passage), at("c", passage)}}}
	for _, broken := range []bool{false, true} {
		p := NewPlan(cs, []int{0}, 3)
		if broken {
			p.Spill(&brokenStore{})
		}
		p.Keep("k", analyses["k"])
		o, err := p.Cut("c", analyses["c"])
		switch {
		case !broken && (err != nil || len(o.Removals) != 1):
			t.Fatalf("Cut: %+v, %v; want one removal", o, err)
		case broken && (err == nil || !strings.Contains(err.Error(), "read kept member k 0-") || !strings.Contains(err.Error(), "disk gone")):
			t.Fatalf("Cut with a broken store: %v", err)
		}
	}
}

// TestAddTemplates: template blocks are cut outside the document's kept
// members (what stays is counted), as removals with reason template and
// no kept range, in position order among the copy cuts; the Verifier does
// not check them against a kept copy, and a kept member stays whole.
func TestAddTemplates(t *testing.T) {
	x := "Alpha beta gamma delta epsilon zeta. Eta theta iota kappa lambda mu. Nu xi omicron pi rho sigma."
	foot := "Print this page now please. Email this page to a friend."
	texts := map[string]string{
		"a": "Own words of a come first here. " + x + " " + foot,
		"b": "Own words of b come first here. " + x + " " + foot,
	}
	analyses, at := analyzeTexts(t, texts)
	ka, kb := at("a", x), at("b", x)
	p := NewPlan([]cluster.Cluster{{ID: "x", Members: []cluster.Member{ka, kb}}}, []int{0}, 3)
	p.Keep("a", analyses["a"])
	fa, fb := at("a", foot), at("b", foot)
	v := NewVerifier(p)
	for _, tc := range []struct {
		id         string
		blocks     []Range
		wantLeft   int
		wantRanges []Range
	}{
		// a: the footer is cut; a block reaching into the kept member x
		// is cut only outside it.
		{"a", []Range{{Start: ka.CharEnd - 10, End: fa.CharEnd}}, 10, []Range{{Start: ka.CharEnd, End: fa.CharEnd}}},
		// b: x is cut as a copy, the footer as a template.
		{"b", []Range{{Start: fb.CharStart, End: fb.CharEnd}}, 0, []Range{{Start: kb.CharStart, End: kb.CharEnd}, {Start: fb.CharStart, End: fb.CharEnd}}},
	} {
		o, err := p.Cut(tc.id, analyses[tc.id])
		if err != nil {
			t.Fatal(err)
		}
		if left := p.AddTemplates(&o, tc.id, tc.blocks); left != tc.wantLeft {
			t.Errorf("%s: %d characters left, want %d", tc.id, left, tc.wantLeft)
		}
		var got []Range
		for _, rm := range o.Removals {
			got = append(got, rm.Range)
			if tmpl := rm.Reason == ReasonTemplate; tmpl != (rm.Kept.Doc == "" && rm.Cluster == "-") {
				t.Errorf("%s: removal %+v", tc.id, rm)
			}
		}
		if !slices.Equal(got, tc.wantRanges) {
			t.Errorf("%s: cut %v, want %v", tc.id, got, tc.wantRanges)
		}
		v.Doc(tc.id, texts[tc.id], o)
	}
	if v.Done(); v.Violations > 0 || v.Ranges != 1 {
		t.Errorf("Verifier: %d ranges checked (want the copy only), %d violations: %s", v.Ranges, v.Violations, v.First)
	}
}

func TestSplitWithdrawn(t *testing.T) {
	k := sents("a b c d", "e f g h", "i j k l", "m n o p", "q r s t")
	withdrawn := func(is ...int) []Range {
		var w []Range
		for _, i := range is {
			w = append(w, k[i].Range())
		}
		return w
	}
	for _, tc := range []struct {
		name      string
		withdrawn []Range
		match     []int
		runs      []Run
		want      []Run
	}{
		{"nothing withdrawn", nil, []int{0, -1, 2}, []Run{{0, 2, 0, 2}}, []Run{{0, 2, 0, 2}}},
		{"a kept sentence stepped over withdrawn", withdrawn(1), []int{0, -1, 2}, []Run{{0, 2, 0, 2}}, []Run{{0, 0, 0, 0}, {2, 2, 2, 2}}},
		{"withdrawn outside the run", withdrawn(4), []int{0, 1, 2}, []Run{{0, 2, 0, 2}}, []Run{{0, 2, 0, 2}}},
		{"two withdrawn, three parts", withdrawn(1, 3), []int{0, 2, 4}, []Run{{0, 2, 0, 4}}, []Run{{0, 0, 0, 0}, {1, 1, 2, 2}, {2, 2, 4, 4}}},
		{"a split sentence aligned twice", withdrawn(3), []int{0, 0, 1}, []Run{{0, 2, 0, 1}}, []Run{{0, 2, 0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SplitWithdrawn(slices.Clone(tc.runs), tc.match, k, tc.withdrawn); !slices.Equal(got, tc.want) {
				t.Errorf("SplitWithdrawn = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStored: text a stored collection's dedup cut from a kept member
// (Plan.Stored) is no kept text: the copy's sentence aligned to it is not
// cut, the cuts on either side of it are, the Verifier fails a kept range
// that meets it, and Coordinate does not keep a member there because the
// document is kept.
func TestStored(t *testing.T) {
	passage := "The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall. The mayor said the town would pay for half of it. Work is to start in the spring of next year."
	texts := map[string]string{"k": "Own words of the kept page. " + passage, "c": passage + " A line of its own here."}
	analyses, member := analyzeTexts(t, texts)
	at := func(id, s string) Range { m := member(id, s); return Range{Start: m.CharStart, End: m.CharEnd} }
	k, c := at("k", passage), at("c", passage)
	mayor := at("k", "The mayor said the town would pay for half of it.")
	cs := []cluster.Cluster{{ID: "c1", Members: []cluster.Member{{Doc: "k", CharStart: k.Start, CharEnd: k.End}, {Doc: "c", CharStart: c.Start, CharEnd: c.End}}}}
	for _, stored := range []bool{false, true} {
		p := NewPlan(cs, []int{0}, 3)
		if stored {
			p.Stored(map[string][]Range{"k": {mayor}})
		}
		p.Keep("k", analyses["k"])
		o, err := p.Cut("c", analyses["c"])
		if err != nil {
			t.Fatal(err)
		}
		v := NewVerifier(p)
		v.Doc("c", texts["c"], o)
		v.Done()
		if v.Violations != 0 {
			t.Errorf("stored %v: %d violations (first: %s)", stored, v.Violations, v.First)
		}
		var kept []Range
		for _, rm := range o.Removals {
			kept = append(kept, rm.Kept.Range)
		}
		switch {
		case !stored && (len(o.Removals) != 1 || o.Removals[0].Range != c):
			t.Errorf("the copy's cuts %v, want the passage %v whole", o.Removals, c)
		case stored && (len(o.Removals) != 2 || Meets(ranges.Merge(kept), mayor)):
			t.Errorf("with the mayor's sentence withdrawn: cuts %v, want two, their kept ranges %v not meeting %v", o.Removals, kept, mayor)
		}
		if stored {
			// The whole passage claimed as the kept range fails.
			whole := Outcome{Removals: []Removal{{Range: c, Kept: Ref{"k", k}, Reason: ReasonCopy}}}
			v := NewVerifier(p)
			v.Doc("c", texts["c"], whole)
			v.Done()
			if v.Violations == 0 || !strings.Contains(v.First, "is cut from k too") {
				t.Errorf("a kept range over withdrawn text: %d violations (first %q)", v.Violations, v.First)
			}
		}
	}
	// Coordinate: a member inside a kept range, but meeting withdrawn
	// text, is not kept for being there.
	two := []cluster.Cluster{
		{ID: "long", Members: []cluster.Member{{Doc: "k", CharStart: 0, CharEnd: 100}, {Doc: "c", CharStart: 0, CharEnd: 100}}},
		{ID: "short", Members: []cluster.Member{{Doc: "x", CharStart: 0, CharEnd: 20}, {Doc: "k", CharStart: 10, CharEnd: 30}}},
	}
	if got := Coordinate(two, []int{0, 0}, nil); got[1] != 1 {
		t.Errorf("Coordinate keeps member %d of the short cluster, want 1 (inside k's kept member)", got[1])
	}
	if got := Coordinate(two, []int{0, 0}, map[string][]Range{"k": {{Start: 15, End: 18}}}); got[1] != 0 {
		t.Errorf("Coordinate with k's 15-18 withdrawn keeps member %d of the short cluster, want the rule's 0", got[1])
	}
}

// TestOncePerRange: removals of one range are one, the best held.
func TestOncePerRange(t *testing.T) {
	r := func(start, end int, cluster string, held float64) Removal {
		return Removal{Range: Range{Start: start, End: end}, Cluster: cluster, Held: held}
	}
	got := oncePerRange([]Removal{r(0, 10, "a", 0.9), r(0, 10, "b", 1), r(0, 10, "c", 0.95), r(0, 12, "a", 0.9), r(5, 12, "a", 0.8)})
	want := []Removal{r(0, 10, "b", 1), r(0, 12, "a", 0.9), r(5, 12, "a", 0.8)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("oncePerRange = %v, want %v", got, want)
	}
}
