package jobs

import (
	"fmt"
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

// TestDuplicateIDsRead: of the records of one id the run keeps the one with
// the smallest srcpos (lib/doc), whatever the order of the --input paths
// and the kinds of their files, and every command that reads the run's
// documents again takes that one: pdc text, pdc spans --text, pdc dedup.
func TestDuplicateIDsRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kept, other := topicText("harbour"), topicText("orchard")
	page, pageOther := topicText("lighthouse"), topicText("meadow")
	line := func(id, text string) string { return fmt.Sprintf(`{"id":%q,"text":%q}`+"\n", id, text) }
	// b.jsonl and u.jsonl are given first, but a.jsonl and the page of
	// tree t have the smaller srcpos.
	writeFile(t, filepath.Join(dir, "b.jsonl"), line("x", other))
	writeFile(t, filepath.Join(dir, "a.jsonl"), line("x", kept)+line("y", kept)+line("z", page))
	writeFile(t, filepath.Join(dir, "u.jsonl"), line("p.html", pageOther))
	writeFile(t, filepath.Join(dir, "t", "p.html"), "<html><body><p>"+page+"</p></body></html>")
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--output", out, "--clusters", "--quiet", "--site-from", "none"}
	for _, in := range []string{"b.jsonl", "u.jsonl", "t", "a.jsonl"} {
		args = append(args, "--input", filepath.Join(dir, in))
	}
	if _, stderr, code := runPDC(t, args...); code != 0 {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	for id, want := range map[string]string{"x": kept, "p.html": page} {
		text, stderr, code := runPDC(t, "text", out, "--id", id, "--format", "jsonl")
		first, _, _ := strings.Cut(text, "\n")
		if code != 0 || !strings.Contains(first, fmt.Sprintf(`"text":%q`, want)) {
			t.Errorf("pdc text --id %s: exit %d %s\n%s", id, code, stderr, text)
		}
	}
	spans, stderr, code := runPDC(t, "spans", out, "--text")
	if code != 0 || strings.Count(spans, "\n") != 2 || !strings.Contains(spans, "\t"+kept) || !strings.Contains(spans, "\t"+page) ||
		strings.Contains(spans, "orchard") || strings.Contains(spans, "meadow") {
		t.Errorf("spans --text: exit %d %s\n%s", code, stderr, spans)
	}
	clean := filepath.Join(t.TempDir(), "clean")
	if _, stderr, code := runPDC(t, "dedup", out, "--output", clean); code != 0 || !strings.Contains(stderr, "2 duplicate ids skipped") {
		t.Fatalf("dedup: exit %d %s", code, stderr)
	}
	docs, err := os.ReadFile(filepath.Join(clean, "docs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), line("x", kept)) || strings.Contains(string(docs), "orchard") || strings.Contains(string(docs), "meadow") {
		t.Errorf("dedup wrote:\n%s", docs)
	}
}

// TestDuplicateIDsReadRelative: the readers given relative --input paths
// (with "..") take the record the run kept, and the readers of a run's own
// inputs leave out what its --exclude left out.
func TestDuplicateIDsReadRelative(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kept, other := topicText("harbour"), topicText("orchard")
	line := func(id, text string) string { return fmt.Sprintf(`{"id":%q,"text":%q}`+"\n", id, text) }
	// /m/b.jsonl sorts before /z/a.jsonl by absolute path, not as given
	// from m (../z/a.jsonl before b.jsonl).
	writeFile(t, filepath.Join(dir, "m", "b.jsonl"), line("x", kept)+line("y", kept))
	writeFile(t, filepath.Join(dir, "z", "a.jsonl"), line("x", other))
	out := filepath.Join(t.TempDir(), "out")
	inputs := []string{"--input", "b.jsonl", "--input", filepath.Join("..", "z", "a.jsonl")}
	in := func(args ...string) (string, string, int) {
		cmd := pdcCmd(args...)
		cmd.Dir = filepath.Join(dir, "m")
		return runCmd(t, cmd)
	}
	if _, stderr, code := in(append([]string{"run", "--output", out, "--clusters", "--quiet"}, inputs...)...); code != 0 {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	for _, args := range [][]string{{"spans", out, "--text"}, append([]string{"spans", out, "--text"}, inputs...), append([]string{"text", "--id", "x"}, inputs...)} {
		stdout, stderr, code := in(args...)
		if args[0] == "text" { // every record of the id, the one the run kept first
			if i := strings.Index(stdout[1:], "# doc "); i >= 0 {
				stdout = stdout[:i+1]
			}
		}
		if code != 0 || !strings.Contains(stdout, "harbouraa") || strings.Contains(stdout, "orchard") {
			t.Errorf("pdc %s: exit %d %s\n%s", strings.Join(args, " "), code, stderr, stdout)
		}
	}
	for _, jobs := range []string{"--jobs=false", "--jobs"} {
		clean := filepath.Join(t.TempDir(), "clean")
		if _, stderr, code := in(append([]string{"dedup", out, "--output", clean, jobs}, inputs...)...); code != 0 {
			t.Fatalf("dedup %s: exit %d %s", jobs, code, stderr)
		}
		var docs []string
		if jobs == "--jobs" {
			docs = partLines(t, filepath.Join(clean, "docs"))
		} else {
			docs = sortedFileLines(t, filepath.Join(clean, "docs.jsonl"), 0)
		}
		if all := strings.Join(docs, "\n"); !strings.Contains(all, line("x", kept)[:20]) || strings.Contains(all, "orchard") {
			t.Errorf("dedup %s wrote:\n%s", jobs, all)
		}
	}

	// --exclude: the readers of the run's inputs leave a.jsonl out too.
	d := filepath.Join(t.TempDir(), "d")
	writeFile(t, filepath.Join(d, "a.jsonl"), line("x", other))
	writeFile(t, filepath.Join(d, "b.jsonl"), line("x", kept)+line("y", kept))
	ex := filepath.Join(t.TempDir(), "ex")
	if _, stderr, code := runPDC(t, "run", "--input", d, "--exclude", "a.jsonl", "--output", ex, "--clusters", "--quiet"); code != 0 {
		t.Fatalf("run --exclude: exit %d %s", code, stderr)
	}
	for _, args := range [][]string{{"spans", ex, "--text"}, {"clusters", ex, "--text"}, {"show", ex, "x", "y", "--color", "never"}} {
		stdout, stderr, code := runPDC(t, args...)
		if code != 0 || !strings.Contains(stdout, "harbouraa") || strings.Contains(stdout, "orchard") {
			t.Errorf("pdc %s: exit %d %s\n%s", strings.Join(args, " "), code, stderr, stdout)
		}
	}
}

// topicText is a text of four sentences whose words are the topic's alone.
func topicText(topic string) string {
	var b strings.Builder
	for i := range 4 {
		for j := range 10 {
			fmt.Fprintf(&b, "%s%c%c ", topic, 'a'+i, 'a'+j)
		}
		b.WriteString("end. ")
	}
	return strings.TrimSpace(b.String())
}
