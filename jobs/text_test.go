package jobs

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestTextCommand(t *testing.T) {
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
