package main

import (
	"cmp"
	"math"
	"slices"
)

// vocab interns words and counts in how many sets each occurs.
type vocab struct {
	id    map[string]int32
	words []string
	df    []int32
}

func newVocab() *vocab { return &vocab{id: make(map[string]int32)} }

// set returns the distinct ids of the words ws (words of a sentence),
// sorted, and counts them.
func (v *vocab) set(ws []string) []int32 {
	ids := make([]int32, 0, len(ws))
	for _, w := range ws {
		id, ok := v.id[w]
		if !ok {
			id = int32(len(v.words))
			v.id[w] = id
			v.words = append(v.words, w)
			v.df = append(v.df, 0)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		v.df[id]++
	}
	return ids
}

// ranks returns each word id's rank in the global order of prefix
// filtering: rarest first, ties by the word's bytes.
func (v *vocab) ranks() []int32 {
	order := make([]int32, len(v.words))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(v.df[a], v.df[b]), cmp.Compare(v.words[a], v.words[b]))
	})
	rank := make([]int32, len(order))
	for r, id := range order {
		rank[id] = int32(r)
	}
	return rank
}

// nearIndex finds near-duplicate word sets: a set whose Jaccard similarity
// with a set added before is at least t. It filters candidates by prefix
// (Chaudhuri et al. 2006; Bayardo et al. 2007): with words in a global
// order, two sets that are that similar share a word among the first
// |s| - ceil(t|s|) + 1 of each, so only those words are indexed and
// probed; candidates are then checked by length and verified.
type nearIndex struct {
	t     float64
	rank  []int32     // word id -> rank (vocab.ranks)
	sets  [][]int32   // the sets added, as sorted ranks
	post  [][]posting // rank -> the sets with it in their prefix
	stamp []uint32    // per set: the query that last saw it
	query uint32
}

func newNearIndex(t float64, rank []int32) *nearIndex {
	return &nearIndex{t: t, rank: rank, post: make([][]posting, len(rank))}
}

// posting is a set that has a word in its prefix, and the word's place.
type posting struct{ set, pos int32 }

// ranked returns the set of word ids as sorted ranks.
func (x *nearIndex) ranked(ids []int32) []int32 {
	r := make([]int32, len(ids))
	for i, id := range ids {
		r[i] = x.rank[id]
	}
	slices.Sort(r)
	return r
}

// prefix returns how many of a set's first ranks are indexed and probed.
func (x *nearIndex) prefix(n int) int {
	if n == 0 {
		return 0
	}
	return n - int(math.Ceil(x.t*float64(n)-1e-9)) + 1
}

// near reports whether the set of word ids is a near-duplicate of a set
// added before.
func (x *nearIndex) near(ids []int32) bool {
	s := x.ranked(ids)
	x.query++
	n := float64(len(s))
	for i, r := range s[:x.prefix(len(s))] {
		for _, p := range x.post[r] {
			if x.stamp[p.set] == x.query {
				continue
			}
			x.stamp[p.set] = x.query
			o := x.sets[p.set]
			m := float64(len(o))
			if m < x.t*n || n < x.t*m {
				continue
			}
			// The first word the sets share is this one (PPJoin's
			// positional filter): the overlap is at most 1 + the words
			// after it in the shorter rest.
			need := math.Ceil(x.t/(1+x.t)*(n+m) - 1e-9)
			if float64(1+min(len(s)-i-1, len(o)-int(p.pos)-1)) < need {
				continue
			}
			if overlapAtLeast(s[i:], o[p.pos:], int(need)) {
				return true
			}
		}
	}
	return false
}

// add adds the set of word ids.
func (x *nearIndex) add(ids []int32) {
	s := x.ranked(ids)
	c := int32(len(x.sets))
	x.sets = append(x.sets, s)
	x.stamp = append(x.stamp, 0)
	for i, r := range s[:x.prefix(len(s))] {
		x.post[r] = append(x.post[r], posting{c, int32(i)})
	}
}

// overlapAtLeast reports whether two sorted sets share at least need
// elements, stopping as soon as the rest cannot make it up.
func overlapAtLeast(a, b []int32, need int) bool {
	i, j, o := 0, 0, 0
	for i < len(a) && j < len(b) {
		if o+min(len(a)-i, len(b)-j) < need {
			return false
		}
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			o++
			i++
			j++
		}
	}
	return o >= need
}

// jaccard returns |a ∩ b| / |a ∪ b| of two sorted sets.
func jaccard(a, b []int32) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	i, j, o := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			o++
			i++
			j++
		}
	}
	return float64(o) / float64(len(a)+len(b)-o)
}
