package parquetio

import (
	"bytes"
	"errors"
	"os"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
)

// TestInflateBound: compressed page data passes when it decompresses to at
// most its claimed size, and fails when it decompresses to more or is
// damaged, for every codec parquet-go reads.
func TestInflateBound(t *testing.T) {
	page := bytes.Repeat([]byte("<p>a page of html, repeated.</p>\n"), 300)
	for _, c := range []compress.Codec{&parquet.Snappy, &parquet.Gzip, &parquet.Zstd, &parquet.Brotli, &parquet.Lz4Raw} {
		t.Run(c.String(), func(t *testing.T) {
			src, err := c.Encode(nil, page)
			if err != nil {
				t.Fatal(err)
			}
			src = bytes.Clone(src)
			var f inflater
			n := int64(len(page))
			if err := f.check(c.CompressionCodec(), src, n); err != nil {
				t.Errorf("claim %d, the true size: %v", n, err)
			}
			if err := f.check(c.CompressionCodec(), src, n+100); err != nil {
				t.Errorf("claim %d, over the true size: %v", n+100, err)
			}
			err = f.check(c.CompressionCodec(), src, n-1)
			if err == nil {
				t.Errorf("claim %d, under the true size: passed", n-1)
			} else if c.CompressionCodec() != format.Lz4Raw && !errors.Is(err, errOverClaim) {
				t.Errorf("claim %d, under the true size: %v, want errOverClaim", n-1, err)
			}
			bad := bytes.Clone(src)
			for i := range bad {
				bad[i] ^= 0x5a
			}
			if err := f.check(c.CompressionCodec(), bad, n); err == nil && c.CompressionCodec() != format.Snappy {
				// snappy's length prefix is all the check reads
				t.Errorf("damaged data passed")
			}
		})
	}
}

// TestDamagedPages: a page whose LZ4_RAW block does not decode (a fuzzed
// file that made parquet-go allocate 32 GiB) skips its row group, names
// the damage, and allocates little.
func TestDamagedPages(t *testing.T) {
	data, err := os.ReadFile("testdata/oom.parquet")
	if err != nil {
		t.Fatal(err)
	}
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	r, err := NewDocReader(bytes.NewReader(data), int64(len(data)), DocFields{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n++
	}
	metrics.Read(sample)
	if a := sample[0].Value.Uint64() - before; a > 64<<20 {
		t.Errorf("allocated %d MiB", a>>20)
	}
	sk := r.Skipped()
	if r.Err() != nil || n != 0 || sk[SkipBadRowGroup] != 1 || sk[SkipLostRows] != r.Rows() {
		t.Errorf("documents %d, skipped %v, err %v; want the one row group of %d rows skipped", n, sk, r.Err(), r.Rows())
	}
	if d := r.Damage(); !strings.Contains(d, "row group 0") || !strings.Contains(d, "lz4") {
		t.Errorf("Damage() = %q, want the row group and the codec", d)
	}
}
