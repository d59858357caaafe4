package htmltext

import "golang.org/x/net/html/atom"

// indexGrids finds the tables that are indexes: listings of other pages,
// a link to each with its summary, as Javadoc's class-use, package and
// member summaries, rustdoc's item tables and Sphinx's module index lay
// them out. A grid is a <table>, whose cells are its <td> and <th>, or a
// <div> with a class part "table" (split at spaces, '-' and '_':
// "summary-table", "item-table"), whose cells are its child <div>s (but
// those with a class part "header": a column's title). It is
// an index when a third of its cells with text, and at least minIndexTerms
// of a <table>'s (one of a <div>'s: its class says it is a table, while
// pages are laid out with tables), hold a link (a name, a signature), and
// no cell holds more than maxIndexCell bytes of text: entries are short,
// and a table that lays out a page (a menu cell, a long content cell) is
// none; nor is a <div> grid with text outside its cells or a <table>
// inside it. An index's text is link text
// as a whole (Result.Links), as an index list's is (indexLists).
type indexGrids struct {
	grids []grid // open grids, outermost first
	divs  int    // open <div> elements
}

// grid is an open grid: where its text starts in out (-1 before its first
// text), the first of the links it holds, its cells counted, and its
// current cell.
type grid struct {
	table         bool // a <table>, else a <div>
	divs          int  // divs open at its start, itself included (a <div>)
	start         int
	firstLink     int
	cells, linked int
	longest       int // text length of its longest cell
	inCell        bool
	cellFrom      int  // where the current cell's text starts (-1: none yet)
	cellLinked    bool // the current cell holds link text
	header        bool // the current cell is a header (class part "header")
	// other: a <div> grid with text outside its cells, or a <table>
	// inside: a page laid out in a div, not a listing.
	other bool
}

// maxIndexCell is the most text, in bytes, of a cell of an index: a
// summary is a sentence or two.
const maxIndexCell = 1000

func (x *indexGrids) reset() { x.grids, x.divs = x.grids[:0], 0 }

// start notes a start tag with raw text raw; links is the number of link
// ranges so far, out the text length.
func (x *indexGrids) start(a atom.Atom, raw []byte, links, out int) {
	switch a {
	case atom.Table: // inside a cell of another grid: a grid of its own
		for i := range x.grids {
			x.grids[i].other = x.grids[i].other || !x.grids[i].table
		}
		x.grids = append(x.grids, grid{table: true, start: -1, firstLink: links, cellFrom: -1})
	case atom.Td, atom.Th:
		if g := x.top(); g != nil && g.table {
			g.cell(out)
		}
	case atom.Tr:
		if g := x.top(); g != nil && g.table {
			g.endCell(out)
		}
	case atom.Div:
		x.divs++
		v, _ := attr(raw, "class")
		if g := x.top(); g != nil && !g.table && x.divs == g.divs+1 {
			g.cell(out)
			g.header = hasPart(v, "header") // a column's title: no entry
		}
		if hasPart(v, "table") {
			x.grids = append(x.grids, grid{divs: x.divs, start: -1, firstLink: links, cellFrom: -1})
		}
	}
}

func (x *indexGrids) top() *grid {
	if len(x.grids) == 0 {
		return nil
	}
	return &x.grids[len(x.grids)-1]
}

// cell starts a cell at text length out, ending the one before.
func (g *grid) cell(out int) {
	g.endCell(out)
	g.inCell, g.cellFrom, g.cellLinked = true, -1, false
}

// endCell ends the current cell, if any, at text length out.
func (g *grid) endCell(out int) {
	if !g.inCell {
		return
	}
	g.inCell = false
	if g.cellFrom < 0 || g.header {
		g.header = false
		return // no text, or a column's title
	}
	g.cells++
	if g.cellLinked {
		g.linked++
	}
	g.longest = max(g.longest, out-g.cellFrom)
}

// text notes visible text starting at at in out, inside a link or not.
func (x *indexGrids) text(at int, inLink bool) {
	for i := range x.grids {
		g := &x.grids[i]
		if g.start < 0 {
			g.start = at
		}
		if g.inCell && g.cellFrom < 0 {
			g.cellFrom = at
		}
		g.other = g.other || !g.table && !g.inCell
		g.cellLinked = g.cellLinked || g.inCell && inLink
	}
}

// end notes an end tag at text length out. When it closes a grid that is
// an index it returns the grid's range and the index of its first link
// range, which the range replaces.
func (x *indexGrids) end(a atom.Atom, out int) (Range, int, bool) {
	g := x.top()
	switch a {
	case atom.Td, atom.Th:
		if g != nil && g.table {
			g.endCell(out)
		}
	case atom.Table:
		// Grids of <div>s left open inside the table end with it.
		for g != nil && !g.table {
			x.grids = x.grids[:len(x.grids)-1]
			g = x.top()
		}
		if g != nil {
			return x.close(out)
		}
	case atom.Div:
		if g != nil && !g.table {
			switch x.divs {
			case g.divs:
				x.divs--
				return x.close(out)
			case g.divs + 1:
				g.endCell(out)
			}
		}
		x.divs = max(x.divs-1, 0)
	}
	return Range{}, 0, false
}

// close closes the innermost open grid at text length out and judges it.
func (x *indexGrids) close(out int) (Range, int, bool) {
	n := len(x.grids)
	g := x.grids[n-1]
	x.grids = x.grids[:n-1]
	g.endCell(out)
	// A <div> grid says by its class that it is a table, unlike the
	// <table> a page may be laid out with: one entry is enough.
	least := minIndexTerms
	if !g.table {
		least = 1
	}
	if !g.other && g.linked >= least && 3*g.linked >= g.cells && g.longest <= maxIndexCell && g.start >= 0 && out > g.start {
		return Range{Start: g.start, End: out}, g.firstLink, true
	}
	return Range{}, 0, false
}

// finish drops the grids still open at the end of a text (a missing end
// tag, a truncated page): their ends are not known.
func (x *indexGrids) finish() { x.grids = x.grids[:0] }

// hasPart reports whether a class value has part as one of its parts,
// split at spaces, '-' and '_' (case-insensitive).
func hasPart(v []byte, part string) bool {
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) {
			switch v[i] {
			case ' ', '\t', '\n', '\r', '\f', '-', '_':
			default:
				continue
			}
		}
		if i-start == len(part) && asciiEqualFold(v[start:i], part) {
			return true
		}
		start = i + 1
	}
	return false
}
