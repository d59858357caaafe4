package input

import (
	"bytes"
	"compress/gzip"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestFieldValues: a field of the first record of each id asked for, from
// plain and gzipped JSON Lines files; records without it, lines that are
// no document and ids not asked for give nothing.
func TestFieldValues(t *testing.T) {
	dir := t.TempDir()
	plain := `{"id":"a","text":"x","date":"2024-01-02"}
not json
{"id":"b","text":"y"}
{"id":"a","text":"again","date":"1999-01-01"}
{"id":"c","text":"z","date":"2020-05-05"}
`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"id":"d","text":"w","date":"2021-07-07"}` + "\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(plain), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Find([]string{dir}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := FieldValues(in, map[string]bool{"a": true, "b": true, "d": true}, "date")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "2024-01-02", "d": "2021-07-07"}
	if !maps.Equal(got, want) {
		t.Errorf("FieldValues = %v, want %v", got, want)
	}
}
