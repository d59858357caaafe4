package plant

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The merge-split class of the hard tier. A merge removes the full stop
// that ends a sentence ("." after a letter or digit in English, "。" in
// Chinese) when no line break follows it, and lower-cases the first word of
// the next sentence (unless it is "I" or all capitals). A split adds a full
// stop between two words in the middle third of a long sentence (12 words,
// or 20 Han characters) and capitalises the word after it, replacing a
// comma there if the middle third has one (in Chinese a "，" between Han
// characters). Every
// change must change the number of sentences lib/sentence finds around it
// by one; no sentence takes part in two changes. When a run has no such
// point, any sentence is split between two words (characters), at least two
// from its ends.

// Sentence lengths a split needs in its middle third.
const (
	longWords = 12
	longHan   = 20
)

// mergeSplit applies max(1, round(n/4)) merges or splits to the n
// sentences ss (gaps between them) and returns the sentences and gaps.
func (e *editor) mergeSplit(ss, gaps []string, zh bool) ([]string, []string) {
	ss, gaps = slices.Clone(ss), slices.Clone(gaps)
	busy := make([]bool, len(ss))
	var merged []int
	for c := range max(1, (len(ss)+2)/4) {
		merges := indexes(ss, func(k int) bool { return canMerge(ss, gaps, busy, k, zh) })
		splits := e.splits(ss, gaps, busy, zh, false)
		if c == 0 && len(merges)+len(splits) == 0 {
			splits = e.splits(ss, gaps, busy, zh, true)
		}
		if len(merges)+len(splits) == 0 {
			break
		}
		if len(splits) == 0 || len(merges) > 0 && e.rng.IntN(2) == 0 {
			k := merges[e.rng.IntN(len(merges))]
			merged = append(merged, k)
			busy[k], busy[k+1] = true, true
		} else {
			s := splits[e.rng.IntN(len(splits))]
			ss[s.k], busy[s.k] = s.text, true
		}
	}
	slices.Sort(merged)
	for _, k := range slices.Backward(merged) {
		ss[k] = mergeText(ss[k], gaps[k], ss[k+1], zh)
		ss, gaps = slices.Delete(ss, k+1, k+2), slices.Delete(gaps, k, k+1)
	}
	return ss, gaps
}

// canMerge reports whether sentences k and k+1, neither changed yet, may
// be merged.
func canMerge(ss, gaps []string, busy []bool, k int, zh bool) bool {
	if k+1 >= len(ss) || busy[k] || busy[k+1] || strings.ContainsAny(gaps[k], "\n\u2029") {
		return false
	}
	r := []rune(ss[k])
	if len(r) < 2 || !unicode.IsLetter(r[len(r)-2]) && !unicode.IsDigit(r[len(r)-2]) {
		return false
	}
	if zh && r[len(r)-1] != '。' || !zh && r[len(r)-1] != '.' {
		return false
	}
	both := ss[k] + gaps[k] + ss[k+1]
	return window(ss, gaps, k, k+2, mergeText(ss[k], gaps[k], ss[k+1], zh), zh) == window(ss, gaps, k, k+2, both, zh)-1
}

// mergeText joins sentence a, without its final full stop, and b.
func mergeText(a, gap, b string, zh bool) string {
	_, n := utf8.DecodeLastRuneInString(a)
	a = a[:len(a)-n]
	if zh {
		return a + gap + b
	}
	if gap == "" {
		gap = " "
	}
	return a + gap + lowerFirstWord(b)
}

// lowerFirstWord lower-cases the first letter of s's first word unless the
// word is "I" or all capitals.
func lowerFirstWord(s string) string {
	lo := strings.IndexFunc(s, unicode.IsLetter)
	if lo < 0 {
		return s
	}
	w := s[lo:]
	if hi := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }); hi >= 0 {
		w = w[:hi]
	}
	r, n := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) || w == "I" || len(w) > n && w == strings.ToUpper(w) {
		return s
	}
	return s[:lo] + string(unicode.ToLower(r)) + s[lo+n:]
}

// splitPoint is sentence k with a full stop added.
type splitPoint struct {
	k    int
	text string
}

// splits returns the ways to split one sentence of ss not changed yet: in
// the middle third of long sentences or, when anywhere is true, anywhere at
// least two words (characters) from the ends.
func (e *editor) splits(ss, gaps []string, busy []bool, zh, anywhere bool) []splitPoint {
	var out []splitPoint
	for k, s := range ss {
		if busy[k] {
			continue
		}
		var texts []string
		if zh {
			texts = hanSplits([]rune(s), anywhere)
		} else {
			texts = wordSplits(s, anywhere)
		}
		want := window(ss, gaps, k, k+1, s, zh) + 1
		for _, t := range texts {
			if window(ss, gaps, k, k+1, t, zh) == want {
				out = append(out, splitPoint{k, t})
			}
		}
	}
	return out
}

// wordSplits returns s with a full stop after a word (replacing a comma
// after it) and the next word capitalised, at each possible point; only
// those at a comma if there are any.
func wordSplits(s string, anywhere bool) []string {
	toks := tokenize(s)
	lo, hi := 2, len(toks)-2
	if !anywhere {
		if countWords(s) < longWords {
			return nil
		}
		lo, hi = max(lo, len(toks)/3), min(hi, 2*len(toks)/3)
	}
	var out, commas []string
	for j := lo; j <= hi; j++ {
		prev := strings.TrimSuffix(toks[j-1].text, ",")
		r, n := utf8.DecodeRuneInString(toks[j].text)
		if !isWord(prev) || utf8.RuneCountInString(prev) < 2 || !unicode.IsLetter(r) || hanChar(r) {
			continue
		}
		t := slices.Clone(toks)
		t[j-1].text = prev + "."
		t[j].text = string(unicode.ToUpper(r)) + t[j].text[n:]
		out = append(out, joinTokens(t))
		if prev != toks[j-1].text {
			commas = append(commas, out[len(out)-1])
		}
	}
	return preferred(commas, out)
}

// hanSplits returns r with "。" added between two Han characters, or
// replacing a "，" between two, at each possible point; only those at a
// "，" if there are any.
func hanSplits(r []rune, anywhere bool) []string {
	lo, hi := 2, len(r)-2
	if !anywhere {
		if len(indexes(r, func(i int) bool { return hanChar(r[i]) })) < longHan {
			return nil
		}
		lo, hi = max(lo, len(r)/3), min(hi, 2*len(r)/3)
	}
	var out, commas []string
	for i := lo; i <= hi; i++ {
		switch {
		case r[i] == '，' && i+1 < len(r) && hanChar(r[i-1]) && hanChar(r[i+1]):
			commas = append(commas, string(r[:i])+"。"+string(r[i+1:]))
		case hanChar(r[i-1]) && hanChar(r[i]):
			out = append(out, string(r[:i])+"。"+string(r[i:]))
		}
	}
	return preferred(commas, out)
}

// preferred returns first unless it is empty, else second.
func preferred(first, second []string) []string {
	if len(first) > 0 {
		return first
	}
	return second
}
