package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/parquetio"
	"github.com/pdc-mr/pdc/lib/span"
)

// parquetSample writes the sample corpus as a Parquet file with pyarrow
// (testdata/toparquet.py), an independent implementation; without
// python3 and pyarrow the test is skipped, or fails under .ci/run
// (PDC_REQUIRE_INTEROP).
func parquetSample(t *testing.T) string {
	t.Helper()
	if err := exec.Command("python3", "-c", "import pyarrow.parquet").Run(); err != nil {
		if os.Getenv("PDC_REQUIRE_INTEROP") != "" { // .ci/run: this test must run
			t.Fatal("python3 with pyarrow not available (pip install pyarrow)")
		}
		t.Skip("python3 with pyarrow not available (pip install pyarrow)")
	}
	path := filepath.Join(t.TempDir(), "pages.parquet")
	if out, err := exec.Command("python3", filepath.Join("testdata", "toparquet.py"), sample, path).CombinedOutput(); err != nil {
		t.Fatalf("toparquet.py: %v\n%s", err, out)
	}
	return path
}

// TestRunParquet: the sample corpus as a pyarrow-written Parquet file gives
// the spans and counters of its JSON Lines original; pdc text and pdc
// spans --text read it too.
func TestRunParquet(t *testing.T) {
	t.Parallel()
	pq := parquetSample(t)
	want, _, _ := runPDC(t, "spans", sampleRun(t))
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", pq, "--output", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "pdc: input "+pq+": 31 records, 31 documents") {
		t.Errorf("no summary of the Parquet file in\n%s", stderr)
	}
	got, _, _ := runPDC(t, "spans", out)
	if got != want || strings.Count(got, "\n") < 20 {
		t.Errorf("spans from Parquet (%d lines) differ from spans from JSON Lines (%d lines)", strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	c := readCountersFile(t, out)
	if c["parse.docs.read"] != 31 || c["parse.docs.ok"] != 31 {
		t.Errorf("counters: read %d, ok %d, want 31", c["parse.docs.read"], c["parse.docs.ok"])
	}
	text, stderr, code := runPDC(t, "spans", out, "--text")
	if code != 0 || !strings.Contains(text, "bzip2-compressed file") {
		t.Errorf("spans --text from Parquet: exit %d %s", code, stderr)
	}
	rows, stderr, code := runPDC(t, "text", "--table", "--input", pq, "--id", "rust/std/option/index.html")
	if code != 0 || !strings.HasPrefix(rows, "rust/std/option/index.html\t0\t") {
		t.Errorf("text from Parquet: exit %d %s\n%.200s", code, stderr, rows)
	}
}

// sampleRun runs pdc on the sample corpus (JSON Lines) and returns OUT.
func sampleRun(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "json-out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	return out
}

// TestSpansParquet: pdc spans --format parquet writes the spans of the TSV
// output, with passages under --text; pyarrow reads the file back with the
// same rows (an independent reader).
func TestSpansParquet(t *testing.T) {
	t.Parallel()
	out := sampleRun(t)
	tsv, _, _ := runPDC(t, "spans", out)
	for _, withText := range []bool{false, true} {
		args := []string{"spans", out, "--format", "parquet"}
		if withText {
			args = append(args, "--text")
		}
		data, stderr, code := runPDC(t, args...)
		if code != 0 {
			t.Fatalf("spans --format parquet: exit %d %s", code, stderr)
		}
		got, err := parquetio.ReadSpans(strings.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, s := range got {
			sp := span.Span{DocA: s.DocA, DocB: s.DocB, StartA: s.StartA, StartB: s.StartB, Length: s.Length,
				CharStartA: s.CharStartA, CharEndA: s.CharEndA, CharStartB: s.CharStartB, CharEndB: s.CharEndB, Score: s.Score}
			b.Write(sp.AppendTSV(nil))
			b.WriteByte('\n')
			if withText != (s.TextA != nil && *s.TextA != "") {
				t.Fatalf("--text %v: span text %v", withText, s.TextA)
			}
		}
		if b.String() != tsv {
			t.Errorf("--text %v: parquet spans differ from TSV (%d vs %d lines)", withText, len(got), strings.Count(tsv, "\n"))
		}
	}
	parquetSample(t) // needs pyarrow, or skips
	path := filepath.Join(t.TempDir(), "spans.parquet")
	data, _, _ := runPDC(t, "spans", out, "--format", "parquet")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	py := `import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
for r in t.to_pylist():
    print("%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f" % (r["doc_a"], r["doc_b"], r["start_a"], r["start_b"], r["length"],
          r["char_start_a"], r["char_end_a"], r["char_start_b"], r["char_end_b"], r["score"]))`
	got, err := exec.Command("python3", "-c", py, path).Output()
	if err != nil {
		t.Fatalf("pyarrow: %v", err)
	}
	if string(got) != tsv {
		t.Errorf("pyarrow reads other spans than the TSV output (%d vs %d bytes)", len(got), len(tsv))
	}
}
