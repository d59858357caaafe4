package htmltext

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestIndexGrids: tables and div grids that list other pages (a link in
// a third of their cells, every cell short) are link text as a whole;
// tables of data and tables that lay out a page are not.
func TestIndexGrids(t *testing.T) {
	row2 := func(name string) string { // Javadoc 17 class-use, package summaries
		return `<div class="col-first"><a href="` + name + `.html">` + name + `</a></div><div class="col-last"><div class="block">Uses ` + name + `.</div></div>`
	}
	row3 := func(name string) string { // Javadoc 17 member summary with the owner's name first
		return `<div class="col-first"><code>void</code></div><div class="col-second"><span>Owner.</span><code><a href="O.html#` + name + `">` + name + `</a>()</code></div><div class="col-last"><div class="block">Does ` + name + `.</div></div>`
	}
	item := func(name string) string { // rustdoc's item table
		return `<div class="item-row"><div class="item-left"><a class="fn" href="fn.` + name + `.html">` + name + `</a></div><div class="item-right docblock-short">Returns ` + name + `.</div></div>`
	}
	tr := func(cells ...string) string { return "<tr><td>" + strings.Join(cells, "</td><td>") + "</td></tr>" }
	link := func(s string) string { return `<a href="` + s + `.html">` + s + `</a>` }
	long := strings.Repeat("Content of the page goes on. ", 40)
	tests := []struct {
		name, page string
		want       []string
	}{
		{"javadoc two columns", `<p>Before.</p><div class="summary-table two-column-summary"><div class="table-header col-first">Package</div><div class="table-header col-last">Description</div>` + row2("a") + row2("b") + row2("c") + `</div><p>After.</p>`,
			[]string{"Package\n\nDescription\n\na\n\nUses a.\n\nb\n\nUses b.\n\nc\n\nUses c."}},
		{"javadoc three columns", `<div class="summary-table three-column-summary">` + row3("get") + row3("set") + row3("put") + `</div>`,
			[]string{"void\n\nOwner.get()\n\nDoes get.\n\nvoid\n\nOwner.set()\n\nDoes set.\n\nvoid\n\nOwner.put()\n\nDoes put."}},
		{"rustdoc items", `<div class="item-table">` + item("a") + item("b") + item("c") + `</div>`, []string{"a\n\nReturns a.\n\nb\n\nReturns b.\n\nc\n\nReturns c."}},
		{"module index table", `<table class="indextable">` + tr(link("abc"), "Abstract base classes.") + tr(link("ast"), "Syntax trees.") + tr(link("bz2"), "Compression.") + `</table>`,
			[]string{"abc\n\nAbstract base classes.\n\nast\n\nSyntax trees.\n\nbz2\n\nCompression."}},
		{"end tags left out", `<table><tr><td>` + link("a") + `<td>A.<tr><td>` + link("b") + `<td>B.<tr><td>` + link("c") + `<td>C.</table>`, []string{"a\n\nA.\n\nb\n\nB.\n\nc\n\nC."}},
		{"a data table with a column of links", `<table>` + tr(link("a"), "1", "2", "3") + tr(link("b"), "4", "5", "6") + tr(link("c"), "7", "8", "9") + `</table>`, []string{"a", "b", "c"}},
		{"two rows", `<table>` + tr(link("a"), "A.") + tr(link("b"), "B.") + `</table>`, []string{"a", "b"}},
		{"a grid of one entry", `<div class="summary-table">` + row2("a") + `</div>`, []string{"a\n\nUses a."}},
		{"a grid of one entry under titles", `<div class="summary-table"><div class="table-header">Modifier</div><div class="table-header">Class</div><div class="table-header">Description</div>` + row3("get") + `</div>`,
			[]string{"Modifier\n\nClass\n\nDescription\n\nvoid\n\nOwner.get()\n\nDoes get."}},
		{"a grid of no link", `<div class="summary-table"><div>a</div><div>Uses a.</div></div>`, nil},
		{"cells of nested blocks", `<div class="summary-table">` + strings.Repeat(`<div>`+link("x")+`</div><div><div>One.</div><div>Two.</div><div>Three.</div></div>`, 3) + `</div>`,
			[]string{strings.TrimSuffix(strings.Repeat("x\n\nOne.\n\nTwo.\n\nThree.\n\n", 3), "\n\n")}},
		{"empty cells", `<table>` + strings.Repeat(tr(link("x"), "X.", "", "", "", ""), 3) + `</table>`, []string{"x\n\nX.\n\nx\n\nX.\n\nx\n\nX."}},
		{"a grid left open in a table", `<table>` + tr(link("a"), "A.") + tr(link("b"), "B.") + tr(link("c"), `<div class="item-table"><div>C.`) + `</table><p>After.</p>`,
			[]string{"a\n\nA.\n\nb\n\nB.\n\nc\n\nC."}},
		{"a div laid out around a table", `<div class="table-responsive"><div class="toolbar">` + link("csv") + `</div><table>` + tr("1", "2") + tr("3", "4") + `</table></div>`, []string{"csv"}},
		{"a div with text of its own", `<div class="table-of-contents"><div>` + link("intro") + `</div><p>The article itself.</p></div>`, []string{"intro"}},
		{"a layout table", `<table>` + tr(link("home"), link("news"), link("about")) + tr(long) + `</table>`, []string{"home", "news", "about"}},
		{"a div that is no table", `<div class="summary">` + row2("a") + row2("b") + row2("c") + `</div>`, []string{"a", "b", "c"}},
		{"a grid left open", `<div class="item-table">` + item("a") + item("b") + item("c"), []string{"a", "b", "c"}},
		{"a grid in a layout table", `<table>` + tr(link("home"), `<div class="item-table">`+item("a")+item("b")+item("c")+`</div>`) + tr(long) + `</table>`,
			[]string{"home", "a\n\nReturns a.\n\nb\n\nReturns b.\n\nc\n\nReturns c."}},
	}
	for _, tt := range tests {
		if got, text := linkTexts(t, tt.name, tt.page); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: links %q, want %q (text %q)", tt.name, got, tt.want, text)
		}
	}
}

// TestIndexGridsMisnested: lists and tables that close inside each other
// never leave overlapping link ranges (linkTexts fails on them).
func TestIndexGridsMisnested(t *testing.T) {
	for _, page := range []string{
		`<dl><dt><a href=a>a</a><dt><a href=b>b</a><table><tr><td><a href=c>c</a></td><td>C</td></tr><tr><td><a href=d>d</a><td>D<tr><td><a href=e>e</a><td>E</dl><p>x</p></table>`,
		`<table><tr><td><a href=a>a</a><td>A<tr><td><a href=b>b</a><td>B<dl><dt><a href=c>c</a><dt><a href=d>d</a></table><dt><a href=e>e</a><dt><a href=f>f</a></dl>`,
		`<div class="item-table"><div><a href=a>a</a></div><dl><dt><a href=b>b</a><dt><a href=c>c</a></div><dt><a href=d>d</a></dl>`,
	} {
		linkTexts(t, page, page)
	}
}

// TestHasPartModel: hasPart against splitting the value at its separators
// and comparing each part, on random class values.
func TestHasPartModel(t *testing.T) {
	model := func(v, part string) bool {
		for _, w := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(" \t\n\r\f-_", r) }) {
			if strings.EqualFold(w, part) {
				return true
			}
		}
		return false
	}
	alphabet := []string{"t", "a", "b", "l", "e", "T", "H", "h", "d", "r", " ", "-", "_", "\t", "table", "header", "TABLE", "Header", "é", "x"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		v := b.String()
		for _, part := range []string{"table", "header"} {
			if got, want := hasPart([]byte(v), part), model(v, part); got != want {
				t.Fatalf("hasPart(%q, %q) = %v, want %v", v, part, got, want)
			}
		}
	}
}
