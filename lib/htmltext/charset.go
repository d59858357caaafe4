package htmltext

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// Charset choice, in order (the first that names a known charset wins):
//
//  1. a byte order mark (UTF-8, UTF-16BE, UTF-16LE); the mark is removed;
//  2. the charset parameter of the Content-Type value;
//  3. <meta charset=...> or <meta http-equiv="Content-Type" content="...;
//     charset=..."> in the first 1024 bytes (a declared UTF-16 means UTF-8,
//     as in the WHATWG prescan);
//  4. UTF-8 when the whole body is valid UTF-8;
//  5. charset.DetermineEncoding's guess (UTF-8 if the first 1024 bytes are
//     valid UTF-8, else windows-1252).
//
// Labels are resolved with charset.Lookup (WHATWG names: "iso-8859-1" and
// "ascii" mean windows-1252, "gb2312" means gbk, ...). One deliberate
// deviation from browsers: a declared windows-1252 is overridden by UTF-8
// when the body has non-ASCII bytes and is entirely valid UTF-8. Servers that
// default to ISO-8859-1 are common, and Latin-1 text that happens to be
// valid multi-byte UTF-8 throughout practically never occurs.

const (
	utf8Name    = "utf-8"
	latin1Name  = "windows-1252"
	prescanSize = 1024
)

var (
	bomUTF8    = []byte{0xef, 0xbb, 0xbf}
	bomUTF16BE = []byte{0xfe, 0xff}
	bomUTF16LE = []byte{0xff, 0xfe}
)

// Decode returns body converted to valid UTF-8 by the rules above, the
// charset's name and the number of invalid sequences replaced by U+FFFD
// (see decode). The result may alias body.
func Decode(body []byte, contentType string) ([]byte, string, int, error) {
	return decode(body, contentType)
}

// decode returns body converted to valid UTF-8, the charset name and the
// number of invalid sequences replaced by U+FFFD. For UTF-8 input each
// invalid sequence as delimited by utf8.DecodeRune (one byte that cannot
// start or continue a valid sequence) counts once; for other charsets the
// decoder's U+FFFD output is counted. The result may alias body.
func decode(body []byte, contentType string) ([]byte, string, int, error) {
	enc, name, bom := detect(body, contentType)
	body = body[bom:]
	if name == utf8Name {
		if utf8.Valid(body) {
			return body, name, 0, nil
		}
		out, n := fixUTF8(body)
		return out, name, n, nil
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, name, 0, err
	}
	n := bytes.Count(out, replacement)
	if !utf8.Valid(out) { // defensive: decoders emit valid UTF-8
		var m int
		out, m = fixUTF8(out)
		n += m
	}
	return out, name, n, nil
}

var replacement = []byte(string(utf8.RuneError))

// fixUTF8 returns b with each invalid sequence replaced by U+FFFD and the
// number of replacements.
func fixUTF8(b []byte) ([]byte, int) {
	out := make([]byte, 0, len(b)+len(b)/8)
	n := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, replacement...)
			n++
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out, n
}

// detect chooses the charset of body (see the list above). It returns the
// encoding (nil for UTF-8), its name and the length of the byte order mark.
func detect(body []byte, contentType string) (encoding.Encoding, string, int) {
	switch {
	case bytes.HasPrefix(body, bomUTF8):
		return nil, utf8Name, len(bomUTF8)
	case bytes.HasPrefix(body, bomUTF16BE):
		e, name := charset.Lookup("utf-16be")
		return e, name, len(bomUTF16BE)
	case bytes.HasPrefix(body, bomUTF16LE):
		e, name := charset.Lookup("utf-16le")
		return e, name, len(bomUTF16LE)
	}
	e, name := charset.Lookup(charsetParam(contentType))
	if e == nil {
		e, name = metaCharset(body[:min(len(body), prescanSize)])
	}
	switch {
	case e != nil && name == latin1Name && hasHighBit(body) && utf8.Valid(body):
		return nil, utf8Name, 0
	case e != nil && name != utf8Name:
		return e, name, 0
	case e != nil || utf8.Valid(body):
		return nil, utf8Name, 0
	}
	e, name, _ = charset.DetermineEncoding(body, "")
	if name == utf8Name {
		return nil, utf8Name, 0
	}
	return e, name, 0
}

func hasHighBit(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// metaCharset looks for a charset declared by a <meta> element in head,
// the first bytes of the page. It returns a nil encoding if there is none.
func metaCharset(head []byte) (encoding.Encoding, string) {
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			if label := metaLabel(z); label != "" {
				e, name := charset.Lookup(label)
				if strings.HasPrefix(name, "utf-16") {
					e, name = charset.Lookup(utf8Name)
				}
				if e != nil {
					return e, name
				}
			}
		}
	}
}

// metaLabel returns the charset label declared by the attributes of the
// current <meta> tag, or "".
func metaLabel(z *html.Tokenizer) string {
	var content string
	httpEquiv := false
	for more := true; more; {
		var key, val []byte
		key, val, more = z.TagAttr()
		switch string(key) {
		case "charset":
			return string(val)
		case "http-equiv":
			httpEquiv = strings.EqualFold(strings.TrimSpace(string(val)), "content-type")
		case "content":
			content = string(val)
		}
	}
	if httpEquiv {
		return charsetParam(content)
	}
	return ""
}

// charsetParam extracts the value of the charset parameter from a
// Content-Type value such as `text/html; charset="gbk"`, tolerating the
// malformed values found in the wild. It returns "" if there is none.
func charsetParam(s string) string {
	for {
		i := indexFold(s, "charset")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i+len("charset"):], " \t")
		if !strings.HasPrefix(s, "=") {
			continue
		}
		s = strings.TrimLeft(s[1:], " \t")
		if s != "" && (s[0] == '"' || s[0] == '\'') {
			q := s[0]
			s = s[1:]
			if j := strings.IndexByte(s, q); j >= 0 {
				return s[:j]
			}
			return s
		}
		if j := strings.IndexAny(s, "; \t,"); j >= 0 {
			return s[:j]
		}
		return s
	}
}

// indexFold is strings.Index for an ASCII lowercase needle, ignoring ASCII
// case in s.
func indexFold(s, lowerNeedle string) int {
	for i := 0; i+len(lowerNeedle) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(lowerNeedle)], lowerNeedle) {
			return i
		}
	}
	return -1
}
