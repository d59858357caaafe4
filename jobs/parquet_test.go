package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
