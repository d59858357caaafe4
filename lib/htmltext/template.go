package htmltext

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"golang.org/x/net/html/atom"

	"github.com/pdc-mr/pdc/lib/ranges"
)

// Template elements: the parts of a page that its site repeats on every
// page (navigation, banners, footers, sidebars), recognised by structure
// alone, as the HTML and ARIA specifications define them and as pages mark
// them:
//
//   - <nav> and <aside>; <header> and <footer> that are not inside an
//     <article>, <main> or <section> (there they head or close that
//     section's own content);
//   - a div, ul, ol, section, table or form with an ARIA landmark role of
//     the page frame: navigation, banner, contentinfo, complementary,
//     search, menu, menubar, toolbar, and of dialogs (dialog,
//     alertdialog);
//   - a div, section or table whose class or id is, or has the token,
//     "header" (not "page-header"), outside an <article>, <main> or
//     <section>, as <header> is (Texinfo's node navigation line);
//   - a div, ul, ol, section or table whose class or id has a template
//     word as one of its parts (parts split at spaces, '-' and
//     '_'): footer, nav, navbar, navigation, menu, sidebar, breadcrumb(s),
//     related, masthead, topbar, copyright, share, social; modal, popup,
//     dialog, login, signup, newsletter, subscribe; ad(s),
//     advert(isement), sponsor(ed), promo; cookie(s), consent; unless a
//     part is a content word (content, main, article, body, post, entry,
//     story, text), as readability weighs candidates.
//
// A template element's text, nested elements included, is a template
// range. Guards against wrappers and broken markup, which would swallow
// the content: an element that contains a <main> or <article>, an element
// still open when the page ends (a missing end tag), and an element
// holding more than half of the page's text (and 4 KB) give no range
// (template elements inside them still do).
type templates struct {
	open    []openTemplate // template elements not yet closed, outermost first
	section int            // open article, main and section elements
	ranges  []Range
	// first and last are the shapes of the first and last outermost
	// template elements (layout); shaped says whether there was one.
	first, last shape
	shaped      bool
}

// shape is an outermost template element's tag, class, id and role
// (hashed), and whether it has any of the three.
type shape struct {
	hash  uint64
	named bool
}

// openTemplate is a template element not yet closed.
type openTemplate struct {
	a     atom.Atom // its element
	depth int       // open a elements since it started, itself included
	from  int       // output offset where it started
}

func (t *templates) reset() {
	t.open, t.section, t.ranges = t.open[:0], 0, t.ranges[:0]
	t.shaped = false
}

// start handles a start tag with atom a and raw text raw, at output offset
// off. A <main> or <article> inside open template elements shows that they
// are wrappers of the page, not its template (or that an end tag is
// missing): they are dropped.
func (t *templates) start(a atom.Atom, selfClosing bool, raw []byte, off int) {
	if selfClosing {
		return
	}
	switch a {
	case atom.Main, atom.Article:
		t.open = t.open[:0]
		t.section++
		return
	case atom.Section:
		t.section++
	}
	for i := range t.open {
		if t.open[i].a == a {
			t.open[i].depth++
		}
	}
	if t.isTemplate(a, raw) {
		if len(t.open) == 0 {
			t.shape(a, raw)
		}
		t.open = append(t.open, openTemplate{a: a, depth: 1, from: off})
	}
}

// shape notes an outermost template element for the page's layout: its
// tag and its class, id and role values.
func (t *templates) shape(a atom.Atom, raw []byte) {
	h := fnvString(fnvOffset, a.String())
	named := false
	for _, name := range []string{"class", "id", "role"} {
		v, _ := attr(raw, name)
		named = named || len(v) > 0
		h = fnvBytes(fnvBytes(h, []byte{0}), v)
	}
	t.last = shape{h, named}
	if !t.shaped {
		t.first, t.shaped = t.last, true
	}
}

// layout returns the page's layout (Result.Layout): a hash of the shapes
// of its first and last outermost template elements (its header and
// footer, as a site repeats them on every page; template elements between
// them may be the page's own, a sidebar in the text), or "" when neither
// has a class, id or role (a bare <nav> or <footer> says nothing of a
// site).
func (t *templates) layout() string {
	if !t.shaped || !t.first.named && !t.last.named {
		return ""
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], t.first.hash)
	binary.LittleEndian.PutUint64(b[8:], t.last.hash)
	return strconv.FormatUint(fnvBytes(fnvOffset, b[:]), 16)
}

// FNV-1a, 64 bits (hash/fnv's New64a, without its allocation).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// end handles an end tag with atom a at output offset off.
func (t *templates) end(a atom.Atom, off int) {
	switch a {
	case atom.Article, atom.Main, atom.Section:
		if t.section > 0 {
			t.section--
		}
	}
	for i := len(t.open) - 1; i >= 0; i-- {
		o := &t.open[i]
		if o.a != a {
			continue
		}
		if o.depth--; o.depth > 0 {
			continue
		}
		if o.from < off {
			t.ranges = append(t.ranges, Range{Start: o.from, End: off})
		}
		t.open = append(t.open[:i], t.open[i+1:]...)
	}
}

// maxTemplateShare is the largest share of a page's text one template
// element may hold: a larger one wraps the page (or misses an end tag) and
// is not template, unless it is smaller than minWrapper bytes (the footer
// of a page with little text of its own).
const (
	maxTemplateShare = 0.5
	minWrapper       = 4096
)

// finish returns the template ranges of a text of n bytes, sorted and
// merged, without those over maxTemplateShare of it. Elements still open
// give no range.
func (t *templates) finish(n int) []Range {
	if len(t.ranges) == 0 {
		return nil
	}
	rs := t.ranges[:0]
	for _, r := range t.ranges {
		if size := r.End - r.Start; size < minWrapper || float64(size) <= maxTemplateShare*float64(n) {
			rs = append(rs, r)
		}
	}
	return ranges.Merge(rs)
}

func (t *templates) isTemplate(a atom.Atom, raw []byte) bool {
	switch a {
	case atom.Nav, atom.Aside:
		return true
	case atom.Header, atom.Footer:
		if t.section == 0 {
			return true
		}
	case atom.Div, atom.Ul, atom.Ol, atom.Section, atom.Table, atom.Form:
	default:
		return false // the only elements looked at by attributes
	}
	if bytes.IndexByte(raw, '=') < 0 {
		return false // no attribute value
	}
	var vals [3][]byte
	var found [3]bool
	attrs(raw, templateAttrs[:], vals[:], found[:])
	if role := vals[0]; found[0] && landmarkRole(role) {
		return true
	}
	if a == atom.Form {
		return false
	}
	tmpl, content := false, false
	for k := 1; k < 3; k++ {
		v, ok := vals[k], found[k]
		if !ok {
			continue
		}
		if t.section == 0 && a != atom.Ul && a != atom.Ol && hasToken(v, "header") {
			tmpl = true // the page's header, as <header> outside a section
		}
		for len(v) > 0 {
			k := 0
			for k < len(v) && !isWordBreak(v[k]) {
				k++
			}
			switch classWord(v[:k]) {
			case wordTemplate:
				tmpl = true
			case wordContent:
				content = true
			}
			if k < len(v) {
				k++
			}
			v = v[k:]
		}
	}
	return tmpl && !content
}

func isWordBreak(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '-' || c == '_' }

// Kinds of class and id words.
const (
	wordOther = iota
	wordTemplate
	wordContent
)

// classWord tells whether a part of a class or id value is a template or
// a content word, ignoring case, without allocating.
func classWord(w []byte) int {
	if len(w) < 2 || len(w) > 13 {
		return wordOther
	}
	var buf [13]byte
	for i, c := range w {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(w)]) {
	case "footer", "nav", "navbar", "navigation", "menu", "sidebar", "breadcrumb", "breadcrumbs",
		"related", "masthead", "topbar", "copyright", "share", "social",
		"modal", "popup", "dialog", "login", "signup", "newsletter", "subscribe",
		"ad", "ads", "advert", "advertisement", "sponsor", "sponsored",
		"promo", "cookie", "cookies", "consent":
		return wordTemplate
	case "content", "main", "article", "body", "post", "entry", "story", "text":
		return wordContent
	}
	return wordOther
}

func landmarkRole(v []byte) bool {
	switch string(bytes.ToLower(bytes.TrimSpace(v))) {
	case "navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "toolbar",
		"dialog", "alertdialog":
		return true
	}
	return false
}

// templateAttrs are the attributes isTemplate reads.
var templateAttrs = [3]string{"role", "class", "id"}

// attrs sets vals[k], found[k] to what attr(raw, names[k]) returns, for
// every k (at most 8 names), in one scan of the tag; it leaves those of a
// name it does not find as they are (callers pass zero values).
func attrs(raw []byte, names []string, vals [][]byte, found []bool) {
	var done uint8 // names whose attr would have returned
	all := uint8(1)<<len(names) - 1
	var quote byte
	for i := 1; i < len(raw) && done != all; i++ {
		c := raw[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'':
			quote = c
			continue
		}
		if !isSpaceOrTagStart(raw[i-1]) {
			continue
		}
		for k, name := range names {
			if done&(1<<k) != 0 {
				continue
			}
			if v, ok, stop := attrAt(raw, i, name); stop {
				vals[k], found[k] = v, ok
				done |= 1 << k
			}
		}
	}
}

// attrAt is attr's test at position i of raw, a position outside quotes
// after a space or the tag's start: stop reports whether attr returns
// there, with v and ok.
func attrAt(raw []byte, i int, name string) (v []byte, ok, stop bool) {
	if i+len(name) > len(raw) || !asciiEqualFold(raw[i:i+len(name)], name) {
		return nil, false, false
	}
	j := i + len(name)
	for j < len(raw) && isSpace(raw[j]) {
		j++
	}
	if j == len(raw) || raw[j] != '=' {
		return nil, false, false
	}
	for j++; j < len(raw) && isSpace(raw[j]); j++ {
	}
	if j == len(raw) {
		return nil, false, true
	}
	if q := raw[j]; q == '"' || q == '\'' {
		k := bytes.IndexByte(raw[j+1:], q)
		if k < 0 {
			return raw[j+1:], true, true
		}
		return raw[j+1 : j+1+k], true, true
	}
	k := j
	for k < len(raw) && !isSpace(raw[k]) && raw[k] != '>' {
		k++
	}
	return raw[j:k], true, true
}

// attr returns the value of attribute name (lower case) in the raw start
// tag raw: quoted with " or ', or unquoted up to a space or '>'.
func attr(raw []byte, name string) ([]byte, bool) {
	var v [1][]byte
	var found [1]bool
	attrs(raw, []string{name}, v[:], found[:])
	return v[0], found[0]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
