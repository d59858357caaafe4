package diagonal

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	type span struct{ a, b, n int }
	tests := []struct {
		name   string
		pairs  []Pair
		minLen int
		want   []span
	}{
		{name: "empty", pairs: nil, minLen: 3, want: nil},
		{name: "exact run", pairs: []Pair{{A: 2, B: 5}, {A: 3, B: 6}, {A: 4, B: 7}}, minLen: 3, want: []span{{2, 5, 3}}},
		{name: "too short", pairs: []Pair{{A: 2, B: 5}, {A: 3, B: 6}}, minLen: 3, want: nil},
		{name: "unsorted input", pairs: []Pair{{A: 4, B: 7}, {A: 2, B: 5}, {A: 3, B: 6}}, minLen: 3, want: []span{{2, 5, 3}}},
		{name: "broken run", pairs: []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 3, B: 3}, {A: 4, B: 4}, {A: 5, B: 5}}, minLen: 2,
			want: []span{{0, 0, 2}, {3, 3, 3}}},
		{name: "two diagonals crossing", pairs: []Pair{{A: 0, B: 2}, {A: 1, B: 3}, {A: 2, B: 4}, {A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}}, minLen: 3,
			want: []span{{0, 0, 3}, {0, 2, 3}}},
		{name: "duplicate pairs merged", pairs: []Pair{{A: 1, B: 1}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 3, B: 3}}, minLen: 3, want: []span{{1, 1, 3}}},
		{name: "off-diagonal neighbour is not a continuation", pairs: []Pair{{A: 1, B: 1}, {A: 2, B: 3}, {A: 3, B: 3}}, minLen: 2, want: nil},
		{name: "lambda 1 keeps singletons", pairs: []Pair{{A: 7, B: 1}}, minLen: 1, want: []span{{7, 1, 1}}},
		{name: "repeated sentence in B", pairs: []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 0, B: 10}, {A: 1, B: 11}, {A: 2, B: 12}}, minLen: 3,
			want: []span{{0, 0, 3}, {0, 10, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := Find(tt.pairs, tt.minLen, 0, nil)
			var got []span
			for _, r := range runs {
				got = append(got, span{r.StartA, r.StartB, r.Length})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Find = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFindScoreAndEnds(t *testing.T) {
	runs := Find([]Pair{{A: 5, B: 1, Score: 1}, {A: 6, B: 2, Score: 0.9}, {A: 7, B: 3, Score: 0.8}}, 3, 0, nil)
	if len(runs) != 1 {
		t.Fatalf("got %d runs, want 1", len(runs))
	}
	r := runs[0]
	if d := r.Score - 0.9; d > 1e-12 || d < -1e-12 {
		t.Errorf("score = %v, want mean 0.9", r.Score)
	}
	if r.First.A != 5 || r.Last.A != 7 || r.EndA != 7 || r.EndB != 3 {
		t.Errorf("run %+v, want A 5..7, B 1..3", r)
	}
}

func TestEachPairInOneRun(t *testing.T) {
	var pairs []Pair
	for a := 0; a < 20; a++ {
		for b := 0; b < 20; b++ {
			if (a*7+b*3)%5 < 2 {
				pairs = append(pairs, Pair{A: a, B: b})
			}
		}
	}
	for _, gap := range []int{0, 1, 2} {
		runs := Find(slices.Clone(pairs), 1, gap, nil)
		total := 0
		for _, r := range runs {
			total += r.Length
		}
		if total > len(pairs) || total == 0 {
			t.Errorf("gap %d: runs hold %d pairs, want each of the %d pairs at most once", gap, total, len(pairs))
		}
	}
}

func TestFindGap(t *testing.T) {
	type span struct{ a, b, ea, eb, n int }
	tests := []struct {
		name  string
		pairs []Pair
		gap   int
		want  []span
		c     Counts // joined and covered
	}{
		{"rewritten sentence bridged", []Pair{{A: 0, B: 10}, {A: 1, B: 11}, {A: 3, B: 13}, {A: 4, B: 14}}, 1, []span{{0, 10, 4, 14, 4}}, Counts{}},
		{"rewritten sentence splits without gap", []Pair{{A: 0, B: 10}, {A: 1, B: 11}, {A: 3, B: 13}, {A: 4, B: 14}}, 0, nil, Counts{}},
		{"dropped sentence in B", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 3, B: 2}, {A: 4, B: 3}}, 1, []span{{0, 0, 4, 3, 4}}, Counts{}},
		{"inserted sentence in B", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 3}, {A: 3, B: 4}}, 1, []span{{0, 0, 3, 4, 4}}, Counts{}},
		// "... in November, 1882. the time of ..." (a full stop lost): A 3
		// is B 3 and B 4, and matches neither.
		{"two sentences merged into one bridged", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 4, B: 5}, {A: 5, B: 6}, {A: 6, B: 7}}, 1, []span{{0, 0, 6, 7, 6}}, Counts{Joined: 1}},
		{"one sentence split in two bridged", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 5, B: 4}, {A: 6, B: 5}, {A: 7, B: 6}}, 1, []span{{0, 0, 7, 6, 6}}, Counts{Joined: 1}},
		{"two pairs each side of a merged sentence joined", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 3, B: 4}, {A: 4, B: 5}}, 1, []span{{0, 0, 4, 5, 4}}, Counts{Joined: 1}},
		{"two pairs each side of a merged sentence without gap", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 3, B: 4}, {A: 4, B: 5}}, 0, nil, Counts{}},
		{"two sentences skipped on both sides split", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 5, B: 5}, {A: 6, B: 6}, {A: 7, B: 7}}, 1, []span{{0, 0, 2, 2, 3}, {5, 5, 7, 7, 3}}, Counts{}},
		{"gap too wide", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 5, B: 5}, {A: 6, B: 6}, {A: 7, B: 7}}, 1, []span{{0, 0, 2, 2, 3}, {5, 5, 7, 7, 3}}, Counts{}},
		{"echo inside a longer run dropped", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 3, B: 3}, {A: 4, B: 4}, {A: 5, B: 5}, {A: 1, B: 3}, {A: 2, B: 4}, {A: 3, B: 5}}, 1, []span{{0, 0, 5, 5, 6}}, Counts{Covered: 1}},
		{"echo kept with gap 0 (the paper)", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 3, B: 3}, {A: 4, B: 4}, {A: 5, B: 5}, {A: 1, B: 3}, {A: 2, B: 4}, {A: 3, B: 5}}, 0, []span{{0, 0, 5, 5, 6}, {1, 3, 3, 5, 3}}, Counts{}},
		// A 3-5 ~ B 3-5 is covered by the two runs on both sides, aligned
		// better: a shifted echo of repeated sentences.
		{"shifted echo covered by two runs dropped", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 3, B: 3}, {A: 10, B: 10}, {A: 11, B: 11}, {A: 12, B: 12}, {A: 13, B: 13}, {A: 2, B: 11, Score: -1}, {A: 3, B: 12, Score: -1}, {A: 4, B: 13, Score: -1}, {A: 4, B: 4}}, 1, []span{{0, 0, 4, 4, 5}, {10, 10, 13, 13, 4}}, Counts{Covered: 1}},
		{"a passage of A twice in B kept twice", []Pair{{A: 0, B: 0}, {A: 1, B: 1}, {A: 2, B: 2}, {A: 0, B: 20}, {A: 1, B: 21}, {A: 2, B: 22}}, 1, []span{{0, 0, 2, 2, 3}, {0, 20, 2, 22, 3}}, Counts{}},
		{"prefers the diagonal", []Pair{{A: 0, B: 0}, {A: 1, B: 2}, {A: 1, B: 1}, {A: 2, B: 2}}, 1, []span{{0, 0, 2, 2, 3}}, Counts{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []span
			var c Counts
			for _, r := range Find(tt.pairs, 3, tt.gap, &c) {
				got = append(got, span{r.StartA, r.StartB, r.EndA, r.EndB, r.Length})
			}
			if !reflect.DeepEqual(got, tt.want) || c != tt.c {
				t.Errorf("got %v %+v, want %v %+v", got, c, tt.want, tt.c)
			}
		})
	}
}

// TestDropCovered checks dropCovered against the definition (a run is
// dropped when every sentence of it, on each side, lies in a run kept
// before it) on random runs with many echoes, in any order and ordered by
// start.
func TestDropCovered(t *testing.T) {
	naive := func(runs []Run) []Run {
		slices.SortStableFunc(runs, func(x, y Run) int {
			return cmp.Or(cmp.Compare(y.Length, x.Length), cmp.Compare(y.Score, x.Score), cmp.Compare(x.StartA, y.StartA), cmp.Compare(x.StartB, y.StartB))
		})
		var kept []Run
		in := func(s int, side func(Run) (int, int)) bool {
			for _, k := range kept {
				if lo, hi := side(k); lo <= s && s <= hi {
					return true
				}
			}
			return false
		}
		sideA := func(r Run) (int, int) { return r.StartA, r.EndA }
		sideB := func(r Run) (int, int) { return r.StartB, r.EndB }
		for _, r := range runs {
			covered := true
			for a := r.StartA; a <= r.EndA; a++ {
				covered = covered && in(a, sideA)
			}
			for b := r.StartB; b <= r.EndB; b++ {
				covered = covered && in(b, sideB)
			}
			if !covered {
				kept = append(kept, r)
			}
		}
		return kept
	}
	rng := rand.New(rand.NewPCG(3, 4))
	dropped := 0
	var f Finder // reused, as the match job reuses it
	for range 300 {
		var runs []Run
		for range 1 + rng.IntN(60) {
			a, b, n := rng.IntN(40), rng.IntN(40), 1+rng.IntN(8)
			runs = append(runs, Run{StartA: a, StartB: b, EndA: a + n - 1 + rng.IntN(2), EndB: b + n - 1 + rng.IntN(2), Length: n, Score: float64(rng.IntN(3))})
		}
		if rng.IntN(2) == 0 { // ordered by start, as Find makes them
			slices.SortStableFunc(runs, byStart)
		}
		want := naive(slices.Clone(runs))
		dropped += len(runs) - len(want)
		if got := f.dropCovered(slices.Clone(runs)); !slices.Equal(got, want) {
			t.Fatalf("dropCovered(%v)\n got %v\nwant %v", runs, got, want)
		}
	}
	if dropped == 0 {
		t.Fatal("no run dropped: the test tests nothing")
	}
}

// TestLocator checks the row-table lookup against a search of the whole
// slice, on dense and on sparse A values.
func TestLocator(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, spread := range []int{3, 50, 100000} {
		var pairs []Pair
		for range 400 {
			pairs = append(pairs, Pair{A: rng.IntN(spread * 10), B: rng.IntN(40)})
		}
		pairs = sortPairs(pairs)
		l := newLocator(pairs, nil)
		if dense := l.row != nil; dense != (spread < 100000) {
			t.Errorf("spread %d: row table %v", spread, dense)
		}
		for range 2000 {
			from, a, b := rng.IntN(len(pairs)+1)-1, rng.IntN(spread*10+2)-1, rng.IntN(42)-1
			if from >= 0 && a <= pairs[from].A {
				continue // find is asked only for later rows, or from -1 (joinShort)
			}
			wantOK := false
			for k := from + 1; k < len(pairs); k++ {
				if pairs[k].A == a && pairs[k].B == b {
					if got, ok := l.find(from, a, b); !ok || got != k {
						t.Fatalf("spread %d: find(%d, %d, %d) = %d, %v; want %d", spread, from, a, b, got, ok, k)
					}
					wantOK = true
				}
			}
			if _, ok := l.find(from, a, b); ok != wantOK {
				t.Fatalf("spread %d: find(%d, %d, %d) found %v; want %v", spread, from, a, b, ok, wantOK)
			}
		}
	}
}

// TestFinderReused checks that one Finder, reused for document pair after
// document pair as the match job reuses it, returns what a fresh call
// returns: no state of one call leaks into the next.
func TestFinderReused(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var f Finder
	found := 0
	for i := range 500 {
		var pairs []Pair
		for range rng.IntN(80) {
			a, b, n := rng.IntN(30), rng.IntN(30), 1+rng.IntN(5)
			for k := range n {
				pairs = append(pairs, Pair{A: a + k + rng.IntN(2), B: b + k, Score: float64(1 + rng.IntN(3)), Evidence: rng.IntN(3), Tag: i})
			}
		}
		pairs = sortPairs(pairs)
		minLen, gap := 1+rng.IntN(4), rng.IntN(3)
		wantRuns, wantShort := FindAll(slices.Clone(pairs), minLen, gap, nil)
		var c Counts
		gotRuns, gotShort := f.FindAll(slices.Clone(pairs), minLen, gap, &c)
		if !slices.Equal(gotRuns, wantRuns) || !slices.Equal(gotShort, wantShort) {
			t.Fatalf("call %d (minLen %d, gap %d): reused Finder gave\n%v\n%v\nwant\n%v\n%v", i, minLen, gap, gotRuns, gotShort, wantRuns, wantShort)
		}
		if got, want := f.Find(slices.Clone(pairs), minLen, gap, nil), Find(slices.Clone(pairs), minLen, gap, nil); !slices.Equal(got, want) {
			t.Fatalf("call %d: reused Finder's Find gave %v, want %v", i, got, want)
		}
		found += len(wantRuns) + len(wantShort)
	}
	if found == 0 {
		t.Fatal("no run found: the test tests nothing")
	}
}

func sortPairs(pairs []Pair) []Pair {
	slices.SortFunc(pairs, func(x, y Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	return slices.CompactFunc(pairs, func(x, y Pair) bool { return x.A == y.A && x.B == y.B })
}

// benchPairs are the pairs of a large document pair: runs, a block of
// repeated boilerplate, scattered single pairs, sorted as the match job
// has them.
func benchPairs() []Pair {
	rng := rand.New(rand.NewPCG(7, 8))
	var pairs []Pair
	for len(pairs) < 60000 {
		a, o, n := rng.IntN(20000), rng.IntN(20000), 3+rng.IntN(18)
		for k := range n {
			pairs = append(pairs, Pair{A: a + k, B: o + k, Score: 1})
		}
	}
	for a := 5000; a < 5150; a++ { // repeated boilerplate: every sentence of a block matches every other
		for o := 7000; o < 7150; o++ {
			pairs = append(pairs, Pair{A: a, B: o, Score: 0.8})
		}
	}
	for len(pairs) < 100000 {
		pairs = append(pairs, Pair{A: rng.IntN(20000), B: rng.IntN(20000), Score: 0.7})
	}
	return sortPairs(pairs)
}

// BenchmarkFind: one document pair with about 100,000 duplicated sentence pairs
// (sorted, as the match job reads them):
// diagonals of 3 to 20 pairs, a dense block of repeated sentences, noise.
func BenchmarkFind(b *testing.B) {
	pairs := benchPairs()
	work := make([]Pair, len(pairs))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, pairs)
		Find(work, 3, 1, nil)
	}
}

// BenchmarkFindAll is FindAll on BenchmarkFind's pairs with one Finder,
// as the matcher calls it: the short runs too, most of them single pairs.
func BenchmarkFindAll(b *testing.B) {
	pairs := benchPairs()
	work := make([]Pair, len(pairs))
	var f Finder
	b.ReportAllocs()
	for b.Loop() {
		copy(work, pairs)
		f.FindAll(work, 3, 1, nil)
	}
}
