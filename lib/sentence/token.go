package sentence

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokens (Tokenizer):
//   - The text is normalized to NFKC (skipped when it is all ASCII, where
//     NFKC is the identity), so full-width letters, ligatures and
//     compatibility characters match their plain forms.
//   - A word is a maximal run of letters, numbers and combining marks. An
//     apostrophe (' or ’) between two word characters belongs to the word
//     and is written as "'": "don't" and "don’t" are one token "don't";
//     "rock 'n' roll" gives "rock", "n", "roll".
//   - Every Han, Hiragana, Katakana and Hangul character (and ー) is a
//     token by itself.
//   - Everything else (punctuation, symbols, whitespace, controls) separates
//     tokens and is dropped: "well-known" gives "well", "known"; "3.14"
//     gives "3", "14".
//   - Tokens are case-folded rune by rune with unicode.ToLower(
//     unicode.ToUpper(r)), which maps every member of a simple case-folding
//     class to one rune (ς, σ and Σ to σ; ſ to s; İ to i), plus ß and ẞ to
//     "ss". ASCII is lowercased by table.
//
// Hashes are FNV-1a 64 of the token's UTF-8 bytes, stable across processes
// and machines.

// FNV-1a 64 parameters.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Hash returns the FNV-1a 64 hash of token. Hashes returns Hash of each
// normalized token.
func Hash(token string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(token); i++ {
		h ^= uint64(token[i])
		h *= fnvPrime
	}
	return h
}

func hashBytes(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// Tokenizer turns text into normalized tokens (see above). Its buffers are
// reused between calls, so use one per goroutine. The zero value is ready
// to use.
type Tokenizer struct {
	iter norm.Iter
	src  []byte // the text being tokenized, NFKC-normalized
	out  []byte // the normalized tokens, concatenated
	ends []int  // end offset in out of each token
}

// Hashes appends the hashes of the tokens of s to dst and returns the
// extended slice.
func (t *Tokenizer) Hashes(dst []uint64, s string) []uint64 {
	if isASCII(s) {
		return asciiHashes(dst, s)
	}
	t.tokenize(s)
	start := 0
	for _, end := range t.ends {
		dst = append(dst, hashBytes(t.out[start:end]))
		start = end
	}
	return dst
}

// Tokens appends the tokens of s to dst and returns the extended slice. It
// allocates a string per token; it is meant for tests and debugging.
func (t *Tokenizer) Tokens(dst []string, s string) []string {
	t.tokenize(s)
	start := 0
	for _, end := range t.ends {
		dst = append(dst, string(t.out[start:end]))
		start = end
	}
	return dst
}

// ASCII byte classes for tokenize.
const (
	tSep   = iota // separator
	tUpper        // A-Z
	tWord         // a-z, 0-9
	tApos         // '
)

var tokClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = tWord
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = tWord
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = tUpper
	}
	t['\''] = tApos
	return t
}()

// tokenize fills t.out and t.ends with the tokens of s.
func (t *Tokenizer) tokenize(s string) {
	t.normalize(s)
	t.out, t.ends = t.out[:0], t.ends[:0]
	b := t.src
	inWord := false
	for i := 0; i < len(b); {
		c := b[i]
		if c >= utf8.RuneSelf {
			i = t.nonASCII(b, i, &inWord)
			continue
		}
		switch tokClass[c] {
		case tWord:
			t.out = append(t.out, c)
			inWord = true
		case tUpper:
			t.out = append(t.out, c+'a'-'A')
			inWord = true
		case tApos:
			inWord = t.apostrophe(b, i+1, inWord)
		default:
			inWord = t.endWord(inWord)
		}
		i++
	}
	t.endWord(inWord)
}

// normalize sets t.src to the NFKC form of s. It uses a norm.Iter kept in
// t because norm.Form.AppendString allocates when s is not in NFKC.
func (t *Tokenizer) normalize(s string) {
	p := norm.NFKC.QuickSpanString(s)
	t.src = append(t.src[:0], s[:p]...)
	if p == len(s) {
		return
	}
	t.iter.InitString(norm.NFKC, s[p:])
	for !t.iter.Done() {
		t.src = append(t.src, t.iter.Next()...)
	}
}

// asciiHashes is Hashes for ASCII s, where NFKC is the identity: it
// hashes while scanning, without copying tokens.
func asciiHashes(dst []uint64, s string) []uint64 {
	h, inWord := uint64(fnvOffset), false
	for i := 0; i < len(s); i++ {
		c := asciiFold[s[i]]
		switch {
		case c > '\'':
			h = (h ^ uint64(c)) * fnvPrime
			inWord = true
		case c == '\'' && inWord && i+1 < len(s) && asciiFold[s[i+1]] > '\'':
			h = (h ^ '\'') * fnvPrime
		case inWord:
			dst = append(dst, h)
			h, inWord = fnvOffset, false
		}
	}
	if inWord {
		dst = append(dst, h)
	}
	return dst
}

// asciiFold maps ASCII letters and digits to their folded form, the
// apostrophe to itself and everything else to 0. Bytes >= 0x80 map to 0;
// asciiHashes never sees them.
var asciiFold = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	t['\''] = '\''
	return t
}()

// nonASCII handles the character starting at b[i] (a byte >= 0x80) and
// returns the offset after it.
func (t *Tokenizer) nonASCII(b []byte, i int, inWord *bool) int {
	r, n := utf8.DecodeRune(b[i:])
	switch {
	case isCJK(r):
		t.endWord(*inWord)
		t.out = utf8.AppendRune(t.out, r)
		*inWord = t.endWord(true)
	case r == '’':
		*inWord = t.apostrophe(b, i+n, *inWord)
	case isWordRune(r):
		t.out = appendFold(t.out, r)
		*inWord = true
	default:
		*inWord = t.endWord(*inWord)
	}
	return i + n
}

// apostrophe handles an apostrophe followed by b[next:]: inside a word
// when a word character follows, else a separator. It returns the new
// inWord state.
func (t *Tokenizer) apostrophe(b []byte, next int, inWord bool) bool {
	if inWord && next < len(b) {
		r, _ := utf8.DecodeRune(b[next:])
		if isWordRune(r) && !isCJK(r) {
			t.out = append(t.out, '\'')
			return true
		}
	}
	return t.endWord(inWord)
}

// endWord ends the current token, if inWord, and returns false.
func (t *Tokenizer) endWord(inWord bool) bool {
	if inWord {
		t.ends = append(t.ends, len(t.out))
	}
	return false
}

// isWordRune reports whether r can be part of a word.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return tokClass[r] == tWord || tokClass[r] == tUpper
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// appendFold appends the case-folded form of r (see above).
func appendFold(dst []byte, r rune) []byte {
	if r == 'ß' || r == 'ẞ' {
		return append(dst, 's', 's')
	}
	return utf8.AppendRune(dst, unicode.ToLower(unicode.ToUpper(r)))
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
