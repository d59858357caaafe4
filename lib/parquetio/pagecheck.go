package parquetio

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Limits of pageCheck. Writers flush pages at about 1 MB, but a page of
// a thousand large html values is legitimately hundreds of MB.
const (
	maxPageBytes   = 1 << 30  // uncompressed page size
	maxHeaderBytes = 64 << 20 // page header (min/max statistics can be large)
)

// pageCheck reads the page headers of a column chunk ahead of parquet-go,
// which allocates whatever sizes a header claims before reading the page:
// a damaged header could otherwise ask for gigabytes. It requires pages to
// lie inside the chunk, to be at most maxPageBytes uncompressed, and data
// pages to hold at most as many values as the row group has rows.
type pageCheck struct {
	r        io.ReaderAt
	off, end int64 // next page header, end of the chunk
	rows     int64 // rows in the row group
	buf      []byte
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
	p.r, p.off, p.end, p.rows = r, start, start+m.TotalCompressedSize, rows
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
		if h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxPageBytes {
			return nil, fmt.Errorf("page of %d bytes uncompressed", h.UncompressedPageSize)
		}
		p.off += int64(h.CompressedPageSize)
		return h, nil
	}
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
