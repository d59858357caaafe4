package signature

import (
	"math/rand/v2"
	"strings"
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
	if r.n != len(want) {
		t.Errorf("n = %d, want %d", r.n, len(want))
	}
	var empty rankTable
	if _, ok := empty.get(1); ok || empty.n != 0 {
		t.Error("empty table has a token")
	}
}

// TestRanked: the words method ranks the tokens seen in two documents or
// more, 0 <= rank < Ranked() (the index mapper's batch indexes lines by
// rank).
func TestRanked(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Method = Words
	st := statsFrom(t, cfg, "!N\t10\n"+hex(toks("the")[0])+"\t9\n"+hex(toks("cat")[0])+"\t2\n"+hex(toks("mat")[0])+"\t2\n")
	g, err := NewGenerator(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if g.Ranked() != 3 {
		t.Fatalf("Ranked() = %d, want 3", g.Ranked())
	}
	for _, k := range g.Append(nil, toks("the cat sat on the mat")) {
		if k&Shared != 0 && int(uint32(k)) >= g.Ranked() {
			t.Errorf("key %#x: rank past Ranked()", k)
		}
	}
	if g, _ := NewGenerator(DefaultConfig(), st); g.Ranked() != 0 {
		t.Error("imatch generator has ranks")
	}
}

// TestStatsInBatch: the +token records of a batch run's stats mark the
// ranks of the batch's tokens; without them every token is in the batch.
func TestStatsInBatch(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Method = Words
	const a, b, c, once = 0x1111, 0x2222, 0x3333, 0x4444
	base := "!N\t10\n" + hex(a) + "\t3\n" + hex(b) + "\t5\n" + hex(c) + "\t2\n"
	plain := statsFrom(t, cfg, base)
	batch := statsFrom(t, cfg, base+"+"+hex(b)+"\t1\n+"+hex(once)+"\t1\n")
	for _, tt := range []struct {
		tok         uint64
		inBatch     bool
		description string
	}{
		{a, false, "a shared token of stored documents only"},
		{b, true, "a shared token of a batch document"},
		{c, false, "another stored token"},
		{once, true, "a token of one document: never indexed, never left out"},
	} {
		if got := batch.InBatch(batch.Key(tt.tok)); got != tt.inBatch {
			t.Errorf("%s: InBatch %v, want %v", tt.description, got, tt.inBatch)
		}
		if !plain.InBatch(plain.Key(tt.tok)) {
			t.Errorf("%s: InBatch false in a run that is no batch", tt.description)
		}
	}
	if err := NewStatsBuilder(cfg).Read(strings.NewReader("+12\t1\n"), "stats"); err == nil {
		t.Error("a +token record of a short hash read without error")
	}
}
