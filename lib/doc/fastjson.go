package doc

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// scratchPool holds the buffers escaped strings are decoded in.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// parseFast parses a flat JSON object with the fields of Doc without
// reflection. It handles the common case only: ok is false for anything it
// is not sure to decode exactly as encoding/json would (invalid UTF-8,
// control characters, odd numbers, syntax errors), and ParseJSON then falls
// back to encoding/json. FuzzParseFast checks both agree.
//
// With body non-nil, html and text are not copied: they alias b (no
// escapes) or are decoded into *body, which is reused (see Parser).
func parseFast(b []byte, body *[]byte, siteField string) (j jsonDoc, ok bool) {
	p := &scanner{b: b, body: body, siteField: siteField}
	p.ws()
	if !p.eat('{') {
		return j, false
	}
	p.ws()
	if p.eat('}') {
		return j, p.end()
	}
	for {
		key, ok := p.str()
		if !ok {
			return j, false
		}
		p.ws()
		if !p.eat(':') {
			return j, false
		}
		p.ws()
		if !p.field(&j, key) {
			return j, false
		}
		p.ws()
		if p.eat(',') {
			p.ws()
			continue
		}
		if p.eat('}') {
			return j, p.end()
		}
		return j, false
	}
}

type scanner struct {
	b         []byte
	i         int
	body      *[]byte // where html and text are decoded, or nil to copy them
	siteField string  // another field read as the site (Parser.SiteField), or ""
}

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// field decodes the value of key into j. Keys match exactly (encoding/json
// also matches case-insensitively: such keys make ok false).
func (p *scanner) field(j *jsonDoc, key string) bool {
	var dst **string
	switch {
	case p.siteField != "" && key == p.siteField:
		dst = &j.Field
	case key == "id":
		start := p.i
		if p.i < len(p.b) && p.b[p.i] == '"' {
			if _, ok := p.str(); !ok {
				return false
			}
		} else if !p.number() {
			return false
		}
		j.ID = p.b[start:p.i:p.i]
		return true
	case key == "url":
		dst = &j.URL
	case key == "site":
		dst = &j.Site
	case key == "pdc_source":
		dst = &j.Src
	case key == "html":
		dst = &j.HTML
	case key == "text":
		dst = &j.Text
	default:
		for i := 0; i < len(key); i++ {
			if c := key[i]; c >= 'A' && c <= 'Z' {
				return false // encoding/json would match keys case-insensitively
			}
		}
		return p.skip()
	}
	if p.i < len(p.b) && p.b[p.i] == 'n' {
		if !p.lit("null") {
			return false
		}
		*dst = nil
		return true
	}
	var s string
	var ok bool
	if p.body != nil && (key == "html" || key == "text") {
		s, ok = p.borrowedStr()
	} else {
		s, ok = p.str()
	}
	if !ok {
		return false
	}
	*dst = &s
	return true
}

func (p *scanner) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// number accepts a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *scanner) number() bool {
	b, i := p.b, p.i
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	p.i = i
	return true
}

// special marks the bytes that end a run of plain string content: the
// closing quote, a backslash, and the control characters JSON forbids.
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// Eight bytes at a time: specials flags, in the high bit of each byte of a
// little-endian word, the bytes below 0x20 or equal to '"' or '\\' (the
// classic "has a zero byte" bit trick); the lowest flagged byte is always a
// true one, and bits.TrailingZeros64(m)>>3 is its index.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func specials(w uint64) uint64 {
	q := w ^ ('"' * ones)
	e := w ^ ('\\' * ones)
	return ((w-0x20*ones)&^w | (q-ones)&^q | (e-ones)&^e) & highs
}

// plainRun returns the length of the run of plain bytes at the start of b:
// none of the specials.
func plainRun(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := specials(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && !special[b[i]] {
		i++
	}
	return i
}

// str decodes a JSON string, in one pass, into a scratch buffer reused
// between strings and documents; the result is one exact-size copy.
func (p *scanner) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	if s, ok, done := p.plainStr(); done {
		return string(s), ok
	}
	bp := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(bp)
	buf, ok := p.strRest((*bp)[:0])
	*bp = buf[:0]
	if !ok {
		return "", false
	}
	return string(buf), true
}

// borrowedStr is str without the copy: the string aliases the line, or
// *p.body when it holds escapes.
func (p *scanner) borrowedStr() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	if s, ok, done := p.plainStr(); done {
		return unsafe.String(unsafe.SliceData(s), len(s)), ok
	}
	from := len(*p.body)
	buf, ok := p.strRest(*p.body)
	*p.body = buf
	s := buf[from:]
	return unsafe.String(unsafe.SliceData(s), len(s)), ok
}

// plainStr is the fast path of a string without escapes, after its opening
// quote: done reports whether the string was all plain (s is then its
// bytes in the line and ok whether it is valid UTF-8).
func (p *scanner) plainStr() (s []byte, ok, done bool) {
	start := p.i
	n := plainRun(p.b[p.i:])
	if p.i+n < len(p.b) && p.b[p.i+n] == '"' {
		p.i += n + 1
		s = p.b[start : start+n]
		return s, utf8.Valid(s), true
	}
	return nil, false, false
}

// strRest decodes the string starting at p.i (after its opening quote)
// onto buf. The decoded string is at most the rest of the line: buf grows
// once to that size instead of doubling.
func (p *scanner) strRest(buf []byte) ([]byte, bool) {
	from := len(buf)
	buf = slices.Grow(buf, len(p.b)-p.i)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return buf, utf8.Valid(buf[from:])
		case c != '\\':
			n := plainRun(p.b[p.i:])
			if n == 0 {
				return buf, false // a control character
			}
			buf = append(buf, p.b[p.i:p.i+n]...)
			p.i += n
			continue
		}
		if p.i+1 >= len(p.b) {
			return buf, false
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return buf, false
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					p.i += 2
					if r2, ok = p.hex4(); !ok {
						return buf, false
					}
				}
				dec := utf16.DecodeRune(r, r2)
				if dec == utf8.RuneError {
					return buf, false // lone surrogates: leave them to encoding/json
				}
				r = dec
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return buf, false
		}
	}
	return buf, false
}

func (p *scanner) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// skip skips any JSON value (depth-limited).
func (p *scanner) skip() bool { return p.skipDepth(0) }

func (p *scanner) skipDepth(depth int) bool {
	if depth > 64 || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, ok := p.str()
		return ok
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		p.i++
		p.ws()
		if p.eat(closer) {
			return true
		}
		for {
			if c == '{' {
				if _, ok := p.str(); !ok {
					return false
				}
				p.ws()
				if !p.eat(':') {
					return false
				}
				p.ws()
			}
			if !p.skipDepth(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				p.ws()
				continue
			}
			return p.eat(closer)
		}
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	}
	return p.number()
}
