package parquetio

import (
	"bytes"
	"errors"
	"flag"
	"github.com/pdc-mr/pdc/lib/span"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

var update = flag.Bool("update", false, "rewrite golden files")

var testSpans = []span.Span{
	{DocA: "a", DocB: "b", URLA: "http://a/", StartA: 1, StartB: 2, Length: 3,
		CharStartA: 10, CharEndA: 20, CharStartB: 30, CharEndB: 40, Score: 0.75,
		TextA: ptr("same text"), TextB: ptr("same text ü")},
	{DocA: "x\ty", DocB: "文書", StartA: 0, StartB: 9999999, Length: 1,
		CharStartA: 0, CharEndA: 1 << 33, CharStartB: 5, CharEndB: 6, Score: 1},
}

func writeSpans(t testing.TB, spans []span.Span, withText bool) []byte {
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

func readSpans(t testing.TB, data []byte) []span.Span {
	t.Helper()
	spans, err := ReadSpans(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

func TestSpanRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		spans    []span.Span
		withText bool
	}{
		{"with text", testSpans, true},
		{"without text", testSpans, false},
		{"none", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readSpans(t, writeSpans(t, tc.spans, tc.withText))
			want := append([]span.Span{}, tc.spans...)
			if !tc.withText {
				for i := range want {
					want[i].TextA, want[i].TextB = nil, nil
				}
			}
			if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

// TestSpanGolden reads a committed span file (compared by content: the
// bytes depend on the parquet-go version).
func TestSpanGolden(t *testing.T) {
	golden := filepath.Join("testdata", "spans.parquet")
	if *update {
		if err := os.WriteFile(golden, writeSpans(t, testSpans, true), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := readSpans(t, data); !reflect.DeepEqual(got, testSpans) {
		t.Errorf("%s: got %+v, want %+v", golden, got, testSpans)
	}
}

// TestSpanSchema checks the schema documented in span.go, and that the
// columns are those of the Avro span schema, in order.
func TestSpanSchema(t *testing.T) {
	src, err := os.ReadFile("span.go")
	if err != nil {
		t.Fatal(err)
	}
	var doc []string
	in := false
	for line := range strings.Lines(string(src)) {
		line = strings.TrimSpace(strings.TrimPrefix(line, "//"))
		if strings.HasPrefix(line, "message ") {
			in = true
		}
		if in {
			doc = append(doc, line)
		}
		if in && line == "}" {
			break
		}
	}
	var got []string
	for line := range strings.Lines(SpanSchema()) {
		got = append(got, strings.TrimSpace(line))
	}
	if !reflect.DeepEqual(got, doc) {
		t.Errorf("SpanSchema:\n%s\nspan.go documents:\n%s", strings.Join(got, "\n"), strings.Join(doc, "\n"))
	}
	avro := []string{"doc_a", "doc_b", "url_a", "url_b", "start_a", "start_b", "length", "char_start_a",
		"char_end_a", "char_start_b", "char_end_b", "score", "text_a", "text_b"}
	var cols []string
	for _, f := range spanSchema.Fields() {
		cols = append(cols, f.Name())
	}
	if !reflect.DeepEqual(cols, avro) {
		t.Errorf("columns %q, want %q", cols, avro)
	}
}

// TestSpanRowGroups: row groups end at spanGroupRows rows or about
// spanGroupBytes bytes of strings.
func TestSpanRowGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 130k spans and 64 MB of text")
	}
	big := strings.Repeat("x", spanGroupBytes/4)
	tests := []struct {
		name     string
		n        int
		span     span.Span
		withText bool
		want     int
	}{
		{"rows", spanGroupRows + 1, span.Span{DocA: "a", DocB: "b"}, true, 2},
		{"bytes", 5, span.Span{DocA: "a", DocB: "b", TextA: &big}, true, 2},
		{"bytes without text", 5, span.Span{DocA: "a", DocB: "b", TextA: &big}, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewSpanWriter(&buf, tc.withText)
			if err != nil {
				t.Fatal(err)
			}
			for range tc.n {
				if err := w.Write(&tc.span); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if g := len(f.RowGroups()); g != tc.want || f.NumRows() != int64(tc.n) {
				t.Errorf("%d rows in %d row groups, want %d in %d", f.NumRows(), g, tc.n, tc.want)
			}
			for _, c := range f.Metadata().RowGroups[0].Columns {
				if c.MetaData.Codec.String() != "SNAPPY" {
					t.Errorf("column %s: codec %s", c.MetaData.PathInSchema, c.MetaData.Codec)
				}
			}
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{}

var errFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errFull }

// TestSpanWriterErrors: a write error reaches the caller (at the latest
// from Close), and a closed writer refuses spans.
func TestSpanWriterErrors(t *testing.T) {
	w, err := NewSpanWriter(failingWriter{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&testSpans[0]); err != nil {
		t.Fatal(err) // buffered
	}
	if err := w.Close(); !errors.Is(err, errFull) {
		t.Errorf("Close: got %v, want %v", err, errFull)
	}
	var buf bytes.Buffer
	w, _ = NewSpanWriter(&buf, false)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&testSpans[0]); err == nil {
		t.Error("Write after Close: no error")
	}
	if err := w.Close(); err == nil {
		t.Error("second Close: no error")
	}
}

func TestReadSpansErrors(t *testing.T) {
	spans := writeSpans(t, testSpans, true)
	docs := writeRows(t, []textOnlyDoc{{"a", "t"}})
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"truncated", spans[:len(spans)-3]},
		{"documents", docs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := ReadSpans(bytes.NewReader(tc.data), int64(len(tc.data))); err == nil {
				t.Errorf("no error, got %+v", got)
			}
		})
	}
}
