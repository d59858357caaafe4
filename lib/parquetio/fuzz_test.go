package parquetio

import (
	"bytes"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/pdc-mr/pdc/lib/fuzzbound"
)

// FuzzDocReader: arbitrary bytes never panic, reading terminates, and every
// row of a file read to the end is a document or counted as skipped.
func FuzzDocReader(f *testing.F) {
	f.Add(writeRows(f, strDocs[:3], parquet.MaxRowsPerRowGroup(2)))
	f.Add(writeRows(f, []int64Doc{{1, "<p>x</p>"}}))
	f.Add(writeRows(f, strDocs, parquet.Compression(&parquet.Uncompressed), parquet.DataPageVersion(1),
		parquet.DataPageStatistics(false))) // bytes the fuzzer can change without breaking a codec
	f.Add(writeRows(f, siteDocs, parquet.MaxRowsPerRowGroup(2)))
	f.Add(writeSpans(f, testSpans, true))
	for _, name := range []string{"testdata/docs.parquet", "testdata/docs_int.parquet", "testdata/oom.parquet"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(fuzzbound.Bytes(fuzzDocReader))
}

func fuzzDocReader(t *testing.T, data []byte) {
	{
		for _, fields := range []DocFields{{}, pyarrowFields, {ID: "doc_a", HTML: "text_a", URL: "url_a", Site: "url_b"},
			{Site: "host"}, {Site: "site"}} {
			r, err := NewDocReader(bytes.NewReader(data), int64(len(data)), fields)
			if err != nil {
				continue
			}
			n := int64(0)
			for r.Next() {
				if n++; n > r.Rows() {
					t.Fatalf("more documents than the %d rows", r.Rows())
				}
				r.Doc()
				r.Site()
			}
			sk := r.Skipped()
			if r.Err() == nil && n+sk[SkipMissingID]+sk[SkipLostRows] != r.Rows() {
				t.Fatalf("%d documents, skipped %v, of %d rows", n, sk, r.Rows())
			}
		}
		_, _ = ReadSpans(bytes.NewReader(data), int64(len(data)))
	}
}
