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
	// plain text: a word the other sentence lacks is {word}, or [word],
	// <word> or «word» when the sentences shown hold braces (marks).
	Color bool
	// Span, when > 0, shows only the span of that number (1 is the first
	// in A's order) with Context sentences around it on each side.
	Span    int
	Context int
}

// MinWidth is the narrowest output Render lays out.
const MinWidth = 40

// Kind is what a row of the view holds.
type Kind int

const (
	// Fold is the sentences between spans, folded: FoldA and FoldB.
	Fold Kind = iota
	// Start opens span Num: Span is the span, A and B oriented as the view.
	Start
	// Pair is a sentence of A beside its partner in B (Mark '=': the same
	// words, '~': aligned), or a sentence of one side alone (Mark ' ').
	Pair
	// Context is sentences around the span of Options.Span, unpaired.
	Context
	// End closes span Num.
	End
)

// A Row is one row of the view.
type Row struct {
	Kind Kind
	// Num is the number of the span of a Start, Pair or End row (1: the
	// first in A's order), Of the number of spans of the pair.
	Num, Of int
	Span    span.Span
	// A and B are the cells (nil: empty); a chunk is marked when its words
	// are not in the partner sentence.
	A, B []Chunk
	Mark rune
	// FoldA and FoldB are the stretches a Fold row stands for.
	FoldA, FoldB Stretch
}

// Chunk is a piece of a cell's text: whitespace collapsed, control
// characters shown as U+FFFD.
type Chunk struct {
	Text   string
	Marked bool
}

// Stretch is a run of sentences: how many, and their rune range in the
// document's text (Start == End when there are none).
type Stretch struct{ Sentences, Start, End int }

// Layout returns the rows of the view of a and b and their spans (any
// order; spans of other pairs are an error): the spans in A's order, the
// sentences between them folded. With o.Span, only that span and
// o.Context sentences around it.
func Layout(a, b Doc, spans []span.Span, o Options) ([]Row, error) {
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
			return nil, fmt.Errorf("span of %s and %s is not of the pair %s, %s", s.DocA, s.DocB, a.ID, b.ID)
		}
		ss = append(ss, s)
	}
	slices.SortFunc(ss, func(x, y span.Span) int {
		return cmp.Or(cmp.Compare(x.CharStartA, y.CharStartA), cmp.Compare(x.CharStartB, y.CharStartB))
	})
	if o.Span > len(ss) {
		return nil, fmt.Errorf("span %d: the pair has %d spans", o.Span, len(ss))
	}
	l := layout{a: a, b: b, ra: []rune(a.Text), rb: []rune(b.Text)}
	nextA, nextB := 0, 0 // the first sentence of each side not shown yet
	for i, s := range ss {
		if o.Span > 0 && i+1 != o.Span {
			continue
		}
		fa, la := sentRange(a.Sentences, s.CharStartA, s.CharEndA)
		fb, lb := sentRange(b.Sentences, s.CharStartB, s.CharEndB)
		if o.Span > 0 {
			ca, cb := max(nextA, fa-o.Context), max(nextB, fb-o.Context)
			l.fold(nextA, ca, nextB, cb)
			l.context(a.Sentences[ca:fa], b.Sentences[cb:fb])
		} else {
			l.fold(nextA, fa, nextB, fb)
		}
		l.rows = append(l.rows, Row{Kind: Start, Num: i + 1, Of: len(ss), Span: s})
		l.span(i+1, len(ss), a.Sentences[fa:la], b.Sentences[fb:lb])
		l.rows = append(l.rows, Row{Kind: End, Num: i + 1, Of: len(ss), Span: s})
		nextA, nextB = max(nextA, la), max(nextB, lb)
		if o.Span > 0 {
			ea, eb := min(len(a.Sentences), nextA+o.Context), min(len(b.Sentences), nextB+o.Context)
			l.context(a.Sentences[nextA:ea], b.Sentences[nextB:eb])
			nextA, nextB = ea, eb
		}
	}
	l.fold(nextA, len(a.Sentences), nextB, len(b.Sentences))
	return l.rows, nil
}

// Render writes the side-by-side view of a and b and their spans (Layout)
// to a terminal or a file, o.Width columns wide.
func Render(w io.Writer, a, b Doc, spans []span.Span, o Options) error {
	if o.Width < MinWidth {
		return fmt.Errorf("width %d is under %d columns", o.Width, MinWidth)
	}
	rows, err := Layout(a, b, spans, o)
	if err != nil {
		return err
	}
	p := printer{o: o, col: (o.Width - 3) / 2, w: w}
	p.open, p.close = marks(rows)
	n := 0
	for _, r := range rows {
		if r.Kind == Start {
			n = r.Of
		}
	}
	p.header(a, b, n)
	for _, r := range rows {
		switch r.Kind {
		case Fold:
			p.row([]Chunk{{Text: r.FoldA.Describe()}}, []Chunk{{Text: r.FoldB.Describe()}}, ' ', ansiDim)
		case Start:
			s := r.Span
			p.rule(fmt.Sprintf("span %d of %d: A %d-%d, B %d-%d, %d sentence pairs, score %.4f",
				r.Num, r.Of, s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB, s.Length, s.Score))
		case End:
			p.rule("")
		case Pair:
			p.row(r.A, r.B, r.Mark, "")
		case Context:
			p.row(r.A, r.B, ' ', ansiDim)
		}
	}
	return p.err
}

// Describe says what a stretch holds: "... 40 sentences (1234
// characters) ...", or "" when it is empty.
func (s Stretch) Describe() string {
	if s.Sentences == 0 {
		return ""
	}
	unit := "sentences"
	if s.Sentences == 1 {
		unit = "sentence"
	}
	return fmt.Sprintf("... %d %s (%d characters) ...", s.Sentences, unit, s.End-s.Start)
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

// layout collects the rows of a view.
type layout struct {
	a, b   Doc
	ra, rb []rune
	rows   []Row
	tok    sentence.Tokenizer
}

// printer writes rows as text.
type printer struct {
	o           Options
	col         int
	w           io.Writer
	err         error
	open, close string // around a marked piece, without colour (marks)
}

// markPairs are the delimiters a marked piece can have without colour, in
// the order tried.
var markPairs = [][2]string{{"{", "}"}, {"[", "]"}, {"<", ">"}, {"«", "»"}}

// marks returns the delimiters of marked pieces for rows: the first of
// markPairs neither of whose characters the rows' sentences hold, so that a
// mark is never taken for the text's own braces ({ } in code); the first
// when every pair occurs.
func marks(rows []Row) (string, string) {
	var text strings.Builder
	for _, r := range rows {
		for _, c := range append(slices.Clip(r.A), r.B...) {
			text.WriteString(c.Text)
		}
	}
	t := text.String()
	for _, m := range markPairs {
		if !strings.Contains(t, m[0]) && !strings.Contains(t, m[1]) {
			return m[0], m[1]
		}
	}
	return markPairs[0][0], markPairs[0][1]
}

const (
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiMark   = "\x1b[1;33m"
	ansiAccent = "\x1b[36m"
	ansiReset  = "\x1b[0m"
)

func (l *printer) printf(format string, args ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format, args...)
	}
}

func (l *printer) style(code, s string) string {
	if !l.o.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (l *printer) header(a, b Doc, n int) {
	l.row([]Chunk{{Text: "A: " + a.ID}}, []Chunk{{Text: "B: " + b.ID}}, ' ', ansiBold)
	url := func(d Doc) string { // on one line of the column, or not at all
		if d.URL == "" || d.URL == d.ID || Width(d.URL) > l.col {
			return ""
		}
		return d.URL
	}
	if ua, ub := url(a), url(b); ua != "" || ub != "" {
		l.row([]Chunk{{Text: ua}}, []Chunk{{Text: ub}}, ' ', ansiDim)
	}
	unit := "spans"
	if n == 1 {
		unit = "span"
	}
	legend := fmt.Sprintf("%d %s; = same words, ~ aligned, %sx%s: x not in the other", n, unit, l.open, l.close)
	if l.o.Color {
		legend = fmt.Sprintf("%d %s; = same words, ~ aligned, marked: not in the other", n, unit)
	}
	if Width(legend) > l.o.Width {
		legend, _ = cutWidth(legend, l.o.Width)
	}
	l.printf("%s\n", l.style(ansiDim, legend))
}

// rule prints a line across both columns with a title.
func (l *printer) rule(title string) {
	if title != "" {
		title = " " + title + " "
		if Width(title) > l.o.Width-2 {
			title, _ = cutWidth(title, l.o.Width-2)
		}
	}
	n := max(0, l.o.Width-2-Width(title))
	l.printf("%s\n", l.style(ansiAccent, "──"+title+strings.Repeat("─", n)))
}

// fold adds one row for the sentences [fa, la) of a and [fb, lb) of b
// between spans, or nothing when both are empty.
func (l *layout) fold(fa, la, fb, lb int) {
	stretch := func(ss []dedup.Sentence, f, t int) Stretch {
		if t <= f {
			return Stretch{}
		}
		return Stretch{Sentences: t - f, Start: ss[f].Start, End: ss[t-1].End}
	}
	sa, sb := stretch(l.a.Sentences, fa, la), stretch(l.b.Sentences, fb, lb)
	if sa.Sentences == 0 && sb.Sentences == 0 {
		return
	}
	l.rows = append(l.rows, Row{Kind: Fold, FoldA: sa, FoldB: sb})
}

// context adds rows of sentences around a span, side by side, unpaired.
func (l *layout) context(as, bs []dedup.Sentence) {
	for i := range max(len(as), len(bs)) {
		var left, right []Chunk
		if i < len(as) {
			left = l.cell(l.ra, as[i], nil)
		}
		if i < len(bs) {
			right = l.cell(l.rb, bs[i], nil)
		}
		l.rows = append(l.rows, Row{Kind: Context, A: left, B: right, Mark: ' '})
	}
}

// span adds the rows of span num: A's sentences ms and B's ks, aligned.
func (l *layout) span(num, of int, ms, ks []dedup.Sentence) {
	ra, rb := l.ra, l.rb
	add := func(a, b []Chunk, mark rune) {
		l.rows = append(l.rows, Row{Kind: Pair, Num: num, Of: of, A: a, B: b, Mark: mark})
	}
	match := dedup.AlignSimilar(ms, ks)
	next := 0 // the first sentence of ks not printed
	prev := -1
	for i, s := range ms {
		j := match[i]
		if j < 0 || j < next && j != prev {
			add(l.cell(ra, s, nil), nil, ' ')
			continue
		}
		if j == prev { // a sentence B holds as one with the one before
			add(l.cell(ra, s, ks[j].Words), nil, '~')
			continue
		}
		for ; next < j; next++ {
			add(nil, l.cell(rb, ks[next], nil), ' ')
		}
		mark := '~'
		if slices.Equal(s.Words, ks[j].Words) {
			mark = '='
		}
		add(l.cell(ra, s, ks[j].Words), l.cell(rb, ks[j], s.Words), mark)
		next, prev = j+1, j
	}
	for ; next < len(ks); next++ {
		add(nil, l.cell(rb, ks[next], nil), ' ')
	}
}

// cell returns the chunks of sentence s of text r; with other (the
// partner's words), the pieces holding a word other lacks are marked.
func (l *layout) cell(r []rune, s dedup.Sentence, other []uint64) []Chunk {
	text := collapse(string(r[min(s.Start, len(r)):min(s.End, len(r))]))
	if other == nil {
		return []Chunk{{Text: text}}
	}
	var out []Chunk
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
		if n := len(out); n > 0 && out[n-1].Marked == marked {
			out[n-1].Text += p
			continue
		}
		out = append(out, Chunk{Text: p, Marked: marked})
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
func (l *printer) row(left, right []Chunk, mark rune, style string) {
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
func (l *printer) render(cs []Chunk, style string) (string, int) {
	var b strings.Builder
	n := 0
	for _, c := range cs {
		n += Width(c.Text)
		switch {
		case c.Marked && l.o.Color:
			b.WriteString(ansiMark + c.Text + ansiReset)
		case c.Marked:
			b.WriteString(l.open + c.Text + l.close)
		case style != "":
			b.WriteString(l.style(style, c.Text))
		default:
			b.WriteString(c.Text)
		}
	}
	if !l.o.Color {
		n = Width(b.String())
	}
	return b.String(), n
}

// wrap breaks chunks into lines of at most the column's display width
// (marks included when they are plain text), at spaces where it can.
func (l *printer) wrap(cs []Chunk) [][]Chunk {
	var lines [][]Chunk
	var cur []Chunk
	w := 0
	extra := 0
	if !l.o.Color {
		extra = Width(l.open) + Width(l.close) // the delimiters of a marked piece
	}
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, cur)
		}
		cur, w = nil, 0
	}
	for _, c := range cs {
		for _, p := range pieces(c.Text) {
			pw := Width(p)
			if c.Marked {
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
				cur = append(cur, Chunk{Text: head, Marked: c.Marked})
				flush()
				p = rest
				pw = Width(p) + extra*b2i(c.Marked)
			}
			if n := len(cur); n > 0 && cur[n-1].Marked == c.Marked {
				cur[n-1].Text += p
			} else {
				cur = append(cur, Chunk{Text: p, Marked: c.Marked})
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
