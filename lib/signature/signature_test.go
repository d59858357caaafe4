package signature

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// toks maps words to fake token hashes (stable per word).
func toks(s string) []uint64 {
	var out []uint64
	for _, w := range strings.Fields(s) {
		var h uint64 = 1469598103934665603
		for i := 0; i < len(w); i++ {
			h = (h ^ uint64(w[i])) * 1099511628211
		}
		out = append(out, h)
	}
	return out
}

func statsFrom(t *testing.T, cfg Config, text string) *Stats {
	t.Helper()
	b := NewStatsBuilder(cfg)
	if err := b.Read(strings.NewReader(text), "stats"); err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

func hex(t uint64) string { return fmt.Sprintf("%016x", t) }

func TestShingles(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Method = Shingle
	tests := []struct {
		n     int
		words string
		want  int
	}{
		{4, "a b c d e f", 3},
		{4, "a b c", 1}, // shorter than n: one shingle
		{4, "", 0},
		{2, "a b a b a b", 2}, // distinct: "a b", "b a"
		{1, "x y x", 2},
	}
	for _, tt := range tests {
		cfg.ShingleN = tt.n
		g, err := NewGenerator(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := g.Append(nil, toks(tt.words))
		if len(got) != tt.want {
			t.Errorf("%d-shingles of %q: got %d signatures, want %d", tt.n, tt.words, len(got), tt.want)
		}
		for i := 1; i < len(got); i++ {
			if got[i-1] >= got[i] {
				t.Errorf("signatures not sorted and distinct: %v", got)
			}
		}
	}
}

func TestShingleOrderMatters(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Method, cfg.ShingleN = Shingle, 3
	g, _ := NewGenerator(cfg, nil)
	a := g.Append(nil, toks("the cat sat"))
	b := g.Append(nil, toks("sat the cat"))
	if a[0] == b[0] {
		t.Error("shingles ignore token order")
	}
}

func TestIMatch(t *testing.T) {
	cfg := DefaultConfig()
	// N = 100; "the" is in 90 documents: idf = log(100/90)/log(100) = 0.023 < 0.1.
	st := statsFrom(t, cfg, "!N\t100\n"+hex(toks("the")[0])+"\t90\n"+hex(toks("cat")[0])+"\t3\n")
	g, err := NewGenerator(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	sig := func(s string) []uint64 { return g.Append(nil, toks(s)) }
	if a, b := sig("the cat sat on the mat"), sig("cat sat on mat"); len(a) != 1 || a[0] != b[0] {
		t.Errorf("frequent token 'the' not filtered: %v vs %v", a, b)
	}
	if a, b := sig("cat sat on mat"), sig("mat on sat cat cat"); a[0] != b[0] {
		t.Error("I-Match must ignore order and repetition")
	}
	if a, b := sig("cat sat on mat"), sig("cat sat on rug"); a[0] == b[0] {
		t.Error("different sentences share an I-Match signature")
	}
	if got := sig("the the"); len(got) != 0 {
		t.Errorf("sentence of filtered tokens has signatures %v", got)
	}
}

func TestIMatchRangeUpperBound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IDFHigh = 0.9 // tokens seen once (idf 1) are now out of range
	st := statsFrom(t, cfg, "!N\t100\n"+hex(toks("cat")[0])+"\t3\n")
	if !st.InIDFRange(toks("cat")[0], cfg.IDFLow, cfg.IDFHigh) {
		t.Error("cat (df 3, idf 0.76) should be in range")
	}
	if st.InIDFRange(toks("zebra")[0], cfg.IDFLow, cfg.IDFHigh) {
		t.Error("zebra (df 1, idf 1) should be out of range [0.1, 0.9]")
	}
}

func TestSpotSigs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Method, cfg.Antecedents = SpotSig, 2
	st := statsFrom(t, cfg, "!N\t10\n"+hex(toks("the")[0])+"\t9\n"+hex(toks("a")[0])+"\t8\n"+hex(toks("cat")[0])+"\t2\n")
	if st.Antecedents() != 2 || !st.IsAntecedent(toks("the")[0]) || st.IsAntecedent(toks("cat")[0]) {
		t.Fatalf("antecedents: want the, a")
	}
	g, err := NewGenerator(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	// the:cat:sat and a:mat:today (chain 2, distance 1, antecedents skipped).
	got := g.Append(nil, toks("the cat sat on a mat today"))
	if len(got) != 2 {
		t.Errorf("got %d spot signatures, want 2", len(got))
	}
	if got := g.Append(nil, toks("cat sat on mat")); len(got) != 0 {
		t.Errorf("no antecedent, got %d signatures", len(got))
	}
	want := g.Append(nil, toks("the cat sat"))
	if got := g.Append(nil, toks("the a cat sat")); got[0] != want[0] && got[1] != want[0] {
		t.Errorf("chains must skip antecedents")
	}
}

func TestLengthFilterAndJaccard(t *testing.T) {
	tests := []struct {
		na, nb int
		tau    float64
		ok     bool
	}{
		{9, 10, 0.9, true},
		{8, 10, 0.9, false},
		{10, 9, 0.9, true},
		{1, 1, 0.9, true},
		{0, 0, 0.9, false},
		{1, 2, 0.5, true},
	}
	for _, tt := range tests {
		if got := LengthOK(tt.na, tt.nb, tt.tau); got != tt.ok {
			t.Errorf("LengthOK(%d, %d, %v) = %v", tt.na, tt.nb, tt.tau, got)
		}
	}
	if j := Jaccard(9, 10, 9); j != 0.9 {
		t.Errorf("Jaccard(9, 10, 9) = %v, want 0.9", j)
	}
	if !AtLeast(Jaccard(9, 10, 9), 0.9) || AtLeast(Jaccard(8, 10, 9), 0.9) {
		t.Error("AtLeast threshold")
	}
	if Jaccard(0, 0, 0) != 0 {
		t.Error("empty sets")
	}
}

func TestStatsErrors(t *testing.T) {
	for _, in := range []string{"nonsense\n", "zz\t3\n", "!N\tx\n", "0123456789abcdef\t-1\n"} {
		b := NewStatsBuilder(DefaultConfig())
		if err := b.Read(strings.NewReader(in), "f"); err == nil || !strings.Contains(err.Error(), "f:1") {
			t.Errorf("Read(%q) = %v, want an error at f:1", in, err)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.ShingleN = 0 },
		func(c *Config) { c.IDFLow, c.IDFHigh = 0.5, 0.4 },
		func(c *Config) { c.Method = "minhash" },
		func(c *Config) { c.Antecedents = 0 },
	}
	for i, f := range bad {
		c := DefaultConfig()
		f(&c)
		if c.Validate() == nil {
			t.Errorf("case %d: invalid config accepted", i)
		}
	}
	if _, err := NewGenerator(DefaultConfig(), nil); err == nil {
		t.Error("imatch without stats accepted")
	}
}

// TestIndexPrefix checks IndexPrefixLen against brute force: for every pair
// of sets over a small universe with |a| <= |b| and Jaccard >= tau, their
// first common element lies within a's index prefix and b's prefix.
func TestIndexPrefix(t *testing.T) {
	for _, tau := range []float64{0.5, 0.7, 0.8, 0.9} {
		for am := 1; am < 1<<8; am++ {
			for bm := 1; bm < 1<<8; bm++ {
				a, b := bitsSet(am), bitsSet(bm)
				if len(a) > len(b) || !AtLeast(Jaccard(Overlap(a, b), len(a), len(b)), tau) {
					continue
				}
				first, _ := FirstCommon(a, b)
				ia := slices.Index(a, first)
				ib := slices.Index(b, first)
				if ia >= IndexPrefixLen(len(a), tau) || ib >= PrefixLen(len(b), tau) {
					t.Fatalf("tau %g: %v %v first common %d at %d/%d", tau, a, b, first, ia, ib)
				}
				if o, ok := OverlapAtLeast(a, b, MinOverlap(len(a), len(b), tau)); !ok || o != Overlap(a, b) {
					t.Fatalf("OverlapAtLeast(%v, %v) = %d, %v", a, b, o, ok)
				}
			}
		}
	}
}

func bitsSet(m int) []uint64 {
	var s []uint64
	for i := range 8 {
		if m&(1<<i) != 0 {
			s = append(s, uint64(i))
		}
	}
	return s
}

// TestOverlapBound: the bitmap bound is never below the true overlap (the
// filter is exact), and it does prune: most pairs of random sets with
// little overlap get a bound below their size.
func TestOverlapBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	pruned, pairs := 0, 0
	for range 20000 {
		var a, b []uint32
		universe := 10 + rng.IntN(200)
		for e := range universe {
			switch rng.IntN(8) {
			case 0:
				a = append(a, uint32(e))
			case 1:
				b = append(b, uint32(e))
			case 2:
				a, b = append(a, uint32(e)), append(b, uint32(e))
			}
		}
		o := Overlap(a, b)
		bound := OverlapBound(len(a), len(b), Bitmap(a), Bitmap(b))
		if bound < o {
			t.Fatalf("bound %d < overlap %d for %v, %v", bound, o, a, b)
		}
		pairs++
		if bound < min(len(a), len(b)) {
			pruned++
		}
	}
	if pruned < pairs/2 {
		t.Errorf("bound below the smaller size for %d of %d pairs: the filter prunes little", pruned, pairs)
	}
}

// TestEvidence pins what a sentence pair says of its span, with need 20:
// its shared words, twice when identical, need for an anchor (identical
// of need/4 words or more, or Jaccard >= 0.8 sharing need/2), never more
// than need; 0 when nothing is needed.
func TestEvidence(t *testing.T) {
	for _, tt := range []struct {
		shared, na, nb, need, want int
	}{
		{5, 5, 5, 20, 20},    // identical, 5 words: an anchor
		{4, 4, 4, 20, 8},     // identical, short: twice its words
		{3, 3, 3, 20, 6},     // identical, shorter
		{4, 5, 4, 20, 4},     // one word more: its shared words
		{10, 11, 11, 20, 20}, // 10/12 = 0.83, sharing 10: an anchor
		{9, 10, 10, 20, 9},   // 9/11 = 0.82, sharing 9
		{12, 13, 14, 20, 20}, // 12/15 = 0.8 exactly
		{12, 14, 14, 20, 12}, // 12/16 = 0.75
		{40, 45, 45, 20, 20}, // 40/50 = 0.8
		{25, 30, 31, 20, 20}, // 25/36 = 0.69: not an anchor, but as many words as needed
		{5, 5, 5, 24, 10},    // identical, 5 words, need 24: short of a quarter
		{9, 9, 9, 0, 0},      // nothing needed
	} {
		if got := Evidence(tt.shared, tt.na, tt.nb, tt.need); got != tt.want {
			t.Errorf("Evidence(%d, %d, %d, %d) = %d, want %d", tt.shared, tt.na, tt.nb, tt.need, got, tt.want)
		}
	}
}
