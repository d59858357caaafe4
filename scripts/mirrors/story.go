package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// story is the passage every copy carries: consecutive sentences of one
// document, and how they are grouped into paragraphs (the same in every
// copy).
type story struct {
	Doc       string   // the source document's id
	Start     int      // index of the first sentence among the document's story sentences
	Sentences []string // whitespace collapsed
	Paras     []int    // sentences per paragraph, in order
}

// storySentences returns the sentences of text that a story may hold:
// those of 6 words or more.
func storySentences(text string) []string {
	var out []string
	for _, s := range sentences(text) {
		if len(strings.Fields(s)) >= 6 {
			out = append(out, s)
		}
	}
	return out
}

// pickStory picks a document with at least n story sentences and n
// consecutive ones of them, both at random (rng).
func pickStory(docs []document, n int, rng *rand.Rand) (story, error) {
	type cand struct {
		doc  int
		sent []string
	}
	var cands []cand
	for i, d := range docs {
		if s := storySentences(d.Text); len(s) >= n {
			cands = append(cands, cand{i, s})
		}
	}
	if len(cands) == 0 {
		return story{}, fmt.Errorf("no document has %d sentences of 6 words or more", n)
	}
	c := cands[rng.IntN(len(cands))]
	start := rng.IntN(len(c.sent) - n + 1)
	st := story{Doc: docs[c.doc].ID, Start: start, Sentences: c.sent[start : start+n]}
	st.Paras = paragraphs(n, 3, 6, rng)
	return st, nil
}

// paragraphs splits n sentences into paragraphs of lo to hi sentences
// (the last may be shorter when n is).
func paragraphs(n, lo, hi int, rng *rand.Rand) []int {
	var out []int
	for n > 0 {
		k := min(n, lo+rng.IntN(hi-lo+1))
		if n-k > 0 && n-k < lo {
			k = n // no short paragraph at the end
			if k > hi {
				k = n - lo
			}
		}
		out = append(out, k)
		n -= k
	}
	return out
}
