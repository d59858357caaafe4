package main

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// inlineTags are the HTML elements that do not break a block of text: a
// tag of any other element ends the block (a line of the extracted text).
var inlineTags = map[string]bool{
	"a": true, "abbr": true, "b": true, "bdi": true, "bdo": true, "cite": true, "code": true,
	"data": true, "dfn": true, "em": true, "font": true, "i": true, "kbd": true, "mark": true,
	"q": true, "s": true, "samp": true, "small": true, "span": true, "strong": true,
	"sub": true, "sup": true, "time": true, "u": true, "var": true, "wbr": true,
}

// htmlText returns the visible text of an HTML page, roughly: one line per
// block, script, style and comments left out, entities decoded. It is a
// stand-in for pdc's extraction (lib/htmltext), good enough to draw
// sentences and words from and to check that a page does not hold the
// story.
func htmlText(page string) string {
	var b strings.Builder
	b.Grow(len(page) / 3)
	for len(page) > 0 {
		i := strings.IndexByte(page, '<')
		if i < 0 {
			b.WriteString(html.UnescapeString(page))
			break
		}
		b.WriteString(html.UnescapeString(page[:i]))
		page = page[i:]
		if strings.HasPrefix(page, "<!--") {
			page = skipPast(page, "-->")
			continue
		}
		end := strings.IndexByte(page, '>')
		if end < 0 {
			break
		}
		name := tagName(page[1:end])
		page = page[end+1:]
		switch {
		case name == "script" || name == "style":
			page = skipPast(page, "</"+name)
			page = skipPast(page, ">")
			b.WriteByte('\n')
		case !inlineTags[name]:
			b.WriteByte('\n')
		}
	}
	return compactLines(b.String())
}

// compactLines returns text with each line's whitespace collapsed and
// blank lines left out.
func compactLines(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for i, w := range f {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// skipPast returns s after the first occurrence of end (ASCII case
// insensitive), or "" when there is none.
func skipPast(s, end string) string {
	for i := 0; i+len(end) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(end)], end) {
			return s[i+len(end):]
		}
	}
	return ""
}

// tagName returns the lowercase element name of a tag's inside ("/p",
// "div class=x", "br/").
func tagName(tag string) string {
	tag = strings.TrimPrefix(tag, "/")
	end := strings.IndexFunc(tag, func(r rune) bool { return r == ' ' || r == '/' || r == '\t' || r == '\n' || r == '\r' })
	if end >= 0 {
		tag = tag[:end]
	}
	return strings.ToLower(tag)
}

// abbrevs are words that, followed by '.', do not end a sentence (a subset
// of lib/sentence's list).
var abbrevs = map[string]bool{
	"Mr": true, "Mrs": true, "Ms": true, "Messrs": true, "Dr": true, "Prof": true, "St": true,
	"Jr": true, "Sr": true, "Rev": true, "Hon": true, "Gen": true, "Col": true, "Capt": true,
	"Lt": true, "Gov": true, "Sen": true, "Rep": true, "Inc": true, "Ltd": true, "Co": true,
	"No": true, "Nos": true, "Vol": true, "Fig": true, "vs": true, "etc": true, "al": true,
	"cf": true, "viz": true, "ca": true, "pp": true, "Jan": true, "Feb": true, "Mar": true,
	"Apr": true, "Jun": true, "Jul": true, "Aug": true, "Sep": true, "Sept": true, "Oct": true,
	"Nov": true, "Dec": true,
}

// sentences splits text into sentences, whitespace collapsed: lines are
// blocks that no sentence crosses, and within a line a sentence ends at
// '.', '?' or '!' (with closing quotes or brackets after it) followed by
// whitespace and a capital letter (or an opening quote and one), unless
// the word before a '.' is an abbreviation or a single capital letter.
func sentences(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		words := strings.Fields(line)
		start := 0
		for i, w := range words {
			if i+1 < len(words) && endsSentence(w) && startsSentence(words[i+1]) {
				out = append(out, strings.Join(words[start:i+1], " "))
				start = i + 1
			}
		}
		if start < len(words) {
			out = append(out, strings.Join(words[start:], " "))
		}
	}
	return out
}

// endsSentence reports whether the word w can end a sentence.
func endsSentence(w string) bool {
	w = strings.TrimRight(w, `"')]’”`)
	if w == "" {
		return false
	}
	switch w[len(w)-1] {
	case '?', '!':
		return true
	case '.':
	default:
		return false
	}
	stem := strings.TrimLeft(strings.TrimSuffix(w, "."), `"'([‘“`)
	if abbrevs[stem] || strings.Contains(stem, ".") {
		return false
	}
	r, n := utf8.DecodeRuneInString(stem)
	return !(n == len(stem) && unicode.IsUpper(r))
}

// startsSentence reports whether the word w can start a sentence.
func startsSentence(w string) bool {
	w = strings.TrimLeft(w, `"'([‘“`)
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// words returns the words of s: runs of letters and digits, lowercased.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// normalize returns s's words joined by single spaces: the form in which
// texts are compared (case, punctuation and whitespace do not count).
func normalize(s string) string { return strings.Join(words(s), " ") }

// prose reports whether s reads as a sentence of prose: 6 to 60
// whitespace-separated words, a capital letter first, '.', '?' or '!' last,
// and mostly letters.
func prose(s string) bool {
	n := len(strings.Fields(s))
	if n < 6 || n > 60 || !startsSentence(s) {
		return false
	}
	t := strings.TrimRight(s, `"')]’”`)
	if t == "" || !strings.ContainsAny(t[len(t)-1:], ".?!") {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) || r == ' ' {
			letters++
		}
	}
	return letters*10 >= utf8.RuneCountInString(s)*8
}
