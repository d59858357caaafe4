package main

import (
	"sort"
	"strings"
)

// Silver pairs: pages whose sources share a run of at least run
// consecutive sentences with the same token sequence (lib/sentence's
// tokens: case-folded words, punctuation dropped), counting only sentences
// of at least minTokens tokens (pdc's --min-tokens; shorter ones are left
// out of the sequence, as pdc's gap steps over them). Exact sentences,
// found by hashing every run of `run` consecutive sentence keys: two
// sources share such a run exactly when they share a run key.

// pair is an unordered document pair, a < b.
type pair struct{ a, b string }

// newPair orders x and y.
func newPair(x, y string) pair {
	if y < x {
		x, y = y, x
	}
	return pair{x, y}
}

// silverPairs returns the silver pairs of srcs, each with the text of the
// first run the two share (in the order of the sorted pages).
func silverPairs(srcs map[string]*source, run, minTokens int) map[pair]string {
	type occ struct {
		page string
		at   []int // the run's sentence indexes
	}
	index := map[uint64][]occ{}
	var keys []uint64 // in first-occurrence order
	for _, p := range sortedPages(srcs) {
		s := srcs[p]
		var seq []int // sentences long enough
		for i, t := range s.toks {
			if len(t) >= minTokens {
				seq = append(seq, i)
			}
		}
		seen := map[uint64]bool{}
		for i := 0; i+run <= len(seq); i++ {
			k := runKey(s, seq[i:i+run])
			if seen[k] {
				continue
			}
			seen[k] = true
			if index[k] == nil {
				keys = append(keys, k)
			}
			index[k] = append(index[k], occ{p, seq[i : i+run]})
		}
	}
	out := map[pair]string{}
	for _, k := range keys {
		occs := index[k]
		for i, x := range occs {
			for _, y := range occs[i+1:] {
				pr := newPair(x.page, y.page)
				if _, ok := out[pr]; !ok {
					out[pr] = runText(srcs[x.page], x.at)
				}
			}
		}
	}
	return out
}

// runKey hashes the token sequences of sentences at of s (FNV-1a over the
// token hashes, a separator between sentences).
func runKey(s *source, at []int) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		for range 8 {
			h ^= x & 0xff
			h *= 1099511628211
			x >>= 8
		}
	}
	for _, i := range at {
		for _, t := range s.toks[i] {
			mix(t)
		}
		mix(0x5e9a5e9a5e9a5e9a)
	}
	return h
}

// runText is the run's sentences joined by " | ".
func runText(s *source, at []int) string {
	var parts []string
	for _, i := range at {
		parts = append(parts, strings.Join(strings.Fields(s.sentenceText(i)), " "))
	}
	return strings.Join(parts, " | ")
}

// sortedPages lists the pages of srcs in order.
func sortedPages(srcs map[string]*source) []string {
	ps := make([]string, 0, len(srcs))
	for p := range srcs {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}
