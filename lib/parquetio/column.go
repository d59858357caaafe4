package parquetio

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// column reads the values of one top-level, non-repeated leaf column as
// strings, one value per row, a page at a time.
type column struct {
	name     string
	index    int  // leaf column index in row groups
	unsigned bool // an unsigned integer column
	check    pageCheck
	pages    parquet.Pages
	page     parquet.Page // current page, released when the next is read
	values   parquet.ValueReader
	left     int64 // values of the page not yet read
	buf      []parquet.Value
	i, n     int // buf[i:n] are unread
}

// valueBatch is the number of values read from a page at a time.
const valueBatch = 64

// newColumn checks that c can be read as strings: a top-level leaf that is
// not repeated, of a byte array type or, if integer is set, an integer type.
func newColumn(c *parquet.Column, integer bool) (*column, error) {
	want := "a string"
	if integer {
		want = "a string or integer"
	}
	if !c.Leaf() || c.Repeated() {
		return nil, fmt.Errorf("parquet column %s is not a plain column; want %s column", c.Name(), want)
	}
	col := &column{name: c.Name(), index: c.Index(), buf: make([]parquet.Value, valueBatch)}
	t := c.Type()
	kind, ok := kindOf(t)
	switch {
	case ok && kind == parquet.ByteArray:
		return col, nil
	case ok && integer && (kind == parquet.Int32 || kind == parquet.Int64):
		col.unsigned = isUnsigned(t)
		return col, nil
	}
	name := t.String() // the logical type, or the physical type if none
	if ok && name != kind.String() {
		name = fmt.Sprintf("%s (%s)", kind, name)
	}
	return nil, fmt.Errorf("parquet column %s has type %s; want %s column", c.Name(), name, want)
}

// kindOf returns the physical type of t; parquet-go panics for the types
// of groups (MAP, LIST), which a damaged schema can give a leaf.
func kindOf(t parquet.Type) (k parquet.Kind, ok bool) {
	err := guard(func() error {
		k = t.Kind()
		return nil
	})
	return k, err == nil
}

func isUnsigned(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		if it, ok := lt.Value.(*format.IntType); ok {
			return !it.IsSigned
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		return *ct == deprecated.Uint32 || *ct == deprecated.Uint64
	}
	return false
}

// start begins reading the column's chunk of a row group; m describes the
// chunk, r and size are the file.
func (c *column) start(chunk parquet.ColumnChunk, m *format.ColumnMetaData, rows int64, r io.ReaderAt, size int64) error {
	c.close()
	if err := c.check.init(r, m, rows, size); err != nil {
		return fmt.Errorf("column %s: %w", c.name, err)
	}
	c.pages = chunk.Pages()
	return nil
}

func (c *column) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		_ = c.pages.Close() // closing a page reader only returns buffers
		c.pages = nil
	}
	c.values, c.i, c.n = nil, 0, 0
}

var errNoProgress = errors.New("page reader returned no values and no error")

// next returns the column's value in the next row.
func (c *column) next() (string, error) {
	for c.i == c.n {
		if c.values == nil {
			if err := c.nextPage(); err != nil {
				return "", err
			}
		}
		n, err := c.values.ReadValues(c.buf)
		c.i, c.n, c.left = 0, n, c.left-int64(n)
		switch {
		case c.left < 0:
			return "", fmt.Errorf("column %s: page has more values than its header says", c.name)
		case err == io.EOF && c.left > 0:
			return "", fmt.Errorf("column %s: page has %d values fewer than its header says", c.name, c.left)
		case err == io.EOF:
			c.values = nil
		case err != nil:
			return "", fmt.Errorf("column %s: %w", c.name, err)
		case n == 0:
			return "", fmt.Errorf("column %s: %w", c.name, errNoProgress)
		}
	}
	v := c.buf[c.i]
	c.i++
	return c.format(v)
}

func (c *column) nextPage() error {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	want, err := c.check.next()
	if err == io.EOF {
		return fmt.Errorf("column %s: fewer values than rows", c.name)
	}
	if err != nil {
		return fmt.Errorf("column %s: %w", c.name, err)
	}
	p, err := c.pages.ReadPage()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the check saw a page
	}
	if err != nil {
		return fmt.Errorf("column %s: %w", c.name, err)
	}
	c.page = p
	if p.NumValues() != want {
		return fmt.Errorf("column %s: page of %d values, its header says %d", c.name, p.NumValues(), want)
	}
	c.values, c.left = p.Values(), want
	return nil
}

// format returns v as a string: null is empty, integers are decimal.
func (c *column) format(v parquet.Value) (string, error) {
	if v.IsNull() {
		return "", nil
	}
	switch v.Kind() {
	case parquet.ByteArray:
		return string(v.ByteArray()), nil
	case parquet.Int32:
		if c.unsigned {
			return strconv.FormatUint(uint64(v.Uint32()), 10), nil
		}
		return strconv.FormatInt(int64(v.Int32()), 10), nil
	case parquet.Int64:
		if c.unsigned {
			return strconv.FormatUint(v.Uint64(), 10), nil
		}
		return strconv.FormatInt(v.Int64(), 10), nil
	}
	return "", fmt.Errorf("column %s: unexpected %s value", c.name, v.Kind())
}
