package span

import (
	"cmp"
	"encoding/binary"
	"iter"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// DocPair is a pair of documents and the spans they share.
type DocPair struct {
	A, B  string
	Spans []Span
	// SharedA and SharedB are the characters of A and of B inside some
	// span (overlapping spans counted once).
	SharedA, SharedB int
	// RangesA and RangesB are the character ranges of A and of B that
	// the pair shares (the spans' ends; with clusters, their members).
	RangesA, RangesB []ranges.Range
}

// Pairs groups spans in Compare order (as Read and Stream return them) by
// document pair.
func Pairs(spans []Span) []DocPair {
	var pairs []DocPair
	for _, s := range spans {
		if n := len(pairs); n == 0 || pairs[n-1].A != s.DocA || pairs[n-1].B != s.DocB {
			pairs = append(pairs, DocPair{A: s.DocA, B: s.DocB})
		}
		p := &pairs[len(pairs)-1]
		p.Spans = append(p.Spans, s)
	}
	for i := range pairs {
		pairs[i].measure()
	}
	return pairs
}

// StreamPairs calls f with the document pairs of a spans directory in
// Pairs' order, holding one pair's spans (Stream).
func StreamPairs(fsys hdfsfs.FS, dir string, f func(DocPair) error) error {
	var p DocPair
	flush := func() error {
		if len(p.Spans) == 0 {
			return nil
		}
		p.measure()
		err := f(p)
		p = DocPair{}
		return err
	}
	err := Stream(fsys, dir, func(s *Span) error {
		if len(p.Spans) > 0 && (p.A != s.DocA || p.B != s.DocB) {
			if err := flush(); err != nil {
				return err
			}
		}
		p.A, p.B = s.DocA, s.DocB
		p.Spans = append(p.Spans, *s)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// measure sets p's shared characters and ranges from its spans.
func (p *DocPair) measure() {
	var a, b []ranges.Range
	for _, s := range p.Spans {
		a = append(a, ranges.Range{Start: s.CharStartA, End: s.CharEndA})
		b = append(b, ranges.Range{Start: s.CharStartB, End: s.CharEndB})
	}
	p.SharedA, p.SharedB = ranges.Len(a), ranges.Len(b)
	p.RangesA, p.RangesB = a, b
}

// Measures are how much of two documents a pair's spans cover (the LCS
// paper's containment and resemblance, on characters rather than
// shingles): ContainA is the share of A's characters that lie in spans
// (how much of A is in B), ContainB the same for B, and Resemblance the
// shared characters over the characters of either, (SharedA + SharedB) /
// (LenA + LenB).
type Measures struct {
	LenA, LenB                      int
	ContainA, ContainB, Resemblance float64
	// ThinA and ThinB mark a document with too little content to judge
	// (MeasureContent): its containment says little.
	ThinA, ThinB bool
}

// Measure computes p's measures for documents of lenA and lenB characters.
func (p DocPair) Measure(lenA, lenB int) Measures {
	m := Measures{LenA: lenA, LenB: lenB}
	if lenA > 0 {
		m.ContainA = min(1, float64(p.SharedA)/float64(lenA))
	}
	if lenB > 0 {
		m.ContainB = min(1, float64(p.SharedB)/float64(lenB))
	}
	if lenA+lenB > 0 {
		m.Resemblance = min(1, float64(p.SharedA+p.SharedB)/float64(lenA+lenB))
	}
	return m
}

// Content is the part of a document that spans can match: its content
// sentences (not navigation, markup templates or lines without a letter:
// doc.Sentence.NotContent) of at least the run's --min-tokens tokens.
// Containment measured over it is what the copy holds of what can be
// copied: navigation and menus, never shared, do not make two identical
// pages look 0.8 alike.
type Content struct {
	// enc holds the content sentences' character ranges, in order, as
	// varints: each range's start after the previous end, then its length
	// (3 bytes a sentence where []ranges.Range takes 16: a run's commands
	// hold the content of every document they measure).
	enc  []byte
	last int // the end of the last range
	// hash holds each sentence's hash (its tokens in order, their digits
	// left out), when the content was made from an analysis (ContentOf):
	// sentences with equal hashes are the same words but for their
	// numbers (a mirror's "Mirror 01 of this manual" and "Mirror 02 ...",
	// a version, a date).
	hash []uint32
	// Chars is their length in characters, Sentences their number.
	Chars, Sentences int
}

// NewContent returns the content of the sentences of ranges rs, sorted
// and disjoint.
func NewContent(rs []ranges.Range) Content {
	var c Content
	for _, r := range rs {
		c.add(r)
	}
	return c
}

func (c *Content) add(r ranges.Range) {
	end := 0
	if c.Sentences > 0 {
		end = c.last
	}
	c.enc = binary.AppendUvarint(c.enc, uint64(r.Start-end))
	c.enc = binary.AppendUvarint(c.enc, uint64(r.End-r.Start))
	c.last = r.End
	c.Chars += r.End - r.Start
	c.Sentences++
}

// Ranges returns the content sentences' character ranges, in order.
func (c Content) Ranges() iter.Seq[ranges.Range] {
	return func(yield func(ranges.Range) bool) {
		b, end := c.enc, 0
		for len(b) > 0 {
			gap, n := binary.Uvarint(b)
			length, m := binary.Uvarint(b[n:])
			b = b[n+m:]
			r := ranges.Range{Start: end + int(gap), End: end + int(gap) + int(length)}
			if !yield(r) {
				return
			}
			end = r.End
		}
	}
}

// ContentOf returns the content of an analysed document.
func ContentOf(a doc.Analysis, minTokens int) Content {
	var c Content
	var tz sentence.Tokenizer
	var toks []uint64
	var buf []byte
	for i, s := range a.Sentences {
		if s.NotContent != "" || len(s.Tokens) < minTokens {
			continue
		}
		c.add(ranges.Range{Start: s.Start, End: s.End})
		h := sentenceHash(s.Tokens)
		if i < len(a.Spans) {
			if text := a.Text[a.Spans[i].ByteStart:a.Spans[i].ByteEnd]; strings.ContainsAny(text, "0123456789") {
				buf = buf[:0]
				for j := 0; j < len(text); j++ {
					if b := text[j]; b < '0' || b > '9' {
						buf = append(buf, b)
					}
				}
				toks = tz.Hashes(toks[:0], string(buf))
				h = sentenceHash(toks)
			}
		}
		c.hash = append(c.hash, h)
	}
	c.enc, c.hash = slices.Clip(c.enc), slices.Clip(c.hash)
	return c
}

// sentenceHash hashes a sentence's tokens in order.
func sentenceHash(tokens []uint64) uint32 {
	h := uint64(len(tokens))
	for _, t := range tokens {
		h = (h ^ t) * 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	return uint32(h ^ h>>32)
}

// Within is the length of the union of the ranges rs inside c's ranges.
func (c Content) Within(rs []ranges.Range) int { return ranges.InsideSeq(rs, c.Ranges()) }

// MeasureContent computes p's measures over the content of A and B: the
// shared characters are those of p's ranges inside content sentences,
// the lengths the content's (see Content). A document with fewer than
// minSentences content sentences (the run's --lambda: too little to
// judge) is Thin. Whole is set for an exact copy (lib/copies): it shares
// all of its content.
func (p DocPair) MeasureContent(a, b Content, minSentences int, whole bool) (Measures, int, int) {
	sa, sb := a.Chars, b.Chars
	if !whole {
		ra, rb := p.RangesA, p.RangesB
		if xa, xb := sameNeighbours(p.Spans, a, b); len(xa) > 0 {
			ra = append(slices.Clip(ra), xa...)
			rb = append(slices.Clip(rb), xb...)
		}
		sa, sb = a.Within(ra), b.Within(rb)
	}
	q := DocPair{SharedA: sa, SharedB: sb}
	m := q.Measure(a.Chars, b.Chars)
	m.ThinA, m.ThinB = a.Sentences < minSentences, b.Sentences < minSentences
	return m, sa, sb
}

// sameNeighbours returns the content sentences of A and of B that are the
// same words, in the same order, as the other side's next to a span: from
// each span's last sentences on, and back from its first, while the two
// sides' sentences are equal but for their numbers (Content hashes: a
// mirror's banner with its number, a version line); and, between two
// spans that follow each other on both sides, the longest sequence of
// equal sentences in order (commonSentences), past edited ones. They are
// shared although no span holds them: the run leaves a site's template out
// of its spans (a licence notice, an include shared by many pages, each
// mirror's banner), and two copies of a page share it all the same. Words
// only, never a sentence of other words; none without hashes (NewContent).
func sameNeighbours(spans []Span, a, b Content) (xa, xb []ranges.Range) {
	if len(spans) == 0 || len(a.hash) == 0 || len(b.hash) == 0 {
		return nil, nil
	}
	ra, rb := slices.Collect(a.Ranges()), slices.Collect(b.Ranges())
	// first and last content sentence meeting [start, end), or ok false.
	within := func(rs []ranges.Range, start, end int) (int, int, bool) {
		i, _ := slices.BinarySearchFunc(rs, start, func(r ranges.Range, t int) int {
			if r.End <= t {
				return -1
			}
			return 1
		})
		j := i
		for j < len(rs) && rs[j].Start < end {
			j++
		}
		return i, j - 1, j > i
	}
	// doneA[i], doneB[j]: the sentence lies in a span or was walked
	// already. A walk goes on while one of the pair is new, so that the
	// walks take at most as many steps as the two documents have
	// sentences, however many spans the pair has.
	doneA, doneB := make([]bool, len(ra)), make([]bool, len(rb))
	type bounds struct{ fa, la, fb, lb int }
	var bs []bounds
	for _, s := range spans {
		fa, la, okA := within(ra, s.CharStartA, s.CharEndA)
		fb, lb, okB := within(rb, s.CharStartB, s.CharEndB)
		if !okA || !okB {
			continue
		}
		for i := fa; i <= la; i++ {
			doneA[i] = true
		}
		for j := fb; j <= lb; j++ {
			doneB[j] = true
		}
		bs = append(bs, bounds{fa, la, fb, lb})
	}
	step := func(i, j int) bool {
		if doneA[i] && doneB[j] || a.hash[i] != b.hash[j] {
			return false
		}
		if !doneA[i] {
			doneA[i] = true
			xa = append(xa, ra[i])
		}
		if !doneB[j] {
			doneB[j] = true
			xb = append(xb, rb[j])
		}
		return true
	}
	for _, x := range bs {
		for i, j := x.la+1, x.lb+1; i < len(ra) && j < len(rb) && step(i, j); i, j = i+1, j+1 {
		}
		for i, j := x.fa-1, x.fb-1; i >= 0 && j >= 0 && step(i, j); i, j = i-1, j-1 {
		}
	}
	// Between two spans that follow each other on both sides, the
	// sentences left are paired as the longest common subsequence of
	// equal ones: an edited sentence stops the walks, not what follows it
	// (a long include, shared by many pages and so left out of the spans,
	// with one sentence changed between two releases of a page).
	// Each span's gap is bounded by the nearest span that ends before it
	// on both sides (an echo of a span elsewhere in B bounds none).
	slices.SortFunc(bs, func(x, y bounds) int { return cmp.Or(cmp.Compare(x.fa, y.fa), cmp.Compare(x.fb, y.fb)) })
	var gapA, gapB []int
	for k, y := range bs {
		xi := -1
		for i, x := range bs[:k] {
			if x.la < y.fa && x.lb < y.fb && (xi < 0 || x.la > bs[xi].la || x.la == bs[xi].la && x.lb > bs[xi].lb) {
				xi = i
			}
		}
		if xi < 0 {
			continue
		}
		x := bs[xi]
		gapA, gapB = gapA[:0], gapB[:0]
		for i := x.la + 1; i < y.fa; i++ {
			if !doneA[i] {
				gapA = append(gapA, i)
			}
		}
		for j := x.lb + 1; j < y.fb; j++ {
			if !doneB[j] {
				gapB = append(gapB, j)
			}
		}
		for _, m := range commonSentences(gapA, gapB, a.hash, b.hash) {
			step(m[0], m[1])
		}
	}
	return xa, xb
}

// MaxGapCells bounds the table of commonSentences: gaps of more sentence
// pairs are not paired.
const MaxGapCells = 1 << 18

// commonSentences returns a longest common subsequence of the sentences
// ia of A and ib of B by their hashes, as index pairs, in order; none
// when the gap is over MaxGapCells.
func commonSentences(ia, ib []int, ha, hb []uint32) [][2]int {
	n, m := len(ia), len(ib)
	if n == 0 || m == 0 || (n+1)*(m+1) > MaxGapCells {
		return nil
	}
	w := m + 1
	l := make([]int32, (n+1)*w) // l[i*w+j]: the LCS of ia[i:] and ib[j:]
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if ha[ia[i]] == hb[ib[j]] {
				l[i*w+j] = l[(i+1)*w+j+1] + 1
			} else {
				l[i*w+j] = max(l[(i+1)*w+j], l[i*w+j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case ha[ia[i]] == hb[ib[j]]:
			out = append(out, [2]int{ia[i], ib[j]})
			i, j = i+1, j+1
		case l[(i+1)*w+j] >= l[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}
