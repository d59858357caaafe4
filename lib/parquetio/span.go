package parquetio

// # Spans
//
// SpanWriter writes one row per span, with the fields of the Avro span
// schema (lib/avroio/span.avsc) as columns of the same names and order;
// SpanSchema returns this text, and TestSpanSchema checks it:
//
//	message Span {
//		required binary doc_a (STRING);
//		required binary doc_b (STRING);
//		optional binary url_a (STRING);
//		optional binary url_b (STRING);
//		required int32 start_a (INT(32,true));
//		required int32 start_b (INT(32,true));
//		required int32 length (INT(32,true));
//		required int64 char_start_a (INT(64,true));
//		required int64 char_end_a (INT(64,true));
//		required int64 char_start_b (INT(64,true));
//		required int64 char_end_b (INT(64,true));
//		required double score;
//		optional binary text_a (STRING);
//		optional binary text_b (STRING);
//	}
//
// doc_a < doc_b bytewise; sentence numbers (start_a, start_b) are 0-based and
// length counts sentence pairs; character offsets are Unicode code points into
// each document's extracted text, end exclusive; score is the match job's
// (higher is more similar). url_a and url_b are null when unknown, text_a and
// text_b when the file is written without text. Files are snappy-compressed,
// in row groups of at most spanGroupRows rows or about spanGroupBytes bytes
// of strings; text_a and text_b have no min/max statistics.

import (
	"errors"
	"fmt"
	"github.com/pdc-mr/pdc/lib/span"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// spanRow is a span as written; its tags define the schema above.
type spanRow struct {
	DocA       string  `parquet:"doc_a"`
	DocB       string  `parquet:"doc_b"`
	URLA       *string `parquet:"url_a,optional"`
	URLB       *string `parquet:"url_b,optional"`
	StartA     int32   `parquet:"start_a"`
	StartB     int32   `parquet:"start_b"`
	Length     int32   `parquet:"length"`
	CharStartA int64   `parquet:"char_start_a"`
	CharEndA   int64   `parquet:"char_end_a"`
	CharStartB int64   `parquet:"char_start_b"`
	CharEndB   int64   `parquet:"char_end_b"`
	Score      float64 `parquet:"score"`
	TextA      *string `parquet:"text_a,optional"`
	TextB      *string `parquet:"text_b,optional"`
}

var spanSchema = parquet.NewSchema("Span", parquet.SchemaOf(spanRow{}))

// SpanSchema returns the Parquet schema of span files, in the notation of
// parquet-format (the message at the top of span.go).
func SpanSchema() string { return spanSchema.String() }

// Row group and write batch bounds of SpanWriter.
const (
	spanBatch      = 1024     // rows handed to parquet-go at a time
	spanGroupRows  = 1 << 17  // rows per row group, at most
	spanGroupBytes = 64 << 20 // string bytes per row group, about
)

// SpanWriter writes spans to a Parquet file (the schema above).
type SpanWriter struct {
	w          *parquet.GenericWriter[spanRow]
	withText   bool
	batch      []spanRow
	groupRows  int // rows of the current row group, written or in batch
	groupBytes int // their string bytes
	err        error
}

// NewSpanWriter returns a writer of spans to w. withText selects whether the
// passage texts of spans are written (else text_a and text_b are null).
// Nothing is written before the first row group or Close, which does not
// close w.
func NewSpanWriter(w io.Writer, withText bool) (*SpanWriter, error) {
	pw := parquet.NewGenericWriter[spanRow](w, spanSchema, parquet.Compression(&parquet.Snappy),
		parquet.CreatedBy("pdc", "", ""),
		// parquet-go would copy whole texts into min/max statistics.
		parquet.SkipPageBounds("text_a"), parquet.SkipPageBounds("text_b"),
		parquet.SkipPageStatistics("text_a"), parquet.SkipPageStatistics("text_b"))
	return &SpanWriter{w: pw, withText: withText}, nil
}

// Write adds a span; spans are written in row groups.
func (s *SpanWriter) Write(sp *span.Span) error {
	if s.err != nil {
		return s.err
	}
	row := spanRow{DocA: sp.DocA, DocB: sp.DocB, URLA: nullable(sp.URLA), URLB: nullable(sp.URLB),
		StartA: int32(sp.StartA), StartB: int32(sp.StartB), Length: int32(sp.Length),
		CharStartA: int64(sp.CharStartA), CharEndA: int64(sp.CharEndA),
		CharStartB: int64(sp.CharStartB), CharEndB: int64(sp.CharEndB), Score: sp.Score}
	n := len(sp.DocA) + len(sp.DocB) + len(sp.URLA) + len(sp.URLB)
	if s.withText {
		row.TextA, row.TextB = sp.TextA, sp.TextB
		n += strlen(sp.TextA) + strlen(sp.TextB)
	}
	s.batch = append(s.batch, row)
	s.groupRows++
	s.groupBytes += n
	if len(s.batch) >= spanBatch || s.groupFull() {
		return s.flush()
	}
	return nil
}

func (s *SpanWriter) groupFull() bool {
	return s.groupRows >= spanGroupRows || s.groupBytes >= spanGroupBytes
}

// flush hands the batch to parquet-go and ends the row group if it is full.
func (s *SpanWriter) flush() error {
	if _, err := s.w.Write(s.batch); err != nil {
		s.err = fmt.Errorf("write spans: %w", err)
		return s.err
	}
	clear(s.batch)
	s.batch = s.batch[:0]
	if s.groupFull() {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("write spans: %w", err)
			return s.err
		}
		s.groupRows, s.groupBytes = 0, 0
	}
	return nil
}

// Close writes the buffered spans and the file footer. It does not close
// the underlying writer.
func (s *SpanWriter) Close() error {
	if s.err != nil {
		return s.err
	}
	err := s.flush()
	if err == nil {
		if err = s.w.Close(); err != nil {
			err = fmt.Errorf("write spans: %w", err)
		}
	}
	s.err = errors.New("span writer closed")
	return err
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func strlen(p *string) int {
	if p == nil {
		return 0
	}
	return len(*p)
}

// ReadSpans reads all spans of the size-byte Parquet file r, written with
// the span schema or one with the same column names and convertible types.
// It holds all spans in memory (it is meant for tests and small files) and
// checks all page headers before reading.
func ReadSpans(r io.ReaderAt, size int64) ([]span.Span, error) {
	if err := checkFooter(r, size); err != nil {
		return nil, err
	}
	file, err := openFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("open parquet: %w", err)
	}
	if err := guard(func() error { return checkSpanColumns(file.Root()) }); err != nil {
		return nil, err
	}
	if err := checkPages(file.Metadata().RowGroups, r, size); err != nil {
		return nil, fmt.Errorf("read spans: %w", err)
	}
	rows, err := readSpanRows(file)
	if err != nil {
		return nil, fmt.Errorf("read spans: %w", err)
	}
	out := make([]span.Span, len(rows))
	for i, row := range rows {
		out[i] = span.Span{DocA: row.DocA, DocB: row.DocB, URLA: deref(row.URLA), URLB: deref(row.URLB),
			StartA: int(row.StartA), StartB: int(row.StartB), Length: int(row.Length),
			CharStartA: int(row.CharStartA), CharEndA: int(row.CharEndA),
			CharStartB: int(row.CharStartB), CharEndB: int(row.CharEndB), Score: row.Score,
			TextA: row.TextA, TextB: row.TextB}
	}
	return out, nil
}

// checkSpanColumns requires the required columns of the span schema.
func checkSpanColumns(root *parquet.Column) error {
	var missing []string
	for _, f := range spanSchema.Fields() {
		if f.Required() && root.Column(f.Name()) == nil {
			missing = append(missing, f.Name())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("parquet file lacks span columns %s", strings.Join(missing, ", "))
	}
	return nil
}

// readSpanRows reads the rows of file (parquet-go panics on incompatible
// schemas: guard turns that into an error).
func readSpanRows(file *parquet.File) (rows []spanRow, err error) {
	err = guard(func() (err error) {
		rows, err = readSpanRowsUnguarded(file)
		return err
	})
	return rows, err
}

func readSpanRowsUnguarded(file *parquet.File) (rows []spanRow, err error) {
	r := parquet.NewGenericReader[spanRow](file)
	buf := make([]spanRow, spanBatch)
	for {
		clear(buf) // parquet-go may reuse the strings pointed to
		n, err := r.Read(buf)
		rows = append(rows, buf[:n]...)
		if err == io.EOF {
			return rows, r.Close()
		}
		if err != nil {
			_ = r.Close() // the read error is the one to report
			return rows, err
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
