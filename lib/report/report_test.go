package report

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/lib/span"
)

func TestCovered(t *testing.T) {
	for _, tt := range []struct {
		rs   [][2]int
		want int
	}{
		{nil, 0}, {[][2]int{{0, 10}}, 10}, {[][2]int{{0, 10}, {5, 15}}, 15}, {[][2]int{{20, 30}, {0, 10}}, 20},
		{[][2]int{{0, 10}, {2, 3}}, 10}, {[][2]int{{0, 5}, {5, 10}}, 10},
	} {
		if got := span.Covered(tt.rs); got != tt.want {
			t.Errorf("covered(%v) = %d, want %d", tt.rs, got, tt.want)
		}
	}
}

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

func TestSegments(t *testing.T) {
	segs, clipped := segments("0123456789abcdef", [][2]int{{2, 6}, {4, 8}, {12, 30}}, "a", "b", 14)
	var got []string
	for _, s := range segs {
		got = append(got, s.Text+"|"+strings.Join(s.Anchors, ",")+"|"+s.Link)
	}
	want := []string{"01||", "23|a1|#b1", "45|a2|#b1", "67||#b2", "89ab||", "cd|a3|#b3"}
	if !reflect.DeepEqual(got, want) || !clipped {
		t.Errorf("segments %q (clipped %v), want %q", got, clipped, want)
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
	docs := map[string]Doc{`<b>a</b>`: {Text: "<script>x</script>", URL: "javascript:x"}, `b"'`: {Text: "<i>y</i>", URL: "https://b.example/"}}
	if err := site.Write(Run{Out: "out", Counters: map[string]int64{"match.spans": 1}}, pairs, pairs, docs); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "pair-0001.html", "style.css"} {
		if files[name] == nil {
			t.Fatalf("no %s", name)
		}
	}
	for _, name := range []string{"index.html", "pair-0001.html"} {
		page := files[name].String()
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
