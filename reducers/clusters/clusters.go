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

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/mr"
	clustermap "github.com/pdc-mr/pdc/mappers/clusters"
)

const nf = clustermap.NodeFields

// Passages is the passages job's reducer: per document, the span ends
// become nodes (the document's srcpos and URL from its parsed record),
// written with their span for the edges job (`docA TAB docB TAB csA TAB
// csB TAB side TAB node`), and ends that overlap are linked (`u TAB v`: each
// to the first end of their run of overlapping ends).
func Passages(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var (
		fields               [][]byte
		doc, srcpos, url     []byte
		first, prev, node, b []byte
		haveDoc, inRun, any  bool
		runEnd               int
		ends, within, nodocs int64
	)
	write := func(b []byte) error {
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		fields = mr.Fields(fields[:0], r.Line())
		if len(fields) < 6 {
			return fmt.Errorf("passages reducer: line %d: malformed record", r.LineNumber())
		}
		if !any || !bytes.Equal(fields[0], doc) {
			doc = append(doc[:0], fields[0]...)
			haveDoc, inRun, any = false, false, true
		}
		switch string(fields[1]) {
		case "0":
			if !haveDoc { // the smallest srcpos: the copy of a duplicate id that is kept
				srcpos, url = append(srcpos[:0], fields[2]...), append(url[:0], fields[3]...)
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
		if !ok1 || !ok2 {
			return fmt.Errorf("passages reducer: line %d: malformed span end offsets", r.LineNumber())
		}
		node = append(node[:0], srcpos...)
		for _, f := range [][]byte{doc, url, fields[2], fields[3], fields[4]} {
			node = append(append(node, '\t'), f...)
		}
		ends++
		b = b[:0]
		for _, f := range fields[5:10] {
			b = append(append(b, f...), '\t')
		}
		if err := write(append(append(b, node...), '\n')); err != nil {
			return err
		}
		if inRun && cs < runEnd {
			// Ends of several spans can be one node: linked once (in
			// key order, equal nodes are neighbours).
			if !bytes.Equal(first, node) && !bytes.Equal(prev, node) {
				within++
				if err := write(clustermap.AppendEdge(b[:0], first, node)); err != nil {
					return err
				}
			}
			runEnd = max(runEnd, ce)
			prev = append(prev[:0], node...)
			continue
		}
		first, runEnd, inRun = append(first[:0], node...), ce, true
		prev = append(prev[:0], node...)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("passages reducer: read: %w", err)
	}
	c.Add("clusters.span-ends", ends)
	c.Add("clusters.edges.within-documents", within)
	if nodocs > 0 {
		c.Add("clusters.span-ends.without-document", nodocs)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// Edges is the edges job's reducer: the ends of a span (or of spans with
// the same starts) are linked in turn; edges within documents pass, each
// once.
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
		b = clustermap.AppendEdge(b[:0], u, v)
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		line := r.Line()
		switch {
		case bytes.HasPrefix(line, []byte("E\t")):
			e := line[2:]
			if bytes.Equal(e, last) {
				continue
			}
			last = append(last[:0], e...)
			u, v, ok := clustermap.SplitEdge(e)
			if !ok {
				return fmt.Errorf("edges reducer: line %d: malformed edge", r.LineNumber())
			}
			if err := emit(u, v); err != nil {
				return err
			}
		case bytes.HasPrefix(line, []byte("H\t")):
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
		default:
			return fmt.Errorf("edges reducer: line %d: unknown record", r.LineNumber())
		}
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
// (mappers/clusters.SmallStar), come sorted; u and every neighbour but the
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
		b = clustermap.AppendEdge(b[:0], x, y)
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		uu, v, ok := clustermap.SplitEdge(r.Line())
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

// Clusters is the clusters job's reducer: a root and its star's nodes,
// sorted, become the cluster's members, written as lib/cluster documents:
// a cluster's id is "c" and 16 hex digits of a hash of its root's document
// and range.
func Clusters(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var (
		root, last, b, cid []byte
		cur                clustermap.Node
		curDoc, curSrc     []byte
		curURL             []byte
		have, any          bool
		docs, members      int64
		clusters, total    int64
		totalDocs          int64
	)
	write := func(b []byte) error {
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	flushMember := func() error {
		if !have {
			return nil
		}
		have = false
		members++
		return write(cluster.AppendMember(b[:0], cid, curSrc, curDoc, curURL, cur.CS, cur.CE, cur.Sent))
	}
	add := func(node []byte) error {
		n, err := clustermap.ParseNode(node)
		if err != nil {
			return err
		}
		if have && bytes.Equal(n.Doc, curDoc) && bytes.Equal(n.Srcpos, curSrc) {
			if n.CS < cur.CE {
				cur.CE = max(cur.CE, n.CE)
				return nil
			}
		} else {
			docs++
		}
		if err := flushMember(); err != nil {
			return err
		}
		cur, have = n, true
		curDoc, curSrc, curURL = append(curDoc[:0], n.Doc...), append(curSrc[:0], n.Srcpos...), append(curURL[:0], n.URL...)
		return nil
	}
	closeCluster := func() error {
		if !any {
			return nil
		}
		if err := flushMember(); err != nil {
			return err
		}
		clusters++
		total += members
		totalDocs += docs
		return write(cluster.AppendSummary(b[:0], cid, docs, members))
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		u, v, ok := clustermap.SplitEdge(r.Line())
		if !ok {
			return fmt.Errorf("clusters reducer: line %d: malformed edge", r.LineNumber())
		}
		if !any || !bytes.Equal(u, root) {
			if err := closeCluster(); err != nil {
				return err
			}
			root, any = append(root[:0], u...), true
			// The id hashes the root's document and range, not its
			// input position: that names the input files, which Hadoop
			// renames when it uploads them.
			rn, err := clustermap.ParseNode(root)
			if err != nil {
				return fmt.Errorf("clusters reducer: line %d: %w", r.LineNumber(), err)
			}
			h := fnv.New64a()
			h.Write(rn.Doc)
			fmt.Fprintf(h, "\t%d\t%d", rn.CS, rn.CE)
			cid = fmt.Appendf(cid[:0], "c%016x", h.Sum64())
			docs, members = 0, 0
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
	if err := closeCluster(); err != nil {
		return err
	}
	c.Add("clusters.clusters", clusters)
	c.Add("clusters.members", total)
	c.Add("clusters.documents", totalDocs)
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}
