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
// cluster of cs, in that order (an Expander given pairs in turn).
func ExpandPairs(pairs []span.DocPair, cs []Cluster, only map[string]bool, yield func(span.DocPair) error) error {
	e := NewExpander(cs, only, yield)
	for _, p := range pairs {
		if err := e.Add(p); err != nil {
			return err
		}
	}
	return e.Close()
}

// An Expander adds to the document pairs of spans, given in span order (by
// escaped ids), the pairs of documents that share a cluster, and passes
// them all in that order to its yield, one document A at a time: a pair's
// ranges are its spans' ends and both documents' members in the clusters
// they share. With only non-nil, just the pairs of a document in only. It
// holds the clusters and one document's partners, never the pairs
// (quadratic in a cluster's size) nor the span pairs given.
type Expander struct {
	only    map[string]bool
	yield   func(span.DocPair) error
	esc     mr.Escapes
	ids     map[string]string // the clusters' document ids, held once
	members [][]docRanges     // by cluster, its documents in member order
	in      map[string][]int  // document -> its clusters
	docs    []string          // the clusters' documents, by escaped id
	next    int               // the first of docs not yet done

	cur      string // the document A whose partners are gathered
	started  bool
	partners map[string]*shared
	order    []string
}

type docRanges struct {
	doc    string
	ranges []ranges.Range
}

// shared is what a document pair shares: the spans and ranges of each side.
type shared struct {
	spans []span.Span
	a, b  []ranges.Range
}

// NewExpander returns an Expander of the clusters cs (more may be given
// with AddCluster before the first pair) that passes the pairs to yield.
func NewExpander(cs []Cluster, only map[string]bool, yield func(span.DocPair) error) *Expander {
	e := &Expander{only: only, yield: yield, esc: mr.Escapes{}, ids: map[string]string{}, in: map[string][]int{}, partners: map[string]*shared{}}
	for _, c := range cs {
		e.AddCluster(c)
	}
	return e
}

// AddCluster adds cluster c; it holds its members' documents and ranges
// only. Clusters are added before the first pair.
func (e *Expander) AddCluster(c Cluster) {
	ci := len(e.members)
	e.members = append(e.members, nil)
	at := map[string]int{}
	for _, m := range c.Members {
		i, ok := at[m.Doc]
		if !ok {
			i = len(e.members[ci])
			at[m.Doc] = i
			d := e.intern(m.Doc)
			e.members[ci] = append(e.members[ci], docRanges{doc: d})
			e.in[d] = append(e.in[d], ci)
		}
		e.members[ci][i].ranges = append(e.members[ci][i].ranges, ranges.Range{Start: m.CharStart, End: m.CharEnd})
	}
}

// intern returns the one copy of the id d that the Expander holds.
func (e *Expander) intern(d string) string {
	if k, ok := e.ids[d]; ok {
		return k
	}
	d = strings.Clone(d)
	e.ids[d] = d
	return d
}

// ready orders the clusters' documents, once, before the first pair.
func (e *Expander) ready() {
	if e.docs != nil || len(e.in) == 0 {
		return
	}
	e.docs = make([]string, 0, len(e.in))
	for d := range e.in {
		e.docs = append(e.docs, d)
	}
	slices.SortFunc(e.docs, func(x, y string) int { return strings.Compare(e.escaped(x), e.escaped(y)) })
}

// escaped returns the escaped id of document d.
func (e *Expander) escaped(d string) string { return e.esc.Of(d) }

// Add adds the pair p of span pairs; pairs must come in span order.
func (e *Expander) Add(p span.DocPair) error {
	e.ready()
	if !e.started || p.A != e.cur {
		if e.started && e.escaped(p.A) < e.escaped(e.cur) {
			return fmt.Errorf("expand pairs: the pairs are not in span order (at %s %s)", p.A, p.B)
		}
		if err := e.flush(); err != nil {
			return err
		}
		if err := e.upTo(e.escaped(p.A)); err != nil {
			return err
		}
		e.cur, e.started = p.A, true
	}
	if e.only != nil && !e.only[p.A] && !e.only[p.B] {
		return nil
	}
	sh := e.get(p.B)
	sh.spans = p.Spans
	for _, s := range p.Spans {
		sh.a = append(sh.a, ranges.Range{Start: s.CharStartA, End: s.CharEndA})
		sh.b = append(sh.b, ranges.Range{Start: s.CharStartB, End: s.CharEndB})
	}
	return nil
}

// Close passes the pairs still held: those of the last document given and
// of the clusters' documents after it.
func (e *Expander) Close() error {
	e.ready()
	if err := e.flush(); err != nil {
		return err
	}
	e.started = false
	return e.upTo("")
}

// upTo passes the cluster pairs of the clusters' documents before the one
// escaped as limit ("": all of them), except the current document.
func (e *Expander) upTo(limit string) error {
	for ; e.next < len(e.docs) && (limit == "" || e.escaped(e.docs[e.next]) < limit); e.next++ {
		if e.started && e.docs[e.next] == e.cur {
			continue
		}
		e.cur, e.started = e.docs[e.next], true
		if err := e.flush(); err != nil {
			return err
		}
		e.started = false
	}
	if limit != "" && e.next < len(e.docs) && e.escaped(e.docs[e.next]) == limit {
		e.next++ // the document about to be gathered: flush adds its clusters
	}
	return nil
}

func (e *Expander) get(b string) *shared {
	sh := e.partners[b]
	if sh == nil {
		sh = &shared{}
		e.partners[b] = sh
		e.order = append(e.order, b)
	}
	return sh
}

// flush adds the cluster partners of the current document to those of its
// span pairs and passes them, by escaped id.
func (e *Expander) flush() error {
	if !e.started {
		return nil
	}
	a := e.cur
	for _, ci := range e.in[a] {
		var mine []ranges.Range
		for _, d := range e.members[ci] {
			if d.doc == a {
				mine = d.ranges
			}
		}
		for _, d := range e.members[ci] {
			if e.escaped(d.doc) <= e.escaped(a) || e.only != nil && !e.only[a] && !e.only[d.doc] {
				continue
			}
			sh := e.get(d.doc)
			sh.a = append(sh.a, mine...)
			sh.b = append(sh.b, d.ranges...)
		}
	}
	slices.SortFunc(e.order, func(x, y string) int { return strings.Compare(e.escaped(x), e.escaped(y)) })
	for _, b := range e.order {
		sh := e.partners[b]
		err := e.yield(span.DocPair{A: a, B: b, Spans: sh.spans, SharedA: ranges.Len(sh.a), SharedB: ranges.Len(sh.b), RangesA: sh.a, RangesB: sh.b})
		if err != nil {
			return err
		}
	}
	clear(e.partners)
	e.order = e.order[:0]
	return nil
}
