package sitetemplate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/ranges"
)

// TestCounterModel: Counter's templates are those of a simple model that
// keeps, for every site and set of words, the distinct documents holding
// it and counts their pages with Pages, on random collections of a few
// sites whose pages share footers, copies of pages, short pages and
// repeated sentences.
func TestCounterModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		maxSiteDF, minTokens := 1+rng.IntN(4), 1+rng.IntN(3)
		type page struct {
			id, site string
			sents    []doc.Sentence
		}
		sent := func() doc.Sentence {
			var toks []uint64
			for range rng.IntN(5) {
				toks = append(toks, uint64(rng.IntN(12)))
			}
			return doc.Sentence{Tokens: toks}
		}
		var pages []page
		for i := range 2 + rng.IntN(25) {
			p := page{id: fmt.Sprintf("d/%d/p%d.html", rng.IntN(3), rng.IntN(6)), site: []string{"-", "0000aaaa", "0000bbbb", "nsite0001"}[rng.IntN(4)]}
			if len(pages) > 0 && rng.IntN(4) == 0 { // a copy of an earlier page, with a line of its own
				p.sents = append(slices.Clone(pages[rng.IntN(len(pages))].sents), sent())
			} else {
				for range rng.IntN(14) {
					p.sents = append(p.sents, sent())
				}
			}
			p.id = fmt.Sprintf("%s#%d", p.id, i)
			pages = append(pages, p)
		}
		c := NewCounter(maxSiteDF, minTokens)
		type key struct{ site, set string }
		model := map[key]*Pages{}
		lastDoc := map[key]int{}
		for i, p := range pages {
			c.Add(p.id, p.site, p.sents)
			if p.site == "-" {
				continue
			}
			ck, ok := CopyKey(p.sents, minTokens)
			for _, s := range p.sents {
				if len(s.Tokens) < minTokens || len(s.Tokens) == 0 {
					continue
				}
				k := key{p.site, fmt.Sprint(slices.Compact(slices.Sorted(slices.Values(s.Tokens))))}
				if model[k] == nil {
					model[k] = &Pages{}
				} else if lastDoc[k] == i {
					continue
				}
				lastDoc[k] = i
				model[k].Add(ck, ok, FileName(p.id), maxSiteDF+1)
			}
		}
		for _, p := range pages {
			got := c.Templates(p.site, p.sents)
			for j, s := range p.sents {
				want := false
				if p.site != "-" && len(s.Tokens) >= minTokens && len(s.Tokens) > 0 {
					want = model[key{p.site, fmt.Sprint(slices.Compact(slices.Sorted(slices.Values(s.Tokens))))}].Count() > maxSiteDF
				}
				if got[j] != want {
					t.Fatalf("round %d: %s sentence %d %v: template %v, want %v", round, p.id, j, s.Tokens, got[j], want)
				}
			}
		}
	}
}

// TestCounterCopies: a footer on five pages of a site is its template at
// --max-site-df 4; a page and its mirrored copies (a line of their own
// each) are one page, so their text is not; another site's pages with the
// same footer do not count.
func TestCounterCopies(t *testing.T) {
	words := func(seed, n int) []doc.Sentence {
		var ss []doc.Sentence
		for i := range n {
			ss = append(ss, doc.Sentence{Tokens: []uint64{uint64(seed*100 + i), uint64(seed*100 + i + 50), 7}})
		}
		return ss
	}
	footer := words(99, 2)
	c := NewCounter(4, 3)
	manual := words(1, 20)
	for i := range 5 {
		c.Add(fmt.Sprintf("site/p%d.html", i), "0000aaaa", slices.Concat(words(10+i, 12), footer))
		c.Add(fmt.Sprintf("mirror%d/manual.html", i), "0000aaaa", slices.Concat(words(30+i, 1), manual, words(40+i, 1)))
	}
	for i := range 4 {
		c.Add(fmt.Sprintf("other/p%d.html", i), "0000bbbb", slices.Concat(words(20+i, 12), footer))
	}
	if got := c.Templates("0000aaaa", footer); !got[0] || !got[1] {
		t.Errorf("the footer of five pages is no template: %v", got)
	}
	if got := c.Templates("0000bbbb", footer); got[0] || got[1] {
		t.Errorf("the footer of four pages of another site is a template: %v", got)
	}
	if got := c.Templates("0000aaaa", manual); slices.Contains(got, true) {
		t.Errorf("the text of five copies of a manual is a template: %v", got)
	}
}

// TestBlocks: consecutive template sentences make one range, and so do
// two with only short or non-content sentences between them; a content
// sentence ends a block.
func TestBlocks(t *testing.T) {
	s := func(start, end, toks int) doc.Sentence {
		return doc.Sentence{Start: start, End: end, Tokens: make([]uint64, toks)}
	}
	ss := []doc.Sentence{s(0, 10, 5), s(11, 20, 5), s(21, 25, 1), s(26, 40, 4), s(41, 50, 6), s(51, 60, 5), s(61, 64, 0)}
	for _, tc := range []struct {
		tmpl []bool
		want []ranges.Range
	}{
		{[]bool{false, false, false, false, false, false, false}, nil},
		{[]bool{true, true, false, true, false, true, false}, []ranges.Range{{Start: 0, End: 40}, {Start: 51, End: 60}}},
		{[]bool{true, false, false, true, false, false, false}, []ranges.Range{{Start: 0, End: 10}, {Start: 26, End: 40}}},
		{[]bool{false, false, false, false, false, true, false}, []ranges.Range{{Start: 51, End: 60}}},
	} {
		if got := Blocks(ss, tc.tmpl, 3); !slices.Equal(got, tc.want) {
			t.Errorf("Blocks(%v) = %v, want %v", tc.tmpl, got, tc.want)
		}
	}
}
