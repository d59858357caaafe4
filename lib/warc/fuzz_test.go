package warc

import (
	"bytes"
	"github.com/pdc-mr/pdc/lib/fuzzbound"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader: arbitrary input never panics, terminates and keeps bodies
// within the configured cap.
func FuzzReader(f *testing.F) {
	for _, name := range fixtures {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 30\r\n\r\nHTTP/1.1 200 OK\r\n\r\n<p>hi</p>\r\n\r\n"))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage"))
	f.Fuzz(fuzzbound.Bytes(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), Options{MaxBodyBytes: 4096, MaxHeaderBytes: 1024})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			rec := r.Record()
			if len(rec.Body) > 4096 {
				t.Fatalf("body of %d bytes", len(rec.Body))
			}
			Document(rec)
			if n++; n > 1+32*len(data) {
				t.Fatal("more records than the input can hold")
			}
		}
	}))
}

// FuzzParseHTTPResponse: arbitrary blocks never panic.
func FuzzParseHTTPResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.0 404\nContent-Encoding: deflate, br\n\nxx"))
	f.Fuzz(func(t *testing.T, block []byte) {
		_, _, body, _ := ParseHTTPResponse(block)
		if len(body) > MaxDecodedBytes {
			t.Fatalf("body of %d bytes", len(body))
		}
	})
}
