// Package join is the map side of the join job (PDC-MR Algorithm 1): from
// each posting list it emits every pair of sentences of different documents
// that passes the length filter, once per shared signature.
//
// Input: the index job's posting lists (reducers/index); B (boilerplate)
// lines are skipped. Output, one line per candidate pair and signature:
//
//	docA TAB docB TAB sentA TAB sentB TAB count TAB nA TAB nB TAB csA TAB ceA TAB csB TAB ceB
//
// The key is the first four fields (docA < docB bytewise, 7-digit sentence
// indexes); count is 1 (a combiner may sum it); nA, nB are the sentences'
// signature counts and cs/ce their rune offsets.
package join

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"

	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
)

// Posting is one entry of a posting list.
type Posting struct {
	Doc, Sent, CS, CE, Site []byte
	NSig                    int
}

// ParsePosting parses `sent,nsig,cs,ce,site,doc`.
func ParsePosting(b []byte) (Posting, error) {
	var f [5][]byte
	for i := range f {
		j := bytes.IndexByte(b, ',')
		if j < 0 {
			return Posting{}, fmt.Errorf("malformed posting %q", b)
		}
		f[i], b = b[:j], b[j+1:]
	}
	n, err := strconv.Atoi(string(f[1]))
	if err != nil || n < 1 {
		return Posting{}, fmt.Errorf("malformed posting signature count %q", f[1])
	}
	return Posting{Sent: f[0], NSig: n, CS: f[2], CE: f[3], Site: f[4], Doc: b}, nil
}

// Map runs the join mapper.
func Map(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	c := mr.NewCounters(t.Stderr)
	out := bufio.NewWriterSize(t.Stdout, 1<<16)
	var (
		fields [][]byte
		ps     []Posting
		line   []byte
	)
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		fields = mr.Fields(fields[:0], r.Line())
		if len(fields) < 4 || len(fields[1]) != 1 {
			return fmt.Errorf("join mapper: line %d: malformed posting list", r.LineNumber())
		}
		if fields[1][0] != 'P' {
			continue
		}
		ps = ps[:0]
		for _, f := range fields[3:] {
			p, err := ParsePosting(f)
			if err != nil {
				return fmt.Errorf("join mapper: line %d: %w", r.LineNumber(), err)
			}
			ps = append(ps, p)
		}
		var n, filtered, site int64
		for i := range ps {
			a := &ps[i]
			for j := i + 1; j < len(ps); j++ {
				b := &ps[j]
				if bytes.Equal(a.Doc, b.Doc) {
					continue
				}
				if !signature.LengthOK(a.NSig, b.NSig, cfg.Tau) {
					filtered++
					continue
				}
				if cfg.CrossSiteOnly && bytes.Equal(a.Site, b.Site) && string(a.Site) != "-" {
					site++
					continue
				}
				n++
				line = appendPair(line[:0], a, b)
				if _, err := out.Write(line); err != nil {
					return fmt.Errorf("write: %w", err)
				}
			}
		}
		c.Add("join.candidates", n)
		c.Add("join.length-filtered", filtered)
		if site > 0 {
			c.Add("join.same-site-dropped", site)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("join mapper: read: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// appendPair writes the candidate pair line; postings arrive sorted by doc,
// so a.Doc < b.Doc.
func appendPair(b []byte, a, o *Posting) []byte {
	b = append(b, a.Doc...)
	b = append(b, '\t')
	b = append(b, o.Doc...)
	b = append(b, '\t')
	b = append(b, a.Sent...)
	b = append(b, '\t')
	b = append(b, o.Sent...)
	b = append(b, "\t1\t"...)
	b = strconv.AppendInt(b, int64(a.NSig), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(o.NSig), 10)
	for _, f := range [][]byte{a.CS, a.CE, o.CS, o.CE} {
		b = append(b, '\t')
		b = append(b, f...)
	}
	return append(b, '\n')
}
