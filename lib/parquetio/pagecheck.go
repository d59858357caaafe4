package parquetio

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Limits of pageCheck. Writers flush pages at about 1 MB, but a page of
// a thousand large html values is legitimately a hundred MB or more.
const (
	MaxPageBytes   = 256 << 20 // uncompressed page size
	maxHeaderBytes = 64 << 20  // page header (min/max statistics can be large)
)

// pageCheck reads the page headers of a column chunk ahead of parquet-go,
// which allocates whatever sizes a header claims before reading the page:
// a damaged header could otherwise ask for gigabytes. It requires pages to
// lie inside the chunk, to be at most MaxPageBytes uncompressed, and data
// pages to hold at most as many values as the row group has rows. A
// compressed page is decompressed first with a bound (see inflate): its
// data must not decompress to more than its header claims, which parquet-go
// does not check (its LZ4_RAW decoder doubles its buffer until a damaged
// block decodes, that is forever).
type pageCheck struct {
	r        io.ReaderAt
	off, end int64 // next page header, end of the chunk
	rows     int64 // rows in the row group
	codec    format.CompressionCodec
	buf      []byte // page header
	data     []byte // compressed page
	inf      inflater
}

// init sets up checking the chunk described by m in a row group of rows
// rows, in a file of size bytes, at the offset where parquet-go starts.
func (p *pageCheck) init(r io.ReaderAt, m *format.ColumnMetaData, rows, size int64) error {
	start := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		start = m.DictionaryPageOffset
	}
	if start < 4 || m.TotalCompressedSize < 0 || m.TotalCompressedSize > size-start {
		return fmt.Errorf("column chunk of %d bytes at %d outside the file", m.TotalCompressedSize, start)
	}
	p.r, p.off, p.end, p.rows, p.codec = r, start, start+m.TotalCompressedSize, rows, m.Codec
	return nil
}

// next checks the page headers up to and including the next data page and
// returns that page's number of values (including nulls). It returns
// io.EOF at the end of the chunk.
func (p *pageCheck) next() (int64, error) {
	for p.off < p.end {
		h, err := p.header()
		if err != nil {
			return 0, err
		}
		switch h.Type { // as parquet-go's FilePages.ReadPage
		case format.DataPage:
			if !h.DataPageHeader.Valid {
				return 0, errNoHeader
			}
			return p.values(int64(h.DataPageHeader.V.NumValues))
		case format.DataPageV2:
			if !h.DataPageHeaderV2.Valid {
				return 0, errNoHeader
			}
			v := h.DataPageHeaderV2.V
			if v.NumNulls < 0 || v.NumNulls > v.NumValues || v.NumRows < 0 || int64(v.NumRows) > p.rows {
				return 0, fmt.Errorf("page header: %d values, %d nulls, %d rows", v.NumValues, v.NumNulls, v.NumRows)
			}
			return p.values(int64(v.NumValues))
		case format.DictionaryPage:
			if !h.DictionaryPageHeader.Valid {
				return 0, errNoHeader
			}
			// Every dictionary entry takes at least a byte.
			if n := h.DictionaryPageHeader.V.NumValues; n < 0 || n > h.UncompressedPageSize {
				return 0, fmt.Errorf("dictionary page header: %d values in %d bytes", n, h.UncompressedPageSize)
			}
		default:
			return 0, fmt.Errorf("page of type %s", h.Type)
		}
	}
	return 0, io.EOF
}

var errNoHeader = errors.New("page header without the header of its type")

func (p *pageCheck) values(n int64) (int64, error) {
	if n < 0 || n > p.rows {
		return 0, fmt.Errorf("page header: %d values in a row group of %d rows", n, p.rows)
	}
	return n, nil
}

// header reads and checks the page header at p.off and moves past the page.
func (p *pageCheck) header() (*format.PageHeader, error) {
	var proto thrift.CompactProtocol
	for n := int64(4 << 10); ; n *= 16 {
		n = min(n, p.end-p.off, maxHeaderBytes)
		if int64(cap(p.buf)) < n {
			p.buf = make([]byte, n)
		}
		buf := p.buf[:n]
		if m, err := p.r.ReadAt(buf, p.off); m < len(buf) {
			return nil, fmt.Errorf("read page header: %w", err)
		}
		h := new(format.PageHeader)
		pr := proto.NewReaderFromBytes(buf)
		if err := thrift.NewDecoder(pr).Decode(h); err != nil {
			if n < min(p.end-p.off, maxHeaderBytes) {
				continue // perhaps a longer header
			}
			return nil, fmt.Errorf("page header: %w", err)
		}
		p.off += int64(pr.BytesRead())
		if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > p.end-p.off {
			return nil, fmt.Errorf("page of %d bytes beyond its column chunk", h.CompressedPageSize)
		}
		if h.UncompressedPageSize < 0 || h.UncompressedPageSize > MaxPageBytes {
			return nil, fmt.Errorf("page of %d bytes uncompressed, over the %d MiB a page may hold (write the file with smaller pages)", h.UncompressedPageSize, MaxPageBytes>>20)
		}
		if err := p.checkData(h); err != nil {
			return nil, fmt.Errorf("page at byte %d: %w", p.off, err)
		}
		p.off += int64(h.CompressedPageSize)
		return h, nil
	}
}

// checkData decompresses the compressed part of the page that follows h at
// p.off with a bound: it must decompress without error to at most the
// size h claims.
func (p *pageCheck) checkData(h *format.PageHeader) error {
	if p.codec == format.Uncompressed {
		return nil
	}
	skip, want := int64(0), int64(h.UncompressedPageSize)
	if h.Type == format.DataPageV2 && h.DataPageHeaderV2.Valid {
		v := h.DataPageHeaderV2.V
		if v.IsCompressed.Valid && !v.IsCompressed.V {
			return nil
		}
		skip = int64(v.DefinitionLevelsByteLength) + int64(v.RepetitionLevelsByteLength)
		if v.DefinitionLevelsByteLength < 0 || v.RepetitionLevelsByteLength < 0 || skip > int64(h.CompressedPageSize) || skip > want {
			return fmt.Errorf("levels of %d bytes in a page of %d", skip, h.CompressedPageSize)
		}
		want -= skip
	}
	n := int64(h.CompressedPageSize) - skip
	if int64(cap(p.data)) < n {
		p.data = make([]byte, n)
	}
	src := p.data[:n]
	if m, err := p.r.ReadAt(src, p.off+skip); m < len(src) {
		return fmt.Errorf("read page: %w", err)
	}
	return p.inf.check(p.codec, src, want)
}

// checkPages checks every page header of the file whose row groups m
// describes; r and size are the file.
func checkPages(m []format.RowGroup, r io.ReaderAt, size int64) error {
	var p pageCheck
	for g := range m {
		for i := range m[g].Columns {
			if err := p.init(r, &m[g].Columns[i].MetaData, m[g].NumRows, size); err != nil {
				return fmt.Errorf("row group %d: %w", g, err)
			}
			for {
				_, err := p.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return fmt.Errorf("row group %d: %w", g, err)
				}
			}
		}
	}
	return nil
}
