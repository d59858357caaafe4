// Package spanfile writes spans (lib/span) in each output format: tsv and
// jsonl (lib/span's), avro (lib/avroio) and parquet (lib/parquetio).
package spanfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/parquetio"
	"github.com/pdc-mr/pdc/lib/span"
)

// Formats are the output formats of Writer.
var Formats = []string{"tsv", "jsonl", "avro", "parquet"}

// Binary tells whether format is not text (not for a terminal).
func Binary(format string) bool { return format == "avro" || format == "parquet" }

// Writer writes spans one by one in a format:
//
//	tsv    spans TSV lines; with text, the two passages follow as two more
//	       fields (escaped as in lib/mr)
//	jsonl  one JSON object per span, lib/span Span's field names
//	avro     an Avro object container file, lib/avroio's span schema
//	         (span.avsc); text_a and text_b null unless with text
//	parquet  a Parquet file, lib/parquetio's span schema (the same column
//	         names as Avro's); text_a and text_b null unless with text
//
// Close flushes the output (it does not close the underlying writer).
type Writer struct {
	w     *bufio.Writer
	write func(*span.Span) error
	close func() error
}

// NewWriter returns a Writer of format on w.
func NewWriter(w io.Writer, format string, withText bool) (*Writer, error) {
	sw := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	switch format {
	case "tsv":
		var b []byte
		sw.write = func(s *span.Span) error {
			b = s.AppendTSV(b[:0])
			if withText {
				b = append(b, '\t')
				b = mr.AppendEscape(b, deref(s.TextA))
				b = append(b, '\t')
				b = mr.AppendEscape(b, deref(s.TextB))
			}
			b = append(b, '\n')
			_, err := sw.w.Write(b)
			return err // a write error is sticky: Close reports it
		}
	case "jsonl":
		enc := json.NewEncoder(sw.w)
		enc.SetEscapeHTML(false)
		sw.write = func(s *span.Span) error { return enc.Encode(s) }
	case "avro":
		aw, err := avroio.NewSpanWriter(sw.w, withText)
		if err != nil {
			return nil, fmt.Errorf("write avro spans: %w", err)
		}
		sw.write = func(s *span.Span) error { return aw.Write(s) }
		sw.close = aw.Close
	case "parquet":
		pw, err := parquetio.NewSpanWriter(sw.w, withText)
		if err != nil {
			return nil, fmt.Errorf("write parquet spans: %w", err)
		}
		sw.write = func(s *span.Span) error { return pw.Write(s) }
		sw.close = pw.Close
	default:
		return nil, fmt.Errorf("unknown span format %q (want tsv, jsonl, avro or parquet)", format)
	}
	return sw, nil
}

// Write writes one span.
func (sw *Writer) Write(s *span.Span) error {
	if err := sw.write(s); err != nil {
		return fmt.Errorf("write spans: %w", err)
	}
	return nil
}

// Close finishes the output and flushes it.
func (sw *Writer) Close() error {
	if sw.close != nil {
		if err := sw.close(); err != nil {
			return fmt.Errorf("write spans: %w", err)
		}
	}
	if err := sw.w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
