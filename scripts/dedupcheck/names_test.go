package main

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// TestNameKeysMatchLibrary: nameKeys, the spec of lib/dedup's names written
// again from regular expressions, finds the same names as lib/dedup
// AppendNames on texts of the characters names are made of, at random.
func TestNameKeysMatchLibrary(t *testing.T) {
	t.Parallel()
	const alphabet = "aZ_.:,09 x1é"
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"sqlite3_blob_write(x) at 69,805 or 1.5 in v1.2, std::vec::Vec and getElementById"}
	for range 50000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(string([]rune(alphabet)[r.IntN(len([]rune(alphabet)))]))
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		var want []uint64
		for key := range nameKeys(text) {
			want = append(want, sentence.Hash(key))
		}
		slices.Sort(want)
		if got := dedup.AppendNames(nil, text); !slices.Equal(got, want) {
			t.Fatalf("%q: lib/dedup finds %d names, dedupcheck %d (%q)", text, len(got), len(want), nameKeys(text))
		}
	}
}
