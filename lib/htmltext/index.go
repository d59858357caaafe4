package htmltext

import "golang.org/x/net/html/atom"

// indexLists finds the definition lists that are indexes: a <dl> most of
// whose terms (<dt>, those of the lists inside it included) begin with a
// link, as Javadoc's index-files pages
// and generated indexes list "member - kind in class X" entries, each
// with the member's summary under it. Such a list's text, terms and
// descriptions, is link text as a whole (Result.Links): an index, not
// content, whatever its words. A glossary's terms are not links; a list
// of a few linked terms among others is no index.
type indexLists struct {
	lists []indexList // open <dl> elements, outermost first
	inDT  bool        // inside a <dt> of the innermost list
	led   int8        // the current <dt>: 0 no text yet, 1 began with a link, 2 not
}

// indexList is an open <dl>: where its text starts in out (-1 before its
// first text), the first of the links it holds, and its terms counted.
type indexList struct {
	start, firstLink int
	terms, linked    int // its terms and those of the lists inside it
	own, ownLinked   int // its own terms
}

// minIndexTerms is the fewest link-led terms of a list that is an index.
const minIndexTerms = 3

func (x *indexLists) reset() {
	x.lists, x.inDT, x.led = x.lists[:0], false, 0
}

// start notes a start tag; links is the number of link ranges so far.
func (x *indexLists) start(a atom.Atom, links int) {
	switch a {
	case atom.Dl:
		x.term()
		x.lists = append(x.lists, indexList{start: -1, firstLink: links})
	case atom.Dt:
		x.term()
		x.inDT = len(x.lists) > 0
	case atom.Dd:
		x.term()
	}
}

// text notes visible text starting at at in out, inside a link or not.
func (x *indexLists) text(at int, inLink bool) {
	for i := range x.lists {
		if x.lists[i].start < 0 {
			x.lists[i].start = at
		}
	}
	if x.inDT && x.led == 0 {
		x.led = 2
		if inLink {
			x.led = 1
		}
	}
}

// term ends the current <dt> (its end tag, or the next <dt>, <dd> or <dl>).
func (x *indexLists) term() {
	if !x.inDT {
		return
	}
	l := &x.lists[len(x.lists)-1]
	if x.led != 0 {
		l.terms++
		l.own++
	}
	if x.led == 1 {
		l.linked++
		l.ownLinked++
	}
	x.inDT, x.led = false, 0
}

// end notes an end tag at text length out. When it closes a list that
// is an index it returns the list's range and the index of its first link
// range, which the range replaces (an outer list that is an index too
// replaces it in turn).
func (x *indexLists) end(a atom.Atom, out int) (Range, int, bool) {
	switch a {
	case atom.Dt:
		x.term()
	case atom.Dl:
		x.term()
		if len(x.lists) > 0 {
			return x.close(out, false)
		}
	}
	return Range{}, 0, false
}

// close closes the innermost open list at text length out and judges it
// by its terms and those of the lists inside it, which count for the list
// around it too; a list left open (eof) by its own terms only, since its
// end is not known.
func (x *indexLists) close(out int, eof bool) (Range, int, bool) {
	n := len(x.lists)
	l := x.lists[n-1]
	x.lists = x.lists[:n-1]
	if n > 1 {
		p := &x.lists[n-2]
		p.terms += l.terms
		p.linked += l.linked
	}
	terms, linked := l.terms, l.linked
	if eof {
		terms, linked = l.own, l.ownLinked
	}
	if linked >= minIndexTerms && 2*linked > terms && l.start >= 0 && out > l.start {
		return Range{Start: l.start, End: out}, l.firstLink, true
	}
	return Range{}, 0, false
}

// finish closes the lists still open at the end of a text of length out
// (a missing end tag, a truncated page), innermost first, calling apply
// for each that is an index.
func (x *indexLists) finish(out int, apply func(r Range, firstLink int)) {
	x.term()
	for len(x.lists) > 0 {
		if r, first, ok := x.close(out, true); ok {
			apply(r, first)
		}
	}
}
