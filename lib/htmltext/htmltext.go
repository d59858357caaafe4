// Package htmltext extracts the visible text of an HTML page.
//
// Extract decodes the page to UTF-8 (see charset.go for how the charset is
// chosen), runs the golang.org/x/net/html tokenizer over it (no tree is
// built) and writes the text of visible elements to one buffer.
//
// Output shape: blocks are separated by exactly one blank line ("\n\n");
// every other run of whitespace (ASCII and Unicode, including NBSP and the
// ideographic space) becomes one space; the text never starts or ends with
// whitespace. A blank line in the output is therefore always a block
// boundary, which lib/sentence treats as a hard sentence boundary.
//
// Element handling (decisions, see tags.go for the full lists):
//   - Skipped with their content: head-only and non-rendered elements
//     (script, style, title, noscript, template, noembed, noframes), embedded
//     content and its fallback text (iframe, object, applet, embed, audio,
//     video, canvas, svg, math) and form widgets whose text is option lists or
//     user input (select, datalist, textarea). <head> itself is not a skip
//     container: everything legitimately inside it is skipped or void, and a
//     missing </head> must not swallow the page.
//   - Block elements (p, div, li, h1-h6, table rows and cells, br, hr, ...)
//     end the current block at their start and end tags.
//   - Preformatted elements (pre, listing, xmp, plaintext) are blocks whose
//     line breaks are block breaks, like <br>: each non-blank line of a code
//     listing or poem becomes its own block; spaces inside a line collapse.
//   - Everything else (a, span, b, custom elements, ...) is inline: its text
//     flows into the current block without added spaces.
//   - Comments, doctypes and CDATA sections (which HTML parses as comments)
//     produce nothing. Entities are decoded by the tokenizer.
//   - C0/C1 control characters (other than whitespace) and U+FEFF are
//     dropped. The hidden attribute and CSS are not interpreted.
//   - An unclosed skipped container ends at </body> or </html>.
package htmltext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/pdc-mr/pdc/lib/ranges"
)

// Result is the visible text of a page.
type Result struct {
	// Text is valid UTF-8; blocks are separated by "\n\n"; other whitespace
	// runs are collapsed to one space; it has no leading or trailing
	// whitespace.
	Text string
	// Charset is the canonical (WHATWG) name of the charset used to decode
	// the page: "utf-8", "gbk", "big5", "windows-1252", ...
	Charset string
	// InvalidUTF8 is the number of invalid byte sequences replaced by U+FFFD
	// while decoding (see decode for how they are counted).
	InvalidUTF8 int
	// Fallback is set by ExtractMain when it found no main content and
	// returned the page's visible text (Extract's text) instead. Extract
	// never sets it.
	Fallback bool
	// Links are the byte ranges of Text that are link text (inside <a
	// href>), in order, not overlapping; a space between two pieces of one
	// link's text belongs to the range. ExtractMain does not set them.
	Links []Range
	// Template are the byte ranges of Text inside the page's template
	// elements (template.go: navigation, banners, footers, sidebars), in
	// order, not overlapping. ExtractMain does not set them.
	Template []Range
	// URL is the page's own absolute http(s) URL as the page states it:
	// <link rel="canonical" href>, else <meta property="og:url" content>,
	// else <base href>; "" if none. ExtractMain does not set it.
	URL string
	// Layout names the page's layout: a hash of the tags, classes, ids
	// and roles of its outermost template elements (template.go), which
	// the pages of one site share whatever their text; "" when none of
	// them has a class, id or role. ExtractMain does not set it.
	Layout string
}

// Range is a byte range [Start, End) of Result.Text.
type Range = ranges.Range

// ErrNoMainExtract is ExtractMain's error in a binary built without
// main-content extraction (see MainAvailable).
var ErrNoMainExtract = errors.New("main-content extraction is not in this binary (built with -tags nomainextract); use pdc-extract")

// Extract decodes body and returns its visible text. The charset comes from
// a byte order mark, then contentType's charset parameter (an HTTP
// Content-Type value, may be empty), then a <meta charset> or <meta
// http-equiv="Content-Type"> in the first 1024 bytes; without a declaration
// the page is UTF-8 when it is valid UTF-8, else the guess of
// golang.org/x/net/html/charset.DetermineEncoding. Malformed HTML and binary
// garbage are not errors: the result is whatever text the tokenizer finds.
// body is only read, never modified or retained.
func Extract(body []byte, contentType string) (Result, error) {
	src, name, invalid, err := decode(body, contentType)
	if err != nil {
		return Result{}, fmt.Errorf("decode %s: %w", name, err)
	}
	return extract(src, name, invalid)
}

// ExtractUTF8 is Extract for a body known to be valid UTF-8 (a string
// decoded from JSON), whatever its <meta charset> says: only a byte order
// mark is dropped, and the body is not validated again.
func ExtractUTF8(body []byte) (Result, error) {
	return extract(bytes.TrimPrefix(body, bomUTF8), utf8Name, 0)
}

// extract returns the visible text of src, valid UTF-8 (decoded from
// charset name, with invalid sequences replaced).
func extract(src []byte, name string, invalid int) (Result, error) {
	e := pool.Get().(*extractor)
	e.reset()
	err := e.run(src)
	e.index.finish(len(e.out), e.linkAll)
	e.grids.finish()
	res := Result{Text: string(e.out), Charset: name, InvalidUTF8: invalid}
	if len(e.links) > 0 {
		res.Links = append([]Range(nil), e.links...)
	}
	res.Template = e.tmpl.finish(len(res.Text))
	res.URL = e.pageURL.best()
	res.Layout = e.tmpl.layout()
	if cap(e.out) <= maxPooled {
		pool.Put(e)
	}
	if err != nil {
		return Result{}, fmt.Errorf("tokenize html: %w", err)
	}
	return res, nil
}

// maxPooled is the largest output buffer kept for reuse.
const maxPooled = 4 << 20

var pool = sync.Pool{New: func() any { return &extractor{out: make([]byte, 0, 64<<10)} }}

// extractor holds the state of one extraction.
type extractor struct {
	out       []byte
	space     bool      // whitespace seen since the last visible character
	brk       bool      // block boundary seen since the last visible character
	skipAtom  atom.Atom // element whose content is being skipped
	skipDepth int       // open skipAtom elements; 0 when not skipping
	pre       int       // open preformatted elements
	link      int       // open <a href> elements
	heading   int       // open h1-h6 elements
	links     []Range   // link text in out
	index     indexLists
	grids     indexGrids
	tmpl      templates
	pageURL   pageURL
	atoms     atomCache
}

func (e *extractor) reset() {
	e.out, e.space, e.brk = e.out[:0], false, false
	e.skipAtom, e.skipDepth, e.pre = 0, 0, 0
	e.link, e.heading, e.links = 0, 0, e.links[:0]
	e.index.reset()
	e.grids.reset()
	e.tmpl.reset()
	e.pageURL = pageURL{}
}

// run tokenizes src (UTF-8) and appends its visible text to e.out.
func (e *extractor) run(src []byte) error {
	z := html.NewTokenizer(bytes.NewReader(src))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return err
			}
			return nil
		case html.TextToken:
			if e.skipDepth == 0 {
				e.text(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			a := e.atoms.tag(z.Raw())
			if e.skipDepth == 0 {
				if a == atom.A && tt == html.StartTagToken {
					// A link within the page counts but in a heading
					// (its permalink, the heading itself).
					if href, inPage := hasHref(z.Raw()); href && (!inPage || e.heading == 0) {
						e.link++
					}
				}
				if isHeading(a) && tt == html.StartTagToken {
					e.heading++
				}
				e.tmpl.start(a, tt == html.SelfClosingTagToken, z.Raw(), len(e.out))
				if tt == html.StartTagToken {
					e.index.start(a, len(e.links))
					e.grids.start(a, z.Raw(), len(e.links), len(e.out))
				}
				switch a {
				case atom.Link, atom.Meta, atom.Base:
					e.pageURL.tag(a, z.Raw())
				}
			}
			e.start(a, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			a := e.atoms.tag(z.Raw())
			if e.skipDepth == 0 {
				if a == atom.A && e.link > 0 {
					e.link--
				}
				if isHeading(a) && e.heading > 0 {
					e.heading--
				}
				e.tmpl.end(a, len(e.out))
				if r, first, ok := e.index.end(a, len(e.out)); ok {
					e.linkAll(r, first)
				}
				if r, first, ok := e.grids.end(a, len(e.out)); ok {
					e.linkAll(r, first)
				}
			}
			e.end(a)
		}
	}
}

// linkAll makes r, an index's text, link text: it replaces the link
// ranges from first on, those the index holds. An index whose start lies
// in a range kept before it (misnested lists and tables: a list that
// closed inside the table took the table's first links) is left as it is.
func (e *extractor) linkAll(r Range, first int) {
	if first > len(e.links) || first > 0 && e.links[first-1].End > r.Start {
		return
	}
	e.links = append(e.links[:first], r)
}

// maxAtomLen bounds the length of element names known to package atom.
const maxAtomLen = 24

// tagAtom returns the atom of the tag whose raw text ("<DIV class=x>",
// "</p>") is raw, or 0 for unknown names. It parses the name itself because
// Tokenizer.TagName allocates a copy for every tag; the name ends where the
// tokenizer's readTagName ends it.
func tagAtom(raw []byte) atom.Atom {
	i := 1 // skip '<'
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	var buf [maxAtomLen]byte
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			return atom.Lookup(buf[:n])
		}
		if n == len(buf) {
			return 0
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return atom.Lookup(buf[:n])
}

// atomCache remembers the atoms of tag names of up to 8 bytes, which are
// nearly all tags: a direct-mapped table keyed by the lower-cased name
// packed into a word, in front of atom.Lookup (a hash and a string compare
// per tag, a tenth of the extraction time on markup-heavy pages).
type atomCache [256]struct {
	name uint64 // lower-cased name bytes, little endian; 0 = empty slot
	a    atom.Atom
}

// tag is tagAtom(raw), from the cache when it can be.
func (c *atomCache) tag(raw []byte) atom.Atom {
	i := 1 // skip '<'
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	var name uint64
	n := 0
	for ; i < len(raw); i++ {
		b := raw[i]
		switch b {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			goto done
		case 0:
			return 0 // no atom holds a NUL; a packed name cannot either
		}
		if n == 8 {
			return tagAtom(raw)
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		name |= uint64(b) << (8 * n)
		n++
	}
done:
	if n == 0 {
		return 0
	}
	slot := &c[(name*0x9e3779b97f4a7c15)>>56]
	if slot.name != name {
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], name)
		slot.name, slot.a = name, atom.Lookup(buf[:n])
	}
	return slot.a
}

// start handles a start tag.
func (e *extractor) start(a atom.Atom, selfClosing bool) {
	if e.skipDepth > 0 {
		if a == e.skipAtom && !selfClosing {
			e.skipDepth++
		}
		return
	}
	switch classOf(a) {
	case classSkipRaw:
		// The tokenizer reads raw text up to the end tag even after
		// "<script/>", so self-closing does not matter here.
		e.skipAtom, e.skipDepth = a, 1
	case classSkip:
		if !selfClosing {
			e.skipAtom, e.skipDepth = a, 1
		}
	case classBlock:
		e.brk = true
	case classPre:
		e.brk = true
		if !selfClosing {
			e.pre++
		}
	}
}

// end handles an end tag.
func (e *extractor) end(a atom.Atom) {
	if e.skipDepth > 0 {
		switch a {
		case e.skipAtom:
			e.skipDepth--
		case atom.Body, atom.Html:
			e.skipDepth = 0
		}
		return
	}
	switch classOf(a) {
	case classBlock:
		e.brk = true
	case classPre:
		e.brk = true
		if e.pre > 0 {
			e.pre--
		}
	}
}

// Byte classes for text scanning.
const (
	bVisible = iota // printable ASCII
	bSpace          // ASCII whitespace other than '\n'
	bNewline        // '\n'
	bControl        // other C0 controls and DEL: dropped
	bHigh           // first byte of a multi-byte sequence
)

var byteClass = func() (t [256]uint8) {
	for i := range t {
		switch {
		case i >= utf8.RuneSelf:
			t[i] = bHigh
		case i == '\n':
			t[i] = bNewline
		case i == ' ' || i == '\t' || i == '\v' || i == '\f' || i == '\r':
			t[i] = bSpace
		case i < ' ' || i == 0x7f:
			t[i] = bControl
		default:
			t[i] = bVisible
		}
	}
	return t
}()

// text appends the visible characters of s, a decoded text token.
func (e *extractor) text(s []byte) {
	for i := 0; i < len(s); {
		switch byteClass[s[i]] {
		case bVisible:
			j := i + 1
			for j < len(s) && byteClass[s[j]] == bVisible {
				j++
			}
			e.emit(s[i:j])
			i = j
		case bSpace:
			e.space = true
			i++
		case bNewline:
			if e.pre > 0 {
				e.brk = true
			} else {
				e.space = true
			}
			i++
		case bControl:
			i++
		default:
			i += e.rune(s[i:])
		}
	}
}

// rune handles the non-ASCII character at the start of s and returns its
// length in bytes.
func (e *extractor) rune(s []byte) int {
	r, n := utf8.DecodeRune(s)
	switch {
	case r == utf8.RuneError && n == 1:
		// Cannot happen after decode; keep the output valid anyway.
		e.emit([]byte(string(utf8.RuneError)))
	case r == 0x2028 || r == 0x2029:
		// Line and paragraph separators.
		if e.pre > 0 {
			e.brk = true
		} else {
			e.space = true
		}
	case unicode.IsSpace(r):
		e.space = true
	case r < 0xa0 || r == 0xfeff:
		// C1 controls and a stray byte order mark.
	default:
		e.emit(s[:n])
	}
	return n
}

// emit appends visible text, preceded by the pending separator.
func (e *extractor) emit(b []byte) {
	before := len(e.out)
	if len(e.out) > 0 {
		if e.brk {
			e.out = append(e.out, '\n', '\n')
		} else if e.space {
			e.out = append(e.out, ' ')
		}
	}
	sep := len(e.out) - before
	e.brk, e.space = false, false
	e.out = append(e.out, b...)
	e.index.text(before+sep, e.link > 0)
	e.grids.text(before+sep, e.link > 0)
	if e.link > 0 {
		e.addLink(before, sep)
	}
}
