package avroio

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/pdc-mr/pdc/lib/span"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func ptr(s string) *string { return &s }

var testSpans = []span.Span{
	{DocA: "a", DocB: "b", URLA: "http://a/", StartA: 1, StartB: 2, Length: 3,
		CharStartA: 10, CharEndA: 20, CharStartB: 30, CharEndB: 40, Score: 0.75,
		TextA: ptr("same text"), TextB: ptr("same text ü")},
	{DocA: "x\ty", DocB: "文書", StartA: 0, StartB: 9999999, Length: 1,
		CharStartA: 0, CharEndA: 1 << 33, CharStartB: 5, CharEndB: 6, Score: 1},
}

func writeSpans(t *testing.T, spans []span.Span, withText bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewSpanWriter(&buf, withText)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range spans {
		if err := w.Write(&sp); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSpanRoundTrip(t *testing.T) {
	for _, withText := range []bool{true, false} {
		data := writeSpans(t, testSpans, withText)
		got, err := ReadSpans(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		want := append([]span.Span{}, testSpans...)
		if !withText {
			for i := range want {
				want[i].TextA, want[i].TextB = nil, nil
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("withText=%v: got %+v, want %+v", withText, got, want)
		}
	}
}

// TestSpanGolden reads a committed span file (goavro writes the header
// metadata in map order, so files are compared by content, not bytes).
func TestSpanGolden(t *testing.T) {
	golden := filepath.Join("testdata", "spans.avro")
	if *update {
		if err := os.WriteFile(golden, writeSpans(t, testSpans, true), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadSpans(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, testSpans) {
		t.Errorf("%s: got %+v, want %+v", golden, got, testSpans)
	}
	if !json.Valid([]byte(SpanSchema())) {
		t.Error("SpanSchema is not JSON")
	}
}

func TestDocRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewDocWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	docs := [][4]string{{"1", "http://u/", "<p>h</p>", ""}, {"", "", "x", ""}, {"3", "", "", "text"}}
	for _, d := range docs {
		if err := w.Write(d[0], d[1], d[2], d[3]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, skipped := readDocs(t, buf.Bytes(), DocFields{})
	want := [][4]string{docs[0], docs[2]}
	if !reflect.DeepEqual(got, want) || skipped[SkipMissingID] != 1 {
		t.Errorf("got %q skipped %v", got, skipped)
	}
}

func readDocs(t *testing.T, data []byte, f DocFields) ([][4]string, map[string]int64) {
	t.Helper()
	r, err := NewDocReader(bytes.NewReader(data), f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][4]string
	for r.Next() {
		id, url, html, text := r.Doc()
		out = append(out, [4]string{id, url, html, text})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out, r.Skipped()
}

func TestDocReaderErrors(t *testing.T) {
	spans := writeSpans(t, testSpans, false)
	tests := []struct {
		name string
		in   []byte
		f    DocFields
	}{
		{"not avro", []byte("hello"), DocFields{}},
		{"empty", nil, DocFields{}},
		{"no id field", spans, DocFields{}},
		{"no html or text", spans, DocFields{ID: "doc_a", HTML: "nope", Text: "nope2"}},
		{"truncated header", spans[:30], DocFields{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewDocReader(bytes.NewReader(tc.in), tc.f); err == nil {
				t.Error("no error")
			}
		})
	}
	// Wrong types: url_a is fine, start_a (int) as html is not.
	got, skipped := readDocs(t, spans, DocFields{ID: "doc_a", URL: "url_a", HTML: "start_a", Text: "text_a"})
	if len(got) != 0 || skipped[SkipWrongType] != 2 {
		t.Errorf("got %q skipped %v", got, skipped)
	}
}

// TestDocReaderDamage corrupts a block: the reader skips it and goes on.
func TestDocReaderDamage(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewDocWriter(&buf)
	for i, id := range []string{"a", "b", "c"} {
		if err := w.Write(id, "", "<p>"+id+"</p>", ""); err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			if err := w.Close(); err != nil { // one block each
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	// The header and each block end with the sync marker.
	marker := data[len(data)-16:]
	first := bytes.Index(data, marker) + 16 // end of header
	second := first + bytes.Index(data[first:], marker) + 16
	damaged := append([]byte{}, data...)
	damaged[second+3] ^= 0xff // inside block 2
	got, skipped := readDocs(t, damaged, DocFields{})
	if len(got) != 2 || got[0][0] != "a" || got[1][0] != "c" || len(skipped) == 0 {
		t.Errorf("got %q skipped %v", got, skipped)
	}
}

func TestPythonInterop(t *testing.T) {
	if err := exec.Command("python3", "-c", "import avro").Run(); err != nil {
		if os.Getenv("PDC_REQUIRE_INTEROP") != "" { // .ci/run: this test must run
			t.Fatal("python3 with the avro package not available (pip install avro)")
		}
		t.Skip("python3 with the avro package not available (pip install avro)")
	}
	dir := t.TempDir()
	spans := filepath.Join(dir, "spans.avro")
	if err := os.WriteFile(spans, writeSpans(t, testSpans, true), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("testdata", "interop.py")
	out := filepath.Join(dir, "spans.json")
	if b, err := exec.Command("python3", script, "read-spans", spans, out).CombinedOutput(); err != nil {
		t.Fatalf("interop.py read-spans: %v\n%s", err, b)
	}
	checkPythonSpans(t, out)
	docs := filepath.Join(dir, "docs.avro")
	if b, err := exec.Command("python3", script, "write-docs", docs).CombinedOutput(); err != nil {
		t.Fatalf("interop.py write-docs: %v\n%s", err, b)
	}
	data, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	got, skipped := readDocs(t, data, DocFields{ID: "doc_id", HTML: "content"})
	want := [][4]string{{"d1", "http://example.com/1", "<p>Hello, wörld</p>", ""}, {"d3", "", "", "Plain 文本\n\nsecond"}}
	if !reflect.DeepEqual(got, want) || skipped[SkipMissingID] != 1 {
		t.Errorf("got %q skipped %v", got, skipped)
	}
	sites, _ := readSites(t, data, DocFields{ID: "doc_id", HTML: "content", Site: "host"})
	if want := [][2]string{{"d1", "example.com"}, {"d3", ""}}; !reflect.DeepEqual(sites, want) {
		t.Errorf("sites: got %q, want %q", sites, want)
	}
}

func checkPythonSpans(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Codec      string           `json:"codec"`
		SchemaName string           `json:"schema_name"`
		Spans      []map[string]any `json:"spans"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Codec != "deflate" || res.SchemaName != "pdc.Span" || len(res.Spans) != len(testSpans) {
		t.Fatalf("python read %+v", res)
	}
	s0, s1 := res.Spans[0], res.Spans[1]
	checks := []struct {
		got, want any
	}{
		{s0["doc_a"], "a"}, {s0["url_a"], "http://a/"}, {s0["url_b"], nil},
		{s0["start_b"], 2.0}, {s0["score"], 0.75}, {s0["text_b"], "same text ü"},
		{s1["doc_a"], "x\ty"}, {s1["doc_b"], "文書"}, {s1["char_end_a"], float64(1 << 33)},
		{s1["start_b"], 9999999.0}, {s1["text_a"], nil},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: python read %v, want %v", i, c.got, c.want)
		}
	}
}
