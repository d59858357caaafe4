package jobs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/span"
)

// TestSpansStreamed: with several reducers (part files), pdc spans merges
// the parts into the same order span.Read sorts them in.
func TestSpansStreamed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, err := runMain("run", "--input", sample, "--output", out, "--reducers", "3", "--quiet"); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	parts, err := pipeline.PartFiles(hdfsfs.Local(), filepath.Join(out, "spans"))
	if err != nil || len(parts) != 3 {
		t.Fatalf("want 3 part files, got %v %v", parts, err)
	}
	got, stderr, err := runMain("spans", out)
	if err != nil {
		t.Fatalf("spans: %v\n%s", err, stderr)
	}
	spans, err := span.Read(hdfsfs.Local(), out)
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

// TestSpansTextTree: after a run on a directory tree with subdirectories,
// pdc spans --text finds the documents through the run's manifest (the
// ids are paths under the tree's root).
func TestSpansTextTree(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	para := "<p>" + quoted + "</p>"
	writeFile(t, filepath.Join(tree, "a", "one.html"), "<p>The first page starts its own way here today.</p>"+para)
	writeFile(t, filepath.Join(tree, "b", "c", "two.html"), "<p>The second page has another opening sentence.</p>"+para)
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", tree, "--output", out, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	text, stderr, code := runPDC(t, "spans", out, "--text")
	if code != 0 || !strings.HasPrefix(text, "a/one.html\tb/c/two.html\t") || !strings.Contains(text, "The committee met on Tuesday") {
		t.Errorf("spans --text: exit %d %s\n%s", code, stderr, text)
	}
}
