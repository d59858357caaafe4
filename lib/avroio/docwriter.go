package avroio

import (
	"fmt"
	"io"

	"github.com/linkedin/goavro/v2"
)

// docSchema is the schema DocWriter writes: the default DocFields, with
// nullable url, html and text.
const docSchema = `{"type": "record", "name": "Document", "namespace": "pdc",
 "doc": "An input document: html and/or plain text.",
 "fields": [
  {"name": "id", "type": "string"},
  {"name": "url", "type": ["null", "string"], "default": null},
  {"name": "html", "type": ["null", "string"], "default": null},
  {"name": "text", "type": ["null", "string"], "default": null}]}`

var docCodec = mustCodec(docSchema)

// DocWriter writes documents in the layout DocReader reads with the default
// DocFields; empty url, html and text are written as null.
type DocWriter struct {
	ocf   *goavro.OCFWriter
	batch []any
}

// NewDocWriter writes the container header to w.
func NewDocWriter(w io.Writer) (*DocWriter, error) {
	ocf, err := newOCFWriter(w, docCodec)
	if err != nil {
		return nil, fmt.Errorf("write document header: %w", err)
	}
	return &DocWriter{ocf: ocf}, nil
}

// Write adds a document.
func (d *DocWriter) Write(id, url, html, text string) error {
	d.batch = append(d.batch, map[string]any{"id": id,
		"url": nullable(url, url != ""), "html": nullable(html, html != ""), "text": nullable(text, text != "")})
	if len(d.batch) >= spanBatch {
		return d.Close()
	}
	return nil
}

// Close writes the buffered documents. Call it before the
// underlying writer is closed; it does not close it.
func (d *DocWriter) Close() error {
	if len(d.batch) == 0 {
		return nil
	}
	if err := d.ocf.Append(d.batch); err != nil {
		return fmt.Errorf("write documents: %w", err)
	}
	d.batch = d.batch[:0]
	return nil
}
