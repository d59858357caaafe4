package jobs

import (
	"fmt"
	"os"
	"os/exec"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestSpansHeader: --header names the columns of the TSV (with the
// passages under --text); other formats refuse it.
func TestSpansHeader(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	plain, _, _ := runPDC(t, "spans", out)
	got, _, code := runPDC(t, "spans", out, "--header")
	want := "#doc_a\tdoc_b\tstart_a\tstart_b\tlength\tchar_start_a\tchar_end_a\tchar_start_b\tchar_end_b\tscore\n"
	if code != 0 || got != want+plain {
		t.Errorf("--header: exit %d, first line %q", code, strings.SplitN(got, "\n", 2)[0])
	}
	text, _, _ := runPDC(t, "spans", out, "--header", "--text")
	header, first, _ := strings.Cut(text, "\n")
	if !strings.HasSuffix(header, "\tscore\ttext_a\ttext_b") || strings.Count(first[:strings.Index(first, "\n")], "\t") != strings.Count(header, "\t") {
		t.Errorf("--header --text: header %q", header)
	}
	if _, stderr, code := runPDC(t, "spans", out, "--header", "--format", "jsonl"); code != 2 || !strings.Contains(stderr, "--header is for --format tsv") {
		t.Errorf("--header with jsonl: exit %d %s", code, stderr)
	}
}

// TestBinaryNotToTerminal: pdc spans --format avro or parquet refuses to
// write to a terminal (a pseudo-terminal from Python's pty module), and
// writes to a pipe.
func TestBinaryNotToTerminal(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for a pseudo-terminal")
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	for _, format := range []string{"avro", "parquet"} {
		py := `import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
data = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write("exit %d\n" % os.waitstatus_to_exitcode(status))
sys.stdout.write(data.decode("utf-8", "replace"))`
		cmd := exec.Command("python3", "-c", py, pdcBinary, "spans", out, "--format", format)
		cmd.Env = append(os.Environ(), "PDC_TEST_AS_PDC=1")
		got, err := cmd.Output()
		if err != nil || !strings.HasPrefix(string(got), "exit 2\n") || !strings.Contains(string(got), "writes a binary file: redirect it") {
			t.Errorf("%s to a terminal: %v\n%s", format, err, got)
		}
		if data, stderr, code := runPDC(t, "spans", out, "--format", format); code != 0 || len(data) < 100 {
			t.Errorf("%s to a pipe: exit %d %s", format, code, stderr)
		}
	}
}

// TestInputsChangedSinceRun: the commands that read a run's documents
// again refuse a local input that changed since the run (its offsets may
// point at other text), naming it; --force reads it with a warning.
func TestInputsChangedSinceRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	docs := filepath.Join(dir, "pages.jsonl")
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, docs, string(data))
	out := filepath.Join(dir, "out")
	if _, stderr, code := runPDC(t, "run", "--input", docs, "--output", out, "--clusters", "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	before, _, code := runPDC(t, "spans", out, "--text")
	if code != 0 {
		t.Fatal("spans --text before the change")
	}
	writeFile(t, docs, string(data)+`{"id": "new", "text": "A page added after the run, with a sentence or two."}`+"\n")
	for _, args := range [][]string{
		{"spans", out, "--text"},
		{"show", out, "python/library/bz2.html", "python/library/lzma.html"},
		{"clusters", out, "--text"},
		{"dedup", out, "--output", filepath.Join(dir, "clean")},
		{"text", out, "--id", "python/library/bz2.html"},
	} {
		_, stderr, code := runPDC(t, args...)
		if code != 1 || !strings.Contains(stderr, "input "+docs+" changed since the run (it went from") || !strings.Contains(stderr, "--force") {
			t.Errorf("pdc %s after the input changed: exit %d\n%s", args[0], code, stderr)
		}
	}
	got, stderr, code := runPDC(t, "spans", out, "--text", "--force")
	if code != 0 || got != before || !strings.Contains(stderr, "warning: input "+docs+" changed since the run") {
		t.Errorf("spans --text --force: exit %d, same output %v\n%s", code, got == before, stderr)
	}
}
