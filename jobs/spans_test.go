package jobs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
)

// TestCompareSpans checks the order of parsed spans against the bytes the
// join's shuffle sorts: Escape(a) TAB Escape(b) TAB, on ids full of bytes
// that escape or sort around TAB.
func TestCompareSpans(t *testing.T) {
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
		p, err := ParseSpan(string(s.AppendTSV(nil)))
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
		got, want := compareSpans(parse(a1, b1), parse(a2, b2)), bytes.Compare(key(a1, b1), key(a2, b2))
		if got != want {
			t.Fatalf("compareSpans of (%q, %q) and (%q, %q) = %d, want %d", a1, b1, a2, b2, got, want)
		}
	}
}

// TestSpansStreamed: with several reducers (part files), pdc spans merges
// the parts into the same order readSpans sorts them in.
func TestSpansStreamed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, err := runMain("run", "--input", sample, "--output", out, "--reducers", "3", "--quiet"); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	parts, err := partFiles(filepath.Join(out, "spans"))
	if err != nil || len(parts) != 3 {
		t.Fatalf("want 3 part files, got %v %v", parts, err)
	}
	got, stderr, err := runMain("spans", out)
	if err != nil {
		t.Fatalf("spans: %v\n%s", err, stderr)
	}
	spans, err := readSpans(localSpanFS{}, out)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range spans {
		want.Write(spans[i].AppendTSV(nil))
		want.WriteByte('\n')
	}
	if got != want.String() || len(spans) < 5 {
		t.Errorf("streamed spans differ from sorted ones (%d spans)", len(spans))
	}
}

// TestSpansUnsortedParts: part files out of order are sorted when the
// disorder shows before any output leaves the buffer, else an error names
// the file and line.
func TestSpansUnsortedParts(t *testing.T) {
	line := func(i int) string { return fmt.Sprintf("d%06d\te%06d\t0\t1\t3\t0\t17\t20\t37\t0.9000", i, i) }
	small := writeSpansDir(t, line(2), line(1))
	got, _, err := runMain("spans", small)
	if err != nil || got != line(1)+"\n"+line(2)+"\n" {
		t.Errorf("small unsorted part: %v\n%s", err, got)
	}
	var lines []string
	for i := range 5000 {
		lines = append(lines, line(i))
	}
	lines = append(lines, line(0))
	big := writeSpansDir(t, lines...)
	_, _, err = runMain("spans", big)
	if err == nil || !strings.Contains(err.Error(), "part-r-00000:5001: spans out of order") {
		t.Errorf("big unsorted part: err %v", err)
	}
}
