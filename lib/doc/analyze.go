package doc

import (
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/pdc-mr/pdc/lib/htmltext"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// Analysis is a document turned into sentences.
type Analysis struct {
	// Text is the text sentence offsets refer to: the visible text of an
	// HTML document, or a text document as given.
	Text        string
	Sentences   []Sentence
	Spans       []sentence.Span // byte and rune offsets of Sentences, same order
	Charset     string
	InvalidUTF8 int
	Truncated   bool
	// Fallback tells that main-content extraction found nothing and the
	// document's whole visible text was used.
	Fallback bool
	// NotContent counts the sentences that are not content, by reason
	// (Sentence.NotContent).
	NotContent map[string]int
	// PageURL is the URL an HTML page states for itself (htmltext
	// Result.URL: canonical link, og:url, base), or "".
	PageURL string
	// Layout names an HTML page's layout (htmltext Result.Layout), or "".
	Layout string
}

// Analyzer extracts text, splits sentences and tokenizes them. It reuses
// buffers between documents: use one per goroutine, and copy what must
// outlive the next call.
type Analyzer struct {
	// MaxBytes truncates larger document bodies (0: no limit). It also
	// bounds a document's sentences, to MaxBytes/64 (at least 4096): a body
	// of MaxBytes made of one-word lines would otherwise give millions of
	// sentences, and take some hundred bytes of memory per byte of text.
	// The sentences past the bound are left out and the document counts as
	// truncated.
	MaxBytes int
	// Main selects main-content extraction (htmltext.ExtractMain, the
	// --extract main flag) instead of all visible text.
	Main bool
	// ContentType is the HTTP Content-Type to assume for HTML documents.
	// Empty means UTF-8: HTML that arrived in a JSON string is already
	// Unicode, whatever its <meta charset> says.
	ContentType string

	tok    sentence.Tokenizer
	spans  []sentence.Span
	kept   []sentence.Span
	sents  []Sentence
	tokens []uint64
	ranges []tokenRange
}

// tokenRange locates a sentence's tokens in Analyzer.tokens.
type tokenRange struct{ off, n int }

// Analyze analyzes d.
func (a *Analyzer) Analyze(d *Doc) (Analysis, error) {
	var res Analysis
	var links, tmpl []htmltext.Range
	body := d.Body()
	if a.MaxBytes > 0 && len(body) > a.MaxBytes {
		cut := a.MaxBytes
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body, res.Truncated = body[:cut], true
	}
	if d.IsHTML {
		ct := a.ContentType
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		var r htmltext.Result
		var err error
		// The extractors only read their input: no copy of the page.
		src := unsafe.Slice(unsafe.StringData(body), len(body))
		switch {
		case a.Main:
			r, err = htmltext.ExtractMain(src, ct, d.URL)
			res.Fallback = r.Fallback
		case d.ValidUTF8 && a.ContentType == "":
			r, err = htmltext.ExtractUTF8(src) // no second validation
		default:
			r, err = htmltext.Extract(src, ct)
		}
		if err != nil {
			return res, err
		}
		res.Text, res.Charset, res.InvalidUTF8 = r.Text, r.Charset, r.InvalidUTF8
		links, tmpl = r.Links, r.Template
		res.PageURL, res.Layout = r.URL, r.Layout
	} else {
		res.Text, res.Charset = body, "utf-8"
	}
	a.spans = sentence.Split(a.spans[:0], res.Text)
	if n := max(a.MaxBytes/64, 4096); a.MaxBytes > 0 && len(a.spans) > n {
		a.spans, res.Truncated = a.spans[:n], true
	}
	a.kept, a.sents, a.tokens = a.kept[:0], a.sents[:0], a.tokens[:0]
	ranges := a.ranges[:0]
	for _, sp := range a.spans {
		n := len(a.tokens)
		a.tokens = a.tok.Hashes(a.tokens, res.Text[sp.ByteStart:sp.ByteEnd])
		if len(a.tokens) == n {
			continue
		}
		a.kept = append(a.kept, sp)
		ranges = append(ranges, tokenRange{n, len(a.tokens) - n})
	}
	for i, sp := range a.kept {
		r := ranges[i]
		s := Sentence{Start: sp.Start, End: sp.End, Tokens: a.tokens[r.off : r.off+r.n : r.off+r.n]}
		var why string
		why, links, tmpl = notContent(res.Text[sp.ByteStart:sp.ByteEnd], sp.ByteStart, links, tmpl)
		if why != "" {
			s.Tokens, s.NotContent = nil, why
			if res.NotContent == nil {
				res.NotContent = map[string]int{}
			}
			res.NotContent[why]++
		}
		a.sents = append(a.sents, s)
	}
	a.ranges = ranges
	res.Sentences, res.Spans = a.sents, a.kept
	return res, nil
}

// notContent returns why the sentence text, at byte offset off of the
// document's text, is not content, or "". links and tmpl are the link and
// template ranges of the text from this sentence on (sorted); it returns
// those that may still reach later sentences.
func notContent(text string, off int, links, tmpl []htmltext.Range) (string, []htmltext.Range, []htmltext.Range) {
	var inTmpl int
	inTmpl, tmpl = overlap(off, off+len(text), tmpl)
	if inTmpl > 0 && 2*inTmpl >= len(text) {
		return NotContentTemplate, links, tmpl
	}
	// Link share and letters, over letters and digits only: the commas,
	// brackets and separators between the links of an index or a
	// breadcrumb are not text of their own. Counted a stretch at a time:
	// from one link boundary to the next, the characters are all linked
	// or all not.
	var alnum, linked int
	letter := false
	ls := links
	for i := 0; i < len(text); {
		for len(ls) > 0 && ls[0].End <= off+i {
			ls = ls[1:]
		}
		end, in := len(text), false
		if len(ls) > 0 {
			if in = ls[0].Start <= off+i; in {
				end = min(end, ls[0].End-off)
			} else {
				end = min(end, ls[0].Start-off)
			}
		}
		n, l, next := alnumCount(text, i, end)
		alnum, letter, i = alnum+n, letter || l, next
		if in {
			linked += n
		}
	}
	_, links = overlap(off, off+len(text), links)
	switch {
	case !letter:
		return NotContentNoLetter, links, tmpl
	case linked > 0 && float64(linked) >= MaxLinkShare*float64(alnum):
		return NotContentLinks, links, tmpl
	}
	return "", links, tmpl
}

// alnumCount counts the letters and digits of text among the characters
// that start at bytes i to end-1, tells whether one is a letter, and returns
// where the character after them starts.
func alnumCount(text string, i, end int) (n int, letter bool, next int) {
	for i < end {
		if c := text[i]; c < utf8.RuneSelf { // most text: no table lookup
			switch asciiClass[c] {
			case asciiLetter:
				n, letter = n+1, true
			case asciiDigit:
				n++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsLetter(r):
			n, letter = n+1, true
		case unicode.IsDigit(r):
			n++
		}
		i += w
	}
	return n, letter, i
}

// The classes of ASCII characters alnumCount tells apart.
const (
	asciiOther = iota
	asciiLetter
	asciiDigit
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			t[c] = asciiLetter
		case '0' <= c && c <= '9':
			t[c] = asciiDigit
		}
	}
	return t
}()

// overlap returns how many bytes of [start, end) the sorted ranges rs
// cover, and the ranges that may reach past end.
func overlap(start, end int, rs []htmltext.Range) (int, []htmltext.Range) {
	n := 0
	for len(rs) > 0 && rs[0].Start < end {
		r := rs[0]
		n += max(0, min(r.End, end)-max(r.Start, start))
		if r.End > end {
			break // reaches the next sentence
		}
		rs = rs[1:]
	}
	return n, rs
}
