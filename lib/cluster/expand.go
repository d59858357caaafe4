package cluster

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/span"
)

// ExpandPairs calls yield with every document pair of pairs (from spans, in
// span order: by escaped ids) and every pair of documents that share a
// cluster of cs, in that order, one document A at a time: a pair's ranges
// are its spans' ends and both documents' members in the clusters they
// share. With only non-nil, just the pairs of a document in only. It holds
// the clusters and one document's partners, never the pairs (quadratic in
// a cluster's size).
func ExpandPairs(pairs []span.DocPair, cs []Cluster, only map[string]bool, yield func(span.DocPair) error) error {
	type docRanges struct {
		doc    string
		ranges []ranges.Range
	}
	esc := map[string]string{}
	escaped := func(id string) string {
		e, ok := esc[id]
		if !ok {
			e = mr.Escape(id)
			esc[id] = e
		}
		return e
	}
	members := make([][]docRanges, len(cs)) // by cluster, its documents in member order
	in := map[string][]int{}                // document -> its clusters
	for ci, c := range cs {
		at := map[string]int{}
		for _, m := range c.Members {
			i, ok := at[m.Doc]
			if !ok {
				i = len(members[ci])
				at[m.Doc] = i
				members[ci] = append(members[ci], docRanges{doc: m.Doc})
				in[m.Doc] = append(in[m.Doc], ci)
				escaped(m.Doc)
			}
			members[ci][i].ranges = append(members[ci][i].ranges, ranges.Range{Start: m.CharStart, End: m.CharEnd})
		}
	}
	for _, p := range pairs {
		escaped(p.A)
		escaped(p.B)
	}
	docs := make([]string, 0, len(esc))
	for id := range esc {
		docs = append(docs, id)
	}
	slices.SortFunc(docs, func(x, y string) int { return strings.Compare(esc[x], esc[y]) })
	type shared struct {
		spans []span.Span
		a, b  []ranges.Range
	}
	partners := map[string]*shared{}
	var order []string
	pi := 0
	for _, a := range docs {
		clear(partners)
		order = order[:0]
		get := func(b string) *shared {
			sh := partners[b]
			if sh == nil {
				sh = &shared{}
				partners[b] = sh
				order = append(order, b)
			}
			return sh
		}
		for ; pi < len(pairs) && pairs[pi].A == a; pi++ {
			p := pairs[pi]
			if only != nil && !only[p.A] && !only[p.B] {
				continue
			}
			sh := get(p.B)
			sh.spans = p.Spans
			for _, s := range p.Spans {
				sh.a = append(sh.a, ranges.Range{Start: s.CharStartA, End: s.CharEndA})
				sh.b = append(sh.b, ranges.Range{Start: s.CharStartB, End: s.CharEndB})
			}
		}
		for _, ci := range in[a] {
			var mine []ranges.Range
			for _, d := range members[ci] {
				if d.doc == a {
					mine = d.ranges
				}
			}
			for _, d := range members[ci] {
				if esc[d.doc] <= esc[a] || only != nil && !only[a] && !only[d.doc] {
					continue
				}
				sh := get(d.doc)
				sh.a = append(sh.a, mine...)
				sh.b = append(sh.b, d.ranges...)
			}
		}
		slices.SortFunc(order, func(x, y string) int { return strings.Compare(esc[x], esc[y]) })
		for _, b := range order {
			sh := partners[b]
			err := yield(span.DocPair{A: a, B: b, Spans: sh.spans, SharedA: ranges.Len(sh.a), SharedB: ranges.Len(sh.b), RangesA: sh.a, RangesB: sh.b})
			if err != nil {
				return err
			}
		}
	}
	if pi < len(pairs) {
		return fmt.Errorf("expand pairs: the pairs are not in span order (at %s %s)", pairs[pi].A, pairs[pi].B)
	}
	return nil
}
