package parquetio

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// BenchmarkDocReader reads 1000 documents of about 10 KB of html each.
func BenchmarkDocReader(b *testing.B) {
	docs := make([]strDoc, 1000)
	for i := range docs {
		docs[i] = strDoc{ID: ptr(fmt.Sprint(i)), URL: ptr(fmt.Sprintf("http://example.com/%d", i)),
			HTML: ptr("<p>" + randomText(uint64(i), 10<<10) + "</p>")}
	}
	data := writeRows(b, docs, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(256))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewDocReader(bytes.NewReader(data), int64(len(data)), DocFields{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
		}
		if r.Err() != nil || n != len(docs) {
			b.Fatalf("%d docs, err %v", n, r.Err())
		}
	}
}

// BenchmarkSpanWriter writes spans without text.
func BenchmarkSpanWriter(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewSpanWriter(io.Discard, false)
		if err != nil {
			b.Fatal(err)
		}
		for i := range 10000 {
			sp := testSpans[i%2]
			sp.StartA = i
			if err := w.Write(&sp); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
