package plant

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The edits-N classes of the hard tier. Their randomness comes from the
// same generator as the other classes', but only when a run of theirs is
// planted, so a corpus without them is the same as before they existed.
//
// An English sentence is edited as a list of tokens (runs of non-space
// text); a word is a token holding a letter or digit. A token is editable
// when it is a word of letters with only punctuation around it (no
// "U.S.", "don't" or "5th"), does not follow a token that ends in . ! ? or …
// ("Mr. Smith") and, unless it is the last, has no such mark after it, so
// that no edit adds or removes a sentence boundary. Substitutions keep the
// punctuation around the word and its capitalisation; insertions go after
// the first token. A Chinese sentence is edited as runes: its first and last
// runes are kept, and only Han characters are substituted, deleted or
// swapped. Each edit takes tokens (characters) not edited before, so
// edits do not undo each other. An edited sentence must split, with its
// neighbours, into as many sentences as before (lib/sentence); otherwise it
// is drawn again.

// editRate is the percentage of words edited per sentence by each edits-N
// class.
var editRate = map[string]int{Edits10: 10, Edits20: 20, Edits30: 30}

// editBudget is the number of edits of a sentence of n words at pct
// percent: max(1, round(pct% of n)).
func editBudget(n, pct int) int { return max(1, (pct*n+50)/100) }

// maxTries bounds the draws of an edited sentence whose boundaries moved.
const maxTries = 20

// ratedSentence returns sentence k of the run ss (gaps between them) with
// pct% of its words edited, at least one, keeping its sentence boundaries.
func (e *editor) ratedSentence(ss, gaps []string, k, pct int, zh bool) string {
	want := window(ss, gaps, k, k+1, ss[k], zh)
	var out string
	for range maxTries {
		if zh && len(e.han) > 0 {
			out = e.hanRated([]rune(ss[k]), pct)
		} else {
			out = e.wordRated(ss[k], pct)
		}
		if out != ss[k] && window(ss, gaps, k, k+1, out, zh) == want {
			break
		}
	}
	return out
}

// window returns the number of sentences lib/sentence finds in sentences
// k0-1 to k1 of the run with mid in place of sentences k0 to k1-1, joined
// by their gaps; after the last sentence of the run comes a probe sentence,
// as the target's text may follow it.
func window(ss, gaps []string, k0, k1 int, mid string, zh bool) int {
	var sb strings.Builder
	if k0 > 0 {
		sb.WriteString(ss[k0-1])
		sb.WriteString(gaps[k0-1])
	}
	sb.WriteString(mid)
	switch {
	case k1 < len(ss):
		sb.WriteString(gaps[k1-1])
		sb.WriteString(ss[k1])
	case zh:
		sb.WriteString("结束。")
	default:
		sb.WriteString(" The end.")
	}
	return len(split([]rune(sb.String())))
}

// token is a run of non-space text of an English sentence with the white
// space before it.
type token struct {
	sep, text string
	fresh     bool // not edited yet
}

func tokenize(s string) []token {
	var toks []token
	for len(s) > 0 {
		i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
		if i < 0 {
			break
		}
		j := strings.IndexFunc(s[i:], unicode.IsSpace)
		if j < 0 {
			j = len(s) - i
		}
		toks = append(toks, token{sep: s[:i], text: s[i : i+j], fresh: true})
		s = s[i+j:]
	}
	return toks
}

func joinTokens(toks []token) string {
	var sb strings.Builder
	for _, t := range toks {
		sb.WriteString(t.sep)
		sb.WriteString(t.text)
	}
	return sb.String()
}

// countWords counts the tokens of s that hold a letter or digit.
func countWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// core returns the byte range of the letters of a token, from its first to
// its last letter, or -1, -1.
func core(s string) (lo, hi int) {
	lo = strings.IndexFunc(s, unicode.IsLetter)
	if lo < 0 {
		return -1, -1
	}
	hi = strings.LastIndexFunc(s, unicode.IsLetter)
	_, n := utf8.DecodeRuneInString(s[hi:])
	return lo, hi + n
}

// endsTerm reports whether a token ends with . ! ? or … (before closers).
func endsTerm(s string) bool {
	s = strings.TrimRightFunc(s, isCloser)
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?…", r)
}

func hanChar(r rune) bool { return unicode.Is(unicode.Han, r) }

// editable reports whether token i may be substituted or swapped.
func editable(toks []token, i int) bool {
	t := toks[i]
	lo, hi := core(t.text)
	switch {
	case !t.fresh || lo < 0:
		return false
	case strings.ContainsFunc(t.text[lo:hi], func(r rune) bool { return !unicode.IsLetter(r) || hanChar(r) }):
		return false
	case strings.ContainsFunc(t.text[:lo]+t.text[hi:], unicode.IsDigit): // "5th", "5-year"
		return false
	case i < len(toks)-1 && strings.ContainsAny(t.text[hi:], ".!?…"):
		return false
	}
	return i == 0 || !endsTerm(toks[i-1].text)
}

// wordRated applies editBudget(words, pct) edits to the tokens of s.
func (e *editor) wordRated(s string, pct int) string {
	toks := tokenize(s)
	ops := []func([]token) ([]token, bool){e.substitute, e.insertWord, e.deleteWord, e.swapWords}
	for range editBudget(countWords(s), pct) {
		done := false
		for _, k := range e.rng.Perm(len(ops)) {
			if toks, done = ops[k](toks); done {
				break
			}
		}
		if !done && len(toks) > 0 && len(e.words) > 0 && joinTokens(toks) == s {
			// Nothing applies (a one-token sentence such as "U.S."): a word
			// goes first.
			w := e.words[e.rng.IntN(len(e.words))]
			toks[0].sep = " "
			toks = slices.Insert(toks, 0, token{text: strings.ToUpper(w[:1]) + w[1:]})
		}
	}
	return joinTokens(toks)
}

// substitute replaces the letters of an editable token by a vocabulary word
// of similar length, with the same capitalisation.
func (e *editor) substitute(toks []token) ([]token, bool) {
	cand := indexes(toks, func(i int) bool { return editable(toks, i) })
	if len(cand) == 0 || len(e.words) == 0 {
		return toks, false
	}
	i := cand[e.rng.IntN(len(cand))]
	t := toks[i].text
	lo, hi := core(t)
	old := t[lo:hi]
	w := e.similarWord(utf8.RuneCountInString(old), strings.ToLower(old))
	switch r, _ := utf8.DecodeRuneInString(old); {
	case len(old) > 1 && old == strings.ToUpper(old):
		w = strings.ToUpper(w)
	case unicode.IsUpper(r):
		w = strings.ToUpper(w[:1]) + w[1:]
	}
	toks[i].text, toks[i].fresh = t[:lo]+w+t[hi:], false
	return toks, true
}

// insertWord inserts a vocabulary word after a token that does not end a
// sentence-like unit, not before the first token.
func (e *editor) insertWord(toks []token) ([]token, bool) {
	cand := indexes(toks, func(j int) bool { return j > 0 && !endsTerm(toks[j-1].text) })
	if len(cand) == 0 || len(e.words) == 0 {
		return toks, false
	}
	j := cand[e.rng.IntN(len(cand))]
	w := e.words[e.rng.IntN(len(e.words))]
	return slices.Insert(toks, j, token{sep: " ", text: w}), true
}

// deleteWord deletes a bare word that is neither the first nor the last
// token and does not follow a terminator.
func (e *editor) deleteWord(toks []token) ([]token, bool) {
	cand := indexes(toks, func(i int) bool {
		return i > 0 && i < len(toks)-1 && toks[i].fresh && isWord(toks[i].text) && !endsTerm(toks[i-1].text)
	})
	if len(cand) == 0 {
		return toks, false
	}
	i := cand[e.rng.IntN(len(cand))]
	return slices.Delete(toks, i, i+1), true
}

// swapWords swaps the letters of two different neighbouring editable
// tokens, other than the first, leaving their punctuation in place.
func (e *editor) swapWords(toks []token) ([]token, bool) {
	cand := indexes(toks, func(i int) bool {
		if i == 0 || i+1 >= len(toks) || !editable(toks, i) || !editable(toks, i+1) {
			return false
		}
		a, b := toks[i].text, toks[i+1].text
		alo, ahi := core(a)
		blo, bhi := core(b)
		return !strings.EqualFold(a[alo:ahi], b[blo:bhi])
	})
	if len(cand) == 0 {
		return toks, false
	}
	i := cand[e.rng.IntN(len(cand))]
	a, b := toks[i].text, toks[i+1].text
	alo, ahi := core(a)
	blo, bhi := core(b)
	toks[i].text, toks[i+1].text = a[:alo]+b[blo:bhi]+a[ahi:], b[:blo]+a[alo:ahi]+b[bhi:]
	toks[i].fresh, toks[i+1].fresh = false, false
	return toks, true
}

// similarWord returns a random vocabulary word other than not whose length
// in runes is within 1 of n (within 2, 3, ... if there is none). The
// vocabulary must not be empty.
func (e *editor) similarWord(n int, not string) string {
	if e.byLen == nil {
		e.byLen = slices.Clone(e.words)
		slices.SortStableFunc(e.byLen, func(a, b string) int {
			return utf8.RuneCountInString(a) - utf8.RuneCountInString(b)
		})
	}
	for d := 1; ; d++ {
		lo, _ := slices.BinarySearchFunc(e.byLen, n-d, byRunes)
		hi, _ := slices.BinarySearchFunc(e.byLen, n+d+1, byRunes)
		all := lo == 0 && hi == len(e.byLen)
		if hi-lo < 2 && !all && (hi == lo || e.byLen[lo] == not) {
			continue
		}
		i := lo + e.rng.IntN(hi-lo)
		if e.byLen[i] == not {
			i = lo + (i-lo+1)%(hi-lo)
		}
		return e.byLen[i]
	}
}

func byRunes(w string, n int) int { return utf8.RuneCountInString(w) - n }

// hanRated applies editBudget(Han characters, pct) edits to r, keeping its
// first and last runes.
func (e *editor) hanRated(r []rune, pct int) string {
	fresh := make([]bool, len(r))
	for i := range fresh {
		fresh[i] = true
	}
	inner := func(i int) bool { return i > 0 && i < len(r)-1 && fresh[i] && hanChar(r[i]) }
	orig := string(r)
	for range editBudget(len(indexes(r, func(i int) bool { return hanChar(r[i]) })), pct) {
		c := e.han[e.rng.IntN(len(e.han))]
		subs := indexes(r, inner)
		swaps := indexes(r, func(i int) bool { return inner(i) && inner(i+1) && r[i] != r[i+1] })
		switch op := e.rng.IntN(4); {
		case op == 0 && len(subs) > 0:
			i := subs[e.rng.IntN(len(subs))]
			if r[i] == c {
				c = e.han[(slices.Index(e.han, c)+1)%len(e.han)]
			}
			r[i], fresh[i] = c, false
		case op == 1 && len(subs) > 0 && len(r) > 3:
			i := subs[e.rng.IntN(len(subs))]
			r, fresh = slices.Delete(r, i, i+1), slices.Delete(fresh, i, i+1)
		case op == 2 && len(swaps) > 0:
			i := swaps[e.rng.IntN(len(swaps))]
			r[i], r[i+1] = r[i+1], r[i]
			fresh[i], fresh[i+1] = false, false
		default:
			// Next to a Han character, not inside an ASCII word; before the
			// last rune at the latest.
			at := indexes(r, func(i int) bool { return i > 0 && (hanChar(r[i-1]) || hanChar(r[i])) })
			i := max(1, len(r)-1)
			if len(at) > 0 {
				i = at[e.rng.IntN(len(at))]
			}
			r, fresh = slices.Insert(r, i, c), slices.Insert(fresh, i, false)
		}
	}
	if string(r) == orig { // a substitution undone by a swap: one more character
		r = slices.Insert(r, max(1, len(r)-1), e.han[e.rng.IntN(len(e.han))])
	}
	return string(r)
}
