package main

import (
	"math"
	"slices"
	"sort"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// Is a passage content? A passage of a page (a span's text_a or text_b) is
// split into sentences and tokens as pdc does (lib/sentence).
//
//   - A sentence's grams are its token bigrams (its one token if it has
//     one). It matches a window of `window` consecutive source sentences
//     when at least minContain of its distinct grams occur in the window,
//     whose grams are the unigrams and bigrams of its tokens run together.
//     A window, not one sentence, because the page and the source may split
//     a sentence differently (a title and the paragraph under it, a list);
//     bigrams, not tokens, so that common words in another order do not
//     match.
//   - The passage must lie in the source in order: its matched sentences
//     are chained, each matching a window 0 to `jump` sentences after the
//     previous one's (unmatched sentences in between are skipped). Every
//     entry of a sidebar's table of contents matches one of the page's
//     headings, but the headings lie far apart in the source, so the chain
//     holds one or two of them.
//   - The passage's content share is the fraction of its tokens in the
//     best chain's sentences; it is content when the share is at least
//     minShare (0.8 by default: a run of one content sentence and two
//     generated ones, "Return value: New reference." and "Part of the
//     Stable ABI." on the C API pages, reaches pdc's 3 sentences only
//     thanks to the template).
//
// Tokens make the test blind to punctuation, and the stripped source
// (stripReST) has no role names, link targets or directive names left.

// container answers containment queries against one source.
type container struct {
	windows [][]uint64         // distinct grams of each window, sorted
	index   map[uint64][]int32 // gram -> windows holding it, ascending
	cache   map[string]float64 // passage -> share
}

// newContainer indexes the windows of s.
func newContainer(s *source, window int) *container {
	c := &container{index: map[uint64][]int32{}, cache: map[string]float64{}}
	n := max(len(s.toks)-window+1, 1)
	for w := 0; w < n && w < len(s.toks); w++ {
		var toks []uint64
		for i := w; i < w+window && i < len(s.toks); i++ {
			toks = append(toks, s.toks[i]...)
		}
		grams := append(slices.Clone(toks), bigrams(toks)...)
		slices.Sort(grams)
		grams = slices.Compact(grams)
		c.windows = append(c.windows, grams)
		for _, t := range grams {
			c.index[t] = append(c.index[t], int32(w))
		}
	}
	return c
}

// bigrams returns the hashes of the token bigrams of toks.
func bigrams(toks []uint64) []uint64 {
	var out []uint64
	for i := 1; i < len(toks); i++ {
		out = append(out, (toks[i-1]*0x9e3779b97f4a7c15)^(toks[i]>>7|toks[i]<<57)^0x2545f4914f6cdd1d)
	}
	return out
}

// grams returns a sentence's grams: its bigrams, or its one token.
func grams(toks []uint64) []uint64 {
	if len(toks) == 1 {
		return toks
	}
	return bigrams(toks)
}

// matches returns the windows, ascending, that hold at least minContain
// of the distinct grams of toks. Only windows holding one of the rarest
// len(grams)-need+1 grams can (the prefix filter), so only those are
// checked.
func (c *container) matches(toks []uint64, minContain float64) []int32 {
	g := slices.Compact(slices.Sorted(slices.Values(grams(toks))))
	if len(g) == 0 {
		return nil
	}
	need := int(math.Ceil(minContain*float64(len(g)) - 1e-9))
	sort.SliceStable(g, func(i, j int) bool { return len(c.index[g[i]]) < len(c.index[g[j]]) })
	seen := map[int32]bool{}
	var out []int32
	for _, t := range g[:len(g)-need+1] {
		for _, w := range c.index[t] {
			if !seen[w] {
				seen[w] = true
				if c.count(w, g) >= need {
					out = append(out, w)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// count is how many of grams lie in window w.
func (c *container) count(w int32, grams []uint64) int {
	n := 0
	for _, t := range grams {
		if _, ok := slices.BinarySearch(c.windows[w], t); ok {
			n++
		}
	}
	return n
}

// share is the content share of passage (see above); a passage without
// tokens has share 0.
func (c *container) share(passage string, minContain float64, jump int, tz *sentence.Tokenizer) float64 {
	if s, ok := c.cache[passage]; ok {
		return s
	}
	best := map[int32]int{} // window -> tokens of the best chain ending there
	top, all := 0, 0
	for _, sp := range sentence.Split(nil, passage) {
		toks := tz.Hashes(nil, passage[sp.ByteStart:sp.ByteEnd])
		all += len(toks)
		ends := map[int32]int{}
		for _, w := range c.matches(toks, minContain) {
			prev := 0
			for d := int32(0); d <= int32(jump); d++ {
				prev = max(prev, best[w-d])
			}
			ends[w] = prev + len(toks)
		}
		for w, n := range ends {
			best[w] = max(best[w], n)
			top = max(top, n)
		}
	}
	s := 0.0
	if all > 0 {
		s = float64(top) / float64(all)
	}
	c.cache[passage] = s
	return s
}
