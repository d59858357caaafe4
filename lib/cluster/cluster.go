// Package cluster is pdc's passage-cluster record: a passage found in
// several documents (pdc run --clusters). It owns the format the clusters
// job writes (AppendMember, AppendSummary; reducers/clusters) and reads it
// back (Read).
//
// # Clusters part files
//
// One group of lines per cluster, its members, then its summary:
//
//	cid TAB M TAB srcpos TAB doc TAB url TAB charStart TAB charEnd TAB sentence
//	...
//	cid TAB S TAB docs TAB members
//
// cid is "c" and 16 hex digits. A member is a passage of one document: the
// union of the cluster's span ends that overlap in it (a document that
// quotes the passage twice has two members). Members come in input order
// of their documents (srcpos, lib/doc; in a batch run, the stored runs'
// documents first, batch by batch: lib/doc AppendOrder), then position:
// the first is the cluster's earliest member. doc and url are escaped as in lib/mr, url is
// "-" when the document has none, char offsets (Unicode code points into
// the document's extracted text, end exclusive) are zero-padded to 10
// digits and sentence (the passage's first, 0-based) to 7. The summary
// counts the cluster's documents and members.
package cluster

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Member is one passage of a cluster.
type Member struct {
	Doc       string  `json:"doc"`
	URL       string  `json:"url,omitempty"`
	CharStart int     `json:"char_start"`
	CharEnd   int     `json:"char_end"`
	Sentence  int     `json:"sentence"`
	Length    int     `json:"length"` // characters
	Text      *string `json:"text,omitempty"`
	// Srcpos is the document's place in the input (file and offset).
	Srcpos string `json:"-"`
}

// Cluster is one passage cluster.
type Cluster struct {
	ID string `json:"cluster"`
	// Size is the number of documents.
	Size    int      `json:"size"`
	Members []Member `json:"members"`
}

// Earliest is the member of the document that came first in the input.
func (c *Cluster) Earliest() *Member { return &c.Members[0] }

// AppendMember appends a member line.
func AppendMember(b, cid, srcpos, doc, url []byte, charStart, charEnd, sentence int) []byte {
	b = append(append(b, cid...), "\tM\t"...)
	b = append(append(b, srcpos...), '\t')
	b = append(append(b, doc...), '\t')
	b = append(append(b, url...), '\t')
	b = append(mr.AppendPadded(b, int64(charStart), 10), '\t')
	b = append(mr.AppendPadded(b, int64(charEnd), 10), '\t')
	return append(mr.AppendPadded(b, int64(sentence), 7), '\n')
}

// AppendSummary appends the summary line that closes a cluster.
func AppendSummary(b, cid []byte, docs, members int64) []byte {
	b = append(append(b, cid...), "\tS\t"...)
	b = strconv.AppendInt(b, docs, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, members, 10)
	return append(b, '\n')
}

// ErrNotFinished says that a directory holds no finished clusters job.
var ErrNotFinished = fmt.Errorf("no finished clusters (no clusters/_SUCCESS): run pdc run with --clusters")

// Read reads every cluster of the clusters job's output dir, largest
// first (then by id).
func Read(fsys hdfsfs.FS, dir string) ([]Cluster, error) {
	var out []Cluster
	err := Each(fsys, dir, func(c Cluster) error { out = append(out, c); return nil })
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, compare)
	return out, nil
}

// ReadPlaces is Read without what locates a member beyond its document
// and range (URL, Srcpos): ids are copied out of the lines they were read
// from and each document id is held once, so that every cluster of a large
// run fits in a fraction of Read's memory (pdc dedup).
func ReadPlaces(fsys hdfsfs.FS, dir string) ([]Cluster, error) {
	var out []Cluster
	ids := map[string]string{}
	intern := func(s string) string {
		if t, ok := ids[s]; ok {
			return t
		}
		s = strings.Clone(s)
		ids[s] = s
		return s
	}
	err := Each(fsys, dir, func(c Cluster) error {
		ms := make([]Member, len(c.Members))
		for i, m := range c.Members {
			ms[i] = Member{Doc: intern(m.Doc), CharStart: m.CharStart, CharEnd: m.CharEnd, Sentence: m.Sentence, Length: m.Length}
		}
		out = append(out, Cluster{ID: strings.Clone(c.ID), Size: c.Size, Members: ms})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, compare)
	return out, nil
}

// compare orders clusters as Read returns them: largest first, then by id.
func compare(a, b Cluster) int {
	return cmp.Or(cmp.Compare(b.Size, a.Size), strings.Compare(a.ID, b.ID))
}

// Top returns the first n clusters of dir in Read's order and the number
// of all of them, holding no more than n clusters and one part file's.
func Top(fsys hdfsfs.FS, dir string, n int) ([]Cluster, int, error) {
	var top []Cluster
	total := 0
	cut := func() {
		slices.SortFunc(top, compare)
		top = top[:min(n, len(top))]
	}
	err := Each(fsys, dir, func(c Cluster) error {
		total++
		if top = append(top, c); len(top) > 2*n+64 {
			cut()
		}
		return nil
	})
	cut()
	return slices.Clip(top), total, err
}

// Each calls f with each cluster of the clusters job's output dir, in
// part-file order (not Read's), holding one cluster at a time.
func Each(fsys hdfsfs.FS, dir string, f func(Cluster) error) error {
	if _, err := fsys.Stat(dir + "/_SUCCESS"); err != nil {
		return fmt.Errorf("%s: %w", dir, ErrNotFinished)
	}
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clusters: %w", err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "part-") {
			continue
		}
		p := dir + "/" + e.Name()
		rc, err := fsys.Open(p)
		if err != nil {
			return fmt.Errorf("clusters: %w", err)
		}
		err = read(bufio.NewReaderSize(rc, 1<<16), f)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// read parses one part file and calls yield with each cluster.
func read(r *bufio.Reader, yield func(Cluster) error) error {
	var cur *Cluster
	lr := mr.NewReader(r)
	for lr.Next() {
		f := strings.Split(string(lr.Line()), "\t")
		fail := func(msg string) error { return fmt.Errorf("line %d: %s", lr.LineNumber(), msg) }
		if len(f) < 2 {
			return fail("malformed cluster record")
		}
		if cur == nil || cur.ID != f[0] {
			if cur != nil {
				return fail("cluster " + cur.ID + " has no summary line")
			}
			cur = &Cluster{ID: f[0]}
		}
		switch f[1] {
		case "M":
			if len(f) != 8 {
				return fail("want a member of 8 fields")
			}
			m := Member{Srcpos: f[2]}
			var err error
			if m.Doc, err = mr.Unescape(f[3]); err != nil {
				return fail(err.Error())
			}
			if f[4] != "-" {
				if m.URL, err = mr.Unescape(f[4]); err != nil {
					return fail(err.Error())
				}
			}
			for i, p := range []*int{&m.CharStart, &m.CharEnd, &m.Sentence} {
				n, ok := mr.Atoi([]byte(f[5+i]))
				if !ok {
					return fail(fmt.Sprintf("bad number %q", f[5+i]))
				}
				*p = n
			}
			if m.CharEnd < m.CharStart {
				return fail("member ends before it starts")
			}
			m.Length = m.CharEnd - m.CharStart
			cur.Members = append(cur.Members, m)
		case "S":
			if len(f) != 4 {
				return fail("want a summary of 4 fields")
			}
			n, ok := mr.Atoi([]byte(f[2]))
			if !ok || len(cur.Members) == 0 {
				return fail("bad summary")
			}
			cur.Size = n
			if err := yield(*cur); err != nil {
				return err
			}
			cur = nil
		default:
			return fail(fmt.Sprintf("unknown record kind %q", f[1]))
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	if cur != nil {
		return fmt.Errorf("cluster %s has no summary line (truncated file?)", cur.ID)
	}
	return nil
}
