package parquetio

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPyarrowInterop writes spans for pyarrow to read and reads documents
// pyarrow wrote (testdata/interop.py).
func TestPyarrowInterop(t *testing.T) {
	if err := exec.Command("python3", "-c", "import pyarrow.parquet").Run(); err != nil {
		if os.Getenv("PDC_REQUIRE_INTEROP") != "" { // .ci/run: this test must run
			t.Fatal("python3 with pyarrow not available (pip install pyarrow)")
		}
		t.Skip("python3 with pyarrow not available (pip install pyarrow)")
	}
	dir := t.TempDir()
	spans := filepath.Join(dir, "spans.parquet")
	if err := os.WriteFile(spans, writeSpans(t, testSpans, true), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("testdata", "interop.py")
	out := filepath.Join(dir, "spans.json")
	if b, err := exec.Command("python3", script, "read-spans", spans, out).CombinedOutput(); err != nil {
		t.Fatalf("interop.py read-spans: %v\n%s", err, b)
	}
	checkPythonSpans(t, out)
	docs, intDocs := filepath.Join(dir, "docs.parquet"), filepath.Join(dir, "docs_int.parquet")
	if b, err := exec.Command("python3", script, "write-docs", docs, intDocs).CombinedOutput(); err != nil {
		t.Fatalf("interop.py write-docs: %v\n%s", err, b)
	}
	docsData, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	intData, err := os.ReadFile(intDocs)
	if err != nil {
		t.Fatal(err)
	}
	checkPyarrowDocs(t, docsData, intData)
}

func checkPythonSpans(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Codecs    []string          `json:"codecs"`
		RowGroups int               `json:"row_groups"`
		Schema    map[string]string `json:"schema"`
		Columns   []string          `json:"columns"`
		Spans     []map[string]any  `json:"spans"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Codecs) != 1 || res.Codecs[0] != "SNAPPY" || res.RowGroups != 1 || len(res.Spans) != len(testSpans) ||
		len(res.Columns) != 14 || res.Columns[0] != "doc_a" || res.Columns[13] != "text_b" {
		t.Fatalf("python read %+v", res)
	}
	types := map[string]string{"doc_a": "string", "url_a": "string", "start_a": "int32",
		"char_end_b": "int64", "score": "double", "text_b": "string"}
	for col, want := range types {
		if res.Schema[col] != want {
			t.Errorf("column %s: pyarrow type %s, want %s", col, res.Schema[col], want)
		}
	}
	s0, s1 := res.Spans[0], res.Spans[1]
	checks := []struct {
		got, want any
	}{
		{s0["doc_a"], "a"}, {s0["url_a"], "http://a/"}, {s0["url_b"], nil},
		{s0["start_b"], 2.0}, {s0["score"], 0.75}, {s0["text_b"], "same text ü"},
		{s1["doc_a"], "x\ty"}, {s1["doc_b"], "文書"}, {s1["char_end_a"], float64(1 << 33)},
		{s1["start_b"], 9999999.0}, {s1["text_a"], nil}, {s1["length"], 1.0},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: python read %v, want %v", i, c.got, c.want)
		}
	}
}
