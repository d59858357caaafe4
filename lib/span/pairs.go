package span

import (
	"cmp"
	"slices"
)

// DocPair is a pair of documents and the spans they share.
type DocPair struct {
	A, B  string
	Spans []Span
	// SharedA and SharedB are the characters of A and of B inside some
	// span (overlapping spans counted once).
	SharedA, SharedB int
}

// Pairs groups spans in Compare order (as Read and Stream return them) by
// document pair.
func Pairs(spans []Span) []DocPair {
	var pairs []DocPair
	for _, s := range spans {
		if n := len(pairs); n == 0 || pairs[n-1].A != s.DocA || pairs[n-1].B != s.DocB {
			pairs = append(pairs, DocPair{A: s.DocA, B: s.DocB})
		}
		p := &pairs[len(pairs)-1]
		p.Spans = append(p.Spans, s)
	}
	for i := range pairs {
		p := &pairs[i]
		var a, b [][2]int
		for _, s := range p.Spans {
			a = append(a, [2]int{s.CharStartA, s.CharEndA})
			b = append(b, [2]int{s.CharStartB, s.CharEndB})
		}
		p.SharedA, p.SharedB = Covered(a), Covered(b)
	}
	return pairs
}

// Covered is the length of the union of the ranges [start, end).
func Covered(rs [][2]int) int {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
	n, end := 0, -1
	for _, r := range rs {
		switch {
		case r[0] > end:
			n += r[1] - r[0]
			end = r[1]
		case r[1] > end:
			n += r[1] - end
			end = r[1]
		}
	}
	return n
}

// Measures are how much of two documents a pair's spans cover (the LCS
// paper's containment and resemblance, on characters rather than
// shingles): ContainA is the share of A's characters that lie in spans
// (how much of A is in B), ContainB the same for B, and Resemblance the
// shared characters over the characters of either, (SharedA + SharedB) /
// (LenA + LenB).
type Measures struct {
	LenA, LenB                      int
	ContainA, ContainB, Resemblance float64
}

// Measure computes p's measures for documents of lenA and lenB characters.
func (p DocPair) Measure(lenA, lenB int) Measures {
	m := Measures{LenA: lenA, LenB: lenB}
	if lenA > 0 {
		m.ContainA = min(1, float64(p.SharedA)/float64(lenA))
	}
	if lenB > 0 {
		m.ContainB = min(1, float64(p.SharedB)/float64(lenB))
	}
	if lenA+lenB > 0 {
		m.Resemblance = min(1, float64(p.SharedA+p.SharedB)/float64(lenA+lenB))
	}
	return m
}

// PairsOf returns the pairs of pairs that involve one of the documents
// ids, in the same order.
func PairsOf(pairs []DocPair, ids []string) []DocPair {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []DocPair
	for _, p := range pairs {
		if want[p.A] || want[p.B] {
			out = append(out, p)
		}
	}
	return out
}
