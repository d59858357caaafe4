// Package doc defines pdc's input documents and the parsed-document record
// that carries a document's sentences from the parse job to the others.
//
// Input format (JSON Lines, one document per line, plain or .gz):
//
//	{"id": "a/b.html", "url": "https://example.com/b", "html": "<html>..."}
//	{"id": "42", "text": "Plain text. Offsets refer to it as given."}
//
// id is required, a non-empty string or a number, unique in the collection;
// url is optional; exactly one of html and text is used (html wins when both
// are present). Unknown fields are ignored.
package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Doc is one input document.
type Doc struct {
	ID   string
	URL  string
	HTML string
	Text string
	// IsHTML tells whether the document came as html (even if empty).
	IsHTML bool
}

// Body returns the document's content, HTML or text.
func (d *Doc) Body() string {
	if d.IsHTML {
		return d.HTML
	}
	return d.Text
}

// Errors of ParseJSON, matched with errors.Is to count skipped documents by
// reason.
var (
	ErrBadJSON = errors.New("malformed JSON")
	ErrNoID    = errors.New("missing or empty id")
	ErrNoBody  = errors.New("neither html nor text")
)

type jsonDoc struct {
	ID   json.RawMessage `json:"id"`
	URL  *string         `json:"url"`
	HTML *string         `json:"html"`
	Text *string         `json:"text"`
}

// ParseJSON parses one JSON Lines record.
func ParseJSON(line []byte) (Doc, error) { return parseJSON(line, nil) }

// A Parser parses JSON Lines records like ParseJSON, without copying the
// documents' bodies: the HTML or text of the Doc it returns points into the
// line, or into the parser's buffer when the JSON string holds escapes. It
// is valid until the next call to Parse and until the line changes; the
// parse job reads one record at a time, and saves a copy of every page.
type Parser struct{ body []byte }

// Parse parses one record (see Parser).
func (p *Parser) Parse(line []byte) (Doc, error) {
	p.body = p.body[:0]
	return parseJSON(line, &p.body)
}

func parseJSON(line []byte, body *[]byte) (Doc, error) {
	j, ok := parseFast(line, body)
	if !ok {
		j = jsonDoc{}
		if err := json.Unmarshal(line, &j); err != nil {
			return Doc{}, fmt.Errorf("%w: %v", ErrBadJSON, err)
		}
	}
	id, err := parseID(j.ID)
	if err != nil {
		return Doc{}, err
	}
	d := Doc{ID: id}
	if j.URL != nil {
		d.URL = *j.URL
	}
	switch {
	case j.HTML != nil:
		d.HTML, d.IsHTML = *j.HTML, true
	case j.Text != nil:
		d.Text = *j.Text
	default:
		return d, ErrNoBody
	}
	return d, nil
}

func parseID(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", ErrNoID
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%w: id: %v", ErrBadJSON, err)
		}
		if s == "" {
			return "", ErrNoID
		}
		return s, nil
	}
	if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
		return "", fmt.Errorf("%w: id must be a string or a number, got %s", ErrNoID, raw)
	}
	return string(raw), nil
}

// AppendJSON appends d as one JSON Lines record (without the newline).
func AppendJSON(dst []byte, d *Doc) []byte {
	j := struct {
		ID   string `json:"id"`
		URL  string `json:"url,omitempty"`
		HTML string `json:"html,omitempty"`
		Text string `json:"text,omitempty"`
	}{ID: d.ID, URL: d.URL}
	if d.IsHTML {
		j.HTML = d.HTML
	} else {
		j.Text = d.Text
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil { // strings always encode
		panic(err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	if d.IsHTML && d.HTML == "" {
		b = append(b[:len(b)-1], `,"html":""}`...)
	} else if !d.IsHTML && d.Text == "" {
		b = append(b[:len(b)-1], `,"text":""}`...)
	}
	return append(dst, b...)
}
