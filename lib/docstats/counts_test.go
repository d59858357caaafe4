package docstats

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCounts: the token table counts as a map does, through growth, the
// token 0 and a reset.
func TestCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var c counts
	for round := range 3 {
		want := map[uint64]int64{}
		for range 50000 {
			k := rng.Uint64()
			switch rng.IntN(4) {
			case 0:
				k = 0
			case 1, 2:
				k %= 5000 // repeats
			}
			c.inc(k)
			want[k]++
		}
		got := c.sorted()
		if c.len() != len(want) || len(got) != len(want) {
			t.Fatalf("round %d: %d (len %d) tokens, want %d", round, len(got), c.len(), len(want))
		}
		if !slices.IsSortedFunc(got, func(x, y tokenCount) int { return cmp.Compare(x.key, y.key) }) {
			t.Fatalf("round %d: not sorted", round)
		}
		for _, e := range got {
			if want[e.key] != e.n {
				t.Fatalf("round %d: token %x counted %d, want %d", round, e.key, e.n, want[e.key])
			}
		}
		c.reset()
		if c.len() != 0 || len(c.sorted()) != 0 {
			t.Fatalf("round %d: not empty after reset", round)
		}
	}
}
