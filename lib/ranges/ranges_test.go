package ranges

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// covered is the model: the characters 0..199 that some range holds.
func covered(rs []Range) []bool {
	in := make([]bool, 200)
	for _, r := range rs {
		for i := max(0, r.Start); i < min(200, r.End); i++ {
			in[i] = true
		}
	}
	return in
}

func count(in []bool) int {
	n := 0
	for _, b := range in {
		if b {
			n++
		}
	}
	return n
}

func TestMergeLenInside(t *testing.T) {
	for _, tt := range []struct {
		rs   []Range
		want []Range
	}{
		{nil, nil},
		{[]Range{{5, 9}, {0, 3}}, []Range{{0, 3}, {5, 9}}},
		{[]Range{{0, 3}, {3, 6}}, []Range{{0, 6}}}, // touching ranges join
		{[]Range{{2, 8}, {3, 4}, {0, 2}}, []Range{{0, 8}}},
	} {
		if got := Merge(slices.Clone(tt.rs)); !slices.Equal(got, tt.want) {
			t.Errorf("Merge(%v) = %v, want %v", tt.rs, got, tt.want)
		}
	}
	for _, tt := range []struct {
		rs   []Range
		want int
	}{
		{nil, 0},
		{[]Range{{0, 10}, {2, 3}, {20, 25}}, 15},
		{[]Range{{0, 10}, {10, 20}}, 20},
		{[]Range{{5, 5}, {7, 3}}, 0}, // empty and reversed
	} {
		if got := Len(tt.rs); got != tt.want {
			t.Errorf("Len(%v) = %d, want %d", tt.rs, got, tt.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var rs, in []Range
		for range rng.IntN(6) {
			s := rng.IntN(100)
			rs = append(rs, Range{s, s + rng.IntN(30) - 5}) // some reversed
		}
		for range rng.IntN(4) {
			s := rng.IntN(100)
			in = append(in, Range{s, s + rng.IntN(20)})
		}
		in = Merge(in)
		before := slices.Clone(rs)
		cov, inside := covered(rs), covered(in)
		if got, want := Len(rs), count(cov); got != want {
			t.Fatalf("Len(%v) = %d, want %d", rs, got, want)
		}
		both := make([]bool, 200)
		for i := range both {
			both[i] = cov[i] && inside[i]
		}
		if got, want := Inside(rs, in), count(both); got != want {
			t.Fatalf("Inside(%v, %v) = %d, want %d", rs, in, got, want)
		}
		if !slices.Equal(rs, before) {
			t.Fatalf("Len or Inside changed their argument: %v -> %v", before, rs)
		}
	}
}

// TestMinusModel: Minus covers exactly the points of rs outside out, as
// disjoint sorted ranges, against a model of covered points.
func TestMinusModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		gen := func() []Range {
			var rs []Range
			for range rng.IntN(5) {
				s := rng.IntN(30)
				rs = append(rs, Range{s, s + 1 + rng.IntN(8)})
			}
			return Merge(rs)
		}
		rs, out := gen(), gen()
		got := Minus(rs, out)
		a, b, c := covered(rs), covered(out), covered(got)
		for i := range max(len(a), len(c)) {
			in := func(v []bool) bool { return i < len(v) && v[i] }
			if in(c) != (in(a) && !in(b)) {
				t.Fatalf("Minus(%v, %v) = %v: point %d", rs, out, got, i)
			}
		}
		for i := 1; i < len(got); i++ {
			if got[i].Start < got[i-1].End || got[i-1].Len() == 0 {
				t.Fatalf("Minus(%v, %v) = %v: not sorted and disjoint", rs, out, got)
			}
		}
	}
}
