package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbrevs are words that, followed by a single '.', do not end a sentence.
// Matching is case-sensitive so that "no. Then" can still end a sentence
// while "No. 5" does not.
var abbrevs = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`
		Mr Mrs Ms Messrs Mme Mlle Dr Prof St Jr Sr Rev Hon Gen Col Capt Lt Sgt
		Cmdr Adm Gov Sen Rep Pres Supt Mt Ft
		Inc Ltd Co Corp Bros Dept Univ Assn Ave Blvd Rd
		Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
		No Nos Vol Vols Fig Figs Eq Eqs Ch Sec Art Ed Eds Tab Ref Refs Ex Est
		vs etc al cf viz ca approx resp incl esp dept est vol vols fig figs eq
		eqs ch sec ed eds pp p ff nr`) {
		m[w] = true
	}
	return m
}()

// isAbbrev reports whether word, the text between the last whitespace and
// a single '.', is an abbreviation (see the package comment).
func isAbbrev(word string) bool {
	word = strings.TrimLeftFunc(word, isOpener)
	if abbrevs[word] {
		return true
	}
	if r, n := utf8.DecodeRuneInString(word); n == len(word) && n > 0 {
		return unicode.IsUpper(r) && r != 'I'
	}
	return isDottedInitials(word)
}

// isDottedInitials reports whether word is two or more groups of one or two
// letters separated by dots, like "U.S", "e.g", "a.m" or "Ph.D".
func isDottedInitials(word string) bool {
	groups, letters := 1, 0
	for _, r := range word {
		switch {
		case r == '.':
			if letters == 0 {
				return false
			}
			groups, letters = groups+1, 0
		case unicode.IsLetter(r) && letters < 2:
			letters++
		default:
			return false
		}
	}
	return groups >= 2 && letters > 0
}
