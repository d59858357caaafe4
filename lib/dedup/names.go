package dedup

import (
	"slices"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// Names are the code names of a text: identifiers and qualified names,
// which the words of a sentence do not tell apart (the
// tokenizer splits "sqlite3_blob_write" into "sqlite3", "blob", "write").
// Two API pages that document sqlite3_blob_write and sqlite3_blob_read
// in the same words share 90% of them, as an edited copy shares them with
// its source; but a cut of one against the other takes the name of the
// function from the collection. So a sentence is aligned only to a kept
// sentence that has every name it has, a run is cut only when its kept
// range has every name of the run, and the Verifier checks it on the
// texts (MissingName).
//
// A name is a maximal run of ASCII letters, digits, '_', '.' and runs of
// two or more ':',
// without the '.' and ':' at its ends, that has a letter and
//   - an underscore between two letters or digits (sqlite3_blob_write;
//     not asciidoc's _emphasis_ or __init__), or
//   - two or more parts between '.' or "::" each of two characters or
//     more (os.path.join, std::vec::Vec, example.com; not e.g, U.S, 3.14,
//     v1.2), or
//   - a lower-case letter followed by an upper-case one (getElementById), or
//   - only letters and digits, both (sl3, x86, sha256, bzip2: a table's
//     row, a version, an algorithm, which sibling pages written in the
//     same words tell apart by). A word in capitals is none: GIN and BRIN
//     are acronyms, but an edited copy of a heading in capitals changes
//     a word in capitals.
//
// A qualified name is compared by its last part, case-folded (the hash of
// its ASCII lower case, which is the token hash of that part as a word):
// std::option::Option and core::option::Option, the same type
// re-exported under two paths (and host names with their top-level
// domain), are one name, and a text that has the last part as a word has
// the name (a page's fractions.Fraction is its reST source's
// "class:: Fraction"); sqlite3_blob_write and sqlite3_blob_read, or
// java.awt.Label and java.awt.Button, are two. So host and file names
// are told apart by their last part only (example.com and other.com, or
// a_b.html and a_c.html, are one name, "com" or "html").

// A number is a name too: a run of digits, with '.' or ',' between two of
// them, that no ASCII letter, digit or '_' touches (1894, 69,805,
// $608,000,000, 5.14; not the 3 of sl3 or v1.2), keyed by its digits, with
// a separator before a group of three digits dropped and any other kept
// as '.' (69,805 and 69805 are one number, 1.5 and 1,5 one, 15 another): a
// figure, a year or a section that a copy changed makes another sentence,
// not an edited copy.

// AppendNames appends to dst the hashes of the names of text, and returns
// them sorted, each once.
func AppendNames(dst []uint64, text string) []uint64 {
	n0 := len(dst)
	eachName(text, func(_ string, key uint64) bool {
		dst = append(dst, key)
		return true
	})
	names := dst[n0:]
	slices.Sort(names)
	return dst[:n0+len(slices.Compact(names))]
}

// nextName returns the first name of text[i:] (Names), or "" when there is
// none, and where the search goes on after it.
func nextName(text string, i int) (string, int) {
	for i < len(text) {
		if !isNameAt(text, i) {
			i++
			continue
		}
		j := i
		for j < len(text) && isNameAt(text, j) {
			j++
		}
		if w := trimSeparators(text[i:j]); isName(w) {
			return w, j
		}
		i = j
	}
	return "", i
}

// isNameAt reports whether text[i] can be part of a name: an ASCII
// letter, digit, '_' or '.', or a ':' of "::" (a single colon, as in
// asciidoc's linkgit:git-commit or "Note:", ends a name).
func isNameAt(text string, i int) bool {
	switch c := text[i]; {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.':
		return true
	case c == ':':
		return i+1 < len(text) && text[i+1] == ':' || i > 0 && text[i-1] == ':'
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSeparator(c byte) bool { return c == '.' || c == ':' }

// trimSeparators trims the '.' and ':' at both ends of w.
func trimSeparators(w string) string {
	for len(w) > 0 && isSeparator(w[0]) {
		w = w[1:]
	}
	for len(w) > 0 && isSeparator(w[len(w)-1]) {
		w = w[:len(w)-1]
	}
	return w
}

// isName reports whether w (trimmed) is a name (Names).
func isName(w string) bool {
	letter, underscore, camel := false, false, false
	digit, plain := false, true
	parts, short := 1, false
	partLen := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= 'A' && c <= 'Z':
			letter = true
			if i > 0 && w[i-1] >= 'a' && w[i-1] <= 'z' {
				camel = true
			}
		case c >= '0' && c <= '9':
			digit = true
		case c == '_':
			plain = false
			underscore = underscore || i > 0 && i+1 < len(w) && isAlnum(w[i-1]) && isAlnum(w[i+1])
		case isSeparator(c):
			plain = false
			if partLen > 0 {
				short = short || partLen < 2
				parts++
			}
			partLen = 0
			continue
		}
		partLen++
	}
	short = short || partLen < 2
	// A word of letters and digits alone is a name when it mixes letters
	// and digits (sl3, x86, sha256).
	word := plain && digit
	return letter && (underscore || camel || parts >= 2 && !short || word)
}

// hashLower is the token hash (lib/sentence Hash) of name w's last part
// in ASCII lower case.
func hashLower(w string) uint64 {
	for i := len(w) - 1; i >= 0; i-- {
		if isSeparator(w[i]) {
			w = w[i+1:]
			break
		}
	}
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return sentence.Hash(string(b))
}

// NamesHeld reports whether every name of cut (sorted) is among the names
// or words of kept (each sorted).
func NamesHeld(cut, keptNames, keptWords []uint64) bool {
	for _, n := range cut {
		if _, ok := slices.BinarySearch(keptNames, n); ok {
			continue
		}
		if _, ok := slices.BinarySearch(keptWords, n); !ok {
			return false
		}
	}
	return true
}

// namesOf returns the names and the words of the sentences ss, each
// sorted and once.
func namesOf(ss []Sentence) (names, words []uint64) {
	if len(ss) == 1 {
		return ss[0].Names, ss[0].Words
	}
	for _, s := range ss {
		names = append(names, s.Names...)
		words = append(words, s.Words...)
	}
	slices.Sort(names)
	slices.Sort(words)
	return slices.Compact(names), slices.Compact(words)
}

// heldBy reports whether sentence k has every name of s among its names
// and words.
func (s Sentence) heldBy(k Sentence) bool {
	return len(s.Names) == 0 || NamesHeld(s.Names, k.Names, k.Words)
}

// SplitNames splits runs of m (aligned to k by match, from Align) at
// their sentences with a code name that the run's kept range lacks among
// its names and words (a short heading or a line of code inside a run,
// which Align does not align): such a sentence is in no run and stays,
// and each piece around it is a run from its first aligned sentence to
// its last, so that the rest of the run is still cut.
func SplitNames(runs []Run, m, k []Sentence, match []int) []Run {
	var b runBuilder
	for _, r := range runs {
		names, words := namesOf(k[r.KeptFirst : r.KeptLast+1])
		for i := r.First; i <= r.Last; i++ {
			switch {
			case len(m[i].Names) > 0 && !NamesHeld(m[i].Names, names, words):
				b.flush()
			case match[i] >= 0:
				b.add(i, match[i])
			}
		}
		b.flush()
	}
	return b.out
}

// RunNamesHeld reports whether the kept sentences have every name of the
// cut ones among their names and words.
func RunNamesHeld(cut, kept []Sentence) bool {
	c, _ := namesOf(cut)
	if len(c) == 0 {
		return true
	}
	names, words := namesOf(kept)
	return NamesHeld(c, names, words)
}

// MissingName returns a name of the text cut that the text kept lacks
// among its names and words (as written in cut), or "". tok hashes the
// words.
func MissingName(tok *sentence.Tokenizer, cut, kept string) string {
	words := tok.Hashes(nil, kept)
	slices.Sort(words)
	return missingName(cut, kept, words)
}

// missingName is MissingName given kept's words (token hashes, sorted).
func missingName(cut, kept string, keptWords []uint64) string {
	names := AppendNames(nil, kept)
	missing := ""
	eachName(cut, func(w string, key uint64) bool {
		if !NamesHeld([]uint64{key}, names, keptWords) {
			missing = w
			return false
		}
		return true
	})
	return missing
}

// eachName calls f with each name of text and its key (Names), code names
// first, then numbers, until f returns false.
func eachName(text string, f func(w string, key uint64) bool) {
	for w, i := nextName(text, 0); w != ""; w, i = nextName(text, i) {
		if !f(w, hashLower(w)) {
			return
		}
	}
	eachNumber(text, f)
}

// eachNumber calls f with each number of text (Names) and its key, the
// token hash of its digits, until f returns false.
func eachNumber(text string, f func(w string, key uint64) bool) {
	var buf [64]byte
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		// A token: word bytes, with '.' or ',' between two of them. A
		// separator before three digits and no fourth (69,805; 1.403) is
		// dropped, another is kept as '.' (1.5 and 1,5 are one number, 15
		// another).
		digits, number := buf[:0], true
		j := i
		for j < len(text) {
			c := text[j]
			if isWordByte(c) {
				number = number && isDigit(c)
				digits = append(digits, c)
				j++
				continue
			}
			if (c == '.' || c == ',') && j+1 < len(text) && isWordByte(text[j+1]) {
				if g := digitsAt(text, j+1); g != 3 {
					digits = append(digits, '.')
				}
				j++
				continue
			}
			break
		}
		if number && !f(text[i:j], sentence.Hash(string(digits))) {
			return
		}
		i = j
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsAt returns how many digits text has from i on.
func digitsAt(text string, i int) int {
	n := 0
	for i+n < len(text) && isDigit(text[i+n]) {
		n++
	}
	return n
}

// isWordByte reports whether c is an ASCII letter, digit or '_'.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }
