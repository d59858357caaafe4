package local

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortBuffer checks the radix sort against a stable comparison sort on
// keys built to hit its edge cases: long shared prefixes, keys that are
// prefixes of others, NUL bytes (which zero padding cannot tell from a key's
// end), many equal keys and empty keys.
func TestSortBuffer(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		reducers int
		key      func(r *rand.Rand) string
	}{
		{"hex", 5000, 4, func(r *rand.Rand) string { return fmt.Sprintf("%016x", r.Uint64N(300)) }},
		{"shared prefix", 5000, 3, func(r *rand.Rand) string {
			return fmt.Sprintf("rust/src/core/doc-%03d.html\tx/y/doc-%03d\t%07d", r.IntN(20), r.IntN(20), r.IntN(30))
		}},
		{"nul and short", 20000, 1, func(r *rand.Rand) string {
			b := make([]byte, r.IntN(20))
			for i := range b {
				b[i] = "\x00\x00\x00\x00\x00\x00\x00ab"[r.IntN(9)]
			}
			return string(b)
		}},
		{"posting lists", 20000, 2, func(r *rand.Rand) string { return fmt.Sprintf("%08x", r.IntN(10)) }},
		{"equal but padding", 20000, 1, func(r *rand.Rand) string {
			return "0123456789abcdef"[:8+r.IntN(2)*8] + "\x00\x00\x00"[:r.IntN(4)]
		}},
		{"tiny", 10, 2, func(r *rand.Rand) string { return string(rune('a' + r.IntN(3))) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(tc.n)))
			b := &sortBuffer{keyFields: 3, reducers: tc.reducers, limit: 1 << 30}
			for i := range tc.n {
				k := tc.key(r)
				b.keyFields = strings.Count(k, "\t") + 1
				if err := b.add(fmt.Appendf(nil, "%s\tv%d", k, i)); err != nil {
					t.Fatal(err)
				}
			}
			want := slices.Clone(b.ents)
			slices.SortStableFunc(want, func(x, y entry) int {
				return cmp.Or(cmp.Compare(x.part, y.part), bytes.Compare(b.key(&x), b.key(&y)))
			})
			b.sort()
			for i := range want {
				g, w := &b.ents[i], &want[i]
				if g.off != w.off || g.part != w.part {
					t.Fatalf("entry %d: got part %d key %q value %q, want part %d key %q value %q",
						i, g.part, b.key(g), b.value(g), w.part, b.key(w), b.value(w))
				}
			}
		})
	}
}
