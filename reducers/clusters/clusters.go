// Package clusters holds the reduce side of the passage-cluster jobs
// (mappers/clusters describes the jobs, nodes and edges). Each reducer
// streams its groups: none holds more than the node it is at.
//
// The clusters job writes the clusters in the format of lib/cluster.
package clusters

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/graph"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/sketch"
)

const nf = graph.NodeFields

// Coincide is the least share of the shorter of two span ends of one
// document that the other must hold, and Nest the least length of the
// shorter over the longer, for them to be one passage (Coincides): an
// edited copy's span may start or end a sentence later than another
// copy's. Ends that merely overlap are not one passage: A[0:100] copied
// into B and A[50:150] into C are two passages of A, and B and C are in no
// cluster together.
const (
	Coincide = 0.75
	Nest     = 0.5
)

// Coincides reports whether two ranges of one document are one passage.
func Coincides(s1, e1, s2, e2 int) bool {
	l1, l2 := e1-s1, e2-s2
	short, long := min(l1, l2), max(l1, l2)
	overlap := min(e1, e2) - max(s1, s2)
	return float64(overlap) >= Coincide*float64(short) && float64(short) >= Nest*float64(long) && (overlap > 0 || long == 0)
}

// Passages is the passages job's reducer: per document, the span ends
// become nodes (the document's srcpos and URL from its parsed record),
// written with their span for the edges job (`docA TAB docB TAB csA TAB
// csB TAB side TAB node`). Ends that coincide (Coincides) are one passage:
// in start order, each end joins the passage whose longest end so far it
// coincides with, the most similar (RangeJaccard) first, else starts one,
// and every end of a passage is written with the passage's node (its
// first end's start and sentence, the largest end, and the sketch of the
// words of the content sentences inside it, from the document's parsed
// record). A passage is never joined through an end that only overlaps
// it, so passages do not chain along a document. A document's ends are
// held until its last: no more than the spans of one document.
func Passages(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var (
		fields                 [][]byte
		docID, srcpos, url     []byte
		blob                   []byte
		haveDoc, any           bool
		g                      grouper
		b                      []byte
		ends, nodocs, badBlobs int64
		passages               int64
		ws                     wordSketcher
	)
	flush := func() error {
		if len(g.ends) > 0 {
			if err := ws.document(blob); err != nil {
				badBlobs++
			}
			for i := range g.passages {
				p := &g.passages[i]
				p.words = ws.passage(p.cs, p.ce, p.words[:0])
			}
		}
		for _, e := range g.ends {
			p := g.passages[e.passage]
			b = append(b[:0], e.span...)
			b = append(b, srcpos...)
			b = append(append(b, '\t'), docID...)
			b = append(append(b, '\t'), url...)
			b = mr.AppendPadded(append(b, '\t'), int64(p.cs), 10)
			b = mr.AppendPadded(append(b, '\t'), int64(p.ce), 10)
			b = mr.AppendPadded(append(b, '\t'), int64(p.sent), 7)
			b = append(append(b, '\t'), p.words...)
			if _, err := out.Write(append(b, '\n')); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
		passages += int64(len(g.passages))
		g.reset()
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		fields = mr.Fields(fields[:0], r.Line())
		if len(fields) < 6 {
			return fmt.Errorf("passages reducer: line %d: malformed record", r.LineNumber())
		}
		if !any || !bytes.Equal(fields[0], docID) {
			if err := flush(); err != nil {
				return err
			}
			docID = append(docID[:0], fields[0]...)
			blob = blob[:0]
			haveDoc, any = false, true
		}
		switch string(fields[1]) {
		case "0":
			if !haveDoc { // the smallest srcpos: the copy of a duplicate id that is kept
				srcpos, url = append(srcpos[:0], fields[2]...), append(url[:0], fields[3]...)
				if len(fields) == 7 {
					blob = append(blob[:0], fields[6]...)
				}
				haveDoc = true
			}
			continue
		case "1":
		default:
			return fmt.Errorf("passages reducer: line %d: unknown record kind %q", r.LineNumber(), fields[1])
		}
		if len(fields) != 10 {
			return fmt.Errorf("passages reducer: line %d: malformed span end", r.LineNumber())
		}
		if !haveDoc {
			srcpos, url = append(srcpos[:0], '-'), append(url[:0], '-')
			haveDoc = true
			nodocs++
		}
		cs, ok1 := mr.Atoi(fields[2])
		ce, ok2 := mr.Atoi(fields[3])
		sent, ok3 := mr.Atoi(fields[4])
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("passages reducer: line %d: malformed span end offsets", r.LineNumber())
		}
		ends++
		g.add(cs, ce, sent, fields[5:10])
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("passages reducer: read: %w", err)
	}
	if err := flush(); err != nil {
		return err
	}
	c.Add("clusters.span-ends", ends)
	c.Add("clusters.passages", passages)
	if nodocs > 0 {
		c.Add("clusters.span-ends.without-document", nodocs)
	}
	if badBlobs > 0 {
		c.Add("clusters.documents.bad-record", badBlobs)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// grouper groups one document's span ends, given in start order, into
// passages (Passages).
type grouper struct {
	passages []passage
	ends     []groupedEnd
	open     []int // passages whose first end may still overlap a later end
}

// passage is a group of coinciding ends: its longest end (cs0, ce0), which
// a later end must coincide with, the extent of them all (cs, ce), its
// first sentence and, once the document is done, its word sketch.
type passage struct {
	cs0, ce0, cs, ce, sent int
	words                  []byte
}

// wordSketcher makes the word sketches of one document's passages from its
// parsed record's sentences.
type wordSketcher struct {
	sents   []doc.Sentence
	tokens  []uint64
	scratch []byte
	words   []uint64
	hashes  []uint32
}

// document decodes a document's blob (none: no sentences).
func (w *wordSketcher) document(blob []byte) error {
	var err error
	w.sents, w.tokens, w.scratch, err = doc.DecodeBlob(blob, w.sents, w.tokens, w.scratch)
	if err != nil {
		w.sents = w.sents[:0]
	}
	return err
}

// passage appends the text form of the sketch of the words of the
// sentences inside [cs, ce) to b.
func (w *wordSketcher) passage(cs, ce int, b []byte) []byte {
	w.words = w.words[:0]
	for _, s := range w.sents {
		if s.Start >= cs && s.End <= ce {
			w.words = append(w.words, s.Tokens...)
		}
	}
	sk := sketch.Of(w.words, w.hashes)
	return sk.Append(b)
}

// groupedEnd is a span end (its span, `docA TAB docB TAB csA TAB csB TAB
// side TAB`) and its passage.
type groupedEnd struct {
	span    []byte
	passage int
}

func (g *grouper) reset() {
	g.passages, g.ends, g.open = g.passages[:0], g.ends[:0], g.open[:0]
}

// add adds the end [cs, ce) starting at sentence sent, of the span whose
// fields are given.
func (g *grouper) add(cs, ce, sent int, span [][]byte) {
	best, bestSim := -1, 0.0
	keep := g.open[:0]
	for _, i := range g.open {
		p := g.passages[i]
		if p.ce0 <= cs {
			continue // ends come by start: no later end overlaps it
		}
		keep = append(keep, i)
		if sim := RangeJaccard(p.cs0, p.ce0, cs, ce); Coincides(p.cs0, p.ce0, cs, ce) && sim > bestSim {
			best, bestSim = i, sim
		}
	}
	g.open = keep
	if best < 0 {
		best = len(g.passages)
		g.passages = append(g.passages, passage{cs0: cs, ce0: ce, cs: cs, ce: ce, sent: sent})
		g.open = append(g.open, best)
	}
	p := &g.passages[best]
	p.ce = max(p.ce, ce)
	if ce-cs > p.ce0-p.cs0 { // the longest end stands for the passage
		p.cs0, p.ce0 = cs, ce
	}
	var b []byte
	for _, f := range span {
		b = append(append(b, f...), '\t')
	}
	g.ends = append(g.ends, groupedEnd{span: b, passage: best})
}

// RangeJaccard is the overlap of two character ranges over their union
// (1 for two empty ranges at one place).
func RangeJaccard(s1, e1, s2, e2 int) float64 {
	union := max(e1, e2) - min(s1, s2)
	if union <= 0 {
		return 1
	}
	return float64(max(0, min(e1, e2)-max(s1, s2))) / float64(union)
}

// Edges is the edges job's reducer: the ends of a span (or of spans with
// the same starts) are linked in turn.
func Edges(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var key, last, b []byte
	var edges int64
	emit := func(u, v []byte) error {
		if bytes.Compare(u, v) > 0 {
			u, v = v, u
		}
		edges++
		b = graph.AppendEdge(b[:0], u, v)
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		line := r.Line()
		if !bytes.HasPrefix(line, []byte("H\t")) {
			return fmt.Errorf("edges reducer: line %d: unknown record", r.LineNumber())
		}
		k, v := mr.SplitKey(line, 5) // H and the span
		_, node := mr.SplitKey(v, 1) // after the side
		if bytes.Count(node, []byte{'\t'}) != nf-1 {
			return fmt.Errorf("edges reducer: line %d: malformed span end", r.LineNumber())
		}
		if !bytes.Equal(k, key) {
			key = append(key[:0], k...)
			last = append(last[:0], node...)
			continue
		}
		if bytes.Equal(node, last) {
			continue
		}
		if err := emit(last, node); err != nil {
			return err
		}
		last = append(last[:0], node...)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("edges reducer: read: %w", err)
	}
	c.Add("clusters.edges", edges)
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// Changed is the counter of edges a star round changed; a round of
// large-star and small-star that changes none ends the iteration.
const Changed = "clusters.changed"

// LargeStar is the large-star reducer: node u's neighbours come sorted,
// the first is the smallest; every neighbour larger than u is linked to
// m, the smallest of u and its neighbours.
func LargeStar(t *mr.Task) error {
	var u, m []byte
	return reduceEdges(t, "large-star", func(first bool, uu, v []byte, emit func(a, b []byte) error) (int64, error) {
		if first {
			u = append(u[:0], uu...)
			m = append(m[:0], u...)
			if bytes.Compare(v, u) < 0 {
				m = append(m[:0], v...)
			}
		}
		if bytes.Compare(v, u) <= 0 {
			return 0, nil
		}
		var changed int64
		if !bytes.Equal(m, u) {
			changed = 1
		}
		return changed, emit(v, m)
	})
}

// SmallStar is the small-star reducer: node u's neighbours, all smaller
// (mappers/clusters SmallStar), come sorted; u and every neighbour but the
// smallest, m, are linked to m.
func SmallStar(t *mr.Task) error {
	var m []byte
	return reduceEdges(t, "small-star", func(first bool, u, v []byte, emit func(a, b []byte) error) (int64, error) {
		if first {
			m = append(m[:0], v...)
			return 0, emit(u, m)
		}
		return 1, emit(v, m)
	})
}

// reduceEdges hands each distinct edge `u TAB v` of its input to f, with
// first set for u's first; f returns how many edges it changed.
func reduceEdges(t *mr.Task, job string, f func(first bool, u, v []byte, emit func(a, b []byte) error) (int64, error)) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var u, last, b []byte
	var changed, edges int64
	any := false
	emit := func(x, y []byte) error {
		edges++
		b = graph.AppendEdge(b[:0], x, y)
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		uu, v, ok := graph.SplitEdge(r.Line())
		if !ok {
			return fmt.Errorf("%s reducer: line %d: malformed edge", job, r.LineNumber())
		}
		first := !any || !bytes.Equal(uu, u)
		if !first && bytes.Equal(v, last) {
			continue
		}
		if first {
			u, any = append(u[:0], uu...), true
		}
		last = append(last[:0], v...)
		n, err := f(first, u, v, emit)
		if err != nil {
			return err
		}
		changed += n
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s reducer: read: %w", job, err)
	}
	c.Add(Changed, changed)
	c.Add("clusters.star-edges", edges)
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// Components is the components job's reducer: its input is the whole
// graph, each edge `0 TAB u TAB v` (mappers/clusters Components); it joins
// the nodes of every edge (union-find) and writes, in node order, the
// edge `v TAB root` of every node but the root of its component, the
// smallest node (bytewise), which is where the large-star and small-star
// rounds end. It holds the graph: the pipeline runs it only on a graph of
// at most pipeline Options.ComponentEdges edges (pdc run
// --component-edges).
func Components(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	index := map[string]int32{}
	var nodes []string
	var parent []int32
	node := func(n []byte) int32 {
		if i, ok := index[string(n)]; ok {
			return i
		}
		i := int32(len(nodes))
		s := string(n)
		index[s], nodes, parent = i, append(nodes, s), append(parent, i)
		return i
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	var edges int64
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		_, e := mr.SplitKey(r.Line(), 1)
		u, v, ok := graph.SplitEdge(e)
		if !ok {
			return fmt.Errorf("components reducer: line %d: malformed edge", r.LineNumber())
		}
		edges++
		a, b := find(node(u)), find(node(v))
		if a == b {
			continue
		}
		if nodes[b] < nodes[a] { // the smaller node is the root
			a, b = b, a
		}
		parent[b] = a
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("components reducer: read: %w", err)
	}
	order := make([]int32, len(nodes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(nodes[x], nodes[y]) })
	var b []byte
	var star int64
	for _, i := range order {
		root := find(i)
		if root == i {
			continue
		}
		star++
		b = graph.AppendEdge(b[:0], []byte(nodes[i]), []byte(nodes[root]))
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	c.Add("clusters.components.edges", edges)
	c.Add("clusters.star-edges", star)
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// Clusters is the clusters job's reducer: a root and its star's nodes,
// sorted, are a component; its members (a document's nodes that overlap
// are one member) are split into the texts they are copies of (Texts),
// each written as a lib/cluster cluster: a cluster's id is "c" and 16 hex
// digits of a hash of its first member's document and range (for the
// root's text, the root's). A member that is a copy of no other member's
// text is in no cluster. It holds one component's members.
func Clusters(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var (
		root, last, b, cid []byte
		ms                 []member
		any                bool
		clusters, total    int64
		totalDocs, split   int64
		alone, components  int64
		words              []sketch.Sketch
		at                 []int
	)
	add := func(node []byte) error {
		n, err := graph.ParseNode(node)
		if err != nil {
			return err
		}
		sk, err := sketch.Parse(n.Words)
		if err != nil {
			return err
		}
		if k := len(ms) - 1; k >= 0 && bytes.Equal(n.Doc, ms[k].doc) && bytes.Equal(n.Srcpos, ms[k].srcpos) && n.CS < ms[k].ce {
			m := &ms[k]
			m.ce = max(m.ce, n.CE)
			if n.CE-n.CS > m.longest { // the longest node's words stand for the member
				m.longest, m.words = n.CE-n.CS, sk
			}
			return nil
		}
		ms = append(ms, member{srcpos: bytes.Clone(n.Srcpos), doc: bytes.Clone(n.Doc), url: bytes.Clone(n.URL),
			cs: n.CS, ce: n.CE, first: [2]int{n.CS, n.CE}, sent: n.Sent, longest: n.CE - n.CS, words: sk})
		return nil
	}
	closeComponent := func() error {
		if !any {
			return nil
		}
		components++
		words = words[:0]
		for _, m := range ms {
			words = append(words, m.words)
		}
		at = Texts(words, MaxTexts, at[:0])
		for r := range ms {
			if at[r] != r {
				continue // not the first member of a text
			}
			var n, docs int64
			var prev []byte
			for i := r; i < len(ms); i++ {
				if at[i] == r {
					if n++; !bytes.Equal(ms[i].doc, prev) {
						docs++
						prev = ms[i].doc
					}
				}
			}
			if n < 2 {
				alone++
				continue
			}
			if r > 0 {
				split++
			}
			h := fnv.New64a()
			h.Write(ms[r].doc)
			fmt.Fprintf(h, "\t%d\t%d", ms[r].first[0], ms[r].first[1])
			cid = fmt.Appendf(cid[:0], "c%016x", h.Sum64())
			for i := r; i < len(ms); i++ {
				if at[i] != r {
					continue
				}
				m := ms[i]
				if _, err := out.Write(cluster.AppendMember(b[:0], cid, m.srcpos, m.doc, m.url, m.cs, m.ce, m.sent)); err != nil {
					return fmt.Errorf("write: %w", err)
				}
			}
			if _, err := out.Write(cluster.AppendSummary(b[:0], cid, docs, n)); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			clusters++
			total += n
			totalDocs += docs
		}
		ms = ms[:0]
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		u, v, ok := graph.SplitEdge(r.Line())
		if !ok {
			return fmt.Errorf("clusters reducer: line %d: malformed edge", r.LineNumber())
		}
		if !any || !bytes.Equal(u, root) {
			if err := closeComponent(); err != nil {
				return err
			}
			root, any = append(root[:0], u...), true
			if err := add(root); err != nil {
				return fmt.Errorf("clusters reducer: line %d: %w", r.LineNumber(), err)
			}
			last = append(last[:0], root...)
		}
		if bytes.Equal(v, last) {
			continue
		}
		last = append(last[:0], v...)
		if err := add(v); err != nil {
			return fmt.Errorf("clusters reducer: line %d: %w", r.LineNumber(), err)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("clusters reducer: read: %w", err)
	}
	if err := closeComponent(); err != nil {
		return err
	}
	c.Add("clusters.components", components)
	c.Add("clusters.clusters", clusters)
	c.Add("clusters.members", total)
	c.Add("clusters.documents", totalDocs)
	if split > 0 {
		c.Add("clusters.split", split)
	}
	if alone > 0 {
		c.Add("clusters.members.alone", alone)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// member is a member of a component: a document's nodes that overlap,
// the range of the first, the sentence of the first and the words of the
// longest.
type member struct {
	srcpos, doc, url []byte
	cs, ce, sent     int
	first            [2]int
	longest          int
	words            sketch.Sketch
}

// MinShared is the least share of the words of the smaller of two members
// that the other must hold for them to be copies of one text
// (sketch.Shared). A cluster is mixed when a member holds less than half
// of the words of the smaller of it and the cluster's first member; the
// margin over one half covers the sketch's error on passages of more than
// sketch.K words.
const MinShared = 0.6

// MaxTexts bounds the texts a component is split into that a member is
// compared with: a component of many texts (a formula line in thousands
// of variants) costs at most MaxTexts comparisons per member.
const MaxTexts = 64

// Texts splits a component's members, in order (the first is the
// component's earliest), into the texts they are copies of: each member
// joins the text of the first earlier text's first member whose words it
// shares (MinShared of the smaller), else starts a text of its own (when
// fewer than maxTexts have been started; else it is left alone); a
// member left the only copy of its text then joins the text it shares the
// most with, if at least MinAlone (MinAloneExact when the share is
// exact). It appends, for each member, the index
// of its text's first member to at and returns it. Components chain through passages that merely resemble
// their neighbours (a formula line with other names, a passage edited a
// little at each hop); a text's members all share its first member's
// words.
func Texts(words []sketch.Sketch, maxTexts int, at []int) []int {
	start := len(at)
	var firsts []int
	for i, w := range words {
		text := i
		for _, f := range firsts {
			if sketch.Shared(w, words[f]) >= MinShared {
				text = f
				break
			}
		}
		if text == i {
			if len(firsts) < maxTexts {
				firsts = append(firsts, i)
			}
		}
		at = append(at, text)
	}
	// A member that would be alone, the only copy of its text, joins the
	// earlier text whose first member it shares the most with, if that is
	// at least MinAlone: a part of a passage that the other copies cut elsewhere
	// (a reordered or excerpted copy) is still a copy of it, and is in no
	// cluster otherwise.
	size := map[int]int{}
	for _, f := range at[start:] {
		size[f]++
	}
	for i, f := range at[start:] {
		if f != i || size[i] > 1 {
			continue
		}
		best, share := -1, 0.0
		for _, g := range firsts {
			if g < i && size[g] > 0 { // an earlier text: its first member stays the earliest
				least := MinAlone
				if sketch.Exact(words[i], words[g]) {
					least = MinAloneExact
				}
				if sh := sketch.Shared(words[i], words[g]); sh >= least && sh >= share {
					best, share = g, sh
				}
			}
		}
		if best >= 0 {
			at[start+i] = best
			size[i]--
			size[best]++
		}
	}
	return at
}

// MinAlone is the least share of words with which a member that no other
// member shares MinShared with joins a text rather than none (Texts), when
// the share is estimated (sketch.Exact is false): the margin under one
// half covers the sketch's error on an edited copy. A share known exactly
// must be MinAloneExact, one half: a member holding less is not a copy of
// the text, whatever the sketch of a longer passage would say.
const (
	MinAlone      = 0.4
	MinAloneExact = 0.5
)
