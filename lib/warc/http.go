package warc

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// MaxDecodedBytes caps the size of a decoded (dechunked, decompressed) HTTP
// body; ParseHTTPResponse cuts longer bodies and returns ErrBodyTooLarge.
const MaxDecodedBytes = 64 << 20

// Errors returned by ParseHTTPResponse, alone or wrapped.
var (
	ErrNotHTTP             = errors.New("not an http response")
	ErrHeaderUnterminated  = errors.New("http header not terminated")
	ErrUnsupportedEncoding = errors.New("unsupported content-encoding")
	ErrBadEncoding         = errors.New("bad content-encoding data")
	ErrBodyTooLarge        = errors.New("decoded http body too large")
)

// ParseHTTPResponse parses the block of a WARC response record: status line,
// header and body. The body is de-chunked when Transfer-Encoding is chunked
// (a body that is not valid chunked data is kept as is, since some crawlers
// store de-chunked bodies) and decoded for Content-Encoding gzip, x-gzip and
// deflate (zlib or raw). On an encoding error the raw or partially decoded
// body is returned with the error.
func ParseHTTPResponse(block []byte) (status int, header http.Header, body []byte, err error) {
	line, rest, ok := cutLine(block)
	status, err = parseStatusLine(line)
	if err != nil {
		return 0, nil, nil, err
	}
	header = http.Header{}
	for {
		if len(rest) == 0 && !ok {
			return status, header, nil, ErrHeaderUnterminated
		}
		line, rest, ok = cutLine(rest)
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			if !ok {
				return status, header, nil, ErrHeaderUnterminated
			}
			break
		}
		addHeaderLine(header, line)
	}
	body, err = decodeBody(header, rest)
	return status, header, body, err
}

// cutLine splits at the first LF; ok reports whether there was one.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

// parseStatusLine parses "HTTP/1.1 200 OK" (reason optional).
func parseStatusLine(line []byte) (int, error) {
	f := strings.Fields(string(line))
	if len(f) < 2 || !strings.HasPrefix(strings.ToUpper(f[0]), "HTTP/") {
		return 0, ErrNotHTTP
	}
	code, err := strconv.Atoi(f[1])
	if err != nil || code < 100 || code > 999 {
		return 0, fmt.Errorf("%w: bad status %q", ErrNotHTTP, f[1])
	}
	return code, nil
}

// addHeaderLine adds "Name: value"; folded lines extend the last value of
// the last field; lines without a colon are ignored.
func addHeaderLine(h http.Header, line []byte) {
	if line[0] == ' ' || line[0] == '\t' {
		return // obsolete folding; rare in responses, dropped
	}
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return
	}
	name := strings.TrimSpace(string(line[:i]))
	if name == "" {
		return
	}
	h.Add(name, strings.TrimSpace(string(line[i+1:])))
}

// decodeBody undoes Transfer-Encoding chunked and Content-Encoding.
func decodeBody(h http.Header, body []byte) ([]byte, error) {
	if hasToken(h.Values("Transfer-Encoding"), "chunked") {
		if dec, ok := dechunk(body); ok {
			body = dec
		}
	}
	codings := tokens(h.Values("Content-Encoding"))
	for i := len(codings) - 1; i >= 0; i-- {
		dec, err := decode(codings[i], body)
		if err != nil {
			return dec, err
		}
		body = dec
	}
	return body, nil
}

func tokens(vals []string) []string {
	var out []string
	for _, v := range vals {
		for t := range strings.SplitSeq(v, ",") {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func hasToken(vals []string, tok string) bool {
	for _, t := range tokens(vals) {
		if t == tok {
			return true
		}
	}
	return false
}

// dechunk decodes chunked data leniently: a missing final chunk or a
// truncated chunk ends the body. ok is false when the data does not start
// with a chunk-size line.
func dechunk(b []byte) (out []byte, ok bool) {
	for {
		line, rest, found := cutLine(b)
		size, err := chunkSize(line)
		if err != nil || !found {
			return out, out != nil
		}
		if out == nil {
			out = []byte{}
		}
		if size == 0 {
			return out, true
		}
		if size > int64(len(rest)) {
			return append(out, rest...), true
		}
		out = append(out, rest[:size]...)
		b = bytes.TrimPrefix(rest[size:], []byte("\r"))
		b = bytes.TrimPrefix(b, []byte("\n"))
	}
}

// chunkSize parses "1a3f;ext=1\r".
func chunkSize(line []byte) (int64, error) {
	s := strings.TrimSpace(string(line))
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if s == "" || len(s) > 15 {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 16, 64)
}

// decode undoes one content coding.
func decode(coding string, body []byte) ([]byte, error) {
	var rd io.Reader
	switch coding {
	case "identity":
		return body, nil
	case "gzip", "x-gzip":
		if len(body) < 2 || body[0] != 0x1f || body[1] != 0x8b {
			return body, nil // stored decoded by the crawler
		}
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return body, fmt.Errorf("%w: %w", ErrBadEncoding, err)
		}
		rd = z
	case "deflate":
		z, err := zlib.NewReader(bytes.NewReader(body))
		if err != nil {
			rd = flate.NewReader(bytes.NewReader(body))
		} else {
			rd = z
		}
	default:
		return body, fmt.Errorf("%w: %q", ErrUnsupportedEncoding, coding)
	}
	return readDecoded(bufio.NewReader(rd))
}

// readDecoded reads at most MaxDecodedBytes.
func readDecoded(rd io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(rd, MaxDecodedBytes+1))
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrBadEncoding, err)
	}
	if len(out) > MaxDecodedBytes {
		return out[:MaxDecodedBytes], ErrBodyTooLarge
	}
	return out, nil
}
