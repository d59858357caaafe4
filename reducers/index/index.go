// Package index is the reduce side of the index job: it gathers each
// signature's postings into a posting list.
//
// Input: the index mapper's batches of postings (mappers/index), grouped by
// signature; a posting without a document id is of the document of the
// posting before it in its line. Output, one line per signature shared by
// at least two documents:
//
//	sig TAB P TAB df TAB posting TAB posting ...
//
// with postings sorted by (docid, sentence), each
// `sent,nsig,charStart,charEnd,site,docid` (docid last: it may hold commas),
// or with the words method `sent,nsig,charStart,charEnd,site,pos,set,docid`.
// Here too docid is left empty (the posting ends with a comma) when the
// posting before it in the list is of the same document.
// A list longer than PDC_MAX_DF is not joined; instead
//
//	sig TAB B TAB df TAB posting
//
// records it, with its smallest posting as an example, for the boilerplate
// report. Postings of a site (URL host) that holds the same sentence in more
// than PDC_MAX_SITE_DF pages are that site's template: they are removed
// from the list and recorded as
//
//	sig TAB T TAB sitedocs TAB posting
//
// A page is a document and its copies: documents whose copy keys
// (lib/sitetemplate CopyKey) share a min-hash count once, so that a sentence
// of a manual mirrored ten times in one site is not the site's template.
// sitedocs counts documents. The copy key is dropped from the output; a
// batch run's mark (doc.BatchMark, mappers/index) is kept.
// Example postings of B and T records are always in the 6-field form.
// Lists left with one posting, or postings of one document only, are
// dropped: they cannot make a pair; so are, in a batch run, lists without
// a posting of the batch (index.lists.stored-only).
package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/sitetemplate"
)

// Reduce runs the index reducer.
func Reduce(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	red := &reducer{batch: cfg.Batch > 0, maxDF: cfg.MaxDF, maxSiteDF: cfg.MaxSiteDF, c: mr.NewCounters(t.Stderr), out: mr.NewOutput(t.Stdout)}
	fields := 6 // per posting
	if red.prefixed = cfg.Signature.Method.Prefixed(); red.prefixed {
		fields = 8
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), 1)
		if !bytes.Equal(k, red.key) || red.n == 0 {
			if err := red.emit(); err != nil {
				return err
			}
			red.key = append(red.key[:0], k...)
		}
		var doc []byte // of the posting before, in this line
		for more := true; more; {
			p, rest, m, ok := cutFields(v, fields)
			if !ok {
				return fmt.Errorf("index reducer: line %d: want postings of %d fields, got %d fields left", r.LineNumber(), fields, bytes.Count(v, []byte{'\t'})+1)
			}
			if p[0] != '\t' {
				doc = p[:bytes.IndexByte(p, '\t')]
				p = p[len(doc):]
			} else if doc == nil {
				return fmt.Errorf("index reducer: line %d: a posting without document id starts the line", r.LineNumber())
			}
			red.add(doc, p)
			v, more = rest, m
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("index reducer: read: %w", err)
	}
	if err := red.emit(); err != nil {
		return err
	}
	if err := red.out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return red.c.Flush()
}

type reducer struct {
	prefixed bool // postings carry pos and set (the words method)
	// batch: a batch run (PDC_BATCH), whose lists without a posting of
	// the batch (hasNew) are left out: they can make no pair the run keeps.
	batch, hasNew bool
	maxDF         int
	maxSiteDF     int
	c             *mr.Counters
	out           mr.Output
	key           []byte
	n             int      // postings in the current group
	vals          [][]byte // the first maxDF+1 postings (values), reordered
	arena         []byte
	line          []byte
	// minPosting is the smallest posting of the current list.
	minPosting []byte
	// Scratch space of dropTemplates, reused from list to list.
	sites  map[uint64]int32 // templateKey -> index in groups
	groups []siteDocs
	group  []int32 // per value: its index in groups + 1, 0 without a site
}

// cutFields cuts the first n (>= 1) TAB-separated fields off v: first
// holds them, rest what follows the TAB after them, if there is one (more).
// It finds the n-th TAB eight bytes at a time: postings are short, and a
// call of bytes.IndexByte per field cost more than its scanning.
func cutFields(v []byte, n int) (first, rest []byte, more, ok bool) {
	const (
		ones  = 0x0101010101010101
		lows  = 0x7f7f7f7f7f7f7f7f
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(v); i += 8 {
		x := binary.LittleEndian.Uint64(v[i:]) ^ ('\t' * ones)
		// The high bit of each byte that was a TAB (now 0), exactly:
		// no carry crosses bytes.
		tabs := ^((x&lows + lows) | x) & highs
		if c := bits.OnesCount64(tabs); c < n {
			n -= c
			continue
		}
		for ; n > 1; n-- {
			tabs &= tabs - 1
		}
		j := i + bits.TrailingZeros64(tabs)>>3
		return v[:j], v[j+1:], true, true
	}
	for ; i < len(v); i++ {
		if v[i] == '\t' {
			if n--; n == 0 {
				return v[:i], v[i+1:], true, true
			}
		}
	}
	return v, nil, false, n == 1
}

// add adds the posting id+rest (rest starts with the TAB after the id).
func (r *reducer) add(id, rest []byte) {
	r.n++
	off := len(r.arena)
	r.arena = append(append(r.arena, id...), rest...)
	v := r.arena[off:len(r.arena):len(r.arena)]
	if r.batch && !r.hasNew {
		// doc TAB sent TAB nsig TAB charStart TAB charEnd TAB site...
		_, site, _, _ := cutFields(v, 5)
		r.hasNew = len(site) > 0 && site[0] == doc.BatchMark
	}
	// The smallest posting is the example of a list over maxDF, so the
	// report does not depend on the order values arrive in.
	if r.n == 1 || bytes.Compare(v, r.minPosting) < 0 {
		r.minPosting = append(r.minPosting[:0], v...)
	}
	if r.n > r.maxDF+1 {
		r.arena = r.arena[:off]
		return
	}
	r.vals = append(r.vals, v)
}

func (r *reducer) emit() error {
	defer func() { r.n, r.vals, r.arena, r.hasNew = 0, r.vals[:0], r.arena[:0], false }()
	if r.n == 0 {
		return nil
	}
	if r.batch && !r.hasNew {
		r.c.Add("index.lists.stored-only", 1)
		return nil
	}
	switch {
	case r.n == 1:
		r.c.Add("index.lists.singleton", 1)
		return nil
	case r.n > r.maxDF:
		r.c.Add("index.lists.over-max-df", 1)
		r.c.Add("index.postings.over-max-df", int64(r.n))
		return r.write('B', r.n, [][]byte{r.minPosting})
	}
	slices.SortFunc(r.vals, bytes.Compare)
	if r.maxSiteDF > 0 {
		if err := r.dropTemplates(); err != nil {
			return err
		}
	}
	switch {
	case len(r.vals) < 2:
		r.c.Add("index.lists.singleton", 1)
		return nil
	case singleDoc(r.vals):
		r.c.Add("index.lists.single-doc", 1)
		return nil
	}
	r.c.Add("index.lists", 1)
	r.c.Add("index.lists.postings", int64(len(r.vals)))
	return r.write('P', len(r.vals), r.vals)
}

// write writes one record of the given kind and count (see the package
// comment).
func (r *reducer) write(kind byte, n int, vals [][]byte) error {
	b := append(r.line[:0], r.key...)
	b = append(b, '\t', kind, '\t')
	b = strconv.AppendInt(b, int64(n), 10)
	var last []byte // the document of the posting before
	for _, v := range vals {
		if kind != 'P' {
			v = firstFields(v, 6) // examples never carry the words set
		}
		b = append(b, '\t')
		doc := postingDoc(v)
		b = appendPosting(b, v, last != nil && bytes.Equal(doc, last))
		last = doc
	}
	b = append(b, '\n')
	r.line = b
	if _, err := r.out.Write(b); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// firstFields returns the first n TAB-separated fields of v.
func firstFields(v []byte, n int) []byte {
	end := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(v[end:], '\t')
		if j < 0 {
			return v
		}
		if i == n-1 {
			return v[:end+j]
		}
		end += j + 1
	}
	return v
}

// appendPosting turns a mapper value `doc TAB sent TAB nsig TAB cs TAB ce TAB
// site` into `sent,nsig,cs,ce,site,doc`, or `sent,nsig,cs,ce,site,` if
// sameDoc (as the posting before).
func appendPosting(b, v []byte, sameDoc bool) []byte {
	doc, rest, _ := bytes.Cut(v, []byte{'\t'})
	if sameDoc {
		doc = nil
	}
	skip := false // in the site field's copy key
	for _, c := range rest {
		switch {
		case c == '~':
			skip = true
			continue
		case c == '\t':
			skip = false
			c = ','
		case skip:
			continue
		}
		b = append(b, c)
	}
	b = append(b, ',')
	return append(b, doc...)
}

func singleDoc(vals [][]byte) bool {
	first, _, _ := bytes.Cut(vals[0], []byte{'\t'})
	last, _, _ := bytes.Cut(vals[len(vals)-1], []byte{'\t'})
	return bytes.Equal(first, last)
}

// dropTemplates removes the postings of every site that holds the same
// sentence in more than maxSiteDF documents, writing a T record per such
// site. For counting methods the list's signature stands for the sentence;
// for prefixed sets (words) postings are grouped by their whole set, since a
// list is keyed by one token.
func (r *reducer) dropTemplates() error {
	if distinctDocs(r.vals, r.maxSiteDF+1) <= r.maxSiteDF {
		return nil // no site can have more documents than the list
	}
	if r.sites == nil {
		r.sites = map[uint64]int32{}
	}
	clear(r.sites)
	r.groups = r.groups[:0]
	r.group = slices.Grow(r.group[:0], len(r.vals))[:len(r.vals)]
	for i, v := range r.vals {
		key, ok := templateKey(v, r.prefixed)
		if !ok {
			r.group[i] = 0
			continue
		}
		g, seen := r.sites[key]
		if !seen {
			g = int32(len(r.groups))
			r.sites[key] = g
			r.groups = append(r.groups, siteDocs{})
		}
		r.group[i] = g + 1
		s := &r.groups[g]
		if doc := postingDoc(v); s.Docs() == 0 || !bytes.Equal(doc, s.lastDoc) {
			s.lastDoc = doc
			key, ok := copyKey(v, r.prefixed)
			s.Add(key, ok, sitetemplate.FileName(doc), r.maxSiteDF+1)
		}
	}
	kept := r.vals[:0]
	var dropped, lists int64
	for i, v := range r.vals {
		g := r.group[i]
		if g == 0 || r.groups[g-1].Count() <= r.maxSiteDF {
			kept = append(kept, v)
			continue
		}
		dropped++
		if s := &r.groups[g-1]; !s.written {
			s.written = true
			lists++
			if err := r.write('T', s.Docs(), [][]byte{v}); err != nil {
				return err
			}
		}
	}
	if dropped > 0 {
		r.c.Add("index.postings.site-template", dropped)
		r.c.Add("index.lists.site-template", lists)
	}
	r.vals = kept
	return nil
}

// siteDocs counts the documents of one templateKey in a list, and their
// pages; postings come sorted by document.
type siteDocs struct {
	lastDoc []byte
	written bool // its T record
	sitetemplate.Pages
}

// copyKey returns the copy key of a posting's site field (ok false: none).
func copyKey(v []byte, prefixed bool) (uint32, bool) {
	if prefixed {
		var ok bool
		for range 2 { // set, pos
			if _, v, ok = cutLast(v); !ok {
				return 0, false
			}
		}
	}
	site, _, _ := cutLast(v)
	_, key, ok := bytes.Cut(site, []byte{'~'})
	if !ok || len(key) != 8 {
		return 0, false
	}
	k, err := strconv.ParseUint(string(key), 16, 32)
	return uint32(k), err == nil
}

// distinctDocs returns the number of documents among postings sorted by
// document, counting up to limit.
func distinctDocs(vals [][]byte, limit int) int {
	n := 0
	var last []byte
	for _, v := range vals {
		if doc := postingDoc(v); n == 0 || !bytes.Equal(doc, last) {
			n++
			if n >= limit {
				return n
			}
			last = doc
		}
	}
	return n
}

// templateKey returns what a posting is grouped by to count a site's
// documents: a 64-bit hash of its site, and of its set for prefixed
// postings (never 0); ok is false without a site. The fields are found
// from the end of the posting, which is shorter than its start (the id).
func templateKey(v []byte, prefixed bool) (key uint64, ok bool) {
	var set []byte
	if prefixed {
		var pos []byte
		if set, v, ok = cutLast(v); !ok {
			return 0, false
		}
		if pos, v, ok = cutLast(v); !ok || len(pos) == 0 {
			return 0, false
		}
		if len(set) == 0 || set[0] != 'A' {
			// The set holds a token of one document only (its count u,
			// the set's first number, is not 0): no other document has
			// this sentence, so it is no site's template.
			return 0, false
		}
	}
	site, _, ok := cutLast(v)
	site, _, _ = bytes.Cut(site, []byte{'~'})
	site = bytes.TrimPrefix(site, []byte{doc.BatchMark})
	if !ok || len(site) != 8 {
		return 0, false // "-": no site
	}
	const m = 0x9e3779b97f4a7c15
	h := (binary.LittleEndian.Uint64(site) ^ uint64(len(set))) * m
	for ; len(set) >= 8; set = set[8:] {
		h = (h ^ binary.LittleEndian.Uint64(set)) * m
		h ^= h >> 31
	}
	var tail [8]byte
	copy(tail[:], set)
	h = (h ^ binary.LittleEndian.Uint64(tail[:])) * m
	h ^= h >> 29
	return max(h, 1), true
}

// cutLast cuts the last TAB-separated field off v.
func cutLast(v []byte) (last, rest []byte, ok bool) {
	i := bytes.LastIndexByte(v, '\t')
	if i < 0 {
		return nil, v, false
	}
	return v[i+1:], v[:i], true
}

func postingDoc(v []byte) []byte {
	doc, _, _ := bytes.Cut(v, []byte{'\t'})
	return doc
}
