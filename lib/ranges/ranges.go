// Package ranges is the arithmetic of half-open ranges [Start, End) of
// characters (or code points) that spans, passage clusters, dedup's cuts
// and the evaluation share: their union, its length, and how much of it
// lies inside other ranges.
package ranges

import (
	"cmp"
	"iter"
	"slices"
)

// Range is the half-open range [Start, End).
type Range struct{ Start, End int }

// Len is the range's length, 0 for an empty or reversed one.
func (r Range) Len() int { return max(0, r.End-r.Start) }

// Intersect is the part of r inside o (empty, Len 0, when they do not
// overlap).
func (r Range) Intersect(o Range) Range {
	return Range{max(r.Start, o.Start), min(r.End, o.End)}
}

// Merge sorts rs (in place) and joins the ranges that overlap or touch:
// the union as sorted, disjoint ranges.
func Merge(rs []Range) []Range {
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && r.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Len is the length of the union of rs, in any order, overlapping or not
// (empty and reversed ranges count nothing); rs is left as it is.
func Len(rs []Range) int {
	n := 0
	for _, r := range Merge(slices.Clone(rs)) {
		n += r.Len()
	}
	return n
}

// Inside is the length of the union of rs inside in, sorted disjoint
// ranges (as Merge returns them); rs is left as it is.
func Inside(rs, in []Range) int { return InsideSeq(rs, slices.Values(in)) }

// InsideSeq is Inside with the ranges in given in turn.
func InsideSeq(rs []Range, in iter.Seq[Range]) int {
	merged := Merge(slices.Clone(rs))
	n, j := 0, 0
	for cr := range in {
		for j < len(merged) && merged[j].End <= cr.Start {
			j++
		}
		if j == len(merged) {
			break // past the last of rs: in need not be read further
		}
		for k := j; k < len(merged) && merged[k].Start < cr.End; k++ {
			n += max(0, min(cr.End, merged[k].End)-max(cr.Start, merged[k].Start))
		}
	}
	return n
}

// Minus is what of rs lies outside out: both sorted, disjoint ranges (as
// Merge returns them), and so is the result.
func Minus(rs, out []Range) []Range {
	var res []Range
	j := 0
	for _, r := range rs {
		for j < len(out) && out[j].End <= r.Start {
			j++
		}
		start := r.Start
		for k := j; k < len(out) && out[k].Start < r.End; k++ {
			if out[k].Start > start {
				res = append(res, Range{start, out[k].Start})
			}
			start = max(start, out[k].End)
		}
		if start < r.End {
			res = append(res, Range{start, r.End})
		}
	}
	return res
}
