// Package parquetio reads pdc input documents from, and writes
// partial-duplicate spans to, Apache Parquet files.
//
// It is built on github.com/parquet-go/parquet-go: pure Go, so the pdc binary
// still builds statically with CGO_ENABLED=0; the maintained successor of
// segmentio/parquet-go; it streams a file row group by row group and, within
// a row group, page by page, so memory is bounded by the pages being read (a
// few times the largest page), never the whole file; and it reads what
// pyarrow, and so Hugging Face datasets, writes (snappy, zstd or gzip,
// dictionary-encoded, data pages v1 and v2). apache/arrow-go would do the
// same job with a much larger dependency (the Arrow memory model,
// flatbuffers, compute kernels), and xitongsys/parquet-go is unmaintained.
//
// # Documents
//
// DocReader reads the top-level columns named by DocFields; columns inside
// a struct (group) are not looked up, and other columns are ignored:
//
//	id    string (BYTE_ARRAY) or integer (INT32, INT64, signed or unsigned,
//	      formatted in decimal); required: the file must have it
//	url   string, optional
//	html  string, optional
//	text  string, optional; the file must have html or text (or both)
//	site  string or integer (as id); read only if DocFields.Site names it
//	      (there is no default name), and then required
//
// String columns may be annotated STRING or be plain binary. Null values read
// as empty strings; rows with a null or empty id are skipped (SkipMissingID).
// The site groups the documents of one web site (DocReader.Site); when no
// site column is named, none is read and the site is always empty.
//
// # Damage
//
// A truncated file, or one whose footer cannot be decoded, is an error of
// NewDocReader. Before parquet-go reads a page, DocReader checks the page's
// header (pagecheck.go): parquet-go allocates the sizes a header claims. A
// row group with a page that is out of bounds or does not decode to the
// number of values its header says is skipped from that page on, and
// counted; the values of rows already returned stay with their rows (the
// check counts values, it cannot see damaged bytes inside one). parquet-go
// panics on some damaged input; those panics become errors (or skipped row
// groups). It also prints a warning to stderr (with println) for some
// damaged byte array pages.
package parquetio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pdc-mr/pdc/lib/doc"
)

// DocFields names the columns of a documents file (lib/doc Fields: empty
// names select the defaults; with Site empty no site column is read; when
// it is set, the file must have it).
type DocFields = doc.Fields

// Skip reasons counted by DocReader.Skipped. SkipBadRowGroup counts row
// groups, the others rows.
const (
	SkipMissingID   = "missing id"
	SkipBadRowGroup = "damaged row group"
	SkipLostRows    = "rows lost in damaged row group"
)

// Positions of the document columns in DocReader.cols and DocReader.doc.
const (
	colID = iota
	colURL
	colHTML
	colText
	colSite
	numCols
)

// DocReader reads documents from a Parquet file, one row at a time. Rows
// without an id are skipped; a damaged row group is skipped from the damaged
// page on. Both are counted by reason (Skipped). An error of the underlying
// reader ends reading (Err). A DocReader is not safe for concurrent use.
type DocReader struct {
	src     *readerAt
	size    int64
	groups  []parquet.RowGroup
	meta    []format.RowGroup // the footer's description of groups
	cols    [numCols]*column  // id, url, html, text, site; nil if absent or not named
	g       int               // index of the next row group
	left    int64             // rows left in the current row group
	rows    int64
	doc     [numCols]string
	err     error
	skipped map[string]int64
	damage  string // the first damage skipped, for messages
}

// readBufferSize is the read buffer of each column read.
const readBufferSize = 64 << 10

// NewDocReader reads the footer of the size-byte Parquet file r and checks
// that it has the id column, an html or text column and, if f.Site is set,
// the site column, of usable types.
func NewDocReader(r io.ReaderAt, size int64, f DocFields) (*DocReader, error) {
	f = f.WithDefaults()
	if err := checkFooter(r, size); err != nil {
		return nil, err
	}
	src := &readerAt{r: r}
	file, err := openFile(src, size)
	if err != nil {
		if src.err != nil {
			return nil, fmt.Errorf("read parquet: %w", src.err)
		}
		return nil, fmt.Errorf("open parquet: %w", err)
	}
	var cols [numCols]*column
	err = guard(func() (err error) {
		cols, err = docColumns(file.Root(), f)
		return err
	})
	if err != nil {
		return nil, err
	}
	d := &DocReader{src: src, size: size, groups: file.RowGroups(), meta: file.Metadata().RowGroups,
		cols: cols, skipped: map[string]int64{}}
	if len(d.groups) != len(d.meta) {
		return nil, fmt.Errorf("open parquet: %d row groups, %d in the footer", len(d.groups), len(d.meta))
	}
	for _, g := range d.groups {
		if g.NumRows() < 0 {
			return nil, fmt.Errorf("open parquet: row group with %d rows", g.NumRows())
		}
		d.rows += g.NumRows()
	}
	return d, nil
}

// checkFooter rejects files too short or without the trailing magic, and
// footer lengths beyond the file (parquet-go would allocate them first).
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("not a parquet file: %d bytes", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("read parquet footer: %w", err)
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return errors.New("encrypted parquet files are not supported")
	default:
		return fmt.Errorf("not a parquet file, or truncated: ends in %q, not PAR1", tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	switch {
	case n > size-12:
		return fmt.Errorf("damaged parquet file: footer of %d bytes in a file of %d", n, size)
	case n > MaxFooterBytes:
		return fmt.Errorf("parquet footer of %d MiB, over the %d MiB pdc reads (statistics of huge values? write the file without column statistics)", n>>20, MaxFooterBytes>>20)
	}
	return nil
}

// MaxFooterBytes bounds the footer (the file's metadata) NewDocReader
// reads: thousands of row groups take a few MiB.
const MaxFooterBytes = 64 << 20

// openFile opens the file without reading page indexes or bloom filters.
func openFile(r io.ReaderAt, size int64) (f *parquet.File, err error) {
	err = guard(func() (err error) {
		f, err = parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
			parquet.ReadBufferSize(readBufferSize))
		return err
	})
	return f, err
}

// guard calls fn, turning a panic into an error: parquet-go panics on some
// damaged input.
func guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged parquet file: %v", p)
		}
	}()
	return fn()
}

// docColumns finds the document columns among the top-level columns. An
// empty site name reads no site column.
func docColumns(root *parquet.Column, f DocFields) ([numCols]*column, error) {
	var cols [numCols]*column
	names := [numCols]string{f.ID, f.URL, f.HTML, f.Text, f.Site}
	for i, name := range names {
		if name == "" {
			continue // no site column named
		}
		c := root.Column(name)
		if c == nil {
			continue
		}
		col, err := newColumn(c, i == colID || i == colSite)
		if err != nil {
			return cols, err
		}
		cols[i] = col
	}
	var want string
	switch {
	case cols[colID] == nil || cols[colHTML] == nil && cols[colText] == nil:
		want = fmt.Sprintf("%s and %s or %s", f.ID, f.HTML, f.Text)
	case f.Site != "" && cols[colSite] == nil:
		want = "site column " + f.Site
	default:
		return cols, nil
	}
	var have []string
	for _, c := range root.Columns() {
		have = append(have, c.Name())
	}
	return cols, fmt.Errorf("parquet file has columns %s; want %s", strings.Join(have, ", "), want)
}

// Next advances to the next document. It returns false at the end of the
// file or on a read error (see Err).
func (d *DocReader) Next() bool {
	for d.err == nil {
		if d.left == 0 {
			if !d.nextGroup() {
				return false
			}
			continue
		}
		err := d.readRow()
		if err != nil {
			if d.src.err != nil {
				d.err = fmt.Errorf("read parquet: %w", d.src.err)
				return false
			}
			d.damaged(d.g-1, d.groups[d.g-1].NumRows()-d.left, err)
			d.skipped[SkipBadRowGroup]++
			d.skipped[SkipLostRows] += d.left
			d.left = 0
			continue
		}
		d.left--
		if d.doc[colID] == "" {
			d.skipped[SkipMissingID]++
			continue
		}
		return true
	}
	return false
}

// nextGroup starts reading the next row group; it returns false after the
// last one.
func (d *DocReader) nextGroup() bool {
	if d.g == len(d.groups) {
		d.close()
		return false
	}
	g, meta := d.groups[d.g], d.meta[d.g].Columns
	d.g++
	err := guard(func() error {
		chunks := g.ColumnChunks()
		for _, c := range d.cols {
			if c == nil {
				continue
			}
			if c.index >= len(chunks) || c.index >= len(meta) {
				return errors.New("missing column chunk")
			}
			if err := c.start(chunks[c.index], &meta[c.index].MetaData, g.NumRows(), d.src, d.size); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		d.damaged(d.g-1, 0, err)
		d.skipped[SkipBadRowGroup]++
		d.skipped[SkipLostRows] += g.NumRows()
		return true
	}
	d.left = g.NumRows()
	return true
}

// damaged remembers the first damage: row group g from its row row on.
func (d *DocReader) damaged(g int, row int64, err error) {
	if d.damage == "" {
		d.damage = fmt.Sprintf("row group %d from its row %d: %v", g, row, err)
	}
}

// readRow reads the next value of each column into d.doc.
func (d *DocReader) readRow() error {
	return guard(func() (err error) {
		for i, c := range d.cols {
			d.doc[i] = ""
			if c == nil {
				continue
			}
			if d.doc[i], err = c.next(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (d *DocReader) close() {
	for _, c := range d.cols {
		if c != nil {
			c.close()
		}
	}
}

// Doc returns the fields of the current document; missing columns and null
// values are empty.
func (d *DocReader) Doc() (id, url, html, text string) {
	return d.doc[colID], d.doc[colURL], d.doc[colHTML], d.doc[colText]
}

// Site returns the site of the current document: empty if DocFields.Site is
// empty or the value is null.
func (d *DocReader) Site() string { return d.doc[colSite] }

// Err returns the error that ended Next, or nil at a clean end.
func (d *DocReader) Err() error { return d.err }

// Skipped returns the number of skipped rows (or damaged row groups) by
// reason (see the Skip constants).
func (d *DocReader) Skipped() map[string]int64 { return maps.Clone(d.skipped) }

// Damage describes the first damage skipped ("row group 0 from its row 0:
// column text: page at byte 4: ..."), or is empty.
func (d *DocReader) Damage() string { return d.damage }

// Rows returns the number of rows in the file, from its footer. At a clean
// end, every row was either returned by Next or counted in Skipped.
func (d *DocReader) Rows() int64 { return d.rows }

// readerAt remembers the first error of the underlying reader other than
// io.EOF, telling read errors (which end reading) from damaged data (which
// skips a row group).
type readerAt struct {
	r   io.ReaderAt
	err error
}

func (r *readerAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.r.ReadAt(p, off)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}
