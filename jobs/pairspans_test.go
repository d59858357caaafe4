package jobs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/span"
)

// TestSpansPair: pdc spans --pair A B matches two documents alone. On a
// pair of the sample that no template touches it gives the run's spans;
// two copies of a passage in 150 documents, which the run links through a
// hub only, get their span; bad use is a usage error.
func TestSpansPair(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	a, b := "python/library/bz2.html", "python/library/lzma.html"
	all, _, _ := runPDC(t, "spans", out)
	var want strings.Builder
	for _, line := range strings.SplitAfter(all, "\n") {
		if strings.HasPrefix(line, a+"\t"+b+"\t") {
			want.WriteString(line)
		}
	}
	// Either order. Extension may go further than in the run: the run's
	// join leaves out the site's template sentences, which extension does
	// not step on, and two documents alone have no template.
	got, stderr, code := runPDC(t, "spans", out, "--pair", b, a)
	if code != 0 || !spansWithin(t, want.String(), got) || want.Len() == 0 {
		t.Errorf("--pair %s %s: exit %d\n%s\nwant (or wider)\n%s%s", b, a, code, got, want.String(), stderr)
	}

	dir := t.TempDir()
	story := "The river rose three feet overnight and closed the old bridge. " +
		"Engineers from the county inspected the pillars at dawn on Tuesday. " +
		"They found cracks in two of the four supports near the east bank. " +
		"The bridge will stay closed until the repairs are finished in spring."
	var docs strings.Builder
	for i := range 150 {
		own := fmt.Sprintf("Item%d alpha%d beta%d gamma%d delta%d. ", i, i, i, i, i) // no word shared
		line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("copy%03d", i), "url": fmt.Sprintf("https://h%d.example/", i), "text": own + story})
		docs.Write(append(line, '\n'))
	}
	in := filepath.Join(dir, "docs.jsonl")
	if err := os.WriteFile(in, []byte(docs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	hub := filepath.Join(dir, "out")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", hub, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	spans, _, _ := runPDC(t, "spans", hub)
	if n := strings.Count(spans, "\n"); n != 149 || strings.Contains(spans, "copy007\tcopy042\t") {
		t.Fatalf("150 copies: %d spans, want 149 (each copy with the hub copy000)", n)
	}
	got, stderr, code = runPDC(t, "spans", hub, "--pair", "copy007", "copy042", "--text", "--format", "jsonl")
	if code != 0 || strings.Count(got, "\n") != 1 || !strings.Contains(got, `"text_a":"The river rose`) || !strings.Contains(got, `"length":4`) {
		t.Errorf("--pair copy007 copy042: exit %d\n%s%s", code, got, stderr)
	}
	for _, args := range [][]string{{"spans", hub, "--pair", "copy007"}, {"spans", hub, "--pair", "copy007", "copy007"}} {
		if _, stderr, code := runPDC(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, code, stderr)
		}
	}
	if _, stderr, code := runPDC(t, "spans", hub, "--pair", "copy007", "nosuch"); code != 1 || !strings.Contains(stderr, `"nosuch"`) {
		t.Errorf("--pair with an unknown document: exit %d %s", code, stderr)
	}
}

// spansWithin reports whether got has as many spans as want, each starting
// at or before and ending at or after the one of want in its place.
func spansWithin(t *testing.T, want, got string) bool {
	t.Helper()
	w, g := strings.Split(strings.TrimSpace(want), "\n"), strings.Split(strings.TrimSpace(got), "\n")
	if len(w) != len(g) {
		return false
	}
	for i := range w {
		sw, err1 := span.Parse(w[i])
		sg, err2 := span.Parse(g[i])
		if err1 != nil || err2 != nil || sw.DocA != sg.DocA || sw.DocB != sg.DocB ||
			sg.CharStartA > sw.CharStartA || sg.CharEndA < sw.CharEndA || sg.CharStartB > sw.CharStartB || sg.CharEndB < sw.CharEndB {
			return false
		}
	}
	return true
}
