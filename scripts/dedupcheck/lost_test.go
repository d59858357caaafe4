package main

import (
	"testing"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// TestLostRun: what a cut loses is counted in words, an edited word as
// one, words of the cut's own at its end as many as they are.
func TestLostRun(t *testing.T) {
	t.Parallel()
	kept := "the quick brown fox jumps over the lazy dog near the old river bank today"
	var tok sentence.Tokenizer
	for _, tc := range []struct {
		name, cut string
		want      int
	}{
		{"a copy", "the quick brown fox jumps over the lazy dog near the old river bank today", 0},
		{"a word edited", "the quick brown fox leaps over the lazy dog near the old river bank today", 1},
		{"words of its own at the end", "the quick brown fox jumps over the lazy dog and then seven more words follow it here", 8},
		{"words of its own at the start", "one two three four five six seven the lazy dog near the old river bank today", 7},
	} {
		texts := map[string]string{"kept": kept, "copy": "before the cut. " + tc.cut}
		start := len([]rune("before the cut. "))
		left := leftGrams(texts, map[string][]dedup.Range{"copy": {{Start: start, End: len([]rune(texts["copy"]))}}}, &tok)
		if got := lostRun(texts["copy"], start, len([]rune(texts["copy"])), left, &tok); got != tc.want {
			t.Errorf("%s: %d words lost, want %d", tc.name, got, tc.want)
		}
	}
}
