package plant

import (
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// editor applies the sentence-level edits of the light and word-edits
// classes, drawing randomness from rng and replacement words from the corpus
// vocabulary of the sentence's language.
type editor struct {
	rng   *rand.Rand
	words []string // English words (letters only, >= 3 runes, seen twice or more), sorted
	han   []rune   // Han characters seen twice or more, sorted
	byLen []string // words sorted by length in runes (hard tier; built when first needed)
}

// newEditor collects the vocabularies from the documents.
func newEditor(rng *rand.Rand, docs []*document) *editor {
	wc := make(map[string]int)
	hc := make(map[rune]int)
	for _, d := range docs {
		for _, f := range strings.Fields(string(d.text)) {
			w := strings.Trim(f, `.,;:!?"'()[]`)
			if len([]rune(w)) >= 3 && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) || unicode.Is(unicode.Han, r) }) < 0 {
				wc[strings.ToLower(w)]++
			}
		}
		for _, r := range d.text {
			if unicode.Is(unicode.Han, r) {
				hc[r]++
			}
		}
	}
	e := &editor{rng: rng}
	for w, n := range wc {
		if n >= 2 {
			e.words = append(e.words, w)
		}
	}
	for r, n := range hc {
		if n >= 2 {
			e.han = append(e.han, r)
		}
	}
	slices.Sort(e.words)
	slices.Sort(e.han)
	return e
}

// light applies at least one case, punctuation or white-space change to s
// without changing its words or its sentence boundaries.
func (e *editor) light(s string) string {
	ops := []func([]rune) []rune{e.caseChange, e.punctChange, e.spaceChange}
	r := []rune(s)
	for try := 0; try < 20; try++ {
		out := slices.Clone(r)
		for _, op := range ops {
			if e.rng.IntN(2) == 0 {
				out = op(out)
			}
		}
		if string(out) != s {
			return string(out)
		}
	}
	return string(e.spaceChange(r))
}

// caseChange lower-cases the whole sentence, upper-cases one word or flips
// the case of one word's first letter.
func (e *editor) caseChange(r []rune) []rune {
	letters := indexes(r, func(i int) bool {
		return unicode.IsLetter(r[i]) && !unicode.Is(unicode.Han, r[i]) && (i == 0 || !unicode.IsLetter(r[i-1]))
	})
	if len(letters) == 0 {
		return r
	}
	switch e.rng.IntN(3) {
	case 0:
		return []rune(strings.ToLower(string(r)))
	case 1:
		for i := letters[e.rng.IntN(len(letters))]; i < len(r) && unicode.IsLetter(r[i]); i++ {
			r[i] = unicode.ToUpper(r[i])
		}
	default:
		i := letters[e.rng.IntN(len(letters))]
		if unicode.IsUpper(r[i]) {
			r[i] = unicode.ToLower(r[i])
		} else {
			r[i] = unicode.ToUpper(r[i])
		}
	}
	return r
}

// punctSwaps are in-sentence punctuation replacements; none touches a
// sentence terminator.
var punctSwaps = map[rune][]rune{
	',': {';', ' '}, ';': {','}, ':': {',', ';'}, '，': {',', '、'}, '、': {'，'},
	'：': {':'}, '（': {'('}, '）': {')'}, '“': {'"'}, '”': {'"'}, '"': {'\''},
}

// punctChange swaps one in-sentence punctuation mark, or inserts a comma
// after a word.
func (e *editor) punctChange(r []rune) []rune {
	marks := indexes(r, func(i int) bool { return punctSwaps[r[i]] != nil && i > 0 && i < len(r)-1 })
	if len(marks) > 0 && e.rng.IntN(3) > 0 {
		i := marks[e.rng.IntN(len(marks))]
		alt := punctSwaps[r[i]]
		if c := alt[e.rng.IntN(len(alt))]; c == ' ' {
			return slices.Delete(r, i, i+1)
		} else {
			r[i] = c
		}
		return r
	}
	ends := indexes(r, func(i int) bool {
		return unicode.IsLetter(r[i]) && i+1 < len(r) && r[i+1] == ' ' && i+2 < len(r)
	})
	if len(ends) == 0 {
		return r
	}
	i := ends[e.rng.IntN(len(ends))]
	return slices.Insert(r, i+1, ',')
}

// spaceChange doubles a space, turns a space into a single newline, or, in
// text without spaces, inserts one between two characters.
func (e *editor) spaceChange(r []rune) []rune {
	spaces := indexes(r, func(i int) bool { return r[i] == ' ' })
	if len(spaces) == 0 {
		if len(r) < 2 {
			return append(r, ' ')
		}
		return slices.Insert(r, 1+e.rng.IntN(len(r)-1), ' ')
	}
	i := spaces[e.rng.IntN(len(spaces))]
	nearNewline := i > 0 && r[i-1] == '\n' || i+1 < len(r) && r[i+1] == '\n'
	if nearNewline || e.rng.IntN(2) == 0 {
		return slices.Insert(r, i, ' ')
	}
	r[i] = '\n' // a single newline: not a blank line, so no new boundary
	return r
}

// wordEdits substitutes, inserts or deletes about 10% of the words of s
// (Han characters count as words), at least one.
func (e *editor) wordEdits(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) && len(e.han) > 0 {
		return e.hanEdits([]rune(s))
	}
	toks := strings.Split(s, " ")
	n := max(1, (len(toks)+5)/10)
	for range n {
		toks = e.wordEdit(toks)
	}
	return strings.Join(toks, " ")
}

// wordEdit applies one edit to space-separated tokens. Punctuation around a
// substituted word is kept; only bare words are deleted; words are inserted
// after the first token, so the sentence start is kept.
func (e *editor) wordEdit(toks []string) []string {
	if len(e.words) == 0 {
		return toks
	}
	w := e.words[e.rng.IntN(len(e.words))]
	bare := indexes(toks, func(i int) bool { return isWord(toks[i]) && i > 0 })
	switch op := e.rng.IntN(3); {
	case op == 0 && len(toks) > 1:
		return slices.Insert(toks, 1+e.rng.IntN(len(toks)-1), w)
	case op == 1 && len(bare) > 0 && len(toks) > 2:
		i := bare[e.rng.IntN(len(bare))]
		return slices.Delete(toks, i, i+1)
	}
	cores := indexes(toks, func(i int) bool { return strings.IndexFunc(toks[i], unicode.IsLetter) >= 0 })
	if len(cores) == 0 {
		return append(toks, w)
	}
	i := cores[e.rng.IntN(len(cores))]
	lo := strings.IndexFunc(toks[i], unicode.IsLetter)
	hi := strings.LastIndexFunc(toks[i], unicode.IsLetter)
	hi += len(string([]rune(toks[i][hi:])[0]))
	if strings.EqualFold(toks[i][lo:hi], w) {
		w = "not" + w
	}
	toks[i] = toks[i][:lo] + w + toks[i][hi:]
	return toks
}

func isWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// hanEdits substitutes, inserts or deletes about 10% of the Han characters
// of r, at least one; the sentence's first and last characters are kept.
func (e *editor) hanEdits(r []rune) string {
	han := indexes(r, func(i int) bool { return unicode.Is(unicode.Han, r[i]) })
	n := max(1, (len(han)+5)/10)
	for range n {
		inner := indexes(r, func(i int) bool { return unicode.Is(unicode.Han, r[i]) && i > 0 && i < len(r)-1 })
		c := e.han[e.rng.IntN(len(e.han))]
		if len(inner) == 0 {
			r = slices.Insert(r, len(r)-1, c)
			continue
		}
		i := inner[e.rng.IntN(len(inner))]
		switch e.rng.IntN(3) {
		case 0:
			r = slices.Insert(r, i, c)
		case 1:
			r = slices.Delete(r, i, i+1)
		default:
			if r[i] == c {
				c = e.han[(slices.Index(e.han, c)+1)%len(e.han)]
			}
			r[i] = c
		}
	}
	return string(r)
}

// indexes returns the indexes i of s for which keep(i) holds.
func indexes[T any](s []T, keep func(i int) bool) []int {
	var out []int
	for i := range s {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}
