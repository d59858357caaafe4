package main

import (
	"cmp"
	"container/heap"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
)

// other is one of the other documents as written to the corpus: a page of
// the input as it is, or a piece of a long one as text.
type other struct {
	ID, URL    string
	HTML, Text string // HTML "" for a piece
}

// pickOthers returns n documents of docs, with their own URL host each:
// a random sample when docs has more, all of them and pieces of the
// longest when it has fewer (splitLongest).
func pickOthers(docs []document, n int, rng *rand.Rand) ([]other, error) {
	if len(docs) == 0 {
		return nil, fmt.Errorf("no documents to draw %d others from", n)
	}
	docs = slices.Clone(docs)
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	var out []other
	if len(docs) >= n {
		for _, d := range docs[:n] {
			out = append(out, other{ID: d.ID, URL: d.URL, HTML: d.HTML, Text: d.Text})
		}
	} else {
		var err error
		if out, err = splitLongest(docs, n); err != nil {
			return nil, err
		}
	}
	for i := range out {
		out[i].URL = otherURL(i, out[i].URL, out[i].ID)
	}
	return out, nil
}

// otherURL gives the i-th other document its own host, keeping the path
// of its URL (or its id when it has none).
func otherURL(i int, u, id string) string {
	path := "/" + strings.TrimPrefix(id, "/")
	if p, err := url.Parse(u); err == nil && u != "" {
		path = p.EscapedPath()
	}
	return fmt.Sprintf("https://other%05d.example.net%s", i, path)
}

// piece is a part of a document's text: text[lo:hi].
type piece struct{ doc, lo, hi int }

type pieceHeap struct {
	p    []piece
	docs []document
}

func (h *pieceHeap) Len() int { return len(h.p) }
func (h *pieceHeap) Less(i, j int) bool {
	a, b := h.p[i], h.p[j]
	return cmp.Or(cmp.Compare(b.hi-b.lo, a.hi-a.lo), cmp.Compare(a.doc, b.doc), cmp.Compare(a.lo, b.lo)) < 0
}
func (h *pieceHeap) Swap(i, j int) { h.p[i], h.p[j] = h.p[j], h.p[i] }
func (h *pieceHeap) Push(x any)    { h.p = append(h.p, x.(piece)) }
func (h *pieceHeap) Pop() any {
	x := h.p[len(h.p)-1]
	h.p = h.p[:len(h.p)-1]
	return x
}

// splitLongest returns n documents made from docs: it splits the longest
// text in two, at the line break nearest its middle, until there are n
// (a text of one line is left whole).
// A document split is written as its pieces of text, numbered in order
// (id#1, id#2, ...); the others are kept as they are.
func splitLongest(docs []document, n int) ([]other, error) {
	h := &pieceHeap{docs: docs}
	for i, d := range docs {
		h.p = append(h.p, piece{i, 0, len(d.Text)})
	}
	heap.Init(h)
	var whole []piece // pieces of one line
	for h.Len()+len(whole) < n {
		if h.Len() == 0 {
			return nil, fmt.Errorf("%d documents make only %d pieces of text, need %d others", len(docs), len(whole), n)
		}
		p := heap.Pop(h).(piece)
		mid := splitPoint(docs[p.doc].Text[p.lo:p.hi])
		if mid <= 0 {
			whole = append(whole, p)
			continue
		}
		heap.Push(h, piece{p.doc, p.lo, p.lo + mid})
		heap.Push(h, piece{p.doc, p.lo + mid, p.hi})
	}
	h.p = append(h.p, whole...)
	slices.SortFunc(h.p, func(a, b piece) int { return cmp.Or(cmp.Compare(a.doc, b.doc), cmp.Compare(a.lo, b.lo)) })
	out := make([]other, 0, n)
	for i, p := range h.p {
		d := docs[p.doc]
		whole := p.lo == 0 && p.hi == len(d.Text)
		if whole {
			out = append(out, other{ID: d.ID, URL: d.URL, HTML: d.HTML, Text: d.Text})
			continue
		}
		k := 1
		for j := i - 1; j >= 0 && h.p[j].doc == p.doc; j-- {
			k++
		}
		text := strings.TrimSpace(d.Text[p.lo:p.hi])
		out = append(out, other{ID: fmt.Sprintf("%s#%d", d.ID, k), URL: d.URL, Text: text})
	}
	return out, nil
}

// splitPoint returns the offset just after the line break of text nearest
// its middle, 0 when it has none inside, with text on both sides.
func splitPoint(text string) int {
	mid := len(text) / 2
	after := strings.IndexByte(text[mid:], '\n')
	before := strings.LastIndexByte(text[:mid], '\n')
	best := -1
	if after >= 0 {
		best = mid + after
	}
	if before >= 0 && (best < 0 || mid-before < best-mid) {
		best = before
	}
	if best < 0 || strings.TrimSpace(text[:best]) == "" || strings.TrimSpace(text[best+1:]) == "" {
		return 0
	}
	return best + 1
}
