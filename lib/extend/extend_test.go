package extend

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/pdc-mr/pdc/lib/doc"
)

var update = flag.Bool("update", false, "rewrite golden files")

// notContent starts the text of a test sentence that is not content (no
// token, Content false), as lib/doc records navigation or template text.
const notContent = "\x00"

// words returns the token hashes of a sentence as lib/doc gives them: its
// lowercase words (runs of letters and digits), FNV-1a 64, in order.
func words(s string) []uint64 {
	var out []uint64
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New64a()
		h.Write([]byte(w))
		out = append(out, h.Sum64())
	}
	return out
}

// sentences returns a document made of texts joined by one space: its
// sentences as lib/doc decodes them (rune offsets, token hashes; none for
// a text starting with notContent) and its text.
func sentences(texts ...string) ([]doc.Sentence, string) {
	var sb strings.Builder
	var sents []doc.Sentence
	pos := 0
	for i, s := range texts {
		if i > 0 {
			sb.WriteByte(' ')
			pos++
		}
		var ds doc.Sentence
		if t, ok := strings.CutPrefix(s, notContent); ok {
			s = t
			ds.NotContent = doc.NotContentLinks
		} else {
			ds.Tokens = words(s)
		}
		ds.Start, ds.End = pos, pos+len([]rune(s))
		sb.WriteString(s)
		pos = ds.End
		sents = append(sents, ds)
	}
	return sents, sb.String()
}

// sentence returns a document's sentence as extension sees it: the low 32
// bits of its token hashes, sorted and distinct.
func sentence(s doc.Sentence) Sentence {
	set := make([]uint32, 0, len(s.Tokens))
	for _, t := range s.Tokens {
		set = append(set, uint32(t))
	}
	slices.Sort(set)
	return Sentence{Start: s.Start, End: s.End, Tokens: slices.Compact(set), Content: len(s.Tokens) > 0}
}

// testDoc is a test document: all its sentences as a Side, and its text.
type testDoc struct {
	side Side
	text string
}

func newDoc(texts ...string) testDoc {
	sents, text := sentences(texts...)
	side := Side{}
	for i, s := range sents {
		side[i] = sentence(s)
	}
	return testDoc{side, text}
}

// window returns d with only its sentences from..to: a window cut short.
func (d testDoc) window(from, to int) testDoc {
	side := Side{}
	for i := from; i <= to; i++ {
		side[i] = d.side[i]
	}
	return testDoc{side, d.text}
}

// run returns the seed over sentences startA..endA of a and startB..endB
// of b, with the rune offsets of those sentences.
func run(a, b testDoc, startA, startB, endA, endB, length int, score float64, span bool) Seed {
	return Seed{
		StartA: startA, StartB: startB, EndA: endA, EndB: endB, Length: length,
		CharStartA: a.side[startA].Start, CharEndA: a.side[endA].End,
		CharStartB: b.side[startB].Start, CharEndB: b.side[endB].End,
		Score: score, Span: span,
	}
}

// span returns a span (run with Span set).
func span(a, b testDoc, startA, startB, endA, endB, length int, score float64) Seed {
	return run(a, b, startA, startB, endA, endB, length, score, true)
}

// defaults are the test parameters.
var defaults = Params{Tau: 0.5, JoinTau: 0.7, Gap: 1, Lambda: 3, MinTokens: 3, MinChars: 50}

// Unrelated sentences of document A (ua) and of document B (ub): no two of
// them, nor any of them with a copied sentence, share more than two words.
const (
	ua0 = "Tickets for the museum cost four pounds for adults."
	ua1 = "The bakery on the corner sells fresh bread until noon."
	ua2 = "Parking is free on Sundays and public holidays."
	ua3 = "Our school choir will perform at the spring concert."
	ua4 = "A new cycle path now links the station with the park."
	ub0 = "Mix two cups of flour with a pinch of salt."
	ub1 = "The football club signed a young striker last week."
	ub2 = "Heavy rain is expected across the north tomorrow."
	ub3 = "Please return library books within three weeks."
	ub4 = "Prices for electricity rose sharply over the winter."
	ub5 = "The cinema shows classic films every Thursday night."
	ub6 = "Volunteers cleaned litter from the beach on Saturday."
)

// Copied sentences (c), and edited copies (A and B versions) with the
// Jaccard similarity of their word sets.
const (
	c1 = "A keeper climbed the narrow stairs each evening to light the lamp."
	c2 = "Ships far out at sea watched for its steady white beam."
	c3 = "During winter storms the light burned through whole nights."
	c5 = "In 1921 an electric lamp replaced the old oil burner."
	c6 = "The last keeper retired when the station became automatic."
	c7 = "Today the tower is a small museum run by volunteers."

	// 3 of 10 words substituted: 7/13.
	e1A = "Fishing boats left the harbour before dawn every single morning."
	e1B = "Fishing ships left the port before sunrise every single morning."
	j1  = 7.0 / 13
	// Another edit of e1A: 7/13.
	e1C = "Fishing vessels left the quay before dawn every single day."
	// 3 of 11 words substituted: 8/14.
	e2A = "Travellers said its glow could be seen from twenty miles away."
	e2B = "Sailors said its glow could be noticed from thirty miles away."
	j2  = 8.0 / 14
	// Edits of c5 (7/13) and c3 (6/12).
	c5e = "In 1923 an electric bulb replaced the old gas burner."
	j5  = 7.0 / 13
	c3e = "During autumn storms the beacon burned through long nights."
	j3  = 6.0 / 12

	// Two sentences (7 words each) and the two merged into one (a full
	// stop removed) with one word substituted: 13/15; each half is 7/14
	// of the merged one (X) and 6/15 (Y).
	mX  = "The storm damaged the roof of the old church."
	mY  = "Repairs took almost two years to finish."
	mXY = "The storm damaged the roof of the old church repairs took nearly two years to finish."
	jm  = 13.0 / 15

	// A long sentence (13 words) and a short one (4) merged into one: the
	// long one alone is a pair of the join (13/17), the rest of the merged
	// one is absorbed.
	mL  = "Every summer the harbour festival brings music, food stalls and fireworks to the quay."
	mS  = "Thousands of visitors attend."
	mLS = "Every summer the harbour festival brings music, food stalls and fireworks to the quay thousands of visitors attend."
	jl  = 13.0 / 17
)

// extendCase is a case of Extend: two documents, the seeds, the
// parameters (zero: defaults) and the spans and counts wanted.
type extendCase struct {
	name  string
	a, b  testDoc
	seeds []Seed
	p     Params
	want  []Seed
	c     Counts
}

// round4 rounds the scores of seeds to 4 decimals, as the spans TSV
// writes them, without their evidence, which it does not write
// (TestExtendEvidence checks it).
func round4(seeds []Seed) []Seed {
	seeds = slices.Clone(seeds)
	for i := range seeds {
		seeds[i].Score = math.Round(seeds[i].Score*1e4) / 1e4
		seeds[i].Evidence = 0
	}
	return seeds
}

func runCases(t *testing.T, tests []extendCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			if p == (Params{}) {
				p = defaults
			}
			in := slices.Clone(tt.seeds)
			var c Counts
			got := Extend(in, tt.a.side, tt.b.side, p, &c)
			if !reflect.DeepEqual(round4(got), round4(tt.want)) {
				t.Errorf("Extend\n got %+v\nwant %+v", got, tt.want)
			}
			if c != tt.c {
				t.Errorf("counts %+v, want %+v", c, tt.c)
			}
			if !reflect.DeepEqual(in, tt.seeds) {
				t.Errorf("Extend changed its seeds: %+v, was %+v", in, tt.seeds)
			}
		})
	}
}

// TestExtendEdited shows a span growing over the edited copies next to it:
// at its start and at its end, past a sentence inserted in one side (a
// skip of Gap, none with Gap 0) and over a sentence that is not content.
func TestExtendEdited(t *testing.T) {
	a := newDoc(ua0, ua1, e1A, c1, c2, c3, e2A, ua2, ua3)
	b := newDoc(ub0, ub1, e1B, c1, c2, c3, e2B, ub2, ub3)
	ins := newDoc(ub0, ub1, c1, c2, c3, ub5, e2B, ub2, ub3)
	a2 := newDoc(ua0, ua1, c1, c2, c3, e2A, ua2, ua3)
	nav := newDoc(ua0, ua1, c1, c2, c3, notContent+"Home | News | Contact", e2A, ua2, ua3)
	b2 := newDoc(ub0, ub1, c1, c2, c3, e2B, ub2, ub3)
	gap0 := defaults
	gap0.Gap = 0
	runCases(t, []extendCase{
		{name: "grows at both ends", a: a, b: b,
			seeds: []Seed{span(a, b, 3, 3, 5, 5, 3, 1)},
			want:  []Seed{span(a, b, 2, 2, 6, 6, 5, (3+j1+j2)/5)},
			c:     Counts{Spans: 1, Steps: 2, Extended: 1, Out: 1}},
		{name: "inserted sentence of B skipped", a: a2, b: ins,
			seeds: []Seed{span(a2, ins, 2, 2, 4, 4, 3, 1)},
			want:  []Seed{span(a2, ins, 2, 2, 5, 6, 4, (3+j2)/4)},
			c:     Counts{Spans: 1, Steps: 1, Extended: 1, Out: 1}},
		{name: "inserted sentence not skipped with gap 0", a: a2, b: ins, p: gap0,
			seeds: []Seed{span(a2, ins, 2, 2, 4, 4, 3, 1)},
			want:  []Seed{span(a2, ins, 2, 2, 4, 4, 3, 1)},
			c:     Counts{Spans: 1, Out: 1}},
		{name: "not content stepped over", a: nav, b: b2,
			seeds: []Seed{span(nav, b2, 2, 2, 4, 4, 3, 1)},
			want:  []Seed{span(nav, b2, 2, 2, 6, 5, 4, (3+j2)/4)},
			c:     Counts{Spans: 1, Steps: 1, Extended: 1, Out: 1}},
	})
}

// TestExtendJoin shows two spans separated by an edited pair joined into
// one with the pair counted, separated by a rewritten pair joined over the
// gap without it, and separated by two rewritten pairs (more than Gap)
// left apart.
func TestExtendJoin(t *testing.T) {
	a := newDoc(ua0, ua1, c1, c2, c3, e1A, c5, c6, c7, ua2, ua3)
	b := newDoc(ub0, ub1, c1, c2, c3, e1B, c5, c6, c7, ub2, ub3)
	rw := newDoc(ub0, ub1, c1, c2, c3, ub5, c5, c6, c7, ub2, ub3)
	a2 := newDoc(ua0, ua1, c1, c2, c3, e1A, e2A, c5, c6, c7, ua2, ua3)
	rw2 := newDoc(ub0, ub1, c1, c2, c3, ub5, ub6, c5, c6, c7, ub2, ub3)
	runCases(t, []extendCase{
		{name: "edited pair in the middle", a: a, b: b,
			seeds: []Seed{span(a, b, 6, 6, 8, 8, 3, 1), span(a, b, 2, 2, 4, 4, 3, 1)},
			want:  []Seed{span(a, b, 2, 2, 8, 8, 7, (6+j1)/7)},
			c:     Counts{Spans: 2, Steps: 1, Extended: 1, Joined: 1, Out: 1}},
		{name: "rewritten pair in the middle", a: a, b: rw,
			seeds: []Seed{span(a, rw, 2, 2, 4, 4, 3, 1), span(a, rw, 6, 6, 8, 8, 3, 0.9)},
			want:  []Seed{span(a, rw, 2, 2, 8, 8, 6, 0.95)},
			c:     Counts{Spans: 2, Joined: 1, Out: 1}},
		{name: "two rewritten pairs in the middle", a: a2, b: rw2,
			seeds: []Seed{span(a2, rw2, 2, 2, 4, 4, 3, 1), span(a2, rw2, 7, 7, 9, 9, 3, 1)},
			want:  []Seed{span(a2, rw2, 2, 2, 4, 4, 3, 1), span(a2, rw2, 7, 7, 9, 9, 3, 1)},
			c:     Counts{Spans: 2, Out: 2}},
	})
}

// TestExtendMergeSplit shows a 2:1 step over two sentences of A merged
// into one of B after a span, a 1:2 step over one sentence of A split in
// two of B before a span, and the rest of a merged sentence whose first
// part ends the span absorbed (no step, no pair), unless it brings fewer
// than MinTokens shared tokens.
func TestExtendMergeSplit(t *testing.T) {
	am := newDoc(ua0, ua1, c1, c2, c3, mX, mY, ua2, ua3)
	bm := newDoc(ub0, ub1, c1, c2, c3, mXY, ub2, ub3)
	as := newDoc(ua0, ua1, mXY, c1, c2, c3, ua2, ua3)
	bs := newDoc(ub0, ub1, mX, mY, c1, c2, c3, ub2, ub3)
	aa := newDoc(ua0, ua1, c1, c2, mL, mS, ua2, ua3)
	ba := newDoc(ub0, ub1, c1, c2, mLS, ub2, ub3)
	// The rest shares 2 of its 3 words with the merged sentence: 15/17
	// with the long one added, more than its 13/16 alone.
	aa2 := newDoc(ua0, ua1, c1, c2, mL, "Thousands of visitors.", ua2, ua3)
	ba2 := newDoc(ub0, ub1, c1, c2, strings.TrimSuffix(mL, ".")+" thousands of people.", ub2, ub3)
	runCases(t, []extendCase{
		{name: "merge after", a: am, b: bm,
			seeds: []Seed{span(am, bm, 2, 2, 4, 4, 3, 1)},
			want:  []Seed{span(am, bm, 2, 2, 6, 5, 4, (3+jm)/4)},
			c:     Counts{Spans: 1, Steps: 1, Merges: 1, Extended: 1, Out: 1}},
		{name: "merge at the end absorbed", a: aa, b: ba,
			seeds: []Seed{span(aa, ba, 2, 2, 4, 4, 3, (2+jl)/3)},
			want:  []Seed{span(aa, ba, 2, 2, 5, 4, 3, (2+jl)/3)},
			c:     Counts{Spans: 1, Extended: 1, Out: 1}},
		{name: "rest sharing two words not absorbed", a: aa2, b: ba2,
			seeds: []Seed{span(aa2, ba2, 2, 2, 4, 4, 3, 0.9)},
			want:  []Seed{span(aa2, ba2, 2, 2, 4, 4, 3, 0.9)},
			c:     Counts{Spans: 1, Out: 1}},
		{name: "split before", a: as, b: bs,
			seeds: []Seed{span(as, bs, 3, 4, 5, 6, 3, 1)},
			want:  []Seed{span(as, bs, 2, 2, 5, 6, 4, (3+jm)/4)},
			c:     Counts{Spans: 1, Steps: 1, Splits: 1, Extended: 1, Out: 1}},
	})
}

// TestExtendNoGrowth shows a span that stays as it is: next to unrelated
// sentences, and next to short sentences with two words in common
// (Jaccard 0.5 but fewer than MinTokens shared), which are steps with
// MinTokens 2.
func TestExtendNoGrowth(t *testing.T) {
	a := newDoc(ua0, ua1, c1, c2, c3, ua2, ua3)
	b := newDoc(ub0, ub1, c1, c2, c3, ub2, ub3)
	as := newDoc(ua0, ua1, "Intro one here.", c1, c2, c3, "Thanks for reading.", ua2, ua3)
	bs := newDoc(ub0, ub1, "Intro two here.", c1, c2, c3, "Thanks for watching.", ub2, ub3)
	min2 := defaults
	min2.MinTokens = 2
	runCases(t, []extendCase{
		{name: "unrelated", a: a, b: b,
			seeds: []Seed{span(a, b, 2, 2, 4, 4, 3, 0.95)},
			want:  []Seed{span(a, b, 2, 2, 4, 4, 3, 0.95)},
			c:     Counts{Spans: 1, Out: 1}},
		{name: "two shared words", a: as, b: bs,
			seeds: []Seed{span(as, bs, 3, 3, 5, 5, 3, 1)},
			want:  []Seed{span(as, bs, 3, 3, 5, 5, 3, 1)},
			c:     Counts{Spans: 1, Out: 1}},
		{name: "two shared words with MinTokens 2", a: as, b: bs, p: min2,
			seeds: []Seed{span(as, bs, 3, 3, 5, 5, 3, 1)},
			want:  []Seed{span(as, bs, 2, 2, 6, 6, 5, 0.8)},
			c:     Counts{Spans: 1, Steps: 2, Extended: 1, Out: 1}},
	})
}

// TestExtendJoinTau shows that a 1:1 step must be less similar than the
// join's threshold: an identical neighbour pair, or one with one word
// substituted (9/11), is a pair the join left out and is not stepped on,
// unless the match gave it as a single pair or JoinTau is 0.
func TestExtendJoinTau(t *testing.T) {
	const tpl = "Subscribe to our newsletter for weekly news and special offers."
	a := newDoc(ua0, ua1, c1, c2, c3, tpl, ua2, ua3)
	b := newDoc(ub0, ub1, c1, c2, c3, tpl, ub2, ub3)
	b1 := newDoc(ub0, ub1, c1, c2, c3, strings.Replace(tpl, "weekly", "monthly", 1), ub2, ub3)
	noJoin := defaults
	noJoin.JoinTau = 0
	single := run(a, b, 5, 5, 5, 5, 1, 1, false)
	runCases(t, []extendCase{
		{name: "identical", a: a, b: b,
			seeds: []Seed{span(a, b, 2, 2, 4, 4, 3, 0.9)},
			want:  []Seed{span(a, b, 2, 2, 4, 4, 3, 0.9)},
			c:     Counts{Spans: 1, Out: 1}},
		{name: "one word substituted", a: a, b: b1,
			seeds: []Seed{span(a, b1, 2, 2, 4, 4, 3, 0.9)},
			want:  []Seed{span(a, b1, 2, 2, 4, 4, 3, 0.9)},
			c:     Counts{Spans: 1, Out: 1}},
		{name: "identical given as a single pair", a: a, b: b,
			seeds: []Seed{single, span(a, b, 2, 2, 4, 4, 3, 0.9)},
			want:  []Seed{span(a, b, 2, 2, 5, 5, 4, (2.7+1)/4)},
			c:     Counts{Spans: 1, Pairs: 1, Steps: 1, Extended: 1, Out: 1}},
		{name: "identical with JoinTau 0", a: a, b: b, p: noJoin,
			seeds: []Seed{span(a, b, 2, 2, 4, 4, 3, 0.9)},
			want:  []Seed{span(a, b, 2, 2, 5, 5, 4, (2.7+1)/4)},
			c:     Counts{Spans: 1, Steps: 1, Extended: 1, Out: 1}},
	})
}

// TestExtendCandidates shows candidates: one that grows to Lambda pairs
// becomes a span, one whose gap is an edited pair or a merge is filled,
// one that cannot grow is dropped, one short of MinChars on either side is
// dropped (exactly MinChars is enough), one
// of 2 pairs over 3 sentences is dropped when it did not grow (a
// rewritten pair between) and kept when it grew by a sentence absorbed
// into its last pair (a merge the match could not see), and a single pair
// alone gives nothing.
func TestExtendCandidates(t *testing.T) {
	a := newDoc(ua0, ua1, c1, c2, e2A, ua2, ua3)
	b := newDoc(ub0, ub1, c1, c2, e2B, ub2, ub3)
	au := newDoc(ua0, ua1, c1, c2, ua2, ua3)
	bu := newDoc(ub0, ub1, c1, c2, ub2, ub3)
	ag := newDoc(ua0, ua1, c1, e1A, c2, ua2, ua3)
	bg := newDoc(ub0, ub1, c1, e1B, c2, ub2, ub3)
	bw := newDoc(ub0, ub1, c1, ub5, c2, ub2, ub3)
	am := newDoc(ua0, ua1, c1, mX, mY, c2, ua2, ua3)
	bm := newDoc(ub0, ub1, c1, mXY, c2, ub2, ub3)
	aa := newDoc(ua0, ua1, c2, mL, mS, ua2, ua3)
	ba := newDoc(ub0, ub1, c2, mLS, ub2, ub3)
	long := defaults
	long.MinChars = 1000
	// The candidate of a and b grown over a sentence inserted in B (bi) or
	// in A (ai): one side is longer than the other.
	bi := newDoc(ub0, ub1, c1, c2, ub5, e2B, ub2, ub3)
	ai := newDoc(ua0, ua1, c1, c2, ua3, e2A, ua2, ua4)
	extA, extB := a.side[4].End-a.side[2].Start, b.side[4].End-b.side[2].Start
	shortA, shortB, exact := defaults, defaults, defaults
	shortA.MinChars, shortB.MinChars, exact.MinChars = extA+1, extB+1, extA
	runCases(t, []extendCase{
		{name: "grows into a span", a: a, b: b,
			seeds: []Seed{run(a, b, 2, 2, 3, 3, 2, 1, false)},
			want:  []Seed{span(a, b, 2, 2, 4, 4, 3, (2+j2)/3)},
			c:     Counts{Candidates: 1, Steps: 1, New: 1, Out: 1}},
		{name: "gap filled", a: ag, b: bg,
			seeds: []Seed{run(ag, bg, 2, 2, 4, 4, 2, 1, false)},
			want:  []Seed{span(ag, bg, 2, 2, 4, 4, 3, (2+j1)/3)},
			c:     Counts{Candidates: 1, Steps: 1, New: 1, Out: 1}},
		{name: "cannot grow", a: au, b: bu,
			seeds: []Seed{run(au, bu, 2, 2, 3, 3, 2, 1, false)},
			c:     Counts{Candidates: 1}},
		{name: "short of MinChars", a: a, b: b, p: long,
			seeds: []Seed{run(a, b, 2, 2, 3, 3, 2, 1, false)},
			c:     Counts{Candidates: 1, Steps: 1}},
		{name: "A side short of MinChars", a: a, b: bi, p: shortA,
			seeds: []Seed{run(a, bi, 2, 2, 3, 3, 2, 1, false)},
			c:     Counts{Candidates: 1, Steps: 1}},
		{name: "B side short of MinChars", a: ai, b: b, p: shortB,
			seeds: []Seed{run(ai, b, 2, 2, 3, 3, 2, 1, false)},
			c:     Counts{Candidates: 1, Steps: 1}},
		{name: "exactly MinChars", a: a, b: bi, p: exact,
			seeds: []Seed{run(a, bi, 2, 2, 3, 3, 2, 1, false)},
			want:  []Seed{span(a, bi, 2, 2, 4, 5, 3, (2+j2)/3)},
			c:     Counts{Candidates: 1, Steps: 1, New: 1, Out: 1}},
		{name: "merge filled", a: am, b: bm,
			seeds: []Seed{run(am, bm, 2, 2, 5, 4, 2, 1, false)},
			want:  []Seed{span(am, bm, 2, 2, 5, 4, 3, (2+jm)/3)},
			c:     Counts{Candidates: 1, Steps: 1, Merges: 1, New: 1, Out: 1}},
		{name: "two pairs over three sentences not grown", a: ag, b: bw,
			seeds: []Seed{run(ag, bw, 2, 2, 4, 4, 2, 1, false)},
			c:     Counts{Candidates: 1}},
		{name: "two pairs grown over three sentences", a: aa, b: ba,
			seeds: []Seed{run(aa, ba, 2, 2, 3, 3, 2, (1+jl)/2, false)},
			want:  []Seed{span(aa, ba, 2, 2, 4, 3, 2, (1+jl)/2)},
			c:     Counts{Candidates: 1, New: 1, Out: 1}},
		{name: "single pair alone", a: a, b: b,
			seeds: []Seed{run(a, b, 2, 2, 2, 2, 1, 1, false)},
			c:     Counts{Pairs: 1}},
	})
}

// TestExtendClaimed shows that extension never aligns a sentence another
// seed holds or another extension took: two spans on different diagonals
// whose edited neighbours lie in the other span stay as they are (each
// alone grows), the rest of a merged sentence that another span holds is
// not absorbed, and of two spans that both could step on one free
// sentence of A, the first takes it.
func TestExtendClaimed(t *testing.T) {
	a := newDoc(ua0, ua1, c1, c2, c3, c5, c6, c7, ua2, ua3)
	b := newDoc(ub0, ub1, c1, c2, c3, c5e, ub2, ub3, ub4, c3e, c5, c6, c7, ub5, ub6)
	s1, s2 := span(a, b, 2, 2, 4, 4, 3, 1), span(a, b, 5, 10, 7, 12, 3, 1)
	af := newDoc(ua0, ua1, c1, c2, c3, e1A, c5, c6, c7, ua2, ua3)
	bf := newDoc(ub0, ub1, c1, c2, c3, e1B, ub2, ub3, e1C, c5, c6, c7, ub4, ub5)
	// A 4 and 5 merged into B 4 end the first span, A 5..7 is B 8..10.
	aa := newDoc(ua0, ua1, c1, c2, mL, mS, c5, c6, ua2, ua3)
	ba := newDoc(ub0, ub1, c1, c2, mLS, ub2, ub3, ub4, mS, c5, c6, ub5, ub6)
	sa1, sa2 := span(aa, ba, 2, 2, 4, 4, 3, 0.9), span(aa, ba, 5, 8, 7, 10, 3, 1)
	runCases(t, []extendCase{
		{name: "both", a: a, b: b, seeds: []Seed{s2, s1},
			want: []Seed{s1, s2},
			c:    Counts{Spans: 2, Out: 2}},
		{name: "first alone", a: a, b: b, seeds: []Seed{s1},
			want: []Seed{span(a, b, 2, 2, 5, 5, 4, (3+j5)/4)},
			c:    Counts{Spans: 1, Steps: 1, Extended: 1, Out: 1}},
		{name: "second alone", a: a, b: b, seeds: []Seed{s2},
			want: []Seed{span(a, b, 4, 9, 7, 12, 4, (3+j3)/4)},
			c:    Counts{Spans: 1, Steps: 1, Extended: 1, Out: 1}},
		{name: "rest of a merge held by another seed not absorbed", a: aa, b: ba,
			seeds: []Seed{sa1, sa2},
			want:  []Seed{sa1, sa2},
			c:     Counts{Spans: 2, Out: 2}},
		{name: "rest of a merge absorbed", a: aa, b: ba,
			seeds: []Seed{sa1},
			want:  []Seed{span(aa, ba, 2, 2, 5, 4, 3, 0.9)},
			c:     Counts{Spans: 1, Extended: 1, Out: 1}},
		{name: "free sentence taken by the first", a: af, b: bf,
			seeds: []Seed{span(af, bf, 6, 9, 8, 11, 3, 1), span(af, bf, 2, 2, 4, 4, 3, 1)},
			want:  []Seed{span(af, bf, 2, 2, 5, 5, 4, (3+j1)/4), span(af, bf, 6, 9, 8, 11, 3, 1)},
			c:     Counts{Spans: 2, Steps: 1, Extended: 1, Out: 2}},
		{name: "free sentence taken by the second alone", a: af, b: bf,
			seeds: []Seed{span(af, bf, 6, 9, 8, 11, 3, 1)},
			want:  []Seed{span(af, bf, 5, 8, 8, 11, 4, (3+j1)/4)},
			c:     Counts{Spans: 1, Steps: 1, Extended: 1, Out: 1}},
	})
}

// TestExtendCovered shows results inside another on both sides dropped:
// an echo of a span on a nearby diagonal, and of two spans of the same
// extent all but one. A candidate with the extent of a span is dropped
// before (2 pairs, not grown: its fill may not align the span's pairs).
func TestExtendCovered(t *testing.T) {
	a := newDoc(ua0, ua1, c1, c2, c3, c5, c6, c7, ua2, ua3)
	b := newDoc(ub0, ub1, c1, c2, c3, c5, c6, c7, ub2, ub3)
	big := span(a, b, 2, 2, 6, 6, 5, 1)
	runCases(t, []extendCase{
		{name: "echo", a: a, b: b,
			seeds: []Seed{span(a, b, 3, 4, 5, 6, 3, 0.8), big},
			want:  []Seed{big},
			c:     Counts{Spans: 2, Covered: 1, Out: 1}},
		{name: "candidate of the same extent", a: a, b: b,
			seeds: []Seed{run(a, b, 2, 2, 6, 6, 2, 0.8, false), big},
			want:  []Seed{big},
			c:     Counts{Spans: 1, Candidates: 1, Out: 1}},
	})

	// Of two spans of the same extent one is kept (which one is not
	// specified: the first in Extend's order).
	var c Counts
	got := Extend([]Seed{span(a, b, 2, 2, 6, 6, 4, 0.8), big}, a.side, b.side, defaults, &c)
	if len(got) != 1 || got[0].StartA != 2 || got[0].EndA != 6 || got[0].StartB != 2 || got[0].EndB != 6 ||
		c != (Counts{Spans: 2, Covered: 1, Out: 1}) {
		t.Errorf("two spans of one extent: %+v %+v, want one of them", got, c)
	}
}

// TestExtendEdge shows extension stopped by the end of a window (a
// sentence missing from the Side) and counted in Edge; with the whole
// document it goes on. The start of a document counts too.
func TestExtendEdge(t *testing.T) {
	a := newDoc(ua0, ua1, e1A, c1, c2, c3, c5, e2A, ua2, ua3)
	b := newDoc(ub0, ub1, e1B, c1, c2, c3, c5e, e2B, ub2, ub3)
	cut := a.window(0, 6)
	a0 := newDoc(c1, c2, c3, ua2, ua3)
	b0 := newDoc(c1, c2, c3, ub2, ub3)
	runCases(t, []extendCase{
		{name: "whole document", a: a, b: b,
			seeds: []Seed{span(a, b, 3, 3, 5, 5, 3, 1)},
			want:  []Seed{span(a, b, 2, 2, 7, 7, 6, (3+j1+j5+j2)/6)},
			c:     Counts{Spans: 1, Steps: 3, Extended: 1, Out: 1}},
		{name: "window ends", a: cut, b: b,
			seeds: []Seed{span(a, b, 3, 3, 5, 5, 3, 1)},
			want:  []Seed{span(a, b, 2, 2, 6, 6, 5, (3+j1+j5)/5)},
			c:     Counts{Spans: 1, Steps: 2, Extended: 1, Out: 1, Edge: 1}},
		{name: "window starts", a: a.window(3, 9), b: b,
			seeds: []Seed{span(a, b, 3, 3, 5, 5, 3, 1)},
			want:  []Seed{span(a, b, 3, 3, 7, 7, 5, (3+j5+j2)/5)},
			c:     Counts{Spans: 1, Steps: 2, Extended: 1, Out: 1, Edge: 1}},
		{name: "document start", a: a0, b: b0,
			seeds: []Seed{span(a0, b0, 0, 0, 2, 2, 3, 1)},
			want:  []Seed{span(a0, b0, 0, 0, 2, 2, 3, 1)},
			c:     Counts{Spans: 1, Out: 1}}, // the document's start is no window's end
	})
}

// TestSpansNoExtension shows Spans with Tau 0: the seeds that are spans,
// unchanged, ordered by (StartA, StartB); with Tau > 0 it is Extend.
func TestSpansNoExtension(t *testing.T) {
	a := newDoc(ua0, ua1, e1A, c1, c2, c3, e2A, ua2, ua3)
	b := newDoc(ub0, ub1, e1B, c1, c2, c3, e2B, ub2, ub3)
	s := func(sa, sb, n int, score float64, isSpan bool) Seed {
		return Seed{StartA: sa, StartB: sb, EndA: sa + n - 1, EndB: sb + n - 1, Length: n,
			CharStartA: 10 * sa, CharEndA: 10*(sa+n) - 1, CharStartB: 10 * sb, CharEndB: 10*(sb+n) - 1, Score: score, Span: isSpan}
	}
	seeds := []Seed{s(9, 1, 3, 0.8, true), s(4, 4, 2, 1, false), s(1, 9, 4, 0.9, true), s(7, 7, 1, 1, false), s(1, 3, 3, 1, true)}
	var c Counts
	got := Spans(slices.Clone(seeds), a.side, b.side, Params{}, &c)
	want := []Seed{s(1, 3, 3, 1, true), s(1, 9, 4, 0.9, true), s(9, 1, 3, 0.8, true)}
	if !reflect.DeepEqual(got, want) || c != (Counts{Out: 3}) {
		t.Errorf("Spans with Tau 0 = %+v %+v, want %+v %+v", got, c, want, Counts{Out: 3})
	}

	var cs, ce Counts
	seed := []Seed{span(a, b, 3, 3, 5, 5, 3, 1)}
	got = Spans(slices.Clone(seed), a.side, b.side, defaults, &cs)
	wantE := Extend(slices.Clone(seed), a.side, b.side, defaults, &ce)
	if !reflect.DeepEqual(got, wantE) || cs != ce || len(got) != 1 || got[0].Length != 5 {
		t.Errorf("Spans with Tau 0.5 = %+v %+v, want Extend's %+v %+v", got, cs, wantE, ce)
	}
}

// TestFollows shows which runs continue another (joined by Extend): after
// it on both sides within Gap, or Gap on one side and Gap+1 on the other.
func TestFollows(t *testing.T) {
	r := Seed{StartA: 0, StartB: 10, EndA: 4, EndB: 14}
	at := func(a, b int) Seed { return Seed{StartA: a, StartB: b, EndA: a + 3, EndB: b + 3} }
	tests := []struct {
		n    Seed
		gap  int
		want bool
	}{
		{at(5, 15), 0, true},
		{at(5, 15), 1, true},
		{at(6, 16), 0, false},
		{at(6, 16), 1, true},
		{at(6, 15), 1, true},
		{at(7, 16), 1, true},  // gap+1 on A, gap on B
		{at(6, 17), 1, true},  // gap on A, gap+1 on B
		{at(7, 15), 1, false}, // gap+1 on A, none on B
		{at(7, 17), 1, false},
		{at(6, 15), 0, false},
		{at(4, 15), 1, false}, // overlaps on A
		{at(5, 14), 1, false}, // overlaps on B
		{at(0, 10), 1, false},
	}
	for _, tt := range tests {
		if got := follows(r, tt.n, tt.gap); got != tt.want {
			t.Errorf("follows(A %d..%d B %d..%d, A %d.. B %d.., gap %d) = %v, want %v",
				r.StartA, r.EndA, r.StartB, r.EndB, tt.n.StartA, tt.n.StartB, tt.gap, got, tt.want)
		}
	}
}

// Golden documents: B copies A 3..9 (seven sentences) as B 4..9 (six),
// with A 3 and A 9 edited (one and two words substituted: 8/12, 9/13) and
// A 7 and A 8 merged into B 8; A 4..6 are B 5..7 word for word.
var (
	goldenA = []string{
		"Our village sits in a quiet valley between two long ridges.",
		"Most families here have farmed the same fields for generations.",
		"The weekly market still takes place in the square on Fridays.",
		"The river that runs past the mill floods almost every spring.",
		"Sandbags are piled along the bank when the water starts rising.",
		"Volunteers check the old stone bridge for cracks after each flood.",
		"The council has promised a new flood wall for many years.",
		"Engineers surveyed the riverbank during the dry summer.",
		"Construction is planned to begin next year.",
		"Until then residents keep pumps and boots ready by their doors.",
		"A small choir practises in the chapel on Tuesday evenings.",
		"Visitors are welcome to join the walking group at weekends.",
	}
	goldenB = []string{
		"Welcome to the website of the regional transport authority.",
		"Bus timetables change twice a year in April and October.",
		"Tickets can be bought online or from the driver.",
		"Recent news from the districts we serve is collected below.",
		"The stream that runs past the mill floods nearly every spring.",
		"Sandbags are piled along the bank when the water starts rising.",
		"Volunteers check the old stone bridge for cracks after each flood.",
		"The council has promised a new flood wall for many years.",
		"Engineers surveyed the riverbank during the dry summer construction is planned to begin next year.",
		"Until then locals keep pumps and wellies ready by their doors.",
		"Road works on the northern bypass will last until March.",
		"Lost property can be collected from the main depot.",
	}
)

// windowSide returns the Side of a document that the extend job builds
// for seeds: the sentences they need (Needs), through a window blob.
func windowSide(t *testing.T, sents []doc.Sentence, seeds []Seed, a bool) Side {
	t.Helper()
	var rs []Range
	for _, s := range seeds {
		rs = Needs(rs, s, a)
	}
	blob := AppendWindow(nil, sents, Normalize(rs))
	side := Side{}
	if err := DecodeWindow(side, blob); err != nil {
		t.Fatal(err)
	}
	return side
}

// TestBoundariesGolden extends the match's span of the golden documents
// (A 4..6, B 5..7) over windows as the extend job sends them and writes
// the spans and the text they cover to testdata/boundaries.golden: the
// span must cover the copied passage, A 3..9 and B 4..9, and nothing else.
func TestBoundariesGolden(t *testing.T) {
	sa, textA := sentences(goldenA...)
	sb, textB := sentences(goldenB...)
	seed := Seed{StartA: 4, StartB: 5, EndA: 6, EndB: 7, Length: 3,
		CharStartA: sa[4].Start, CharEndA: sa[6].End, CharStartB: sb[5].Start, CharEndB: sb[7].End, Score: 1, Span: true}
	seeds := []Seed{seed}
	a, b := windowSide(t, sa, seeds, true), windowSide(t, sb, seeds, false)
	var c Counts
	got := Extend(seeds, a, b, defaults, &c)

	ra, rb := []rune(textA), []rune(textB)
	var buf bytes.Buffer
	for i, s := range got {
		fmt.Fprintf(&buf, "span %d: A %d..%d B %d..%d length %d chars A %d..%d B %d..%d score %.4f span %v\n",
			i, s.StartA, s.EndA, s.StartB, s.EndB, s.Length, s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB, s.Score, s.Span)
		fmt.Fprintf(&buf, "A: %s\nB: %s\n", string(ra[s.CharStartA:s.CharEndA]), string(rb[s.CharStartB:s.CharEndB]))
	}
	fmt.Fprintf(&buf, "counts: %+v\n", c)

	path := filepath.Join("testdata", "boundaries.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lib/extend -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("boundaries differ from %s:\n got:\n%s\nwant:\n%s", path, buf.Bytes(), want)
	}

	// The golden file is checked by eye; this states what it must say.
	copied := []Seed{{StartA: 3, StartB: 4, EndA: 9, EndB: 9, Length: 6,
		CharStartA: sa[3].Start, CharEndA: sa[9].End, CharStartB: sb[4].Start, CharEndB: sb[9].End,
		Score: (3 + 8.0/12 + 1 + 9.0/13) / 6, Span: true}}
	if !reflect.DeepEqual(round4(got), round4(copied)) {
		t.Errorf("Extend = %+v, want the copied passage %+v", got, copied)
	}
}

// TestExtendFillOwnSentences: filling a candidate's inside never takes a
// sentence another seed holds (here A3, a span's first sentence): the
// candidate cannot grow and is dropped, the span alone comes back.
func TestExtendFillOwnSentences(t *testing.T) {
	a := newDoc(ua0, ua1, c1, e1A, c2, c6, ua2, ua3)
	b := newDoc(ub0, ub1, c1, e1B, c2, ub2, ub3, ub4, ub5, ub0+" again", e1A, c2, c6, ua0, ua1)
	sp := span(a, b, 3, 10, 5, 12, 3, 1)
	runCases(t, []extendCase{
		{name: "inside held by a span", a: a, b: b,
			seeds: []Seed{run(a, b, 2, 2, 4, 4, 2, 1, false), sp},
			want:  []Seed{sp},
			c:     Counts{Spans: 1, Candidates: 1, Out: 1, Edge: 0}},
	})
}

// TestExtendSameExtent: of two results over the same sentences, the one
// with more pairs is kept, whatever the input order.
func TestExtendSameExtent(t *testing.T) {
	a := newDoc(ua0, c1, c2, c3, c5, c6, ua1)
	b := newDoc(ub0, c1, c2, c3, c5, c6, ub1)
	short, long := span(a, b, 1, 1, 5, 5, 4, 0.8), span(a, b, 1, 1, 5, 5, 5, 1)
	for _, order := range [][]Seed{{short, long}, {long, short}} {
		got := Extend(slices.Clone(order), a.side, b.side, defaults, &Counts{})
		if len(got) != 1 || got[0].Length != 5 {
			t.Errorf("seeds %v: got %+v, want the 5-pair span", order, got)
		}
	}
}

// TestExtendEvidence shows what a span needs with Params.MinEvidence set:
// evidence from its seeds (joined seeds add theirs up) or from its steps
// (a merge at 0.8 sharing half of it is an anchor); without it a result
// is left out and counted, and covers no other.
func TestExtendEvidence(t *testing.T) {
	p := defaults
	p.MinEvidence = 20
	a := newDoc(ua0, ua1, c1, c2, c3, ua2, ua3)
	b := newDoc(ub0, ub1, c1, c2, c3, ub2, ub3)
	ag := newDoc(ua0, c1, c2, ua1, c3, c5, ua2)
	bg := newDoc(ub0, c1, c2, ub1, c3, c5, ub2)
	am := newDoc(ua0, ua1, c1, c2, c3, mX, mY, ua2, ua3)
	bm := newDoc(ub0, ub1, c1, c2, c3, mXY, ub2, ub3)
	ae := newDoc(ua0, ua1, e1A, c1, c2, c3, e2A, ua2, ua3)
	be := newDoc(ub0, ub1, e1B, c1, c2, c3, e2B, ub2, ub3)
	with := func(s Seed, ev int) Seed { s.Evidence = ev; return s }
	cand := func(a, b testDoc, sa, sb, ea, eb, n int, ev int) Seed {
		return with(run(a, b, sa, sb, ea, eb, n, 1, false), ev)
	}
	for _, tt := range []struct {
		name  string
		a, b  testDoc
		seeds []Seed
		p     Params
		want  []Seed // with their evidence
		c     Counts
	}{
		{name: "span without evidence left out", a: a, b: b,
			seeds: []Seed{with(span(a, b, 2, 2, 4, 4, 3, 0.8), 19)}, p: p,
			c: Counts{Spans: 1, Unanchored: 1}},
		{name: "the same with no anchor needed", a: a, b: b,
			seeds: []Seed{with(span(a, b, 2, 2, 4, 4, 3, 0.8), 19)}, p: defaults,
			want: []Seed{with(span(a, b, 2, 2, 4, 4, 3, 0.8), 19)},
			c:    Counts{Spans: 1, Out: 1}},
		{name: "span with an anchor kept", a: a, b: b,
			seeds: []Seed{with(span(a, b, 2, 2, 4, 4, 3, 0.8), 20)}, p: p,
			want: []Seed{with(span(a, b, 2, 2, 4, 4, 3, 0.8), 20)},
			c:    Counts{Spans: 1, Out: 1}},
		{name: "joined candidates add up", a: ag, b: bg,
			seeds: []Seed{cand(ag, bg, 1, 1, 2, 2, 2, 12), cand(ag, bg, 4, 4, 5, 5, 2, 8)}, p: p,
			want: []Seed{with(span(ag, bg, 1, 1, 5, 5, 4, 1), 20)},
			c:    Counts{Candidates: 2, Joined: 1, New: 1, Out: 1, Edge: 1}},
		{name: "joined candidates short of evidence", a: ag, b: bg,
			seeds: []Seed{cand(ag, bg, 1, 1, 2, 2, 2, 12), cand(ag, bg, 4, 4, 5, 5, 2, 7)}, p: p,
			c: Counts{Candidates: 2, Joined: 1, Unanchored: 1, Edge: 1}},
		{name: "steps that are no anchor add nothing", a: ae, b: be,
			seeds: []Seed{with(span(ae, be, 3, 3, 5, 5, 3, 1), 19)}, p: p,
			c: Counts{Spans: 1, Steps: 2, Unanchored: 1}},
		{name: "the same with the evidence", a: ae, b: be,
			seeds: []Seed{with(span(ae, be, 3, 3, 5, 5, 3, 1), 20)}, p: p,
			want: []Seed{with(span(ae, be, 2, 2, 6, 6, 5, (3+j1+j2)/5), 20)},
			c:    Counts{Spans: 1, Steps: 2, Extended: 1, Out: 1}},
		{name: "a weak result covers no anchored one", a: a, b: b,
			seeds: []Seed{with(span(a, b, 2, 2, 4, 4, 3, 1), 5), with(span(a, b, 3, 3, 4, 4, 2, 1), 20)}, p: p,
			want: []Seed{with(span(a, b, 3, 3, 4, 4, 2, 1), 20)},
			c:    Counts{Spans: 2, Unanchored: 1, Out: 1}},
		{name: "a merge step is an anchor", a: am, b: bm,
			seeds: []Seed{with(span(am, bm, 2, 2, 4, 4, 3, 1), 0)}, p: p,
			want: []Seed{with(span(am, bm, 2, 2, 6, 5, 4, (3+jm)/4), 20)},
			c:    Counts{Spans: 1, Steps: 1, Merges: 1, Extended: 1, Out: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c Counts
			got := Extend(slices.Clone(tt.seeds), tt.a.side, tt.b.side, tt.p, &c)
			for i := range got {
				got[i].Score = math.Round(got[i].Score*1e4) / 1e4
			}
			want := slices.Clone(tt.want)
			for i := range want {
				want[i].Score = math.Round(want[i].Score*1e4) / 1e4
			}
			if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) || c != tt.c {
				t.Errorf("Extend\n got %+v %+v\nwant %+v %+v", got, c, want, tt.c)
			}
		})
	}
	// Spans without extension need the evidence too.
	var c Counts
	seeds := []Seed{with(span(a, b, 2, 2, 4, 4, 3, 1), 19), with(span(a, b, 2, 2, 4, 4, 3, 1), 25)}
	p.Tau = 0
	if got := Spans(seeds, a.side, b.side, p, &c); len(got) != 1 || got[0].Evidence != 25 || c != (Counts{Unanchored: 1, Out: 1}) {
		t.Errorf("Spans with Tau 0 = %+v %+v, want the seed with evidence 25, one unanchored", got, c)
	}
	// A document pair whose seeds carry less than the evidence a span
	// needs has no span, though a merge step would anchor one (Extend).
	p.Tau = defaults.Tau
	c = Counts{}
	merge := []Seed{with(span(am, bm, 2, 2, 4, 4, 3, 1), 19)}
	if got := Spans(merge, am.side, bm.side, p, &c); len(got) != 0 || c != (Counts{Weak: 1}) {
		t.Errorf("Spans of seeds with evidence 19 = %+v %+v, want none, one weak pair", got, c)
	}
	c = Counts{}
	merge[0].Evidence = 20
	if got := Spans(merge, am.side, bm.side, p, &c); len(got) != 1 || c.Weak != 0 {
		t.Errorf("Spans of seeds with evidence 20 = %+v %+v, want the extended span", got, c)
	}
}
