package eval

import (
	"unicode"
)

// A planted corpus is built from real texts, which reuse text of their own
// (State of the Union addresses repeat paragraphs from year to year). A
// detector finds that reuse too, and the truth does not annotate it. An
// unmatched detection (one that detects no case) is therefore classified:
//
//   - natural reuse: the detection overlaps no planted range (no case's range
//     in either of its documents, whatever the other document of the case)
//     on either side, and its two passages are confirmed similar by a method
//     independent of pdc's sentence signatures: the character similarity of
//     the normalized passages (Similarity) is at least NaturalSimilarity and
//     each normalized passage has at least NaturalMinRunes code points;
//   - false positive: everything else, including every unmatched detection
//     whose passages are not known.

// NaturalSimilarity is the least Similarity of the two passages of a natural
// reuse.
const NaturalSimilarity = 0.8

// NaturalMinRunes is the least length, in normalized code points, of each
// passage of a natural reuse, so that matched enumerations ("2. 3. 4.") or
// headings are never confirmed.
const NaturalMinRunes = 30

// Unplanted is an unmatched detection with its classification.
type Unplanted struct {
	Detection
	// PassageA and PassageB are the detection's text in Susp and in Src;
	// Known reports whether they were available.
	PassageA, PassageB string
	Known              bool
	// Similarity is Similarity(PassageA, PassageB, NaturalSimilarity): exact
	// when at least NaturalSimilarity, else a value below it.
	Similarity float64
	// Natural reports natural reuse; otherwise the detection is a false
	// positive.
	Natural bool
}

// Passages returns the text of a detection's two passages, with ok false
// when a document's text is unknown.
type Passages func(d Detection) (a, b string, ok bool)

// Classify classifies the unmatched detections of dets (see Unmatched),
// reading their passages with text (which may be nil: then every unmatched
// detection is a false positive). The result is in the order of dets.
func Classify(cases []Case, dets []Detection, text Passages) []Unplanted {
	planted := plantedRanges(cases)
	var out []Unplanted
	for _, d := range Unmatched(cases, dets) {
		u := Unplanted{Detection: d}
		if text != nil {
			u.PassageA, u.PassageB, u.Known = text(d)
		}
		if u.Known && !inPlanted(planted, d) {
			a, b := normalize(u.PassageA), normalize(u.PassageB)
			u.Similarity = similarity(a, b, NaturalSimilarity)
			u.Natural = u.Similarity >= NaturalSimilarity && min(len(a), len(b)) >= NaturalMinRunes
		}
		out = append(out, u)
	}
	return out
}

// plantedRanges returns, per document, the ranges that cases cover in it.
func plantedRanges(cases []Case) map[string][]rng {
	m := make(map[string][]rng)
	for _, c := range cases {
		s, r := c.ranges()
		m[c.Susp] = append(m[c.Susp], s)
		m[c.Src] = append(m[c.Src], r)
	}
	return m
}

// inPlanted reports whether either side of d overlaps a planted range of its
// document.
func inPlanted(planted map[string][]rng, d Detection) bool {
	sides := []struct {
		doc string
		r   rng
	}{
		{d.Susp, rng{Start: d.SuspStart, End: d.SuspStart + d.SuspLen}},
		{d.Src, rng{Start: d.SrcStart, End: d.SrcStart + d.SrcLen}},
	}
	for _, s := range sides {
		for _, p := range planted[s.doc] {
			if s.r.Intersect(p).Len() > 0 {
				return true
			}
		}
	}
	return false
}

// Similarity returns the character similarity 2·LCS(a', b')/(|a'|+|b'|) of
// the normalized passages a' and b' (letters and digits only, lower-cased,
// full-width ASCII folded; white space, punctuation and symbols dropped),
// or 0 when both are empty. When the similarity is below atLeast it returns
// some value below atLeast instead, which bounds the work: the longest
// common subsequence is computed from the insert/delete distance with Myers'
// O((N+M)·D) algorithm in O(N+M) memory, stopping at the largest distance
// that still reaches atLeast.
func Similarity(a, b string, atLeast float64) float64 {
	return similarity(normalize(a), normalize(b), atLeast)
}

func similarity(a, b []rune, atLeast float64) float64 {
	total := len(a) + len(b)
	if total == 0 {
		return 0
	}
	maxD := total
	if atLeast > 0 {
		maxD = int((1 - atLeast) * float64(total))
	}
	d := editDistance(a, b, maxD)
	if d < 0 {
		return min(atLeast, float64(total-maxD-1)/float64(total))
	}
	return float64(total-d) / float64(total)
}

// editDistance returns the least number of insertions and deletions turning
// a into b (len(a)+len(b)-2·LCS), or -1 if it exceeds maxD (Myers 1986,
// "An O(ND) difference algorithm and its variations", greedy forward
// search keeping only the furthest-reaching x per diagonal).
func editDistance(a, b []rune, maxD int) int {
	n, m := len(a), len(b)
	maxD = min(maxD, n+m)
	if maxD < 0 || abs(n-m) > maxD {
		return -1
	}
	off := maxD + 1
	v := make([]int, 2*maxD+3) // v[off+k]: furthest x on diagonal k = x-y
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert b[y]
			} else {
				x = v[off+k-1] + 1 // right: delete a[x]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return d
			}
		}
	}
	return -1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// normalize keeps the letters and digits of s, lower-cased, with full-width
// ASCII forms folded to ASCII.
func normalize(s string) []rune {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFEE0
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			out = append(out, unicode.ToLower(r))
		}
	}
	return out
}
