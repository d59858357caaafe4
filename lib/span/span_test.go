package span

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// TestCompare checks the order of parsed spans against the bytes the
// join's shuffle sorts: Escape(a) TAB Escape(b) TAB, on ids full of bytes
// that escape or sort around TAB.
func TestCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	id := func() string {
		const alphabet = "a\\\t\n\r\x01\x08\x0b~"
		b := make([]byte, 1+rng.IntN(5))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	key := func(a, b string) []byte {
		k := mr.AppendEscape(nil, a)
		k = append(k, '\t')
		k = mr.AppendEscape(k, b)
		return append(k, '\t')
	}
	parse := func(a, b string) Span {
		s := Span{DocA: a, DocB: b, Length: 3, CharEndA: 1, CharEndB: 1}
		p, err := Parse(string(s.AppendTSV(nil)))
		if err != nil || p.DocA != a || p.DocB != b {
			t.Fatalf("ParseSpan of %q %q: %+v, %v", a, b, p, err)
		}
		return p
	}
	for range 20000 {
		a1, b1, a2, b2 := id(), id(), id(), id()
		if rng.IntN(4) == 0 {
			a2 = a1
		}
		got, want := Compare(parse(a1, b1), parse(a2, b2)), bytes.Compare(key(a1, b1), key(a2, b2))
		if got != want {
			t.Fatalf("Compare of (%q, %q) and (%q, %q) = %d, want %d", a1, b1, a2, b2, got, want)
		}
	}
}

// TestParseErrors: malformed lines are errors naming the field.
func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{"a\tb\t0\t0\t3\t10\t60\t0\t55", "want 10 fields"},
		{"a\tb\t0\t0\t3\t10\tx\t0\t55\t1", "field 7"},
		{"a\tb\t0\t0\t3\t60\t10\t0\t55\t1", "ends before it starts"},
		{"a\tb\t0\t0\t3\t10\t60\t0\t55\tzz", "field 10"},
		{"a\\q\tb\t0\t0\t3\t10\t60\t0\t55\t1", "field 1"},
		{"ok\tb\t0\t0\t3\t-1\t60\t0\t55\t1", "field 6"},
	} {
		if _, err := Parse(tt.line); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tt.line, err, tt.want)
		}
	}
}

// TestTSVRoundTrip: AppendTSV writes what Parse reads, scores rounded to 4
// decimals.
func TestTSVRoundTrip(t *testing.T) {
	s := Span{DocA: "a\tb", DocB: "c\\d", StartA: 1, StartB: 2, Length: 3, CharStartA: 4, CharEndA: 50, CharStartB: 6, CharEndB: 70, Score: 0.87654}
	line := string(s.AppendTSV(nil))
	if want := "a\\tb\tc\\\\d\t1\t2\t3\t4\t50\t6\t70\t0.8765"; line != want {
		t.Fatalf("AppendTSV = %q, want %q", line, want)
	}
	p, err := Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	s.Score, s.key = 0.8765, p.key
	if p != s {
		t.Errorf("Parse(AppendTSV(s)) = %+v, want %+v", p, s)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("a\tb\t0000001\t0000004\t3\t10\t60\t0\t55\t0.95")
	f.Add("x\\ty\tz\t0\t0\t3\t0\t5\t7\t9\t1")
	f.Fuzz(func(t *testing.T, line string) {
		s, err := Parse(line)
		if err != nil {
			return
		}
		if s.CharEndA < s.CharStartA || s.CharEndB < s.CharStartB || s.StartA < 0 || s.Length < 0 {
			t.Fatalf("bad span accepted: %+v", s)
		}
		p, err := Parse(string(s.AppendTSV(nil)))
		if err != nil || p.DocA != s.DocA || p.DocB != s.DocB || p.CharEndB != s.CharEndB {
			t.Fatalf("round trip of %q: %+v, %v", line, p, err)
		}
	})
}

func TestMeasure(t *testing.T) {
	p := DocPair{SharedA: 50, SharedB: 30}
	if m := p.Measure(100, 60); m.ContainA != 0.5 || m.ContainB != 0.5 || m.Resemblance != 0.5 {
		t.Errorf("Measure = %+v", m)
	}
	if m := p.Measure(0, 0); m.ContainA != 0 || m.Resemblance != 0 {
		t.Errorf("Measure of empty documents = %+v", m)
	}
}

func TestContentWithin(t *testing.T) {
	c := NewContent([]ranges.Range{{Start: 0, End: 10}, {Start: 20, End: 30}, {Start: 40, End: 50}})
	if c.Chars != 30 || c.Sentences != 3 || !slices.Equal(slices.Collect(c.Ranges()), []ranges.Range{{Start: 0, End: 10}, {Start: 20, End: 30}, {Start: 40, End: 50}}) {
		t.Fatalf("NewContent: %d characters, %d sentences, ranges %v", c.Chars, c.Sentences, slices.Collect(c.Ranges()))
	}
	for _, tc := range []struct {
		rs   []ranges.Range
		want int
	}{
		{nil, 0},
		{[]ranges.Range{{Start: 0, End: 50}}, 30},
		{[]ranges.Range{{Start: 5, End: 25}}, 10},
		{[]ranges.Range{{Start: 5, End: 25}, {Start: 8, End: 22}}, 10}, // overlapping ranges once
		{[]ranges.Range{{Start: 10, End: 20}}, 0},                      // between sentences
		{[]ranges.Range{{Start: 45, End: 60}, {Start: 0, End: 1}}, 6},
	} {
		if got := c.Within(tc.rs); got != tc.want {
			t.Errorf("Within(%v) = %d, want %d", tc.rs, got, tc.want)
		}
	}
}

func TestMeasureContent(t *testing.T) {
	a := NewContent([]ranges.Range{{Start: 0, End: 10}, {Start: 11, End: 21}, {Start: 22, End: 32}})
	b := NewContent([]ranges.Range{{Start: 5, End: 15}, {Start: 16, End: 26}})
	p := DocPair{RangesA: []ranges.Range{{Start: 0, End: 32}}, RangesB: []ranges.Range{{Start: 5, End: 26}}}
	m, sa, sb := p.MeasureContent(a, b, 3, false)
	if sa != 30 || sb != 20 || m.ContainA != 1 || m.ContainB != 1 || m.ThinA || !m.ThinB {
		t.Errorf("got %+v, shared %d %d", m, sa, sb)
	}
	p = DocPair{RangesA: []ranges.Range{{Start: 0, End: 10}}, RangesB: []ranges.Range{{Start: 5, End: 15}}}
	if m, sa, sb = p.MeasureContent(a, b, 2, false); sa != 10 || sb != 10 || m.ContainA != 1.0/3 || m.ContainB != 0.5 || m.ThinB {
		t.Errorf("got %+v, shared %d %d", m, sa, sb)
	}
	if m, sa, _ = (DocPair{}).MeasureContent(a, a, 3, true); sa != 30 || m.ContainA != 1 || m.Resemblance != 1 {
		t.Errorf("whole: got %+v, shared %d", m, sa)
	}
}

// TestSameNeighbours: the sentences next to a span that are the same
// words on both sides, in order, are shared (a template the run left out
// of its spans), up to the first that differs, and so are the equal
// sentences in order between two spans that follow each other on both
// sides; a content without hashes gets none.
func TestSameNeighbours(t *testing.T) {
	// analysis makes a document of one 10-character sentence per word
	// list entry; equal entries are equal sentences.
	analysis := func(sents ...string) doc.Analysis {
		var a doc.Analysis
		for i, s := range sents {
			var toks []uint64
			for _, w := range strings.Fields(s) {
				toks = append(toks, uint64(len(w))*1000003+uint64(w[0]))
			}
			a.Sentences = append(a.Sentences, doc.Sentence{Start: 11 * i, End: 11*i + 10, Tokens: toks})
		}
		return a
	}
	span := func(fa, la, fb, lb int) Span {
		return Span{DocA: "a", DocB: "b", CharStartA: 11 * fa, CharEndA: 11*la + 10, CharStartB: 11 * fb, CharEndB: 11*lb + 10}
	}
	for _, tt := range []struct {
		name             string
		a, b             []string
		spans            []Span
		sharedA, sharedB int
	}{
		{"template around the span, banners differ",
			[]string{"s one two", "t one two", "c one two", "c two three", "u one two", "end a is"},
			[]string{"banner b x", "s one two", "t one two", "c one two", "c two three", "u one two", "end bb isnt"},
			[]Span{span(2, 3, 3, 4)}, 50, 50},
		{"a differing sentence stops the walk",
			[]string{"c one two", "c two three", "x aa", "u one two"},
			[]string{"c one two", "c two three", "y bbb", "u one two"},
			[]Span{span(0, 1, 0, 1)}, 20, 20},
		{"the gap between two spans, counted once",
			[]string{"c one two", "t one two", "d one two"},
			[]string{"c one two", "t one two", "d one two"},
			[]Span{span(0, 0, 0, 0), span(2, 2, 2, 2)}, 30, 30},
		{"no span, nothing",
			[]string{"c one two"}, []string{"c one two"}, nil, 0, 0},
		{"between two spans, past edited sentences",
			[]string{"c one two", "x aa", "t one two", "w bbb", "d one two"},
			[]string{"c one two", "y cccc", "t one two", "v ddddd", "d one two"},
			[]Span{span(0, 0, 0, 0), span(4, 4, 4, 4)}, 30, 30},
		{"between two spans, in order, with sentences of one side between",
			[]string{"c one two", "x aa", "t one two", "u one two", "y bbb", "d one two"},
			[]string{"c one two", "t one two", "z cccc", "u one two", "d one two"},
			[]Span{span(0, 0, 0, 0), span(5, 5, 4, 4)}, 40, 40},
		{"an echo elsewhere in B bounds no gap",
			[]string{"c one two", "e one two", "x aa", "t one two", "y bbb", "d one two"},
			[]string{"e one two", "c one two", "v cccc", "t one two", "w ddddd", "d one two", "e one two"},
			[]Span{span(1, 1, 6, 6), span(0, 0, 1, 1), span(5, 5, 5, 5)}, 40, 40},
	} {
		a, b := ContentOf(analysis(tt.a...), 1), ContentOf(analysis(tt.b...), 1)
		p := DocPair{Spans: tt.spans}
		p.measure()
		_, sa, sb := p.MeasureContent(a, b, 0, false)
		if sa != tt.sharedA || sb != tt.sharedB {
			t.Errorf("%s: shared %d, %d characters, want %d, %d", tt.name, sa, sb, tt.sharedA, tt.sharedB)
		}
		// Without hashes, only the spans count.
		plain := func(c Content) Content { return NewContent(slices.Collect(c.Ranges())) }
		_, pa, _ := p.MeasureContent(plain(a), plain(b), 0, false)
		if want := a.Within(p.RangesA); pa != want {
			t.Errorf("%s: without hashes shared %d, want the spans' %d", tt.name, pa, want)
		}
	}
}

// TestSameNeighboursNumbers: next to a span, sentences that are the same
// words but for their numbers (each mirror's banner) are shared; one with
// another word is not, nor is anything past it.
func TestSameNeighboursNumbers(t *testing.T) {
	var tz sentence.Tokenizer
	analysis := func(sents ...string) doc.Analysis {
		var a doc.Analysis
		for _, s := range sents {
			start := len(a.Text)
			a.Text += s + " "
			a.Sentences = append(a.Sentences, doc.Sentence{Start: start, End: start + len(s), Tokens: tz.Hashes(nil, s)})
			a.Spans = append(a.Spans, sentence.Span{ByteStart: start, ByteEnd: start + len(s), Start: start, End: start + len(s)})
		}
		return a
	}
	content := []string{"The first sentence of the page.", "The second sentence of the page."}
	for _, tt := range []struct {
		name       string
		a, b       []string
		wantBanner bool
	}{
		{"banners with other numbers", append([]string{"Mirror 01 of this manual, refreshed every 2 days."}, content...),
			append([]string{"Mirror 02 of this manual, refreshed every 3 days."}, content...), true},
		{"banners with other words", append([]string{"Mirror 01 of this manual, refreshed every 2 days."}, content...),
			append([]string{"Copy 01 of this manual, refreshed every 2 days."}, content...), false},
	} {
		a, b := ContentOf(analysis(tt.a...), 1), ContentOf(analysis(tt.b...), 1)
		ra := slices.Collect(a.Ranges())
		rb := slices.Collect(b.Ranges())
		p := DocPair{Spans: []Span{{DocA: "a", DocB: "b", CharStartA: ra[1].Start, CharEndA: ra[2].End, CharStartB: rb[1].Start, CharEndB: rb[2].End}}}
		p.measure()
		_, sa, _ := p.MeasureContent(a, b, 0, false)
		want := (ra[2].End - ra[1].Start) - (ra[2].Start - ra[1].End) // the two content sentences
		if tt.wantBanner {
			want += ra[0].End - ra[0].Start
		}
		if sa != want {
			t.Errorf("%s: shared %d characters of A, want %d", tt.name, sa, want)
		}
	}
}

// TestCommonSentences: commonSentences's pairs are in order on both
// sides, of equal hashes, as many as a longest common subsequence has
// (counted by a forward table, the textbook way), for random gaps with
// many repeated sentences.
func TestCommonSentences(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for round := range 300 {
		n, m := rng.IntN(12), rng.IntN(12)
		ha, hb := make([]uint32, n+2), make([]uint32, m+2)
		for i := range ha {
			ha[i] = uint32(rng.IntN(4))
		}
		for j := range hb {
			hb[j] = uint32(rng.IntN(4))
		}
		// the gap: all but the first and last sentence of each side
		var ia, ib []int
		for i := 1; i <= n; i++ {
			ia = append(ia, i)
		}
		for j := 1; j <= m; j++ {
			ib = append(ib, j)
		}
		got := commonSentences(ia, ib, ha, hb)
		lcs := make([][]int, n+1)
		for i := range lcs {
			lcs[i] = make([]int, m+1)
		}
		for i := 1; i <= n; i++ {
			for j := 1; j <= m; j++ {
				if ha[ia[i-1]] == hb[ib[j-1]] {
					lcs[i][j] = lcs[i-1][j-1] + 1
				} else {
					lcs[i][j] = max(lcs[i-1][j], lcs[i][j-1])
				}
			}
		}
		if len(got) != lcs[n][m] {
			t.Fatalf("round %d: %d pairs, want the LCS's %d (%v %v)", round, len(got), lcs[n][m], ha, hb)
		}
		for k, p := range got {
			if ha[p[0]] != hb[p[1]] || p[0] < 1 || p[0] > n || p[1] < 1 || p[1] > m ||
				k > 0 && (p[0] <= got[k-1][0] || p[1] <= got[k-1][1]) {
				t.Fatalf("round %d: pairs %v not in order, inside the gap and equal", round, got)
			}
		}
	}
	if got := commonSentences(make([]int, 600), make([]int, 600), make([]uint32, 1), make([]uint32, 1)); got != nil {
		t.Errorf("a gap over MaxGapCells was paired: %d pairs", len(got))
	}
}
