// Package clusters holds the map side of the passage-cluster jobs, which
// group the passages that spans link into clusters of the same text across
// documents: span ends of one document that coincide are one passage
// (reducers/clusters.Coincides; ends that merely overlap are not), spans
// join passages of two documents, and a cluster is a connected component
// (as passim clusters its alignments). The components are found by
// alternating large-star and small-star rounds (Kiveris et al., "Connected
// Components in MapReduce and Beyond", SoCC 2014) until a round changes no
// edge; no task holds more than one node's edges, and each reducer streams
// them (reducers/clusters).
//
// A node is a passage and an edge `u TAB v` (lib/graph documents both).
// Jobs and records:
//
//	passages  map: spans TSV (lib/span) and parsed-document records
//	            -> `doc TAB 0 TAB srcpos TAB url TAB - TAB - TAB blob` (srcpos:
//	               the record's place, lib/doc AppendOrder) and, per span end,
//	               `doc TAB 1 TAB cs TAB ce TAB sent TAB docA TAB docB TAB csA TAB csB TAB side`
//	          reduce (reducers/clusters): each span end with its passage's node, by document
//	edges     map: the passages output -> `H TAB ref TAB side TAB node`
//	          reduce: the edges of the graph
//	large-star, small-star   map: edges -> `u TAB v` keyed by u; reduce: edges
//	components  map: edges -> `0 TAB u TAB v`, all under one key; reduce:
//	            the star edges `v TAB root` of every component at once
//	            (union-find), as the rounds would end; the pipeline runs it
//	            instead of more rounds once the graph has few enough edges
//	clusters  map: the last round's star edges `v TAB root` -> `root TAB v`;
//	          reduce: each component split into the texts its members are
//	          copies of, the clusters (reducers/clusters documents the output)
//
// The key of the edges job's records is their first 11 fields, that of
// the star rounds' and the clusters job's their first 13 (the second
// node's words, the last field, follow from its doc and range), so that no
// record is all key.
package clusters

import (
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/graph"
	"github.com/pdc-mr/pdc/lib/mr"
)

// NodeFields is the number of fields of a node (lib/graph).
const NodeFields = graph.NodeFields

// Key and partition fields of the jobs (pipeline.Stages).
const (
	PassagesKeyFields, PassagesPartitionFields = 5, 1
	EdgesKeyFields, EdgesPartitionFields       = 11, 5
	StarKeyFields, StarPartitionFields         = 2*NodeFields - 1, NodeFields
)

// Passages is the passages job's mapper.
func Passages(t *mr.Task) error {
	out := mr.NewOutput(t.Stdout)
	var fields [][]byte
	var b, order []byte
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		fields = mr.Fields(fields[:0], r.Line())
		b = b[:0]
		switch len(fields) {
		case 5: // a parsed-document record (lib/doc)
			rec, err := doc.SplitRecord(r.Line())
			if err != nil {
				return fmt.Errorf("passages: line %d: %w", r.LineNumber(), err)
			}
			url := rec.URL
			if len(url) == 0 || bytes.HasPrefix(url, []byte(doc.SitePrefix)) {
				url = []byte("-")
			}
			order = doc.AppendOrder(order[:0], rec)
			b = join(b, rec.ID, []byte("0"), order, url, []byte("-"), []byte("-"), rec.Blob)
			if _, err := out.Write(b); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		case 10: // docA docB startA startB length csA ceA csB ceB score (lib/span)
			var n [7]int
			for i := range n {
				var ok bool
				if n[i], ok = mr.Atoi(fields[2+i]); !ok {
					return fmt.Errorf("passages: line %d: malformed span field %d %q", r.LineNumber(), 3+i, fields[2+i])
				}
			}
			csA, csB := mr.AppendPadded(nil, int64(n[3]), 10), mr.AppendPadded(nil, int64(n[5]), 10)
			for _, end := range []struct {
				doc        []byte
				cs, ce, st int
				side       string
			}{{fields[0], n[3], n[4], n[0], "A"}, {fields[1], n[5], n[6], n[1], "B"}} {
				b = join(b[:0], end.doc, []byte("1"), mr.AppendPadded(nil, int64(end.cs), 10), mr.AppendPadded(nil, int64(end.ce), 10), mr.AppendPadded(nil, int64(end.st), 7),
					fields[0], fields[1], csA, csB, []byte(end.side))
				if _, err := out.Write(b); err != nil {
					return fmt.Errorf("write: %w", err)
				}
			}
		default:
			return fmt.Errorf("passages: line %d: want a span (10 fields) or a parsed document (5), got %d fields", r.LineNumber(), len(fields))
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("passages: read: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// Edges is the edges job's mapper: the passages output's span ends
// (`ref TAB side TAB node`, 12 fields) are keyed by their span.
func Edges(t *mr.Task) error {
	out := mr.NewOutput(t.Stdout)
	var b []byte
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		line := r.Line()
		if n := bytes.Count(line, []byte{'\t'}) + 1; n != 4+1+NodeFields {
			return fmt.Errorf("edges: line %d: want a span end (%d fields), got %d fields", r.LineNumber(), 5+NodeFields, n)
		}
		b = append(append(b[:0], "H\t"...), line...)
		if _, err := out.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("edges: read: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// LargeStar is the large-star round's mapper: each edge both ways.
func LargeStar(t *mr.Task) error {
	return mapEdges(t, "large-star", func(u, v []byte, emit func(a, b []byte) error) error {
		if err := emit(u, v); err != nil {
			return err
		}
		return emit(v, u)
	})
}

// SmallStar is the small-star round's mapper: each edge keyed by its
// larger node.
func SmallStar(t *mr.Task) error {
	return mapEdges(t, "small-star", func(u, v []byte, emit func(a, b []byte) error) error {
		if bytes.Compare(u, v) < 0 {
			u, v = v, u
		}
		return emit(u, v)
	})
}

// Components is the components job's mapper: each edge under the one key
// "0", so that one reducer gets the whole graph.
func Components(t *mr.Task) error {
	var k []byte
	return mapEdges(t, "components", func(u, v []byte, emit func(a, b []byte) error) error {
		k = append(append(k[:0], ComponentsKey+"\t"...), u...)
		return emit(k, v)
	})
}

// ComponentsKey is the key of every record of the components job.
const ComponentsKey = "0"

// Clusters is the clusters job's mapper: each star edge `v TAB root` keyed
// by its root.
func Clusters(t *mr.Task) error {
	return mapEdges(t, "clusters", func(u, v []byte, emit func(a, b []byte) error) error {
		return emit(v, u)
	})
}

// mapEdges reads edges and emits what f makes of each, self loops left
// out.
func mapEdges(t *mr.Task, job string, f func(u, v []byte, emit func(a, b []byte) error) error) error {
	out := mr.NewOutput(t.Stdout)
	var b []byte
	emit := func(u, v []byte) error {
		b = graph.AppendEdge(b[:0], u, v)
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		u, v, ok := graph.SplitEdge(r.Line())
		if !ok {
			return fmt.Errorf("%s: line %d: malformed edge (want two nodes of %d fields)", job, r.LineNumber(), NodeFields)
		}
		if bytes.Equal(u, v) {
			continue
		}
		if err := f(u, v, emit); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: read: %w", job, err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// join appends fields TAB-separated and a line end.
func join(b []byte, fields ...[]byte) []byte {
	for i, f := range fields {
		if i > 0 {
			b = append(b, '\t')
		}
		b = append(b, f...)
	}
	return append(b, '\n')
}
