// Package avroio reads pdc input documents from, and writes partial-duplicate
// spans to, Avro object container files. Datums are encoded and decoded with
// github.com/linkedin/goavro/v2; the span schema is span.avsc.
package avroio

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/linkedin/goavro/v2"
	"github.com/pdc-mr/pdc/lib/doc"
)

// DocFields names the fields of a document record (lib/doc Fields: empty
// names select the defaults; with Site empty no site field is read and
// DocReader.Site is always empty; when it is set, the schema must have
// that field).
type DocFields = doc.Fields

// Skip reasons counted by DocReader.Skipped.
const (
	SkipMissingID  = "missing id"
	SkipWrongType  = "wrong field type"
	SkipNotRecord  = "not a record"
	SkipBadBlock   = "damaged block"
	SkipBadDatum   = "undecodable record"
	SkipEmptyBlock = "records lost in damaged block"
)

// DocReader reads documents from an Avro object container file whose schema
// is a record with a string id field and string (or bytes, or nullable)
// url, html and text fields, and, if DocFields.Site names one, a site field
// of the same types (the name of the web site a document belongs to); other
// fields are ignored. Missing url, html and text fields and null values read
// as empty strings. Records that cannot be used (a field of another type, or
// an empty id) are skipped and counted by reason.
type DocReader struct {
	ocf     *ocfReader
	codec   *goavro.Codec
	f       DocFields
	block   []byte
	left    int64 // items left in block
	id      string
	url     string
	html    string
	text    string
	site    string
	err     error
	skipped map[string]int64
	blocks  int    // blocks read, damaged ones included
	damage  string // the first damage skipped, for messages
}

// NewDocReader reads the container header from r and checks that the schema
// has the id field, an html or text field and, if f.Site is set, the site
// field.
func NewDocReader(r io.Reader, f DocFields) (*DocReader, error) {
	ocf, err := newOCFReader(r)
	if err != nil {
		return nil, err
	}
	f = f.WithDefaults()
	schema := ocf.meta["avro.schema"]
	if err := checkSchema(schema, f); err != nil {
		return nil, err
	}
	codec, err := newCodec(string(schema))
	if err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	return &DocReader{ocf: ocf, codec: codec, f: f, skipped: map[string]int64{}}, nil
}

// newCodec guards against panics in goavro on hostile schemas.
func newCodec(schema string) (c *goavro.Codec, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("bad schema: %v", p)
		}
	}()
	return goavro.NewCodec(schema)
}

// checkSchema requires a record schema with the id field, html or text, and
// the site field if one is named. Its errors list the fields the record has.
func checkSchema(schema []byte, f DocFields) error {
	var s struct {
		Type   any `json:"type"`
		Fields []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("avro schema: %w", err)
	}
	if s.Type != "record" {
		return errors.New("avro schema: documents must be records")
	}
	has := map[string]bool{}
	var names []string
	for _, fl := range s.Fields {
		has[fl.Name] = true
		names = append(names, fl.Name)
	}
	var msg string
	switch {
	case !has[f.ID]:
		msg = fmt.Sprintf("no id field %q", f.ID)
	case !has[f.HTML] && !has[f.Text]:
		msg = fmt.Sprintf("neither html field %q nor text field %q", f.HTML, f.Text)
	case f.Site != "" && !has[f.Site]:
		msg = fmt.Sprintf("no site field %q", f.Site)
	default:
		return nil
	}
	return fmt.Errorf("avro schema: %s; the record has fields %s", msg, strings.Join(names, ", "))
}

// Next advances to the next usable document. It returns false at the end
// of input or on an I/O error (see Err).
func (d *DocReader) Next() bool {
	for d.err == nil {
		if d.left == 0 {
			if !d.nextBlock() {
				return false
			}
			continue
		}
		native, rest, err := d.decode()
		if err != nil {
			d.damaged(err)
			d.skipped[SkipBadDatum]++
			d.skipped[SkipEmptyBlock] += d.left - 1
			d.left = 0
			continue
		}
		d.block, d.left = rest, d.left-1
		if reason := d.set(native); reason != "" {
			d.skipped[reason]++
			continue
		}
		return true
	}
	return false
}

func (d *DocReader) nextBlock() bool {
	n, data, err := d.ocf.next()
	if err != io.EOF {
		d.blocks++
	}
	switch {
	case err == nil:
		d.block, d.left = data, n
		return true
	case errors.Is(err, errBadBlock):
		d.damaged(err)
		d.skipped[SkipBadBlock]++
		return true
	case err == io.EOF:
		return false
	default:
		d.err = fmt.Errorf("read avro: %w", err)
		return false
	}
}

// damaged remembers the first damage, in the current block.
func (d *DocReader) damaged(err error) {
	if d.damage == "" {
		d.damage = fmt.Sprintf("block %d: %v", d.blocks, err)
	}
}

// Damage describes the first damage skipped ("block 1: damaged block:
// ..."), or is empty.
func (d *DocReader) Damage() string { return d.damage }

// decode decodes one datum, turning goavro panics into errors.
func (d *DocReader) decode() (native any, rest []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			native, rest, err = nil, nil, fmt.Errorf("decode: %v", p)
		}
	}()
	return d.codec.NativeFromBinary(d.block)
}

// set stores the fields of a decoded record, or returns a skip reason.
func (d *DocReader) set(native any) string {
	rec, ok := native.(map[string]any)
	if !ok {
		return SkipNotRecord
	}
	var okID, okURL, okHTML, okText bool
	d.id, okID = str(rec[d.f.ID])
	d.url, okURL = str(rec[d.f.URL])
	d.html, okHTML = str(rec[d.f.HTML])
	d.text, okText = str(rec[d.f.Text])
	okSite := true
	if d.f.Site != "" {
		d.site, okSite = str(rec[d.f.Site])
	}
	switch {
	case !okID || !okURL || !okHTML || !okText || !okSite:
		return SkipWrongType
	case d.id == "":
		return SkipMissingID
	}
	return ""
}

// str converts a string, bytes, null or union-of-those value.
func str(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case []byte:
		return string(v), true
	case map[string]any:
		if len(v) == 1 {
			for _, x := range v {
				return str(x)
			}
		}
	}
	return "", false
}

// Doc returns the fields of the current document; missing or null fields
// are empty.
func (d *DocReader) Doc() (id, url, html, text string) { return d.id, d.url, d.html, d.text }

// Site returns the site of the current document: empty if DocFields.Site
// is empty or the value is null.
func (d *DocReader) Site() string { return d.site }

// Err returns the error that ended Next, or nil at a clean end.
func (d *DocReader) Err() error { return d.err }

// Skipped returns the number of skipped records (or damaged blocks) by
// reason (see the Skip constants).
func (d *DocReader) Skipped() map[string]int64 { return maps.Clone(d.skipped) }
