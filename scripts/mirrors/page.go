package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// wordList is the vocabulary edits draw replacement words from, by length.
type wordList map[int][]string

// newWordList returns the words of v that occur in at least three
// documents (df: documents per word id) and look like words: 3 to 14
// ASCII lowercase letters, a vowel among them; sorted.
func newWordList(v *vocab, df []int32) wordList {
	wl := make(wordList)
	for id, w := range v.words {
		if df[id] >= 3 && len(w) >= 3 && len(w) <= 14 && asciiLower(w) && strings.ContainsAny(w, "aeiouy") {
			wl[len(w)] = append(wl[len(w)], w)
		}
	}
	for _, ws := range wl {
		slices.Sort(ws)
	}
	return wl
}

func asciiLower(w string) bool {
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// editOne returns s with exactly one word replaced: a word of letters
// only, at least 3 long, chosen at random, by a word of the list of
// length within one of it that is not in s, in the same case. It returns
// s unchanged when s has no such word.
func (wl wordList) editOne(s string, rng *rand.Rand) string {
	fields := strings.Fields(s)
	var cands []int
	for i, f := range fields {
		if i < len(fields)-1 && strings.HasSuffix(f, ".") {
			continue // an abbreviation, or a sentence end pdc may see
		}
		if core := strings.TrimFunc(f, notLetter); len(core) >= 3 && !strings.ContainsFunc(core, notLetter) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return s
	}
	i := cands[rng.IntN(len(cands))]
	f := fields[i]
	lo := strings.IndexFunc(f, unicode.IsLetter)
	hi := strings.LastIndexFunc(f, unicode.IsLetter) + 1
	core := f[lo:hi]
	n := len([]rune(core))
	total := len(wl[n-1]) + len(wl[n]) + len(wl[n+1])
	have := make(map[string]bool)
	for _, w := range words(s) {
		have[w] = true
	}
	for range 100 {
		if total == 0 {
			break
		}
		w := wl.nth(n-1, rng.IntN(total))
		if have[w] || abbrevWords[w] || abbrevs[sameCase(w, core)] {
			continue
		}
		fields[i] = f[:lo] + sameCase(w, core) + f[hi:]
		return strings.Join(fields, " ")
	}
	return s
}

// abbrevWords are lowercase words that lib/sentence takes for
// abbreviations: a replacement word is none of them, lest a sentence that
// ends with it run into the next.
var abbrevWords = map[string]bool{
	"vs": true, "etc": true, "al": true, "cf": true, "viz": true, "ca": true, "approx": true,
	"resp": true, "incl": true, "esp": true, "dept": true, "est": true, "vol": true,
	"vols": true, "fig": true, "figs": true, "eq": true, "eqs": true, "ch": true, "sec": true,
	"ed": true, "eds": true, "pp": true, "ff": true, "nr": true,
}

// nth returns the k-th word of the lists of length l, l+1 and l+2 in turn.
func (wl wordList) nth(l, k int) string {
	for ; k >= len(wl[l]); l++ {
		k -= len(wl[l])
	}
	return wl[l][k]
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// sameCase returns the lowercase word w in the case of model: all
// capitals, a capital first, or lowercase.
func sameCase(w, model string) string {
	switch {
	case len(model) > 1 && strings.ToUpper(model) == model:
		return strings.ToUpper(w)
	case unicode.IsUpper([]rune(model)[0]):
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return w
}

// copyPage is one copy of the story: its record and where its story
// starts and ends.
type copyPage struct {
	ID, URL, HTML string
	Story         []string // the story sentences as placed (edited or not)
	First, Last   string   // the first and last of them
	Edited        []int    // indexes of the edited story sentences, sorted
	Own           []string // the copy's own sentences, before the story and after it
	Shared        []string // the paragraph the copy shares with its group (--shared)
	Group         string   // the id of the group's first copy
}

// makeCopy builds copy i: own paragraphs from pool, the story with
// round(editShare * sentences) of its sentences edited (one word each),
// own paragraphs again, then shared (its group's paragraph, if any). rng
// is the copy's own.
func makeCopy(i int, st story, cfg genConfig, pool *ownPool, wl wordList, shared []string, rng *rand.Rand) (copyPage, error) {
	c := copyPage{ID: fmt.Sprintf("mirror-%05d", i), URL: fmt.Sprintf("https://mirror%05d.example.org/story.html", i)}
	sents := slices.Clone(st.Sentences)
	nEdit := int(math.Round(cfg.EditShare * float64(len(sents))))
	c.Edited = rng.Perm(len(sents))[:nEdit]
	slices.Sort(c.Edited)
	for _, k := range c.Edited {
		sents[k] = wl.editOne(sents[k], rng)
	}
	c.Story, c.First, c.Last = sents, sents[0], sents[len(sents)-1]
	own := func(n int) ([][]string, error) {
		var out [][]string
		for range n {
			p, err := pool.paragraph(3 + rng.IntN(4))
			if err != nil {
				return nil, fmt.Errorf("copy %d: %w", i, err)
			}
			out = append(out, p)
		}
		return out, nil
	}
	before, err := own(cfg.Before)
	if err != nil {
		return c, err
	}
	after, err := own(cfg.After)
	if err != nil {
		return c, err
	}
	for _, p := range slices.Concat(before, after) {
		c.Own = append(c.Own, p...)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Mirror %05d</title>\n</head>\n<body>\n<main>\n<article>\n", i)
	for _, p := range before {
		paraHTML(&b, p)
	}
	at := 0
	for _, n := range st.Paras {
		paraHTML(&b, sents[at:at+n])
		at += n
	}
	for _, p := range after {
		paraHTML(&b, p)
	}
	if len(shared) > 0 {
		c.Shared, c.Group = shared, fmt.Sprintf("mirror-%05d", i-i%cfg.Shared)
		paraHTML(&b, shared)
	}
	b.WriteString("</article>\n</main>\n</body>\n</html>\n")
	c.HTML = b.String()
	return c, nil
}
