// Package sidebyside lays out two documents that share spans as two
// columns of sentences, the way a person compares them: each span's
// sentences side by side, a matched sentence pair on one row (its words
// that the other sentence lacks marked), a sentence with no partner
// beside an empty cell, and the stretches between spans folded into one
// row ("... 40 sentences ...").
//
// The sentence pairs of a span are found again from the texts: the
// sentences of A's passage are aligned in order to those of B's passage by
// their words (lib/dedup Align: Jaccard of the word sets at 0.5, or a
// sentence the other copy split or merged), as a reader would pair them.
// Widths are display widths: East Asian wide and fullwidth characters take
// two columns (golang.org/x/text/width), combining marks none.
package sidebyside

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/span"
)

// Doc is one side: its id, its extracted text (span offsets count its
// runes) and its sentences (lib/dedup Sentences: rune offsets and words).
type Doc struct {
	ID, URL   string
	Text      string
	Sentences []dedup.Sentence
}

// Options say what to show and how.
type Options struct {
	// Width is the width of the output in columns (at least MinWidth).
	Width int
	// Color marks with ANSI escapes (a terminal); else the marks are
	// plain text: a word the other sentence lacks is {word}.
	Color bool
	// Span, when > 0, shows only the span of that number (1 is the first
	// in A's order) with Context sentences around it on each side.
	Span    int
	Context int
}

// MinWidth is the narrowest output Render lays out.
const MinWidth = 40

// Render writes the side-by-side view of a and b and their spans (any
// order; spans of other pairs are an error).
func Render(w io.Writer, a, b Doc, spans []span.Span, o Options) error {
	if o.Width < MinWidth {
		return fmt.Errorf("width %d is under %d columns", o.Width, MinWidth)
	}
	ss := make([]span.Span, 0, len(spans))
	for _, s := range spans {
		switch {
		case s.DocA == a.ID && s.DocB == b.ID:
		case s.DocA == b.ID && s.DocB == a.ID:
			s.DocA, s.DocB = s.DocB, s.DocA
			s.StartA, s.StartB = s.StartB, s.StartA
			s.CharStartA, s.CharStartB = s.CharStartB, s.CharStartA
			s.CharEndA, s.CharEndB = s.CharEndB, s.CharEndA
		default:
			return fmt.Errorf("span of %s and %s is not of the pair %s, %s", s.DocA, s.DocB, a.ID, b.ID)
		}
		ss = append(ss, s)
	}
	slices.SortFunc(ss, func(x, y span.Span) int {
		return cmp.Or(cmp.Compare(x.CharStartA, y.CharStartA), cmp.Compare(x.CharStartB, y.CharStartB))
	})
	if o.Span > len(ss) {
		return fmt.Errorf("span %d: the pair has %d spans", o.Span, len(ss))
	}
	l := layout{o: o, col: (o.Width - 3) / 2, w: w}
	l.header(a, b, len(ss))
	ra, rb := []rune(a.Text), []rune(b.Text)
	nextA, nextB := 0, 0 // the first sentence of each side not shown yet
	for i, s := range ss {
		if o.Span > 0 && i+1 != o.Span {
			continue
		}
		fa, la := sentRange(a.Sentences, s.CharStartA, s.CharEndA)
		fb, lb := sentRange(b.Sentences, s.CharStartB, s.CharEndB)
		if o.Span > 0 {
			ca, cb := max(nextA, fa-o.Context), max(nextB, fb-o.Context)
			l.fold(nextA, ca, nextB, cb, a, b)
			l.context(a.Sentences[ca:fa], b.Sentences[cb:fb], ra, rb)
		} else {
			l.fold(nextA, fa, nextB, fb, a, b)
		}
		l.rule(fmt.Sprintf("span %d of %d: A %d-%d, B %d-%d, %d sentence pairs, score %.4f",
			i+1, len(ss), s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB, s.Length, s.Score))
		l.span(a.Sentences[fa:la], b.Sentences[fb:lb], ra, rb)
		l.rule("")
		nextA, nextB = max(nextA, la), max(nextB, lb)
		if o.Span > 0 {
			ea, eb := min(len(a.Sentences), nextA+o.Context), min(len(b.Sentences), nextB+o.Context)
			l.context(a.Sentences[nextA:ea], b.Sentences[nextB:eb], ra, rb)
			nextA, nextB = ea, eb
		}
	}
	l.fold(nextA, len(a.Sentences), nextB, len(b.Sentences), a, b)
	return l.err
}

// sentRange returns the sentences of ss (in order) that overlap the rune
// range [start, end), as [first, last).
func sentRange(ss []dedup.Sentence, start, end int) (int, int) {
	i, _ := slices.BinarySearchFunc(ss, start, func(s dedup.Sentence, t int) int { return cmp.Compare(s.End, t+1) })
	j := i
	for j < len(ss) && ss[j].Start < end {
		j++
	}
	return i, j
}

type layout struct {
	o   Options
	col int
	w   io.Writer
	err error
	tok sentence.Tokenizer
}

// chunk is a piece of a cell's text: marked when its words are not in the
// partner sentence.
type chunk struct {
	text   string
	marked bool
}

const (
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiMark   = "\x1b[1;33m"
	ansiAccent = "\x1b[36m"
	ansiReset  = "\x1b[0m"
)

func (l *layout) printf(format string, args ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format, args...)
	}
}

func (l *layout) style(code, s string) string {
	if !l.o.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (l *layout) header(a, b Doc, n int) {
	l.row([]chunk{{text: "A: " + a.ID}}, []chunk{{text: "B: " + b.ID}}, ' ', ansiBold)
	url := func(d Doc) string { // on one line of the column, or not at all
		if d.URL == "" || d.URL == d.ID || Width(d.URL) > l.col {
			return ""
		}
		return d.URL
	}
	if ua, ub := url(a), url(b); ua != "" || ub != "" {
		l.row([]chunk{{text: ua}}, []chunk{{text: ub}}, ' ', ansiDim)
	}
	unit := "spans"
	if n == 1 {
		unit = "span"
	}
	legend := fmt.Sprintf("%d %s; = same words, ~ aligned, {x}: x not in the other", n, unit)
	if l.o.Color {
		legend = fmt.Sprintf("%d %s; = same words, ~ aligned, marked: not in the other", n, unit)
	}
	if Width(legend) > l.o.Width {
		legend, _ = cutWidth(legend, l.o.Width)
	}
	l.printf("%s\n", l.style(ansiDim, legend))
}

// rule prints a line across both columns with a title.
func (l *layout) rule(title string) {
	if title != "" {
		title = " " + title + " "
		if Width(title) > l.o.Width-2 {
			title, _ = cutWidth(title, l.o.Width-2)
		}
	}
	n := max(0, l.o.Width-2-Width(title))
	l.printf("%s\n", l.style(ansiAccent, "──"+title+strings.Repeat("─", n)))
}

// fold prints one row for the sentences [fa, la) of a and [fb, lb) of b
// between spans, or nothing when both are empty.
func (l *layout) fold(fa, la, fb, lb int, a, b Doc) {
	desc := func(ss []dedup.Sentence, f, t int) string {
		if t <= f {
			return ""
		}
		chars := ss[t-1].End - ss[f].Start
		unit := "sentences"
		if t-f == 1 {
			unit = "sentence"
		}
		return fmt.Sprintf("... %d %s (%d characters) ...", t-f, unit, chars)
	}
	left, right := desc(a.Sentences, fa, la), desc(b.Sentences, fb, lb)
	if left == "" && right == "" {
		return
	}
	l.row([]chunk{{text: left}}, []chunk{{text: right}}, ' ', ansiDim)
}

// context prints sentences around a span, side by side, unpaired.
func (l *layout) context(as, bs []dedup.Sentence, ra, rb []rune) {
	for i := range max(len(as), len(bs)) {
		var left, right []chunk
		if i < len(as) {
			left = l.cell(ra, as[i], nil)
		}
		if i < len(bs) {
			right = l.cell(rb, bs[i], nil)
		}
		l.row(left, right, ' ', ansiDim)
	}
}

// span prints the rows of one span: A's sentences ms and B's ks, aligned.
func (l *layout) span(ms, ks []dedup.Sentence, ra, rb []rune) {
	match := dedup.Align(ms, ks)
	next := 0 // the first sentence of ks not printed
	prev := -1
	for i, s := range ms {
		j := match[i]
		if j < 0 || j < next && j != prev {
			l.row(l.cell(ra, s, nil), nil, ' ', "")
			continue
		}
		if j == prev { // a sentence B holds as one with the one before
			l.row(l.cell(ra, s, ks[j].Words), nil, '~', "")
			continue
		}
		for ; next < j; next++ {
			l.row(nil, l.cell(rb, ks[next], nil), ' ', "")
		}
		mark := '~'
		if slices.Equal(s.Words, ks[j].Words) {
			mark = '='
		}
		l.row(l.cell(ra, s, ks[j].Words), l.cell(rb, ks[j], s.Words), mark, "")
		next, prev = j+1, j
	}
	for ; next < len(ks); next++ {
		l.row(nil, l.cell(rb, ks[next], nil), ' ', "")
	}
}

// cell returns the chunks of sentence s of text r; with other (the
// partner's words), the pieces holding a word other lacks are marked.
func (l *layout) cell(r []rune, s dedup.Sentence, other []uint64) []chunk {
	text := collapse(string(r[min(s.Start, len(r)):min(s.End, len(r))]))
	if other == nil {
		return []chunk{{text: text}}
	}
	var out []chunk
	var hs []uint64
	for _, p := range pieces(text) {
		marked := false
		hs = l.tok.Hashes(hs[:0], p)
		for _, h := range hs {
			if _, ok := slices.BinarySearch(other, h); !ok {
				marked = true
				break
			}
		}
		if n := len(out); n > 0 && out[n-1].marked == marked {
			out[n-1].text += p
			continue
		}
		out = append(out, chunk{text: p, marked: marked})
	}
	return out
}

// pieces splits text into words, the spaces between them, and single
// ideographs (scripts written without spaces have a word per character
// or two; marking each is as precise as the tokenizer).
func pieces(text string) []string {
	var out []string
	start := 0
	kind := func(r rune) int {
		switch {
		case unicode.IsSpace(r):
			return 0
		case isWide(r):
			return 2
		}
		return 1
	}
	prev := -1
	for i, r := range text {
		k := kind(r)
		if i > start && (k != prev || k == 2) {
			out = append(out, text[start:i])
			start = i
		}
		prev = k
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// collapse turns each run of white space into one space and trims it,
// and shows each other control character (an escape sequence a page
// holds would drive the terminal) as U+FFFD.
func collapse(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// row prints a row: left and right cells wrapped to the column width, the
// mark between them on the first line, every line styled with style (an
// ANSI code, when colour is on).
func (l *layout) row(left, right []chunk, mark rune, style string) {
	ll, rl := l.wrap(left), l.wrap(right)
	for i := range max(len(ll), len(rl), 1) {
		var a, b string
		var wa int
		if i < len(ll) {
			a, wa = l.render(ll[i], style)
		}
		if i < len(rl) {
			b, _ = l.render(rl[i], style)
		}
		m := ' '
		if i == 0 {
			m = mark
		}
		line := a + strings.Repeat(" ", max(0, l.col-wa)) + " " + string(m) + " " + b
		l.printf("%s\n", strings.TrimRight(line, " "))
	}
}

// render returns a line of chunks with its marks, and its display width.
func (l *layout) render(cs []chunk, style string) (string, int) {
	var b strings.Builder
	n := 0
	for _, c := range cs {
		n += Width(c.text)
		switch {
		case c.marked && l.o.Color:
			b.WriteString(ansiMark + c.text + ansiReset)
		case c.marked:
			b.WriteString("{" + c.text + "}")
		case style != "":
			b.WriteString(l.style(style, c.text))
		default:
			b.WriteString(c.text)
		}
	}
	if !l.o.Color {
		n = Width(b.String())
	}
	return b.String(), n
}

// wrap breaks chunks into lines of at most the column's display width
// (marks included when they are plain text), at spaces where it can.
func (l *layout) wrap(cs []chunk) [][]chunk {
	var lines [][]chunk
	var cur []chunk
	w := 0
	extra := 0
	if !l.o.Color {
		extra = 2 // the braces of a marked piece
	}
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, cur)
		}
		cur, w = nil, 0
	}
	for _, c := range cs {
		for _, p := range pieces(c.text) {
			pw := Width(p)
			if c.marked {
				pw += extra
			}
			if w+pw > l.col && w > 0 {
				flush()
				if strings.TrimSpace(p) == "" {
					continue // no line starts with a space
				}
			}
			for pw > l.col { // a word wider than the column: cut it
				head, rest := cutWidth(p, l.col-extra)
				cur = append(cur, chunk{text: head, marked: c.marked})
				flush()
				p = rest
				pw = Width(p) + extra*b2i(c.marked)
			}
			if n := len(cur); n > 0 && cur[n-1].marked == c.marked {
				cur[n-1].text += p
			} else {
				cur = append(cur, chunk{text: p, marked: c.marked})
			}
			w += pw
		}
	}
	flush()
	return lines
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cutWidth splits s after at most w columns (at least one rune).
func cutWidth(s string, w int) (string, string) {
	n := 0
	for i, r := range s {
		rw := RuneWidth(r)
		if n+rw > w && i > 0 {
			return s[:i], s[i:]
		}
		n += rw
	}
	return s, ""
}

// Width is the display width of s.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += RuneWidth(r)
	}
	return n
}

// RuneWidth is the display width of r: 2 for East Asian wide and fullwidth
// characters, 0 for combining marks and controls, else 1.
func RuneWidth(r rune) int {
	switch {
	case r == utf8.RuneError:
		return 1
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.IsControl(r) || r == '\u200b':
		return 0
	case isWide(r):
		return 2
	}
	return 1
}

func isWide(r rune) bool {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return true
	}
	return false
}
