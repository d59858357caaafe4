package docstats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
)

// TestTokenSet checks distinct against sorting and compacting, document
// after document (the table is reused, growing and shrinking), and across
// the generation counter's wrap-around.
func TestTokenSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s tokenSet
	for d := range 300 {
		if d == 150 {
			s.cur = math.MaxUint32 - 2 // the next documents wrap the counter
		}
		toks := make([]uint64, rng.IntN(400))
		if d == 0 {
			toks = make([]uint64, 400) // sizes the table for all: no reallocation resets cur
		}
		for i := range toks {
			toks[i] = rng.Uint64N(uint64(1 + len(toks)/2)) // many repeats, and collisions in the low bits
			if rng.IntN(4) == 0 {
				toks[i] <<= 40
			}
		}
		s.start([]doc.Sentence{{Tokens: toks}})
		got := s.distinct(nil, toks)
		want := slices.Compact(slices.Sorted(slices.Values(toks)))
		if len(got) != len(want) {
			t.Fatalf("doc %d: %d distinct tokens, want %d", d, len(got), len(want))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("doc %d: distinct tokens differ", d)
		}
	}
	if s.cur == 0 || s.cur > 200 {
		t.Errorf("generation %d after the documents: the counter did not wrap", s.cur)
	}
}
