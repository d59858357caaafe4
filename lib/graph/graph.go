// Package graph is the node and edge records of the passage-cluster
// jobs (mappers/clusters, reducers/clusters), their one writer and reader.
//
// A node is a passage, written for each of its span ends: seven
// TAB-separated fields
//
//	srcpos TAB doc TAB url TAB charStart TAB charEnd TAB sentence TAB words
//
// srcpos as in the parsed-document record (lib/doc; the input order: the
// smallest node of a cluster is its earliest member), url "-" when the
// document has none, char offsets zero-padded to 10 digits (Pad), the
// passage's first sentence to 7, words the sketch of the distinct words of
// its content sentences (lib/sketch). Nodes compare as the bytes of their
// text. An edge is `u TAB v` (14 fields).
package graph

import (
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/mr"
)

// NodeFields is the number of fields of a node.
const NodeFields = 7

// AppendEdge appends the edge line `u TAB v`.
func AppendEdge(b, u, v []byte) []byte {
	return append(append(append(append(b, u...), '\t'), v...), '\n')
}

// SplitEdge splits an edge line into its two nodes.
func SplitEdge(line []byte) (u, v []byte, ok bool) {
	i := nthTab(line, NodeFields)
	if i < 0 || bytes.Count(line[i+1:], []byte{'\t'}) != NodeFields-1 {
		return nil, nil, false
	}
	return line[:i], line[i+1:], true
}

// nthTab returns the index of the n-th TAB of b, or -1.
func nthTab(b []byte, n int) int {
	for i, c := range b {
		if c == '\t' {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}

// Node is a node's fields.
type Node struct {
	Srcpos, Doc, URL []byte
	CS, CE, Sent     int
	// Words is the text form of the passage's word sketch (lib/sketch).
	Words []byte
}

// ParseNode parses a node.
func ParseNode(b []byte) (Node, error) {
	var f [NodeFields][]byte
	for i := range NodeFields - 1 {
		j := bytes.IndexByte(b, '\t')
		if j < 0 {
			return Node{}, fmt.Errorf("malformed node %q", b)
		}
		f[i], b = b[:j], b[j+1:]
	}
	f[NodeFields-1] = b
	n := Node{Srcpos: f[0], Doc: f[1], URL: f[2], Words: f[6]}
	var ok [3]bool
	n.CS, ok[0] = mr.Atoi(f[3])
	n.CE, ok[1] = mr.Atoi(f[4])
	n.Sent, ok[2] = mr.Atoi(f[5])
	if !ok[0] || !ok[1] || !ok[2] || bytes.IndexByte(b, '\t') >= 0 {
		return Node{}, fmt.Errorf("malformed node %q", b)
	}
	return n, nil
}
