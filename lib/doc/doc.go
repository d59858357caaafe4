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
// are present). site is optional: a name for the site of a document without
// url (the documents of one site share its templates, see --max-site-df); a
// Parser reads it from another field too (Parser.SiteField). pdc_source,
// written when pdc renders a directory tree as JSON Lines, is the page's
// file. Unknown fields are ignored.
package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Doc is one input document.
type Doc struct {
	ID   string
	URL  string
	HTML string
	Text string
	// Site names the document's site when it has no URL ("" unknown).
	Site string
	// Source is the file a page of a directory tree was read from (JSON
	// "pdc_source", written when pdc renders trees as JSON Lines): the
	// parse job names the document by it, not by its place in the
	// rendering.
	Source string
	// IsHTML tells whether the document came as html (even if empty).
	IsHTML bool
	// ValidUTF8 tells that the strings are known to be valid UTF-8:
	// ParseJSON checked them (or encoding/json replaced what was not).
	ValidUTF8 bool
}

// Fields names the fields (columns) of document records in container
// formats (lib/avroio, lib/parquetio). Empty ID, URL, HTML and Text select
// the defaults id, url, html and text. Site has no default: when it is
// empty no site field is read; when it is set, the records must have it.
type Fields struct{ ID, URL, HTML, Text, Site string }

// WithDefaults returns f with the defaults filled in.
func (f Fields) WithDefaults() Fields {
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return Fields{ID: def(f.ID, "id"), URL: def(f.URL, "url"), HTML: def(f.HTML, "html"), Text: def(f.Text, "text"), Site: f.Site}
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

// SkipReason names why ParseJSON's error makes a record no document, as
// the counters of the jobs that read records say it (parse.docs.skipped.*,
// dedup.docs.skipped.*): bad-json, no-id, no-body, else bad-record.
func SkipReason(err error) string {
	switch {
	case errors.Is(err, ErrBadJSON):
		return "bad-json"
	case errors.Is(err, ErrNoID):
		return "no-id"
	case errors.Is(err, ErrNoBody):
		return "no-body"
	}
	return "bad-record"
}

type jsonDoc struct {
	ID   json.RawMessage `json:"id"`
	URL  *string         `json:"url"`
	HTML *string         `json:"html"`
	Text *string         `json:"text"`
	Site *string         `json:"site"`
	Src  *string         `json:"pdc_source"`
	// Field is the value of Parser.SiteField (parseFast only).
	Field *string `json:"-"`
}

// ParseJSON parses one JSON Lines record.
func ParseJSON(line []byte) (Doc, error) { return parseJSON(line, nil, "") }

// ParseJSONSite is ParseJSON reading the site from siteField too (see
// Parser.SiteField).
func ParseJSONSite(line []byte, siteField string) (Doc, error) {
	return parseJSON(line, nil, siteField)
}

// A Parser parses JSON Lines records like ParseJSON, without copying the
// documents' bodies: the HTML or text of the Doc it returns points into the
// line, or into the parser's buffer when the JSON string holds escapes. It
// is valid until the next call to Parse and until the line changes; the
// parse job reads one record at a time, and saves a copy of every page.
type Parser struct {
	// SiteField names a string field that holds the document's site, read
	// instead of "site" when the record has it ("" or "site": only "site").
	SiteField string
	body      []byte
}

// Parse parses one record (see Parser).
func (p *Parser) Parse(line []byte) (Doc, error) {
	p.body = p.body[:0]
	return parseJSON(line, &p.body, p.SiteField)
}

func parseJSON(line []byte, body *[]byte, siteField string) (Doc, error) {
	if siteField == "site" {
		siteField = ""
	}
	j, ok := parseFast(line, body, siteField)
	if !ok {
		j = jsonDoc{}
		if err := json.Unmarshal(line, &j); err != nil {
			return Doc{}, fmt.Errorf("%w: %v", ErrBadJSON, err)
		}
		if siteField != "" {
			var fields map[string]json.RawMessage
			if json.Unmarshal(line, &fields) == nil {
				var v string
				if json.Unmarshal(fields[siteField], &v) == nil && v != "" {
					j.Field = &v
				}
			}
		}
	}
	id, err := parseID(j.ID)
	if err != nil {
		return Doc{}, err
	}
	d := Doc{ID: id, ValidUTF8: true}
	if j.URL != nil {
		d.URL = *j.URL
	}
	switch {
	case j.Field != nil && *j.Field != "":
		d.Site = *j.Field
	case j.Site != nil:
		d.Site = *j.Site
	}
	if j.Src != nil {
		d.Source = *j.Src
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

// AppendJSON appends d as one JSON Lines record (without the newline):
// {"id":...,"url":...,"site":...,"html":...} or with "text", url and site
// left out when empty, byte for byte what encoding/json writes for them
// without HTML escaping.
func AppendJSON(dst []byte, d *Doc) []byte {
	dst = appendJSONString(append(dst, `{"id":`...), d.ID)
	if d.URL != "" {
		dst = appendJSONString(append(dst, `,"url":`...), d.URL)
	}
	if d.Site != "" {
		dst = appendJSONString(append(dst, `,"site":`...), d.Site)
	}
	if d.Source != "" {
		dst = appendJSONString(append(dst, `,"pdc_source":`...), d.Source)
	}
	if d.IsHTML {
		dst = appendJSONString(append(dst, `,"html":`...), d.HTML)
	} else {
		dst = appendJSONString(append(dst, `,"text":`...), d.Text)
	}
	return append(dst, '}')
}

// AppendJSONKeeping appends d as AppendJSON does, then every other
// top-level field of raw (a JSON object: d's record as read), in raw's
// order, as raw has it: a record rewritten with new text keeps the fields
// pdc does not read (dates, languages, scores). The fields d stands for
// (id, url, pdc_source, html, text, and site when d has one; in any case)
// are not repeated, nor a key that differs from an earlier one only in
// case: a record of html becomes one of text. A raw that is not a JSON
// object adds nothing.
func AppendJSONKeeping(dst []byte, d *Doc, raw []byte) []byte {
	dst = AppendJSON(dst, d)
	dst = dst[:len(dst)-1] // reopen the object
	seen := map[string]bool{}
	objectMembers(raw, func(rawKey, v []byte) {
		key, ok := jsonKey(rawKey)
		if !ok {
			return
		}
		// encoding/json matches keys without regard to case: "Id" would
		// be read back as the id.
		switch lower := strings.ToLower(key); {
		case lower == "id", lower == "url", lower == "pdc_source", lower == "html", lower == "text":
			return
		case lower == "site" && d.Site != "":
			return
		case seen[lower] || !json.Valid(v):
			return // the first of a repeated key
		}
		seen[strings.ToLower(key)] = true
		dst = appendJSONString(append(dst, ','), key)
		dst = append(append(dst, ':'), v...)
	})
	return append(dst, '}')
}

// jsonKey returns the string a JSON object key (its bytes between the
// quotes) stands for.
func jsonKey(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true // invalid UTF-8 is written as U+FFFD
	}
	var s string
	err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s)
	return s, err == nil
}

// objectMembers calls fn with the key (between its quotes) and the value
// of each member of the JSON object raw, in order, and stops at the first
// thing that is not JSON. Long string values are stepped over with
// bytes.IndexByte, not read byte by byte: a record's html is most of it.
func objectMembers(raw []byte, fn func(key, value []byte)) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] != '"' {
			return // "}" or not JSON
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return
		}
		key := raw[i+1 : end-1]
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return
		}
		i = skipSpace(raw, i+1)
		vend := valueEnd(raw, i)
		if vend < 0 {
			return
		}
		fn(key, raw[i:vend])
		i = skipSpace(raw, vend)
		if i >= len(raw) || raw[i] != ',' {
			return
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts at b[i] ('"'),
// or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0 // backslashes before the quote
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd returns the index after the JSON value that starts at b[i], or
// -1 (what lies inside is checked by json.Valid when it is kept).
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// appendJSONString appends s as a JSON string the way encoding/json does
// with HTML escaping off: quote, backslash and control characters escaped
// (\b \f \n \r \t, else \u00XX), invalid UTF-8 as \ufffd, U+2028 and
// U+2029 as \u2028 and \u2029, everything else as is. Runs of plain ASCII
// are found eight bytes at a time (see plainRun).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is to be copied as is
	for i := 0; i < len(s); {
		i += asciiRun(s[i:])
		if i == len(s) {
			break
		}
		b := s[i]
		if b >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			var esc string
			switch {
			case r == utf8.RuneError && size == 1:
				esc = `\ufffd`
			case r == '\u2028':
				esc = `\u2028`
			case r == '\u2029':
				esc = `\u2029`
			default:
				i += size
				continue
			}
			dst = append(append(dst, s[start:i]...), esc...)
			i += size
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		if c := jsonShortEscape[b]; c != 0 {
			dst = append(dst, '\\', c)
		} else {
			dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
		}
		i++
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// jsonShortEscape is the letter of the two-character escape of the ASCII
// bytes that have one in encoding/json's output.
var jsonShortEscape = [utf8.RuneSelf]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// asciiRun returns the length of the run of bytes at the start of s that a
// JSON string holds as they are and that need no UTF-8 check: printable
// ASCII other than quote and backslash. Like plainRun it tests eight bytes
// at a time, adding the high bit of non-ASCII bytes to the specials.
func asciiRun(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if m := specials(w) | w&highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && s[i] >= 0x20 && s[i] < utf8.RuneSelf && s[i] != '"' && s[i] != '\\' {
		i++
	}
	return i
}

// JSONStringField returns the value of the top-level string field named
// field of the JSON object record, or "" when it has none (or another
// kind of value).
func JSONStringField(record []byte, field string) string {
	var rec map[string]json.RawMessage
	var v string
	if json.Unmarshal(record, &rec) != nil || json.Unmarshal(rec[field], &v) != nil {
		return ""
	}
	return v
}
