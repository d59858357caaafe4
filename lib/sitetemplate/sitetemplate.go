// Package sitetemplate is the rule by which a sentence is a site's
// template: its words (its token set) are in more than --max-site-df pages
// of one site, where a page is a document and its copies. The index
// reducer applies it to every posting list (reducers/index) and leaves
// such postings out of matching; pdc dedup --templates applies it to whole
// documents (Counter) to cut what the run left out.
//
// A document's site is Site of its record's url field (lib/doc
// SiteField). Copies of a page are told apart from the pages of one
// template by CopyKey, a min-hash of the document's sentences, and by file
// name (FileName) for documents too short for a key; Pages counts them.
package sitetemplate

import (
	"fmt"
	"hash/fnv"
	"net/url"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Site returns the site of a parsed record's escaped url field
// (lib/doc/record.go): SiteOf its unescaped value.
func Site(escapedURL []byte) string {
	if len(escapedURL) == 0 {
		return "-"
	}
	raw, err := mr.Unescape(string(escapedURL))
	if err != nil {
		return "-"
	}
	return SiteOf(raw)
}

// SiteOf returns the site of a url field's value (lib/doc SiteField): the
// FNV-1a hash of the URL's lowercased host without a leading "www." in 8
// hex digits; for a named site ("site:NAME", not a URL) "n" and 7 hex
// digits of the name's hash, so that --cross-site-only, which is about URL
// hosts, can leave it alone; "-" when there is none.
func SiteOf(raw string) string {
	if raw == "" {
		return "-"
	}
	h := fnv.New32a()
	if strings.HasPrefix(raw, doc.SitePrefix) {
		h.Write([]byte(raw))
		return fmt.Sprintf("n%07x", h.Sum32()&0xfffffff)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "-"
	}
	h.Write([]byte(strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")))
	return fmt.Sprintf("%08x", h.Sum32())
}

// CopyKey is a document's copy key: two 16-bit hashes, each of the smallest
// sentence hashes of the document's sentences of at least minTokens tokens
// (a hash of each sentence's tokens in order) under one of two hash
// functions: the copyKeyK smallest, or one per copyKeyPer sentences of a
// shorter document. Two copies of a page that differ by a line or two (a
// mirror's banner and footer, a version number) share at least one of the
// two with high probability, so that they count as one page (Pages): a
// sentence in every copy of a mirrored manual is the manual's text, not
// its furniture. A document of fewer than copyKeyMin such sentences has
// none (ok false): a short page can be made mostly of its template, and
// pages of one template would share a key.
func CopyKey(sents []doc.Sentence, minTokens int) (key uint32, ok bool) {
	const m1, m2 = 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9
	var lo1, lo2 [copyKeyK]uint64
	for i := range lo1 {
		lo1[i], lo2[i] = 1<<64-1, 1<<64-1
	}
	n := 0
	for _, s := range sents {
		if len(s.Tokens) < minTokens || len(s.Tokens) == 0 {
			continue
		}
		n++
		h := uint64(len(s.Tokens))
		for _, t := range s.Tokens {
			h = (h ^ t) * m1
			h ^= h >> 29
		}
		h2 := (h ^ h>>31) * m2
		bottom(&lo1, h)
		bottom(&lo2, h2^h2>>32)
	}
	if n < copyKeyMin {
		return 0, false
	}
	k := min(copyKeyK, n/copyKeyPer)
	fold := func(lo *[copyKeyK]uint64) uint64 {
		h := uint64(k)
		for _, x := range lo[:k] {
			h = (h ^ x) * m1
			h ^= h >> 31
		}
		return h >> 48
	}
	return uint32(fold(&lo1)<<16 | fold(&lo2)), true
}

// The sentences a copy key is made of: the copyKeyK smallest hashes, or
// one per copyKeyPer sentences; documents of fewer than copyKeyMin have
// no key.
const copyKeyK, copyKeyPer, copyKeyMin = 3, 3, 8

// bottom keeps in lo the smallest hashes seen, ascending.
func bottom(lo *[copyKeyK]uint64, h uint64) {
	for i := range lo {
		if h == lo[i] {
			return
		}
		if h < lo[i] {
			copy(lo[i+1:], lo[i:len(lo)-1])
			lo[i] = h
			return
		}
	}
}

// Pages counts the pages among the documents of one site that hold a
// sentence: documents are added once each (Add), in any order.
type Pages struct {
	docs int
	// k1 and k2 are the distinct halves of the documents' copy keys, up
	// to a limit; names the distinct file names of the documents without
	// one.
	k1, k2, names []uint16
	// name is the first document's file name; oneName that every
	// document has it.
	name    uint16
	oneName bool
}

// Add adds a document: its copy key (ok false: none) and its file name
// (FileName), keeping at most limit distinct values of each half and of
// the file names of the documents without a key.
func (s *Pages) Add(key uint32, ok bool, name uint16, limit int) {
	add := func(ks []uint16, k uint16) []uint16 {
		if len(ks) < limit && !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
		return ks
	}
	s.docs++
	if s.docs == 1 {
		s.name, s.oneName = name, true
	} else if name != s.name {
		s.oneName = false
	}
	if !ok {
		s.names = add(s.names, name)
		return
	}
	s.k1, s.k2 = add(s.k1, uint16(key>>16)), add(s.k2, uint16(key))
}

// Docs is the number of documents added.
func (s *Pages) Docs() int { return s.docs }

// Count is the number of pages among the documents (at least up to the
// limit of Add): copies that share either half of their copy key count
// once, and so do documents without a key (short pages, whose few
// sentences a key would take from their template) that have the same file
// name.
func (s *Pages) Count() int {
	if s.oneName {
		return 1
	}
	return len(s.names) + min(len(s.k1), len(s.k2))
}

// FileName is a 16-bit hash of the last component of a document id's
// path: the copies of a short page in a mirrored or versioned tree keep
// their file name (v1/git-stage.html, v2/git-stage.html), while the pages
// a site's template is on have each their own.
func FileName[T string | []byte](id T) uint16 {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '/' {
			id = id[i+1:]
			break
		}
	}
	h := uint32(2166136261) // FNV-1a, without hash/fnv's allocation
	for i := 0; i < len(id); i++ {
		h = (h ^ uint32(id[i])) * 16777619
	}
	return uint16(h ^ h>>16)
}
