package jobs

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestTextCommand(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runPDC(t, "text", "--input", badInput(t), "--id", "good-2")
	if code != 0 {
		t.Fatal(stderr)
	}
	golden(t, "text-good-2.txt", stdout)
	if _, stderr, code := runPDC(t, "text", "--input", badInput(t), "--id", "missing"); code != 1 || !strings.Contains(stderr, "missing") {
		t.Errorf("unknown id: exit %d %s", code, stderr)
	}
}

// TestTextInputs: pdc text reads every input kind through lib/input: a
// tree of pages (ids are tree paths), a WARC file (ids from the records)
// and JSON Lines; --table prints only the sentence rows.
func TestTextInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tree", "sub", "a.html"), "<p>First sentence here. Second sentence there.</p>")
	tests := []struct {
		name   string
		args   []string
		wantID string
		rows   int
	}{
		{"tree", []string{"--input", filepath.Join(dir, "tree")}, "sub/a.html", 2},
		{"warc", []string{"--input", warcFixture("pages.warc.gz"), "--id", fixtureIDs[3]}, fixtureIDs[3], -1},
		{"jsonl", []string{"--input", sample, "--id", "rust/std/option/index.html"}, "rust/std/option/index.html", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runPDC(t, append([]string{"text", "--table"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if tt.rows >= 0 && len(lines) != tt.rows {
				t.Errorf("%d rows, want %d:\n%s", len(lines), tt.rows, stdout)
			}
			for _, l := range lines {
				if f := strings.Split(l, "\t"); len(f) != 5 || f[0] != tt.wantID {
					t.Fatalf("row %q: want 5 fields for %s", l, tt.wantID)
				}
			}
		})
	}
}

// TestTextCharsets: a .txt page that is not UTF-8 is decoded by the rules
// of HTML pages (here windows-1252), counted, not damaged into U+FFFD.
func TestTextCharsets(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(t.TempDir(), "tree")
	writeFile(t, filepath.Join(tree, "cafe.txt"), "Un caf\xe9 cr\xe8me co\xfbte deux euros au comptoir. \x93Merci\x94, dit-il.")
	writeFile(t, filepath.Join(tree, "utf8.txt"), "Déjà vu, a plain UTF-8 file.")
	out, stderr, code := runPDC(t, "text", "--input", tree)
	if code != 0 || !strings.Contains(out, "Un café crème coûte deux euros") || !strings.Contains(out, "“Merci”") || strings.Contains(out, "\uFFFD") {
		t.Errorf("pdc text: exit %d %s\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "Déjà vu") {
		t.Errorf("UTF-8 text changed:\n%s", out)
	}
	run := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", tree, "--output", run); code != 0 || !strings.Contains(stderr, "decoded to UTF-8 from (windows-1252 1)") {
		t.Errorf("run: exit %d, want the decoding reported:\n%s", code, stderr)
	}
	if _, stderr, code := runPDC(t, "ingest", "--input", tree, "--output", filepath.Join(t.TempDir(), "docs.jsonl")); code != 0 || !strings.Contains(stderr, "ingest.decoded.windows-1252") {
		t.Errorf("ingest: exit %d, want the decoding counted:\n%s", code, stderr)
	}
}

// TestTextJSONL: --format jsonl prints one {"id", "url", "text"} object per
// document whose text is the text the plain output prints (what offsets
// count), and pdc reads the file back as input with the same text.
func TestTextJSONL(t *testing.T) {
	t.Parallel()
	const id = "python/library/bz2.html"
	stdout, stderr, code := runPDC(t, "text", "--input", sample, "--format", "jsonl")
	if code != 0 {
		t.Fatal(stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 31 {
		t.Fatalf("%d lines, want one per document of the sample (31)", len(lines))
	}
	var rec struct{ ID, URL, Text string }
	for _, l := range lines {
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if rec.ID == id {
			break
		}
	}
	plain, _, _ := runPDC(t, "text", "--input", sample, "--id", id)
	_, after, _ := strings.Cut(plain, "\n") // after the "# doc" line
	text, _, _ := strings.Cut(after, "\n# sentences\n")
	if rec.ID != id || rec.Text != text || !strings.HasPrefix(rec.URL, "https://") {
		t.Fatalf("record of %s: id %q url %q, text equal to the plain output's: %v", id, rec.ID, rec.URL, rec.Text == text)
	}
	file := filepath.Join(t.TempDir(), "texts.jsonl")
	writeFile(t, file, stdout)
	again, _, code := runPDC(t, "text", "--input", file, "--id", id, "--format", "jsonl")
	if code != 0 || strings.TrimSpace(again) != lines[slicesIndex(lines, id)] {
		t.Errorf("read back: %q", again)
	}
	if _, stderr, code := runPDC(t, "text", "--input", sample, "--format", "jsonl", "--table"); code != 2 || !strings.Contains(stderr, "--table") {
		t.Errorf("--table with jsonl: exit %d %s", code, stderr)
	}
}

// slicesIndex is the index of the JSON line of document id in lines.
func slicesIndex(lines []string, id string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, `{"id":"`+id+`"`) {
			return i
		}
	}
	return -1
}

// TestTextOfRun: pdc text OUT reads the run's documents (its _pdc.json)
// with its parameters: the same sentence table as from --input; a
// directory that is no run says to give --input.
func TestTextOfRun(t *testing.T) {
	t.Parallel()
	out := sampleRun(t)
	want, _, code := runPDC(t, "text", "--input", sample, "--id", "python/library/bz2.html", "--table")
	if code != 0 || strings.Count(want, "\n") < 50 {
		t.Fatalf("text --input: exit %d, %d lines", code, strings.Count(want, "\n"))
	}
	got, stderr, code := runPDC(t, "text", out, "--id", "python/library/bz2.html", "--table")
	if code != 0 || got != want {
		t.Errorf("text OUT: exit %d %s, %d lines, want the %d of --input", code, stderr, strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	_, stderr, code = runPDC(t, "text", "--input", out, "--id", "python/library/bz2.html")
	if hint := "a run's output: its documents are read by pdc text " + out + " --id python/library/bz2.html"; code != 1 || !strings.Contains(stderr, hint) {
		t.Errorf("text --input OUT: exit %d %q, want the hint %q", code, stderr, hint)
	}
	_, stderr, code = runPDC(t, "text", "--input", out)
	if hint := out + " is a run's output, not documents: its documents are read by pdc text " + out; code != 1 || !strings.Contains(stderr, hint) {
		t.Errorf("text --input OUT: exit %d %q, want the hint %q", code, stderr, hint)
	}
	_, stderr, code = runPDC(t, "text", t.TempDir(), "--id", "x")
	if code != 1 || !strings.Contains(stderr, "is not a run's output (give --input DOCS)") {
		t.Errorf("text of a directory that is no run: exit %d %q", code, stderr)
	}
	_, stderr, code = runPDC(t, "text")
	if code != 2 || !strings.Contains(stderr, "give --input DOCS, or a run's output directory") {
		t.Errorf("text without input: exit %d %q", code, stderr)
	}
}

// TestTextDuplicateIDs: of the records of one id, pdc text prints only the
// one a run keeps (the file whose name sorts first, whatever the order of
// the --input paths), with --id and without, and says how many it left out.
func TestTextDuplicateIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeFile(t, a, `{"id":"x","text":"The kept record of x."}`+"\n"+`{"id":"y","text":"Only y."}`+"\n"+`{"id":"x","text":"A later record of x."}`+"\n")
	writeFile(t, b, `{"id":"x","text":"The record of x in b."}`+"\n")
	for _, args := range [][]string{
		{"--input", b, "--input", a},
		{"--input", b, "--input", a, "--id", "x"},
	} {
		stdout, stderr, code := runPDC(t, append([]string{"text", "--format", "jsonl"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		if strings.Count(stdout, `"id":"x"`) != 1 || !strings.Contains(stdout, "The kept record of x.") {
			t.Errorf("%v: stdout\n%s\nwant only the kept record of x", args, stdout)
		}
		if !strings.Contains(stderr, "2 records left out") {
			t.Errorf("%v: stderr %q, want the 2 left-out records counted", args, stderr)
		}
	}
}
