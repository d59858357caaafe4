package signature

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSetRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		set  []uint64
		want string
	}{
		{"empty", nil, "A"},
		{"unique only", []uint64{5, 9}, "C"},
		{"shared only", []uint64{Shared | 0, Shared | 1, Shared | 40}, "AAAmB"},
		{"both", []uint64{3, Shared | 31, Shared | 32}, "Bf" + "A"},
		{"large rank", []uint64{Shared | 1<<32 - 1}, "A//////D"},
	}
	for _, tt := range tests {
		enc := AppendSet(nil, tt.set)
		if string(enc) != tt.want {
			t.Errorf("%s: AppendSet = %q, want %q", tt.name, enc, tt.want)
		}
		u, ranks, err := DecodeSet(enc, nil)
		if err != nil {
			t.Fatalf("%s: DecodeSet(%q): %v", tt.name, enc, err)
		}
		var wantU int
		var wantRanks []uint32
		for _, k := range tt.set {
			if k&Shared == 0 {
				wantU++
			} else {
				wantRanks = append(wantRanks, uint32(k&^Shared))
			}
		}
		if u != wantU || !slices.Equal(ranks, wantRanks) {
			t.Errorf("%s: DecodeSet = %d %v, want %d %v", tt.name, u, ranks, wantU, wantRanks)
		}
	}
}

// TestSetOverlap checks that overlaps of decoded sets equal those of the
// order keys they came from, on random sets.
func TestSetOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randSet := func() []uint64 {
		var s []uint64
		for range rng.IntN(30) {
			if rng.IntN(4) == 0 {
				s = append(s, rng.Uint64()>>1)
			} else {
				s = append(s, Shared|uint64(rng.IntN(200)))
			}
		}
		slices.Sort(s)
		return slices.Compact(s)
	}
	for range 2000 {
		a, b := randSet(), randSet()
		_, ra, err := DecodeSet(AppendSet(nil, a), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, rb, err := DecodeSet(AppendSet(nil, b), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := Overlap(ra, rb), Overlap(a, b); got != want {
			t.Fatalf("overlap %d, want %d for %v %v", got, want, a, b)
		}
		f1, ok1 := FirstCommon(ra, rb)
		f2, ok2 := FirstCommon(a, b)
		if ok1 != ok2 || (ok1 && Shared|uint64(f1) != f2) {
			t.Fatalf("first common %d %v, want %d %v", f1, ok1, f2, ok2)
		}
	}
}

func TestDecodeSetErrors(t *testing.T) {
	for _, s := range []string{"", "g", "A,", "A\t", "Ag", "A/////////////A", "A///////D"} {
		if _, _, err := DecodeSet([]byte(s), nil); !errors.Is(err, ErrBadSet) {
			t.Errorf("DecodeSet(%q): err %v, want ErrBadSet", s, err)
		}
	}
}

func FuzzDecodeSet(f *testing.F) {
	f.Add([]byte("AAAm"))
	f.Add([]byte("Bf"))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, ranks, err := DecodeSet(b, nil)
		if err != nil || u > 1<<16 {
			return
		}
		if !slices.IsSorted(ranks) || len(slices.Compact(slices.Clone(ranks))) != len(ranks) {
			t.Fatalf("ranks not strictly ascending: %v", ranks)
		}
		set := make([]uint64, 0, u+len(ranks))
		for i := range u {
			set = append(set, uint64(i))
		}
		for _, r := range ranks {
			set = append(set, Shared|uint64(r))
		}
		u2, ranks2, err := DecodeSet(AppendSet(nil, set), nil)
		if err != nil || u2 != u || !slices.Equal(ranks, ranks2) {
			t.Fatalf("re-encoding %q: %d %v %v", b, u2, ranks2, err)
		}
	})
}
