package avroio

import (
	"bytes"
	"github.com/pdc-mr/pdc/lib/fuzzbound"
	"os"
	"testing"
)

// FuzzDocReader: arbitrary bytes never panic, and reading terminates.
func FuzzDocReader(f *testing.F) {
	var buf bytes.Buffer
	w, _ := NewDocWriter(&buf)
	_ = w.Write("1", "u", "<p>x</p>", "t")
	_ = w.Close()
	f.Add(buf.Bytes())
	if b, err := os.ReadFile("testdata/spans.avro"); err == nil {
		f.Add(b)
	}
	f.Add(writeAvro(f, siteSchema, siteRecords...))
	f.Add([]byte("Obj\x01\x00"))
	f.Fuzz(fuzzbound.Bytes(func(t *testing.T, data []byte) {
		for _, fields := range []DocFields{{}, {ID: "doc_a", HTML: "text_a", Site: "url_b"}, {Site: "host"}} {
			r, err := NewDocReader(bytes.NewReader(data), fields)
			if err != nil {
				continue
			}
			for n := 0; r.Next(); n++ {
				if n > len(data) {
					t.Fatalf("more documents than bytes")
				}
				r.Doc()
				r.Site()
			}
		}
		_, _ = ReadSpans(bytes.NewReader(data))
	}))
}
