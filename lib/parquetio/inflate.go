package parquetio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// inflater checks that compressed page data decompresses to at most the
// size its page header claims, in memory bounded by that size: streams
// (GZIP, ZSTD, BROTLI) are read into a discarding counter and stopped one
// byte past the claim; SNAPPY blocks state their length up front; LZ4_RAW
// blocks are decoded into a buffer of the claimed size. Codecs parquet-go
// cannot read are left to its error.
type inflater struct {
	out  []byte // LZ4_RAW output
	zstd *zstd.Decoder
}

var errOverClaim = errors.New("decompresses to more bytes than its header claims")

func (f *inflater) check(codec format.CompressionCodec, src []byte, want int64) error {
	var r io.Reader
	switch codec {
	case format.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		if int64(n) > want {
			return fmt.Errorf("snappy data of %d bytes %w (%d)", n, errOverClaim, want)
		}
		return nil
	case format.Lz4Raw:
		if int64(cap(f.out)) < want {
			f.out = make([]byte, want)
		}
		if _, err := lz4.UncompressBlock(src, f.out[:want]); err != nil {
			return fmt.Errorf("lz4: damaged block, or one that %w (%d): %v", errOverClaim, want, err)
		}
		return nil
	case format.Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		r = zr
	case format.Zstd:
		if f.zstd == nil {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(MaxPageBytes+1))
			if err != nil {
				return fmt.Errorf("zstd: %w", err)
			}
			f.zstd = d
		}
		if err := f.zstd.Reset(bytes.NewReader(src)); err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		r = f.zstd
	case format.Brotli:
		r = brotli.NewReader(bytes.NewReader(src))
	default:
		return nil
	}
	n, err := io.Copy(io.Discard, io.LimitReader(r, want+1))
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", codecName(codec), err)
	case n > want:
		return fmt.Errorf("%s data %w (%d)", codecName(codec), errOverClaim, want)
	}
	return nil
}

func codecName(c format.CompressionCodec) string {
	switch c {
	case format.Gzip:
		return "gzip"
	case format.Zstd:
		return "zstd"
	case format.Brotli:
		return "brotli"
	}
	return c.String()
}
