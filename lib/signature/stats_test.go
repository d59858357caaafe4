package signature

import (
	"math/rand/v2"
	"testing"
)

// TestRankTable checks the rank table against a map, with token 0, tokens
// sharing their low bits, and absent tokens.
func TestRankTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	want := map[uint64]uint32{0: 0}
	for len(want) < 5000 {
		tok := rng.Uint64()
		if rng.IntN(3) == 0 {
			tok = uint64(rng.IntN(64)) << 50 // all in one probe chain
		}
		want[tok] = uint32(len(want))
	}
	r := newRankTable(len(want))
	for tok, rank := range want {
		r.put(tok, rank)
	}
	for tok, rank := range want {
		if got, ok := r.get(tok); !ok || got != rank {
			t.Fatalf("get(%#x) = %d, %v; want %d", tok, got, ok, rank)
		}
	}
	for range 5000 {
		tok := rng.Uint64()
		if _, in := want[tok]; in {
			continue
		}
		if got, ok := r.get(tok); ok {
			t.Fatalf("get(%#x) = %d for an absent token", tok, got)
		}
	}
	var empty rankTable
	if _, ok := empty.get(1); ok {
		t.Error("empty table has a token")
	}
}
