// Package sentence splits extracted page text into sentences with exact
// rune and byte offsets, and turns sentences into normalized tokens and
// token hashes.
//
// Sentence boundaries (Split):
//   - A blank line (a line holding only whitespace) is always a boundary;
//     so is U+2029 PARAGRAPH SEPARATOR. Single newlines are ordinary
//     whitespace.
//   - A run of terminators . ! ? … (e.g. "?!", "...") followed by optional
//     closing quotes and brackets ( " ' ” ’ ) ] » 」 ... ) ends a sentence
//     when whitespace or the end of text follows, except when
//     (a) the next word (after whitespace and opening quotes) starts with a
//     lowercase letter: "I was... thinking", "“Stop!” she said", unless
//     the run is a single '.' after an ordinary word of 2+ letters that is
//     not an abbreviation ("for all. we are" splits: copies often change
//     the case of a sentence start);
//     (b) the run is a single '.' with no closing mark after it, ending
//     an abbreviation: a listed one (Mr. Dr. St. vs. etc. No. Inc. Jan.
//     ..., see abbrev.go), a single capital initial other than "I"
//     ("J. Smith"), or dotted initials (U.S. e.g. i.e. a.m. Ph.D.).
//     Decimals, URLs, e-mail addresses, domains and version numbers
//     (3.14, www.x.org/a.b, v1.2.3) never break because no whitespace
//     follows their dots.
//   - Chinese and Japanese terminators 。！？；｡ end a sentence immediately,
//     no space needed, with any closing quotes or brackets after them
//     (”」』）). The terminators . ! ? … also end a sentence with no space
//     when a Han, kana or Hangul character follows directly (for '.', only
//     if one also precedes it), as in Chinese text typed with ASCII
//     punctuation, or "……" between Chinese sentences.
//
// A sentence runs from its first to its last non-whitespace character;
// sentences made only of whitespace do not exist.
package sentence

import (
	"unicode"
	"unicode/utf8"
)

// Span is one sentence: [Start,End) in runes (code points) and
// [ByteStart,ByteEnd) in bytes of the text. text[ByteStart:ByteEnd] is the
// sentence.
type Span struct{ Start, End, ByteStart, ByteEnd int }

// Split appends the sentences of text to dst, in order, and returns the
// extended slice. Sentences are trimmed of surrounding whitespace; empty
// ones are dropped. Invalid UTF-8 bytes count as one rune each, as in
// utf8.DecodeRuneInString.
func Split(dst []Span, text string) []Span {
	s := splitter{text: text, dst: dst}
	s.run()
	return s.dst
}

// ASCII byte classes for Split.
const (
	aWord    = iota // anything not listed below
	aSpace          // ' ', '\t', '\v', '\f'
	aNewline        // '\n'
	aCR             // '\r'
	aTerm           // '.', '!', '?'
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for _, c := range " \t\v\f" {
		t[c] = aSpace
	}
	t['\n'], t['\r'] = aNewline, aCR
	t['.'], t['!'], t['?'] = aTerm, aTerm, aTerm
	return t
}()

// splitter is the state of one Split call.
type splitter struct {
	text      string
	dst       []Span
	open      bool // a sentence has started
	bs, rs    int  // its start (bytes, runes)
	be, re    int  // end of its last non-space character (bytes, runes)
	newlines  int  // newlines since the last non-space character
	wordStart int  // byte offset after the last whitespace
}

func (s *splitter) run() {
	text := s.text
	i, ri := 0, 0
	for i < len(text) {
		c := text[i]
		if c >= utf8.RuneSelf {
			i, ri = s.nonASCII(i, ri)
			continue
		}
		switch asciiClass[c] {
		case aWord:
			j := i + 1
			for j < len(text) && text[j] < utf8.RuneSelf && asciiClass[text[j]] == aWord {
				j++
			}
			s.visible(i, ri, j, ri+j-i)
			i, ri = j, ri+j-i
			continue
		case aSpace:
			s.space(i + 1)
		case aNewline:
			s.newline(i + 1)
		case aCR:
			if i+1 < len(text) && text[i+1] == '\n' {
				s.space(i + 1)
			} else {
				s.newline(i + 1)
			}
		case aTerm:
			i, ri = s.terminator(i, ri)
			continue
		}
		i, ri = i+1, ri+1
	}
	s.emit()
}

// nonASCII handles the character at text[i] (a byte >= 0x80) with rune
// index ri and returns the position after it.
func (s *splitter) nonASCII(i, ri int) (int, int) {
	r, n := utf8.DecodeRuneInString(s.text[i:])
	switch {
	case r == '\u2029':
		s.newline(i + n)
		s.newline(i + n)
	case unicode.IsSpace(r):
		s.space(i + n)
	case isTerminator(r):
		return s.terminator(i, ri)
	default:
		s.visible(i, ri, i+n, ri+1)
	}
	return i + n, ri + 1
}

// visible records non-space text at [bi,bj) bytes, [ri,rj) runes.
func (s *splitter) visible(bi, ri, bj, rj int) {
	if !s.open {
		s.open, s.bs, s.rs = true, bi, ri
	}
	s.be, s.re = bj, rj
	s.newlines = 0
}

// space records whitespace ending at byte next.
func (s *splitter) space(next int) {
	s.wordStart = next
}

// newline records a line break ending at byte next; the second one since
// the last non-space character makes a blank line.
func (s *splitter) newline(next int) {
	s.wordStart = next
	s.newlines++
	if s.newlines >= 2 {
		s.emit()
	}
}

// emit ends the open sentence, if any.
func (s *splitter) emit() {
	if s.open {
		s.dst = append(s.dst, Span{Start: s.rs, End: s.re, ByteStart: s.bs, ByteEnd: s.be})
		s.open = false
	}
}

// terminator handles the run of sentence terminators starting at byte i,
// rune ri, and the closing marks after it; it returns the position after
// them.
func (s *splitter) terminator(i, ri int) (int, int) {
	text := s.text
	j, rj := i, ri
	cjk, dots, others := false, 0, 0
run:
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		switch {
		case r == '.':
			dots++
		case isCJKTerminator(r):
			cjk = true
		case isTerminator(r):
			others++
		default:
			break run
		}
		j, rj = j+n, rj+1
	}
	runEnd := j
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if !isCloser(r) {
			break
		}
		j, rj = j+n, rj+1
	}
	s.visible(i, ri, j, rj)
	// An abbreviation's dot does not take closing marks: "'No.' Done".
	abbrevDot := dots == 1 && others == 0 && j == runEnd
	if cjk || s.boundaryAfter(i, j, abbrevDot, dots > 0 && others == 0 && j == runEnd) {
		s.emit()
	}
	return j, rj
}

// boundaryAfter reports whether the non-CJK terminator run text[i:j]
// (closers included) ends a sentence. abbrevDot says the run is a single
// '.' that may end an abbreviation; onlyDots that it has no other
// terminators and no closing marks.
func (s *splitter) boundaryAfter(i, j int, abbrevDot, onlyDots bool) bool {
	text := s.text
	if j == len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[j:])
	if isCJK(r) {
		if !onlyDots {
			return true
		}
		// Dots between CJK text end a sentence, also after closing
		// marks: "参阅 “系统升级”.一个".
		k := i
		for k > 0 {
			p, n := utf8.DecodeLastRuneInString(text[:k])
			if !isCloser(p) {
				return isCJK(p)
			}
			k -= n
		}
		return false
	}
	if !unicode.IsSpace(r) {
		return false
	}
	word := text[s.wordStart:i]
	if abbrevDot && isAbbrev(word) {
		return false
	}
	if startsLower(text[j:]) {
		// A plain full stop after an ordinary word still ends the sentence
		// ("...for all. we are"): copies often change the case of the next
		// word. Ellipses, ! and ? before lowercase do not ("Stop!" she said).
		return abbrevDot && utf8.RuneCountInString(word) >= 2 && isWordLike(word)
	}
	return true
}

// isWordLike reports whether w is letters only (with apostrophes): not a
// number, code or a dotted name.
func isWordLike(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '\'' && r != '’' {
			return false
		}
	}
	return w != ""
}

// startsLower reports whether the first word of s, after whitespace and
// opening quotes or brackets, starts with a lowercase letter.
func startsLower(s string) bool {
	for _, r := range s {
		if unicode.IsSpace(r) || isOpener(r) {
			continue
		}
		return unicode.IsLower(r)
	}
	return false
}

// isTerminator reports whether r can end a sentence.
func isTerminator(r rune) bool {
	return r == '.' || r == '!' || r == '?' || r == '…' || isCJKTerminator(r)
}

// isCJKTerminator reports whether r ends a sentence with no space after it.
func isCJKTerminator(r rune) bool {
	switch r {
	case '。', '！', '？', '；', '｡':
		return true
	}
	return false
}

// isCloser reports whether r is a closing quote or bracket that belongs to
// the sentence it follows.
func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»', '›', '」', '』', '）', '］', '】', '〕', '〉', '》', '〗', '〙', '＂', '＇', '〞', '〟':
		return true
	}
	return false
}

// isOpener reports whether r is an opening quote or bracket.
func isOpener(r rune) bool {
	switch r {
	case '"', '\'', '(', '[', '{', '“', '‘', '«', '‹', '「', '『', '（', '［', '【', '〔', '〈', '《', '〖', '〘', '〝', '¿', '¡':
		return true
	}
	return false
}

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character
// (or the prolonged sound mark ー).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
}
