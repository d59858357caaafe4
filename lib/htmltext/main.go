//go:build !nomainextract

package htmltext

// Main-content extraction.
//
// ExtractMain hands the decoded page to go-trafilatura (github.com/
// markusmobius/go-trafilatura, Apache-2.0, a Go port of Adrien Barbaresi's
// trafilatura), which removes navigation, headers, footers, sidebars,
// comment sections and other boilerplate and returns the main content as an
// HTML tree. That tree is turned into text by the same extractor as Extract
// (same block elements, same skipped elements, same whitespace and control
// character rules), so both functions produce text of the same shape.
//
// Library settings: comments excluded, tables kept, no links or images,
// Balanced focus, no fallback to go-readability or go-domdistiller (slower,
// and on the test pages they put boilerplate back), no date extraction
// (not needed, and the most expensive part of the library's metadata
// pass), no logging. The library's own rescue for results under 250
// characters (its "baseline": JSON-LD articleBody, <article> text, all <p>
// text, then the whole body) is disabled with MinExtractedSize 0: its
// output is one paragraph of concatenated text nodes, which glues words of
// adjacent elements together, and in v1.12.2 it can repeat text (the <p>
// pass is not cleared before the whole-body pass). Short main content is
// kept as found; no main content at all goes to our fallback below.
//
// Code blocks: trafilatura turns <pre> blocks into <code> elements whose
// lines are separated by newlines or <br>. Such a <code> element is
// handled like <pre> (each line its own block, as Extract does for <pre>);
// one without a line break is inline. A plain <pre> that the library does
// not recognise as code comes back with its whitespace collapsed: one block.
//
// Repairs of the library's tree (see walker.gap and inlineNext): it trims
// the whitespace around inline elements in some paths ("Raises<code>
// ValueError</code>if"), so a space is put back between word characters
// that meet at an element boundary; and it flattens the children of list
// items, closing a <p> before the inline elements that belonged to it, so
// in list items such a <p> does not end its block.
//
// Fallback: when the library returns an error, no content, or content with
// no visible text, or panics (it is third-party heuristics over arbitrary
// web input; one bad page must not kill a map task), ExtractMain returns
// Extract's text for the page instead, with Result.Fallback set, so that no
// document silently loses all its text.

// Building with -tags nomainextract leaves this file, and with it
// go-trafilatura, out of the binary (see main_off.go): the library's
// dependencies take a quarter of a second and 80 MB to initialise in every
// process that links them.

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MainAvailable tells whether this binary has ExtractMain.
const MainAvailable = true

// ExtractMain returns the main content of a page: the article text without
// navigation, headers, footers, comments and boilerplate, in the same form
// as Extract (valid UTF-8, blocks separated by "\n\n", other whitespace
// collapsed to one space, trimmed), with Charset and InvalidUTF8 set as by
// Extract. pageURL may be ""; the library uses it only to resolve links and
// site hints. If no main content is found the result is Extract's text and
// Fallback is true. body is only read, never modified or retained.
func ExtractMain(body []byte, contentType, pageURL string) (Result, error) {
	src, name, invalid, err := decode(body, contentType)
	if err != nil {
		return Result{}, fmt.Errorf("decode %s: %w", name, err)
	}
	res := Result{Charset: name, InvalidUTF8: invalid}
	if node := mainContent(src, pageURL); node != nil {
		res.Text = nodeText(node)
	}
	if res.Text != "" {
		return res, nil
	}
	res.Text, err = visibleText(src)
	if err != nil {
		return Result{}, fmt.Errorf("tokenize html: %w", err)
	}
	res.Fallback = true
	return res, nil
}

// mainContent parses src (UTF-8) and returns the main-content tree found by
// trafilatura, or nil if it finds none, fails or panics.
func mainContent(src []byte, pageURL string) (node *html.Node) {
	defer func() {
		if recover() != nil {
			node = nil
		}
	}()
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return nil
	}
	cfg := trafilatura.DefaultConfig()
	cfg.MinExtractedSize = 0 // no baseline rescue, see the top of this file
	opts := trafilatura.Options{
		Config:          cfg,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Disabled,
		OriginalURL:     absURL(pageURL),
	}
	r, err := trafilatura.ExtractDocument(doc, opts)
	if err != nil || r == nil {
		return nil
	}
	return r.ContentNode
}

// absURL returns s parsed if it is an absolute URL with a host, else nil.
func absURL(s string) *url.URL {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil
	}
	return u
}

// visibleText returns Extract's text for src, already decoded to UTF-8.
func visibleText(src []byte) (string, error) {
	e := pool.Get().(*extractor)
	e.reset()
	err := e.run(src)
	text := string(e.out)
	if cap(e.out) <= maxPooled {
		pool.Put(e)
	}
	return text, err
}

// nodeText returns the text of the tree rooted at n, in Extract's format.
func nodeText(n *html.Node) string {
	w := walker{e: pool.Get().(*extractor)}
	w.e.reset()
	w.node(n)
	text := string(w.e.out)
	if cap(w.e.out) <= maxPooled {
		pool.Put(w.e)
	}
	return text
}

// walker feeds a parsed tree to an extractor as if it were tokenized.
type walker struct {
	e        *extractor
	buf      []byte     // scratch copy of the current text or tag name
	code     *html.Node // outermost code element around the current node
	lastCode *html.Node // code of the last text node
}

// node feeds n and its descendants to w.e: text nodes as text, elements as
// a start tag, their children and an end tag. Comments and doctypes
// produce nothing.
func (w *walker) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if w.e.skipDepth == 0 {
			w.buf = append(w.buf[:0], n.Data...)
			if w.code == nil || w.code != w.lastCode {
				w.gap(w.buf)
			}
			w.lastCode = w.code
			w.e.text(w.buf)
		}
	case html.DocumentNode:
		w.children(n)
	case html.ElementNode:
		a := w.atom(n)
		if a == atom.Code && w.e.pre == 0 && isCodeBlock(n) {
			a = atom.Pre
		}
		w.e.start(a, false)
		if w.code == nil && isCode(a) {
			w.code = n
			defer func() { w.code = nil }()
		}
		w.children(n)
		if a != atom.P || !inlineNext(n) {
			w.e.end(a)
		}
	}
}

// gap puts a space between the text already written and text, the text of
// a node that follows an element boundary outside code, when the library trimmed the
// whitespace that separated them: when the last character written is a
// letter, digit, one of .,;:!? or a closing bracket or quote, and the
// first of text a letter or digit,
// and neither is Han, kana or Hangul (scripts written without spaces
// between words or before particles). A word split by markup in the source
// ("H<sub>2</sub>O") gets a space too; that is rarer than the library's
// trimming.
func (w *walker) gap(text []byte) {
	e := w.e
	if e.space || e.brk || len(e.out) == 0 || len(text) == 0 {
		return
	}
	prev, _ := utf8.DecodeLastRune(e.out)
	next, _ := utf8.DecodeRune(text)
	if (isWordRune(prev) || strings.ContainsRune(".,;:!?)]}\"'’”", prev)) && isWordRune(next) {
		e.space = true
	}
}

// isCode reports whether a is an element whose text is code: the library
// keeps its whitespace, and markup inside it (syntax highlighting) does
// not separate words.
func isCode(a atom.Atom) bool {
	switch a {
	case atom.Code, atom.Pre, atom.Kbd, atom.Samp, atom.Tt, atom.Var:
		return true
	}
	return false
}

// isWordRune reports whether r is a letter or digit of a script that puts
// spaces between words.
func isWordRune(r rune) bool {
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	return r < 0x1100 || !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// inlineNext reports whether n is in a list item and the next sibling of n
// holding something visible is text or an inline element. The library
// flattens nested elements of list items ("<dd><p>Return <em>n</em>
// factorial</p></dd>" comes back as "<dd><p>Return</p><em>n</em>factorial
// </dd>"), so there a <p> followed by inline content does not end its
// block.
func inlineNext(n *html.Node) bool {
	if n.Parent == nil || n.Parent.Type != html.ElementNode {
		return false
	}
	switch strings.ToLower(n.Parent.Data) {
	case "li", "dd", "dt":
	default:
		return false
	}
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		switch s.Type {
		case html.TextNode:
			if strings.TrimSpace(s.Data) != "" {
				return true
			}
		case html.ElementNode:
			a := atom.Lookup([]byte(strings.ToLower(s.Data)))
			if a == atom.Code {
				return !isCodeBlock(s)
			}
			return classOf(a) == classInline
		}
	}
	return false
}

func (w *walker) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// atom returns the atom of element n's name. The library renames elements
// (div to p, pre to code, ...) without updating DataAtom, so the name is
// looked up again unless the two agree.
func (w *walker) atom(n *html.Node) atom.Atom {
	if n.DataAtom != 0 && n.DataAtom.String() == n.Data {
		return n.DataAtom
	}
	w.buf = append(w.buf[:0], n.Data...)
	for i, c := range w.buf {
		if 'A' <= c && c <= 'Z' {
			w.buf[i] = c + 'a' - 'A'
		}
	}
	return atom.Lookup(w.buf)
}

// isCodeBlock reports whether n, a code element, is a code block rather
// than inline code: whether it holds a line break (a newline or <br>).
func isCodeBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.ContainsAny(c.Data, "\n\r"):
			return true
		case c.Type == html.ElementNode && (strings.EqualFold(c.Data, "br") || isCodeBlock(c)):
			return true
		}
	}
	return false
}
