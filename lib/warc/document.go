package warc

import (
	"errors"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Doc is a pdc input document extracted from a WARC record.
type Doc struct {
	ID  string // WARC-TREC-ID, else WARC-Record-ID without angle brackets
	URL string // WARC-Target-URI
	// ContentType is the media type with parameters (charset), from the
	// HTTP header for responses or the WARC header for other records.
	ContentType string
	HTML        []byte // the decoded HTTP body, for HTML records
	Text        string // plain text, for conversion (WET) records
}

// Reasons returned by Document for skipped records. Record types other than
// response, resource and conversion are reported as "record type " + type
// for the types of the standard, else "unknown record type".
const (
	ReasonNoID          = "missing record id"
	ReasonNotHTTP       = "not an http response"
	ReasonBadHTTP       = "bad http response"
	ReasonHTTPStatus    = "http status not 2xx"
	ReasonNotHTML       = "not html"
	ReasonNotText       = "not text"
	ReasonEncoding      = "bad content-encoding"
	ReasonUnsupported   = "unsupported content-encoding"
	ReasonEmpty         = "empty body"
	ReasonUnknownRecord = "unknown record type"
)

var knownTypes = map[string]bool{
	"warcinfo": true, "request": true, "metadata": true, "revisit": true,
	"continuation": true,
}

// Document extracts a document from rec: response records holding an HTTP
// 2xx response with an HTML media type (text/html, application/xhtml+xml; a
// missing type is sniffed), resource records with an HTML type, and
// conversion records with a text/plain type (WET). Other records give
// ok=false and a short reason from a fixed set, suitable as a counter name.
func Document(rec *Record) (doc Doc, ok bool, reason string) {
	doc.ID = stripAngle(rec.Header.Get("WARC-TREC-ID"))
	if doc.ID == "" {
		doc.ID = stripAngle(rec.Header.Get("WARC-Record-ID"))
	}
	doc.URL = stripAngle(rec.Header.Get("WARC-Target-URI"))
	t := strings.ToLower(strings.TrimSpace(rec.Type()))
	switch t {
	case "response":
		reason = responseDoc(rec, &doc)
	case "resource":
		reason = htmlDoc(rec.Header.Get("Content-Type"), rec.Body, &doc)
	case "conversion":
		reason = textDoc(rec, &doc)
	default:
		if knownTypes[t] {
			return Doc{}, false, "record type " + t
		}
		return Doc{}, false, ReasonUnknownRecord
	}
	if reason == "" && doc.ID == "" {
		reason = ReasonNoID
	}
	if reason != "" {
		return Doc{}, false, reason
	}
	return doc, true, ""
}

func responseDoc(rec *Record, doc *Doc) string {
	ct, _, _ := mime.ParseMediaType(rec.Header.Get("Content-Type"))
	if ct != "" && ct != "application/http" {
		return ReasonNotHTTP
	}
	status, h, body, err := ParseHTTPResponse(rec.Body)
	switch {
	case errors.Is(err, ErrNotHTTP) || status == 0:
		return ReasonNotHTTP
	case errors.Is(err, ErrHeaderUnterminated):
		return ReasonBadHTTP
	case status < 200 || status > 299:
		return ReasonHTTPStatus
	case errors.Is(err, ErrUnsupportedEncoding):
		return ReasonUnsupported
	case err != nil && !errors.Is(err, ErrBodyTooLarge):
		return ReasonEncoding
	}
	return htmlDoc(h.Get("Content-Type"), body, doc)
}

// htmlDoc accepts body when its media type is HTML.
func htmlDoc(contentType string, body []byte, doc *Doc) string {
	if len(body) == 0 {
		return ReasonEmpty
	}
	contentType = strings.TrimSpace(contentType)
	mt, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		contentType = http.DetectContentType(body)
		mt, _, _ = mime.ParseMediaType(contentType)
	}
	if mt != "text/html" && mt != "application/xhtml+xml" {
		return ReasonNotHTML
	}
	doc.ContentType = contentType
	doc.HTML = body
	return ""
}

func textDoc(rec *Record, doc *Doc) string {
	ct := strings.TrimSpace(rec.Header.Get("Content-Type"))
	mt, _, _ := mime.ParseMediaType(ct)
	if mt != "text/plain" {
		return ReasonNotText
	}
	if len(rec.Body) == 0 {
		return ReasonEmpty
	}
	doc.ContentType = ct
	if utf8.Valid(rec.Body) {
		doc.Text = string(rec.Body)
	} else {
		doc.Text = strings.ToValidUTF8(string(rec.Body), "\uFFFD")
	}
	return ""
}
