package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/span"
)

func TestPairsAndTop(t *testing.T) {
	spans := []span.Span{
		{DocA: "a", DocB: "b", CharStartA: 0, CharEndA: 10, CharStartB: 0, CharEndB: 10},
		{DocA: "a", DocB: "b", CharStartA: 5, CharEndA: 20, CharStartB: 30, CharEndB: 45},
		{DocA: "a", DocB: "c", CharStartA: 0, CharEndA: 100, CharStartB: 0, CharEndB: 90},
		{DocA: "b", DocB: "c", CharStartA: 0, CharEndA: 10, CharStartB: 0, CharEndB: 10},
	}
	pairs := Pairs(spans)
	if len(pairs) != 3 || pairs[0].SharedA != 20 || pairs[0].SharedB != 25 || len(pairs[0].Spans) != 2 {
		t.Fatalf("pairs %+v", pairs)
	}
	var got []string
	for _, p := range Top(pairs, 2) {
		got = append(got, p.A+p.B)
	}
	if want := []string{"ac", "ab"}; !reflect.DeepEqual(got, want) {
		t.Errorf("top %v, want %v", got, want)
	}
}

// analyzed is the Doc of text as pdc report builds it.
func analyzed(t *testing.T, text, url string) Doc {
	t.Helper()
	var an doc.Analyzer
	a, err := an.Analyze(&doc.Doc{ID: "x", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	var tok sentence.Tokenizer
	return Doc{Text: strings.Clone(a.Text), URL: url, Content: span.ContentOf(a, 3), Sentences: dedup.Sentences(a, &tok, 3)}
}

// TestPairView: a pair page's rows hold every span whole, with a start
// row per span, and the text between spans folded with at most MaxText
// characters shown and the rest counted.
func TestPairView(t *testing.T) {
	own := strings.Repeat("Nothing here is shared with the other page at all. ", 6)
	shared := "The quick brown fox jumps over the lazy dog today. A second sentence follows the first one here. "
	ta, tb := own+shared+"Tail of A is here alone.", shared+"Between two spans we have this text. "+shared
	a, b := analyzed(t, ta, ""), analyzed(t, tb, "")
	at := func(text string, from int) int { return len([]rune(text[:strings.Index(text[from:], shared)+from])) }
	n := len([]rune(shared)) - 1
	spans := []span.Span{
		{DocA: "a", DocB: "b", Length: 2, CharStartA: at(ta, 0), CharEndA: at(ta, 0) + n, CharStartB: 0, CharEndB: n, Score: 1},
		{DocA: "a", DocB: "b", Length: 2, CharStartA: at(ta, 0), CharEndA: at(ta, 0) + n, CharStartB: at(tb, 10), CharEndB: at(tb, 10) + n, Score: 1},
	}
	site := &Site{Opts: Options{MaxText: 100}}
	v := site.pairView(0, Pairs(spans)[0], map[string]Doc{"a": a, "b": b})
	var kinds []string
	for _, r := range v.Rows {
		kinds = append(kinds, r.Kind)
	}
	want := "fold start pair pair end fold start pair pair end fold"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
	first := v.Rows[0].FoldA
	if first.Desc != "... 6 sentences (305 characters) ..." || len([]rune(first.Text)) != 100 || first.More != 205 {
		t.Errorf("first fold %q, %d characters shown, %d more", first.Desc, len([]rune(first.Text)), first.More)
	}
	if v.Rows[0].FoldB.Desc != "" || v.Rows[5].FoldB.Text != "Between two spans we have this text." {
		t.Errorf("B's folds %+v %+v", v.Rows[0].FoldB, v.Rows[5].FoldB)
	}
	if r := v.Rows[2]; r.Mark != "=" || r.A[0].Text != "The quick brown fox jumps over the lazy dog today." || r.B[0].Text != r.A[0].Text {
		t.Errorf("first sentence pair %+v", r)
	}
	if len(v.Spans) != 2 || v.Spans[1].I != 2 || v.Spans[1].CharStartB != at(tb, 10) {
		t.Errorf("span table %+v", v.Spans)
	}
}

func TestSafeURL(t *testing.T) {
	for u, want := range map[string]string{
		"https://example.org/a?b=c": "https://example.org/a?b=c", "http://x.y/": "http://x.y/",
		"javascript:alert(1)": "", "data:text/html,x": "", "/relative": "", "file:///etc/passwd": "", "https:///nohost": "",
	} {
		if got := safeURL(u); got != want {
			t.Errorf("safeURL(%q) = %q, want %q", u, got, want)
		}
	}
}

// TestWriteEscapes: the pages escape document strings and carry the
// Content-Security-Policy (the browser test: jobs TestReportHostile).
func TestWriteEscapes(t *testing.T) {
	files := map[string]*bytes.Buffer{}
	site := &Site{Opts: DefaultOptions(), Generated: time.Unix(0, 0), Create: func(name string) (io.WriteCloser, error) {
		files[name] = &bytes.Buffer{}
		return nopCloser{files[name]}, nil
	}}
	sp := []span.Span{{DocA: `<b>a</b>`, DocB: `b"'`, CharStartA: 0, CharEndA: 8, CharStartB: 0, CharEndB: 8, Score: 1}}
	pairs := Pairs(sp)
	docs := map[string]Doc{`<b>a</b>`: analyzed(t, "<script>x</script> is a tag we show.", "javascript:x"), `b"'`: analyzed(t, "<i>y</i> is a tag we show.", "https://b.example/")}
	tally := NewTally(len(pairs))
	for _, p := range pairs {
		tally.Add(p)
	}
	if err := site.Write(Run{Out: "out", Counters: map[string]int64{"match.spans": 1}}, tally, docs); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "pair-0001.html", "style.css"} {
		if files[name] == nil {
			t.Fatalf("no %s", name)
		}
	}
	for _, name := range []string{"index.html", "pair-0001.html"} {
		page := files[name].String()
		if name == "pair-0001.html" && !strings.Contains(page, "&lt;script&gt;x&lt;/script&gt;") {
			t.Errorf("%s does not show the text", name)
		}
		if strings.Contains(page, "<script>") || strings.Contains(page, "<b>a</b>") || strings.Contains(page, "javascript:") {
			t.Errorf("%s: unescaped document strings", name)
		}
		if !strings.Contains(page, "Content-Security-Policy") || !strings.Contains(page, "default-src &#39;none&#39;") {
			t.Errorf("%s: no CSP", name)
		}
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestTallyModel checks a Tally against the reference (every pair sorted,
// every span binned) on random pairs.
func TestTallyModel(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 5))
		var pairs []Pair
		for range rng.IntN(60) {
			p := Pair{A: fmt.Sprint(rng.IntN(9)), B: fmt.Sprint(rng.IntN(9)), SharedA: rng.IntN(20), SharedB: rng.IntN(20)}
			if slices.ContainsFunc(pairs, func(q Pair) bool { return q.A == p.A && q.B == p.B }) {
				continue
			}
			for range rng.IntN(4) {
				p.Spans = append(p.Spans, span.Span{Length: rng.IntN(120), Score: rng.Float64()})
			}
			pairs = append(pairs, p)
		}
		n := rng.IntN(10)
		ref := slices.Clone(pairs)
		slices.SortStableFunc(ref, func(x, y Pair) int {
			return cmp.Or(cmp.Compare(y.SharedA+y.SharedB, x.SharedA+x.SharedB), strings.Compare(x.A, y.A), strings.Compare(x.B, y.B))
		})
		ref = ref[:min(n, len(ref))]
		tally := NewTally(n)
		lengths := make([]int, len(lengthBounds)+1)
		for _, p := range pairs {
			tally.Add(p)
			for _, s := range p.Spans {
				i := 0
				for i < len(lengthBounds) && float64(s.Length) >= lengthBounds[i] {
					i++
				}
				lengths[i]++
			}
		}
		if got := tally.Top(); !reflect.DeepEqual(got, ref) && (len(got) > 0 || len(ref) > 0) {
			t.Fatalf("seed %d: top %d = %+v, want %+v", seed, n, got, ref)
		}
		if tally.Pairs() != len(pairs) || !slices.Equal(tally.lengths, lengths) {
			t.Fatalf("seed %d: %d pairs, lengths %v; want %d, %v", seed, tally.Pairs(), tally.lengths, len(pairs), lengths)
		}
	}
}
