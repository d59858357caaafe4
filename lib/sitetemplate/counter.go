package sitetemplate

import (
	"encoding/binary"
	"slices"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/ranges"
)

// Counter applies the rule to whole documents, as the index reducer
// applies it to posting lists: Add each document of a run once (the first
// of each id; in any order), then Templates says which sentences of a
// document are its site's template. A sentence counts when it has at least
// minTokens tokens (what the index job indexes); its key is its site and
// its set of tokens, so that it stands for every sentence of the site with
// the same words, as in the reducer's lists. Counter keeps a few words per
// distinct sentence of the collection, and more for the sentences in two
// documents or more.
type Counter struct {
	maxSiteDF, minTokens int

	keys  map[uint64]int32 // sentence key -> index in slots
	slots []slot
	pages []Pages
	docs  uint32
	buf   []uint64
}

// slot is one sentence key: the first document that holds it (its copy
// key and file name), the last (to add each document once) and its Pages
// once a second document holds it.
type slot struct {
	last     uint32 // the last document's number
	key      uint32
	name     uint16
	hasKey   bool
	pagesIdx int32 // index in pages + 1; 0: one document so far
}

// NewCounter returns a Counter for --max-site-df maxSiteDF (> 0) and
// --min-tokens minTokens.
func NewCounter(maxSiteDF, minTokens int) *Counter {
	return &Counter{maxSiteDF: maxSiteDF, minTokens: minTokens, keys: map[uint64]int32{}}
}

// Add adds document id of site (SiteOf; "-": none, which has no template)
// with its sentences.
func (c *Counter) Add(id, site string, sents []doc.Sentence) {
	if site == "-" {
		return
	}
	c.docs++
	key, hasKey := CopyKey(sents, c.minTokens)
	name := FileName(id)
	limit := c.maxSiteDF + 1
	for i := range sents {
		k, ok := sentenceKey(&c.buf, site, &sents[i], c.minTokens)
		if !ok {
			continue
		}
		j, seen := c.keys[k]
		if !seen {
			c.keys[k] = int32(len(c.slots))
			c.slots = append(c.slots, slot{last: c.docs, key: key, name: name, hasKey: hasKey})
			continue
		}
		s := &c.slots[j]
		if s.last == c.docs {
			continue // a sentence of the document again
		}
		s.last = c.docs
		if s.pagesIdx == 0 {
			c.pages = append(c.pages, Pages{})
			s.pagesIdx = int32(len(c.pages))
			c.pages[s.pagesIdx-1].Add(s.key, s.hasKey, s.name, limit)
		}
		c.pages[s.pagesIdx-1].Add(key, hasKey, name, limit)
	}
}

// Templates returns, for each of a document's sentences, whether it is a
// template of the document's site: its words are in more than maxSiteDF
// pages of the site among the documents added. The document need not have
// been added. Once every document is added, goroutines may call Templates
// at once.
func (c *Counter) Templates(site string, sents []doc.Sentence) []bool {
	out := make([]bool, len(sents))
	if site == "-" {
		return out
	}
	var buf []uint64
	for i := range sents {
		k, ok := sentenceKey(&buf, site, &sents[i], c.minTokens)
		if !ok {
			continue
		}
		if j, seen := c.keys[k]; seen {
			if p := c.slots[j].pagesIdx; p > 0 && c.pages[p-1].Count() > c.maxSiteDF {
				out[i] = true
			}
		}
	}
	return out
}

// sentenceKey is a 64-bit hash of a site and a sentence's set of tokens
// (sorted in buf); ok is false for a sentence the index job does not
// index (fewer than minTokens tokens).
func sentenceKey(buf *[]uint64, site string, s *doc.Sentence, minTokens int) (uint64, bool) {
	if len(s.Tokens) < minTokens || len(s.Tokens) == 0 {
		return 0, false
	}
	set := append((*buf)[:0], s.Tokens...)
	slices.Sort(set)
	set = slices.Compact(set)
	*buf = set
	const m = 0x9e3779b97f4a7c15
	var b [8]byte
	copy(b[:], site)
	h := (binary.LittleEndian.Uint64(b[:]) ^ uint64(len(set))) * m
	for _, t := range set {
		h = (h ^ t) * m
		h ^= h >> 31
	}
	return h ^ h>>29, true
}

// Blocks returns the character ranges of the runs of template sentences
// (tmpl, as Templates gives it) in sents: consecutive template sentences
// make one range, and so do two with only sentences between them that the
// index job does not index (fewer than minTokens tokens, or not content:
// a menu's short items, a separator).
func Blocks(sents []doc.Sentence, tmpl []bool, minTokens int) []ranges.Range {
	var out []ranges.Range
	open := -1 // the first sentence of the current run
	last := -1 // its last template sentence
	flush := func() {
		if open >= 0 {
			out = append(out, ranges.Range{Start: sents[open].Start, End: sents[last].End})
		}
		open, last = -1, -1
	}
	for i := range sents {
		switch {
		case tmpl[i]:
			if open < 0 {
				open = i
			}
			last = i
		case len(sents[i].Tokens) < minTokens || len(sents[i].Tokens) == 0:
			// crossed when a template sentence follows
		default:
			flush()
		}
	}
	flush()
	return out
}
