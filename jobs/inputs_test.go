package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncludeExclude: --exclude leaves files of an input directory out of
// a run, --list-inputs lists what a run would read without running it, the
// summary names a page's source beside it, and the commands that read the
// run's documents again (pdc text OUT, pdc dedup OUT) read the same ones.
func TestIncludeExclude(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(t.TempDir(), "tree")
	for i, name := range []string{"a", "b", "c"} {
		page := sitePage(i, "")
		writeFile(t, filepath.Join(tree, name+".html"), page)
		writeFile(t, filepath.Join(tree, name+".txt"), strings.NewReplacer("<p>", "", "</p>", "\n\n", "<html>", "", "</html>", "", "<body>", "", "</body>", "").Replace(page))
	}
	stdout, stderr, code := runPDC(t, "run", "--input", tree, "--exclude", "*.txt", "--list-inputs")
	if code != 0 || strings.Count(stdout, "\n") != 3 || strings.Contains(stdout, ".txt") ||
		!strings.Contains(stderr, "pdc: left out 3 files under the input directories by --include/--exclude\n") ||
		!strings.HasSuffix(stderr, "pdc: the run would read 3 local files\n") {
		t.Fatalf("--list-inputs: exit %d\n%s%s", code, stdout, stderr)
	}
	all := filepath.Join(t.TempDir(), "all")
	if _, stderr, code := runPDC(t, "run", "--input", tree, "--output", all, "--quiet", "--site-from", "none"); code != 0 ||
		!strings.Contains(stderr, "pdc: 3 .txt files beside a page of the same name (first: a.txt), a page and its source: to read the pages only, --exclude '*.txt'") {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", tree, "--output", out, "--quiet", "--site-from", "none", "--exclude", "*.txt", "--clusters"); code != 0 {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	c := readCountersFile(t, out)
	if c["parse.docs.read"] != 3 || c["input.files.excluded"] != 3 || readCountersFile(t, all)["input.files.page-sources"] != 3 {
		t.Errorf("read %d, excluded %d", c["parse.docs.read"], c["input.files.excluded"])
	}
	for _, p := range spanPairs(t, out) {
		if strings.Contains(p, ".txt") {
			t.Errorf("a pair of an excluded file: %s", p)
		}
	}
	text, stderr, code := runPDC(t, "text", out)
	if code != 0 || strings.Count(text, "# doc ") != 3 || strings.Contains(text, ".txt") {
		t.Errorf("pdc text OUT: exit %d, %s\n%s", code, stderr, text)
	}
	clean := filepath.Join(t.TempDir(), "clean")
	if _, stderr, code := runPDC(t, "dedup", out, "--output", clean); code != 0 {
		t.Fatalf("dedup: exit %d %s", code, stderr)
	}
	docs, err := os.ReadFile(filepath.Join(clean, "docs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(docs), "\n"); n != 3 || strings.Contains(string(docs), `.txt"`) {
		t.Errorf("dedup wrote %d documents:\n%s", n, docs)
	}
	if _, stderr, code := runPDC(t, "run", "--input", tree, "--output", filepath.Join(t.TempDir(), "x"), "--include", "["); code != 2 || !strings.Contains(stderr, `"["`) {
		t.Errorf("malformed pattern: exit %d %s", code, stderr)
	}
}
