package jobs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/boilerplate"
)

// TestBoilerplateCmd: pdc boilerplate prints a run's boilerplate.tsv
// (--top: its first rows); with --text it fills in the rows a run left
// without text, as the run fills them, from the run's documents; a
// document that is not among --input is an error naming it.
func TestBoilerplateCmd(t *testing.T) {
	t.Parallel()
	out := sampleRun(t)
	file, err := os.ReadFile(filepath.Join(out, "boilerplate.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	printed, stderr, code := runPDC(t, "boilerplate", out)
	if code != 0 || printed != string(file) {
		t.Fatalf("pdc boilerplate: exit %d %s\nprinted:\n%.300s\nfile:\n%.300s", code, stderr, printed, file)
	}
	rows, err := boilerplate.Read(bytes.NewReader(file))
	if err != nil || len(rows) < 1 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	top, _, code := runPDC(t, "boilerplate", out, "--top", "1")
	if code != 0 || strings.Count(top, "\n") != 2 || !strings.HasPrefix(string(file), top) {
		t.Errorf("--top 1: exit %d\n%s", code, top)
	}
	// A run past its budget leaves rows without text: drop them all.
	for i := range rows {
		if rows[i].Text == "" {
			t.Fatalf("row %d of the sample has no text", i+1)
		}
		rows[i].Text = ""
	}
	var b bytes.Buffer
	if err := boilerplate.Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "boilerplate.tsv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	filled, stderr, code := runPDC(t, "boilerplate", out, "--text")
	if code != 0 || filled != string(file) {
		t.Errorf("--text: exit %d %s\n%.300s\nwant\n%.300s", code, stderr, filled, file)
	}
	other := filepath.Join(t.TempDir(), "other.jsonl")
	os.WriteFile(other, []byte(`{"id":"x","text":"Nothing here."}`+"\n"), 0o644)
	_, stderr, code = runPDC(t, "boilerplate", out, "--text", "--input", other)
	if code != 1 || !strings.Contains(stderr, "is not in --input "+other) {
		t.Errorf("--text with other documents: exit %d %s", code, stderr)
	}
	if _, stderr, code = runPDC(t, "boilerplate"); code != 2 || !strings.Contains(stderr, "want one run's output directory") {
		t.Errorf("no OUT: exit %d %s", code, stderr)
	}
}
