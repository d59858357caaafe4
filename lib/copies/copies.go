// Package copies is pdc's exact-copies record: the documents of a run
// whose content sentences are the same as an earlier document's. It owns
// OUT/copies.tsv: Build makes it from the stats job's content records
// (reducers/stats), Write writes it and Read reads it back.
//
// # OUT/copies.tsv
//
//	#doc TAB copy_of TAB sentences
//	doc TAB first TAB n
//
// One line per document that is an exact copy of an earlier one: first is
// the first document of its group in input order (srcpos, lib/doc), the
// copy pdc dedup keeps; n is the number of content sentences they share,
// all of them (content: sentences that are not navigation, links or
// markup templates, doc.Sentence.NotContent, with at least --min-tokens
// tokens). A document with fewer than --lambda of them is a copy only of
// one with the very same words, all its sentences counted (n may then be
// 0); one without a word is no copy.
// Lines are grouped by first, groups and their members in input order;
// ids are escaped as in lib/mr. A group of k documents gives k-1 lines:
// the list stays linear in the number of copies.
package copies

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/docstats"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/span"
)

// File is the name of the record in a run's output directory.
const File = "copies.tsv"

// Copy is one line: Doc is an exact copy of Of, with Sentences content
// sentences.
type Copy struct {
	Doc       string `json:"doc"`
	Of        string `json:"copy_of"`
	Sentences int    `json:"sentences"`
}

// occurrence is a document in a content record.
type occurrence struct {
	hash, srcpos, doc string // doc escaped
	n                 int
	stored            bool // a stored document of a batch run
}

// Build groups the content records of the stats job's part files (files
// of dir named part-*): the documents of one content hash, but for the
// occurrences of duplicate ids the stats job drops (#docid TAB srcpos
// records), the first of each group in srcpos order being the one the
// others copy. In a batch run, the copy of a stored document by another is
// the stored runs' and left out.
func Build(fsys hdfsfs.FS, dir string) ([]Copy, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("copies: %w", err)
	}
	var occ []occurrence
	dropped := map[string]bool{} // docid TAB srcpos
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "part-") {
			continue
		}
		name := dir + "/" + e.Name()
		if err := readStats(fsys, name, &occ, dropped); err != nil {
			return nil, err
		}
	}
	return group(occ, dropped), nil
}

func readStats(fsys hdfsfs.FS, name string, occ *[]occurrence, dropped map[string]bool) error {
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("copies: %w", err)
	}
	defer f.Close()
	r := mr.NewReader(f)
	for r.Next() {
		line := r.Line()
		if len(line) == 0 || line[0] != '=' && line[0] != '#' {
			continue
		}
		if line[0] == '#' {
			dropped[string(line[1:])] = true
			continue
		}
		fl := bytes.Split(line[1:], []byte{'\t'})
		n, ok := 0, len(fl) == 4 || len(fl) == 5 && string(fl[4]) == docstats.Stored
		if ok {
			n, ok = mr.Atoi(fl[3])
		}
		if !ok {
			return fmt.Errorf("copies: %s:%d: want =hash TAB srcpos TAB doc TAB sentences [TAB %s]", name, r.LineNumber(), docstats.Stored)
		}
		*occ = append(*occ, occurrence{hash: string(fl[0]), srcpos: string(fl[1]), doc: string(fl[2]), n: n, stored: len(fl) == 5})
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("copies: read %s: %w", name, err)
	}
	return nil
}

// group makes the copies of occurrences: by hash, in srcpos order, without
// dropped occurrences and repeated ids.
func group(occ []occurrence, dropped map[string]bool) []Copy {
	slices.SortFunc(occ, func(a, b occurrence) int {
		if c := strings.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return strings.Compare(a.srcpos, b.srcpos)
	})
	type grp struct {
		first  occurrence
		copies []Copy
	}
	var groups []grp
	for i := 0; i < len(occ); {
		j := i
		for j < len(occ) && occ[j].hash == occ[i].hash {
			j++
		}
		var g grp
		seen := map[string]bool{}
		for _, o := range occ[i:j] {
			if dropped[o.doc+"\t"+o.srcpos] || seen[o.doc] {
				continue
			}
			seen[o.doc] = true
			if len(seen) == 1 {
				g.first = o
				continue
			}
			if o.stored && g.first.stored {
				continue // in a batch run, a stored copy of a stored document: the stored runs' to list
			}
			g.copies = append(g.copies, Copy{Doc: unescape(o.doc), Of: unescape(g.first.doc), Sentences: o.n})
		}
		if len(g.copies) > 0 {
			groups = append(groups, g)
		}
		i = j
	}
	slices.SortFunc(groups, func(a, b grp) int { return strings.Compare(a.first.srcpos, b.first.srcpos) })
	var out []Copy
	for _, g := range groups {
		out = append(out, g.copies...)
	}
	return out
}

// unescape unescapes an id the stats job wrote (escaped by the parse job,
// so valid).
func unescape(s string) string {
	u, err := mr.Unescape(s)
	if err != nil {
		return s
	}
	return u
}

// Write writes cs as OUT/copies.tsv, with its header line.
func Write(w io.Writer, cs []Copy) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("#doc\tcopy_of\tsentences\n")
	for _, c := range cs {
		bw.WriteString(mr.Escape(c.Doc))
		bw.WriteByte('\t')
		bw.WriteString(mr.Escape(c.Of))
		bw.WriteByte('\t')
		bw.WriteString(strconv.Itoa(c.Sentences))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Read reads the copies.tsv of the run in out; a run without one (made
// before pdc found exact copies) has none.
func Read(fsys hdfsfs.FS, out string) ([]Copy, error) {
	name := out + "/" + File
	f, err := fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("copies: %w", err)
	}
	defer f.Close()
	var cs []Copy
	r := mr.NewReader(f)
	for r.Next() {
		line := r.Line()
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		fl := bytes.Split(line, []byte{'\t'})
		n, ok := 0, len(fl) == 3
		if ok {
			n, ok = mr.Atoi(fl[2])
		}
		if !ok {
			return nil, fmt.Errorf("copies: %s:%d: want doc TAB copy_of TAB sentences", name, r.LineNumber())
		}
		doc, err1 := mr.Unescape(string(fl[0]))
		of, err2 := mr.Unescape(string(fl[1]))
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("copies: %s:%d: %w", name, r.LineNumber(), err)
		}
		cs = append(cs, Copy{Doc: doc, Of: of, Sentences: n})
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("copies: read %s: %w", name, err)
	}
	return cs, nil
}

// Pairs returns pairs (in span.Pairs order: A before B by escaped id) with
// each copy's pair, the copy and its group's first document, added where
// no span links them, still in that order (a Merger given pairs in turn);
// and the set of exact-copy pairs ({A, B} as in a DocPair).
func Pairs(pairs []span.DocPair, cs []Copy) ([]span.DocPair, map[[2]string]bool) {
	var out []span.DocPair
	m := NewMerger(cs, func(p span.DocPair) error { out = append(out, p); return nil })
	for _, p := range pairs {
		_ = m.Add(p) // the yield above never fails
	}
	_ = m.Close()
	return out, m.Exact()
}

// A Merger passes the document pairs of spans, given in span order (A
// before B by escaped id), to its yield with each copy's pair, the copy
// and its group's first document, where no span links them, still in that
// order. It holds the copies' pairs, not the pairs given.
type Merger struct {
	exact map[[2]string]bool
	extra [][2]string // exact pairs, by escaped ids
	esc   mr.Escapes
	next  int
	yield func(span.DocPair) error
}

// NewMerger returns a Merger of the copies cs that passes the pairs to
// yield.
func NewMerger(cs []Copy, yield func(span.DocPair) error) *Merger {
	m := &Merger{exact: map[[2]string]bool{}, esc: mr.Escapes{}, yield: yield}
	for _, c := range cs {
		a, b := c.Doc, c.Of
		if m.escaped(a) > m.escaped(b) {
			a, b = b, a
		}
		m.exact[[2]string{a, b}] = true
	}
	m.extra = slices.Collect(maps.Keys(m.exact))
	slices.SortFunc(m.extra, func(x, y [2]string) int { return m.compare(x[0], x[1], y[0], y[1]) })
	return m
}

func (m *Merger) escaped(d string) string { return m.esc.Of(d) }

// compare orders the pairs (a1, b1) and (a2, b2) by escaped ids; the
// documents of the second need not be among the copies.
func (m *Merger) compare(a1, b1, a2, b2 string) int {
	e := func(d string) string {
		if s, ok := m.esc[d]; ok {
			return s
		}
		return mr.Escape(d)
	}
	return cmp.Or(strings.Compare(e(a1), e(a2)), strings.Compare(e(b1), e(b2)))
}

// Exact returns the exact-copy pairs ({A, B} as in a DocPair).
func (m *Merger) Exact() map[[2]string]bool { return m.exact }

// Add passes the copies' pairs before p that no span links, then p.
func (m *Merger) Add(p span.DocPair) error {
	for ; m.next < len(m.extra); m.next++ {
		x := m.extra[m.next]
		c := m.compare(x[0], x[1], p.A, p.B)
		if c > 0 {
			break
		}
		if c == 0 {
			continue // the span pair is the copies' pair
		}
		if err := m.yield(span.DocPair{A: x[0], B: x[1]}); err != nil {
			return err
		}
	}
	return m.yield(p)
}

// Close passes the copies' pairs after the last pair given.
func (m *Merger) Close() error {
	for ; m.next < len(m.extra); m.next++ {
		if err := m.yield(span.DocPair{A: m.extra[m.next][0], B: m.extra[m.next][1]}); err != nil {
			return err
		}
	}
	return nil
}

// Clusters returns each group of exact copies as a passage cluster whose
// members are the documents whole, the group's first document first, for
// pdc dedup to keep one of them; lengths are the documents' lengths in
// characters (a document missing from it is left out of its group). The
// ids are "e" and 16 hex digits (a hash of the first document's id).
func Clusters(cs []Copy, lengths map[string]int) []cluster.Cluster {
	var out []cluster.Cluster
	at := map[string]int{} // first document -> index in out
	member := func(doc string) (cluster.Member, bool) {
		n, ok := lengths[doc]
		return cluster.Member{Doc: doc, CharEnd: n, Length: n}, ok && n > 0
	}
	for _, c := range cs {
		i, ok := at[c.Of]
		if !ok {
			first, ok := member(c.Of)
			if !ok {
				continue
			}
			h := fnv.New64a()
			h.Write([]byte(c.Of))
			i, at[c.Of] = len(out), len(out)
			out = append(out, cluster.Cluster{ID: fmt.Sprintf("e%016x", h.Sum64()), Members: []cluster.Member{first}})
		}
		if m, ok := member(c.Doc); ok {
			out[i].Members = append(out[i].Members, m)
		}
	}
	kept := out[:0]
	for _, c := range out {
		if c.Size = len(c.Members); c.Size > 1 {
			kept = append(kept, c)
		}
	}
	return kept
}
