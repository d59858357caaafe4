package jobs

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// badInput writes a JSON Lines file with one example of every kind of bad
// record next to good ones, and returns its path.
func badInput(t *testing.T) string {
	t.Helper()
	para := "The quick brown fox jumps over the lazy dog near the river bank. " +
		"A second sentence follows with several more words in it. " +
		"The third sentence closes the reused passage for good. "
	lines := []string{
		`{"id":"good-1","text":"Intro line here. ` + para + `"}`,
		`{"id":"good-2","url":"http://b.example/x","html":"<p>Other start.</p><p>` + para + `</p>"}`,
		`{"id":"good-1","text":"A duplicate id with different text entirely."}`,
		`{"id":"broken","text":`,
		`{"text":"no id at all"}`,
		`{"id":"nobody"}`,
		`{"id":"empty","text":""}`,
		`{"id":"bin","text":"\u0000\u0001binary"}`,
		`{"id":"punct","text":"... --- !!!"}`,
		`{"id":"big","text":"` + strings.Repeat("Word soup again. ", 2000) + `"}`,
	}
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil { // no final newline on purpose
		t.Fatal(err)
	}
	return path
}

func readCountersFile(t *testing.T, out string) map[string]int64 {
	t.Helper()
	c, err := pipeline.ReadCounters(hdfsfs.Local(), filepath.Join(out, "counters.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBadRecordsCounted(t *testing.T) {
	t.Parallel()
	in := badInput(t)
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--max-doc-bytes", "10000")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	c := readCountersFile(t, out)
	want := map[string]int64{
		"parse.docs.read":                 10,
		"parse.docs.skipped.bad-json":     1,
		"parse.docs.skipped.no-id":        1,
		"parse.docs.skipped.no-body":      1,
		"parse.docs.skipped.empty":        1,
		"parse.docs.skipped.binary":       1,
		"parse.docs.skipped.no-sentences": 1,
		"parse.docs.skipped.duplicate-id": 1,
		"parse.docs.truncated":            1,
		"index.docs":                      3,
		"match.spans":                     1,
		"match.doc-pairs.with-spans":      1,
		"extend.spans":                    1,
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("counter %s = %d, want %d", k, c[k], v)
		}
	}
	var read, accounted int64 = c["parse.docs.read"], c["index.docs"]
	for k, v := range c {
		if strings.HasPrefix(k, "parse.docs.skipped.") {
			accounted += v
		}
	}
	if read != accounted {
		t.Errorf("%d documents read but %d written or skipped: some were lost", read, accounted)
	}
	for _, msg := range []string{in + ":4: bad-json", in + ":5: no-id", "duplicate id good-1"} {
		if !strings.Contains(stderr, msg) {
			t.Errorf("stderr lacks %q:\n%s", msg, stderr)
		}
	}
}

func TestStrictStopsAtFirstBadRecord(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", badInput(t), "--output", out, "--strict", "--quiet")
	if code != 1 || !strings.Contains(stderr, "bad-json") || !strings.Contains(stderr, ":4") {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 naming line 4", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "spans")); !os.IsNotExist(err) {
		t.Error("failed run left a spans directory")
	}
}

func TestCLIErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	unfinished := filepath.Join(dir, "unfinished")
	os.MkdirAll(filepath.Join(unfinished, "spans"), 0o755)
	os.WriteFile(filepath.Join(unfinished, "_pdc.json"), []byte("{}"), 0o644)
	bare := filepath.Join(dir, "bare")
	os.MkdirAll(filepath.Join(bare, "spans"), 0o755)
	os.WriteFile(filepath.Join(bare, "spans", "_SUCCESS"), nil, 0o644)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing input", []string{"run", "--input", filepath.Join(dir, "nope.jsonl"), "--output", filepath.Join(dir, "o2")}, 1, "nope.jsonl: no such file"},
		{"existing output", []string{"run", "--input", sample, "--output", out}, 1, "--overwrite"},
		{"unwritable output", []string{"run", "--input", sample, "--output", "/proc/pdc-out"}, 1, "/proc/pdc-out"},
		{"no command", nil, 2, "no command"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"unknown flag", []string{"run", "--bogus"}, 2, "bogus"},
		{"missing output", []string{"run", "--input", sample}, 2, "--output"},
		{"bad tau", []string{"run", "--input", sample, "--output", filepath.Join(dir, "o3"), "--tau", "1.5"}, 2, "tau"},
		{"bad signature", []string{"run", "--input", sample, "--output", filepath.Join(dir, "o3"), "--signature", "md5"}, 2, "md5"},
		{"bad min-evidence", []string{"run", "--input", sample, "--output", filepath.Join(dir, "o3"), "--min-evidence", "-1"}, 2, "min-evidence must be >= 0"},
		{"site name with a space", []string{"run", "--input", sample, "--output", filepath.Join(dir, "o3"), "--site-from", "name:my docs"}, 2, "site-from name:NAME needs a NAME without spaces"},
		{"site name empty", []string{"run", "--input", sample, "--output", filepath.Join(dir, "o3"), "--site-from", "name:"}, 2, "site-from name:NAME needs a NAME"},
		{"queue without hadoop", []string{"run", "--input", sample, "--output", filepath.Join(dir, "o3"), "--queue", "research"}, 2, "--queue needs --hadoop"},
		{"unknown job", []string{"map", "sort"}, 2, "unknown job"},
		{"hadoop output with a comma", []string{"run", "--hadoop", "--input", sample, "--output", "hdfs://nn:8020/runs/a,b"}, 2, "comma-separated globs"},
		{"hadoop output with a glob", []string{"run", "--hadoop", "--input", sample, "--output", "/runs/run[1]"}, 2, `without "["`},
		{"fs without subcommand after flags", []string{"fs", "--principal", "p@R", "--keytab", "k"}, 2, "no subcommand"},
		{"spans of nothing", []string{"spans", filepath.Join(dir, "none")}, 1, "none"},
		{"spans text without input or manifest", []string{"spans", bare, "--text"}, 2, "--input"},
		{"spans of a directory that is no run", []string{"spans", dir}, 1, "not the output of pdc run"},
		{"output inside an input directory", []string{"run", "--input", dir, "--output", filepath.Join(dir, "o4")}, 2, "is inside input directory"},
		{"spans of an unfinished run", []string{"spans", unfinished}, 1, "did not finish (rerun pdc run to resume)"},
		{"usage error in one line", []string{"spans", "--format", "xml", out}, 2, "(run 'pdc spans --help')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runPDC(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tt.code, tt.msg)
			}
			if code != 0 && tt.name != "no command" && strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("error is not one line: %q", stderr)
			}
		})
	}
}

// TestResume: a run whose last job failed resumes after the last finished
// job and gives the same spans as a clean run.
func TestResume(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet", "--keep-intermediate"); code != 0 {
		t.Fatal(stderr)
	}
	want, _, _ := runPDC(t, "spans", out)
	// Pretend the match job never finished.
	if err := os.RemoveAll(filepath.Join(out, "spans")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--keep-intermediate")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, job := range []string{"parse", "stats", "index", "join"} {
		if !strings.Contains(stderr, "job "+job+": finished in an earlier run") {
			t.Errorf("job %s was not skipped:\n%s", job, stderr)
		}
	}
	if got, _, _ := runPDC(t, "spans", out); got != want {
		t.Error("resumed run gives other spans")
	}
	// Other flags on an unfinished run are refused.
	os.RemoveAll(filepath.Join(out, "spans"))
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--tau", "0.8"); code != 1 || !strings.Contains(stderr, `with --tau "0.7", not "0.8"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestSpansWithText(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", badInput(t), "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	jsonl, stderr, code := runPDC(t, "spans", out, "--format", "jsonl", "--text", "--input", badInput(t))
	if code != 0 {
		t.Fatal(stderr)
	}
	golden(t, "bad.spans.jsonl", jsonl)
	if !strings.Contains(jsonl, `"text_a":"The quick brown fox`) {
		t.Errorf("passage text missing: %s", jsonl)
	}
}

// TestOverwriteSafety: --overwrite never deletes a directory that is not a
// pdc run, nor an output that holds the input.
func TestOverwriteSafety(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runPDC(t, "run", "--input", sample, "--output", dir, "--overwrite", "--quiet")
	if code != 1 || !strings.Contains(stderr, "not a pdc run") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("--overwrite deleted a foreign directory: %v", err)
	}
	in := filepath.Join(dir, "in.jsonl")
	data, _ := os.ReadFile(sample)
	os.WriteFile(in, data, 0o644)
	_, stderr, code = runPDC(t, "run", "--input", in, "--output", dir, "--overwrite", "--quiet")
	if code != 2 || !strings.Contains(stderr, "inside --output") {
		t.Errorf("input inside output: exit %d: %s", code, stderr)
	}
}

// TestControlCharacterIDs: ids with bytes below TAB sort before the TAB
// that ends them; the match job must still group them right.
func TestControlCharacterIDs(t *testing.T) {
	t.Parallel()
	text := "The quick brown fox jumps over the lazy dog near the river. A second sentence follows with several more words. The third sentence closes the reused passage here."
	lines := []string{
		`{"id":"d","text":"` + text + `"}`,
		`{"id":"x","text":"` + text + `"}`,
		`{"id":"x\u0001","text":"` + text + `"}`,
	}
	in := filepath.Join(t.TempDir(), "ctl.jsonl")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--quiet", "--reducers", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	spans, _, _ := runPDC(t, "spans", out)
	if n := strings.Count(spans, "\n"); n != 3 {
		t.Errorf("want 3 spans (every pair), got %d:\n%s", n, spans)
	}
}

// TestDuplicateOffsets: the duplicate-id report gives each occurrence's
// file and line, also in a later split of the file (the parse job reads
// keyed input, so the byte offset each line is counted to is exact).
func TestDuplicateOffsets(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 400 {
		id := fmt.Sprintf("doc-%d", i)
		if i == 5 || i == 390 {
			id = "twin"
		}
		fmt.Fprintf(&b, `{"id":%q,"text":"Sentence number %d of a filler document. %s"}`+"\n", id, i, strings.Repeat("Some more words here. ", 20))
	}
	in := filepath.Join(t.TempDir(), "docs.jsonl")
	writeFile(t, in, b.String())
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--split-size", "50000")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := fmt.Sprintf("duplicate id twin at %s:391 (kept the one at %s:6)", in, in)
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestTruncatedGzip: a damaged .gz input (read as a stream that the
// workers share) fails the run with the file and where it broke, and
// leaves no spans.
func TestTruncatedGzip(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(raw)
	zw.Close()
	in := filepath.Join(t.TempDir(), "docs.jsonl.gz")
	writeFile(t, in, string(zb.Bytes()[:zb.Len()/2]))
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--quiet")
	if code != 1 || !strings.Contains(stderr, "docs.jsonl.gz") || !strings.Contains(stderr, "unexpected EOF") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming docs.jsonl.gz and the unexpected EOF", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "spans")); err == nil {
		t.Error("spans written from a damaged input")
	}
}

// TestDuplicateIDsInTwoTrees: two --input trees with the same relative
// path give two documents with one id; the message names both files, and
// the one kept is the first by path, locally and on Hadoop alike (the
// files' paths travel with the documents as JSON Lines).
func TestDuplicateIDsInTwoTrees(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "A"), filepath.Join(dir, "B")
	writeFile(t, filepath.Join(a, "x.html"), "<p>Alpha page text is here and it is long enough to count.</p>")
	writeFile(t, filepath.Join(b, "x.html"), "<p>Beta page text is different and also long enough to count.</p>")
	writeFile(t, filepath.Join(b, "y.html"), "<p>Another page with words of its own in a sentence.</p>")
	out := filepath.Join(dir, "out")
	_, stderr, code := runPDC(t, "run", "--input", b, "--input", a, "--output", out)
	want := fmt.Sprintf("duplicate id x.html at %s (kept the one at %s)", filepath.Join(b, "x.html"), filepath.Join(a, "x.html"))
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "1 skipped: duplicate-id 1") {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, want)
	}
}

// TestEmptyRun: a run that parses no document exits 1 with one line that
// names the input, says what was read and skipped and what the input looks
// like; --allow-empty makes it succeed, and its outputs are written either
// way.
func TestEmptyRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, input string
		want        string
	}{
		{"empty file", write("empty.jsonl", ""), "run: no document read from " + dir + "/empty.jsonl; " + dir + "/empty.jsonl is empty (pass --allow-empty"},
		{"binary without extension", write("blob", "\x8f\x3a\x11\xc4\x00\x01\n\x02\x03\n"), "run: no document parsed from " + dir + "/blob: 2 records read, all skipped (bad-json 2); " + dir + "/blob is binary data (starts 8f 3a 11 c4), not JSON Lines ("},
		{"records without ids", write("noid.jsonl", "{\"text\": \"a\"}\n{\"text\": \"b\"}\n"), "run: no document parsed from " + dir + "/noid.jsonl: 2 records read, all skipped (no-id 2) (pass --allow-empty"},
		{"a CSV file", write("table", "id,url,text\n1,x,some text\n"), `is text that is not JSON (starts "id,url,text")`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("out%d", i))
			_, stderr, code := runPDC(t, "run", "--input", tt.input, "--output", out, "--quiet")
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if code != 1 || !strings.HasPrefix(last, "pdc: ") || !strings.Contains(last, tt.want) {
				t.Errorf("exit %d, last line %q; want exit 1 and %q", code, last, tt.want)
			}
			if _, err := os.Stat(filepath.Join(out, "counters.tsv")); err != nil {
				t.Errorf("no counters: %v", err)
			}
			_, stderr, code = runPDC(t, "run", "--input", tt.input, "--output", out, "--quiet", "--overwrite", "--allow-empty")
			if code != 0 {
				t.Errorf("--allow-empty: exit %d, %s", code, stderr)
			}
		})
	}
}

// TestNotARun: the commands that read a run, given a directory of
// documents, a missing path or a file, say so in one line and exit 1.
func TestNotARun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	writeFile(t, filepath.Join(tree, "a.html"), "<p>A page.</p>")
	file := writeFile(t, filepath.Join(dir, "spans.tsv"), "x\n")
	for _, tc := range []struct{ path, want string }{
		{tree, tree + " is not the output of a pdc run (no _pdc.json, no spans/ or clusters/)"},
		{filepath.Join(dir, "gone"), filepath.Join(dir, "gone") + ": no such directory"},
		{file, file + " is a file, not the output directory of a pdc run"},
	} {
		for _, args := range [][]string{{"pairs"}, {"clusters"}, {"show", "a", "b"}, {"report", "--output", filepath.Join(dir, "rep")}, {"boilerplate"}, {"dedup", "--output", filepath.Join(dir, "clean")}} {
			argv := append([]string{args[0], tc.path}, args[1:]...)
			_, stderr, code := runPDC(t, argv...)
			if code != 1 || !strings.Contains(stderr, "pdc: "+args[0]+": "+tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("pdc %s: exit %d, stderr %q; want 1 and a line with %q", strings.Join(argv, " "), code, stderr, tc.want)
			}
		}
	}
}
