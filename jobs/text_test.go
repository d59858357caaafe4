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
