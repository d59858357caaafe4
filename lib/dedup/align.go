// Package dedup decides what pdc dedup cuts from a run's documents: of
// every passage cluster (lib/cluster) one member is kept, and from each
// other member only what is aligned, sentence by sentence, to the kept
// member is cut. Nothing is cut that the kept copy does not hold.
//
// A cluster says which passages are copies of one text; the cut itself
// is decided on the texts. A removed member's sentences are aligned to the
// kept member's in order (Align): a sentence is aligned to a kept sentence
// whose words it shares at MinSimilarity or more (Jaccard of the two
// sentences' word sets), or, for a sentence the copy merged or split, whose
// words hold nine tenths of the smaller's, and that (with its neighbours)
// holds all the sentence's words but one, or MinHeld of them, and lacks no
// more than MaxOwnRun of them in a row (heldNear): an edited copy, not a
// sentence with words of its own. What is cut from the member is
// its runs of aligned sentences (Runs): the sentences too short to match
// (fewer than the run's --min-tokens words, navigation, lines without a
// letter) inside a run go with it, a sentence with words of its own ends
// it, unless the kept copy holds its words (Bridge: a sentence an edited
// copy rewrote with the same words, or reordered within the passage).
// Each run is cut with the range of the kept sentences it is aligned
// to (its kept range); a run whose kept range holds less than MinHeld of
// its words (Held), or lacks a code name of the run (names.go: a sentence
// is aligned only to one with every name it has, and a sentence with a
// name the kept member lacks ends a run), is not cut. A run that reaches its member's edge takes
// along up to MaxEdge sentences too short to match just outside it when
// the kept member has the very same sentences at the same place (a
// heading, a word the source broke off). A kept member is cut only where
// it is itself a removed member of another cluster, aligned to that
// cluster's kept member elsewhere, and every document relying on it holds
// that text too (Plan settle); no removal's kept range is cut, so every
// kept range is still in the output.
package dedup

import (
	"cmp"
	"slices"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/signature"
)

// MinSimilarity is the least word overlap of an aligned pair of sentences
// (lib/extend's default threshold).
const MinSimilarity = 0.5

// SplitContainment is the least share of the smaller sentence's words
// that the larger must hold for a merged or split sentence to be aligned.
const SplitContainment = 0.9

// Window is how many sentences past the last aligned one the alignment
// looks for the next (a sentence inserted, dropped or rewritten in a copy);
// beyond it, only a sentence with the very same words resumes it.
const Window = 8

// Sentence is a sentence of a document: its rune offsets in the
// extracted text, its distinct words (sorted token hashes of its text),
// its words as often as they occur (Bag: the same, sorted, with repeats;
// Seq: in text order),
// its code names (Names: names.go, sorted, each once) and whether it can
// be aligned (Match: content, with at least the run's --min-tokens words,
// as the join and extension need).
type Sentence struct {
	Start, End int
	Words      []uint64
	Bag        []uint64
	Seq        []uint64 // its words in text order
	Names      []uint64
	Match      bool
}

// newSentence returns the sentence of rune range [start, end), text,
// whose token hashes are hashes (in text order; not kept).
func newSentence(start, end int, text string, hashes []uint64, match bool) Sentence {
	seq := slices.Clone(hashes)
	bag := slices.Clone(hashes)
	slices.Sort(bag)
	return Sentence{Start: start, End: end, Words: slices.Compact(slices.Clone(bag)), Bag: bag, Seq: seq, Names: AppendNames(nil, text), Match: match}
}

// Sentences returns the sentences of a (the analysis of a document's
// text), in order; a sentence matches when it is content with at least
// minWords tokens.
func Sentences(a doc.Analysis, tok *sentence.Tokenizer, minWords int) []Sentence {
	out := make([]Sentence, 0, len(a.Sentences))
	var buf []uint64
	for i, s := range a.Sentences {
		sp := a.Spans[i]
		text := a.Text[sp.ByteStart:sp.ByteEnd]
		buf = tok.Hashes(buf[:0], text)
		out = append(out, newSentence(s.Start, s.End, text, buf, s.NotContent == "" && len(s.Tokens) >= minWords))
	}
	return out
}

// Within returns the sentences of ss (a document's, in order) that lie
// inside the rune range [start, end).
func Within(ss []Sentence, start, end int) []Sentence {
	i, _ := slices.BinarySearchFunc(ss, start, func(s Sentence, t int) int { return cmp.Compare(s.Start, t) })
	j := i
	for j < len(ss) && ss[j].End <= end {
		j++
	}
	return ss[i:j]
}

// Similar reports whether two sentences' words are aligned: Jaccard at
// least MinSimilarity, or (a merge or split) the smaller set held at
// SplitContainment by the larger.
func Similar(a, b []uint64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	n := signature.Overlap(a, b)
	if float64(n) >= MinSimilarity*float64(len(a)+len(b)-n) {
		return true
	}
	return float64(n) >= SplitContainment*float64(min(len(a), len(b)))
}

// Align aligns the sentences of m to those of k, in order: it returns for
// each sentence of m the index of its kept sentence in k, or -1. Only
// sentences that match (Sentence.Match) are aligned, each to a kept
// sentence with every name it has (Names) and that holds its words
// (heldNear; a piece of a split sentence, by that kept sentence alone). Each is aligned to
// the first similar sentence of k within Window after the last aligned
// one, else to the first sentence after it with the very same words; a
// sentence that follows an aligned one is aligned to that kept sentence
// too when it holds the words of both (and of any before them aligned to
// it), as often as they occur, at SplitContainment: the copy split what
// the kept member has as one sentence. (A line the copy repeats, or adds
// beside a like one, is not held twice, and ends the run.)
func Align(m, k []Sentence) []int { return align(m, k, true) }

// AlignSimilar aligns as Align does, by the words the sentences share
// alone (not their names, nor whether the kept sentences hold their
// words): to show two passages side by side, a sentence beside the one it
// was edited from, where Align keeps what is to be cut.
func AlignSimilar(m, k []Sentence) []int { return align(m, k, false) }

// align is Align, or with strict false AlignSimilar.
func align(m, k []Sentence, strict bool) []int {
	var near []uint64 // heldNear's bag, reused
	held := func(s Sentence, j int) bool { return !strict || s.heldBy(k[j]) && heldNear(s, k, j, &near) }
	out := make([]int, len(m))
	next, last := 0, -1 // the first k sentence free to align; the last aligned
	var pieces []uint64 // the words of the sentences aligned to last (out[i-1]'s), sorted
	for i, s := range m {
		out[i] = -1
		if !s.Match {
			continue
		}
		if i > 0 && last >= 0 && out[i-1] == last {
			with := append(slices.Clip(pieces), s.Bag...) // a new slice: pieces may be a sentence's Bag
			slices.Sort(with)
			if float64(signature.Overlap(with, k[last].Bag)) >= SplitContainment*float64(len(with)) && (!strict || s.heldBy(k[last]) && s.holds(k[last].Bag)) {
				out[i], pieces = last, with
				continue
			}
		}
		for j := next; j < len(k) && j < next+Window; j++ {
			if k[j].Match && Similar(s.Words, k[j].Words) && held(s, j) {
				out[i], last, next, pieces = j, j, j+1, s.Bag
				break
			}
		}
		if out[i] >= 0 {
			continue
		}
		for j := next + Window; j < len(k); j++ {
			if k[j].Match && slices.Equal(s.Words, k[j].Words) && (!strict || s.heldBy(k[j])) {
				out[i], last, next, pieces = j, j, j+1, s.Bag
				break
			}
		}
	}
	return out
}

// heldNear reports whether kept sentence j, or it and its neighbours
// (their bag built in buf), hold the words of s (Sentence.holds): a
// sentence is aligned only where its own words are kept (an edit of a
// word, a sentence that merged two kept ones), not for sharing half of
// them with a kept sentence (a line of the kept copy that the copy goes
// on with words of its own, a page of a sibling command).
func heldNear(s Sentence, k []Sentence, j int, buf *[]uint64) bool {
	if s.holds(k[j].Bag) {
		return true
	}
	b := (*buf)[:0]
	for _, n := range k[max(j-1, 0):min(j+2, len(k))] {
		b = append(b, n.Bag...)
	}
	slices.Sort(b)
	*buf = b
	return s.holds(b)
}

// holds reports whether bag (kept words, sorted, as often as they occur)
// holds the words of s, each as often as it occurs, but one, or MinHeld of
// them, and lacks no more than MaxOwnRun of them in a row.
func (s Sentence) holds(bag []uint64) bool {
	n := len(s.Bag)
	in := signature.Overlap(s.Bag, bag)
	return (n-in <= 1 || float64(in) >= MinHeld*float64(n)) && ownRun(s.Seq, bag) <= MaxOwnRun
}

// MaxOwnRun is the most consecutive words of a sentence that its kept
// sentence may lack (heldNear): an edited copy changes a word here and
// there, a sentence written anew for another page ("u1 can revoke
// privileges on t1 that are recorded as being granted", "u1 can grant
// privileges on t1 to u2, but those privileges will appear to have been
// granted") has runs of words of its own.
const MaxOwnRun = 2

// ownRun returns the most consecutive words of seq (in text order) that
// are not in kept (sorted).
func ownRun(seq, kept []uint64) int {
	best, run := 0, 0
	for _, w := range seq {
		if _, ok := slices.BinarySearch(kept, w); ok {
			run = 0
			continue
		}
		run++
		best = max(best, run)
	}
	return best
}

// Run is a run of aligned sentences of a removed member: its sentences
// First..Last (indexes into the member's sentences) and the kept
// sentences they are aligned to, KeptFirst..KeptLast.
type Run struct {
	First, Last         int
	KeptFirst, KeptLast int
}

// Runs returns the runs of aligned sentences of m (match from Align):
// maximal runs of aligned sentences and, between them, sentences that do
// not match (Sentence.Match); a matching sentence left unaligned ends a
// run, and so does a sentence for which stop is true (it overlaps a kept
// member, or has a code name the kept member lacks), which is in none.
func Runs(m []Sentence, match []int, stop func(i int) bool) []Run {
	var out []Run
	cur := Run{First: -1}
	flush := func() {
		if cur.First >= 0 {
			out = append(out, cur)
		}
		cur = Run{First: -1}
	}
	for i, s := range m {
		switch {
		case stop(i):
			flush()
		case match[i] >= 0:
			j := match[i]
			if cur.First >= 0 && j < cur.KeptLast {
				flush() // the alignment went back: another copy of a repeated sentence
			}
			if cur.First < 0 {
				cur = Run{First: i, KeptFirst: j}
			}
			cur.Last, cur.KeptLast = i, j
		case s.Match:
			flush()
		}
	}
	flush()
	return out
}

// SplitWithdrawn splits runs of m (aligned to k by match, from Align)
// where their kept sentences step over one that meets withdrawn (the kept
// document's text a stored collection's dedup cut, sorted and merged:
// Plan.Stored): each part runs from an aligned sentence to an aligned
// sentence, so that no kept range holds text that dedup cut.
func SplitWithdrawn(runs []Run, match []int, k []Sentence, withdrawn []Range) []Run {
	if len(withdrawn) == 0 {
		return runs
	}
	gone := func(s Sentence) bool { return Meets(withdrawn, s.Range()) }
	var b runBuilder
	for _, r := range runs {
		for i := r.First; i <= r.Last; i++ {
			j := match[i]
			if j < 0 {
				continue
			}
			if b.on && slices.ContainsFunc(k[b.cur.KeptLast+1:max(j, b.cur.KeptLast+1)], gone) {
				b.flush()
			}
			b.add(i, j)
		}
		b.flush()
	}
	return b.out
}

// runBuilder builds runs of aligned sentences, one sentence at a time:
// a run starts at the first aligned sentence added after a flush and ends
// at the last added before the next.
type runBuilder struct {
	out []Run
	cur Run
	on  bool // cur holds a sentence
}

// add adds sentence i, aligned to kept sentence j, to the current run.
func (b *runBuilder) add(i, j int) {
	if !b.on {
		b.cur, b.on = Run{First: i, KeptFirst: j}, true
	}
	b.cur.Last, b.cur.KeptLast = i, j
}

// flush ends the current run, if any.
func (b *runBuilder) flush() {
	if b.on {
		b.out = append(b.out, b.cur)
		b.on = false
	}
}

// Held returns the share of the words of the sentences cut that the
// sentences kept hold, each word as often as it occurs: a word the cut
// sentences have three times and the kept ones once is held once (1 when
// cut has no words). A line repeated with another name or number, as
// generated text and listings repeat it, is not held by one copy of it.
func Held(cut, kept []Sentence) float64 {
	c, k := bagOf(cut), bagOf(kept)
	if len(c) == 0 {
		return 1
	}
	return float64(signature.Overlap(c, k)) / float64(len(c))
}

// bagOf returns the words of ss as often as they occur, sorted.
func bagOf(ss []Sentence) []uint64 {
	if len(ss) == 1 {
		return ss[0].Bag
	}
	var b []uint64
	for _, s := range ss {
		b = append(b, s.Bag...)
	}
	slices.Sort(b)
	return b
}

// MaxBridge is the most sentences with words of their own that Bridge
// steps over between two runs.
const MaxBridge = 2

// Bridge joins consecutive runs of a removed member (m, aligned to the
// kept member's sentences k) across the unaligned sentences between them
// when there are at most MaxBridge of them that match, none is stopped
// (as in Runs), the second run's kept sentences follow the
// first's, and the kept sentences where the two meet (the first's last,
// the second's first and those between, at most MaxBridge + 3) hold the
// words of each sentence stepped over (Sentence.holds): Align pairs sentences one to one, and a
// sentence an edited copy rewrote (its words kept, reordered, or spread
// over two sentences) would otherwise cut the copy in two and stay as if
// it were the copy's own.
func Bridge(m, k []Sentence, runs []Run, stop func(i int) bool) []Run {
	if len(runs) < 2 {
		return runs
	}
	out := runs[:1]
	for _, r := range runs[1:] {
		p := &out[len(out)-1]
		if bridgeable(m, k, *p, r, stop) {
			p.Last, p.KeptLast = r.Last, r.KeptLast
			continue
		}
		out = append(out, r)
	}
	return out
}

func bridgeable(m, k []Sentence, a, b Run, stop func(i int) bool) bool {
	if b.KeptFirst <= a.KeptLast {
		return false
	}
	n := 0
	for i := a.Last + 1; i < b.First; i++ {
		if stop(i) {
			return false
		}
		if m[i].Match {
			if n++; n > MaxBridge {
				return false
			}
		}
	}
	if n == 0 {
		return true
	}
	// The kept sentences where the two runs meet: a sentence stepped over
	// is the copy's rewrite of what lies there, not of the whole passage
	// (nor of a stretch of it the copy left out).
	if b.KeptFirst-a.KeptLast > MaxBridge+2 {
		return false
	}
	kept := bagOf(k[a.KeptLast : b.KeptFirst+1])
	for i := a.Last + 1; i < b.First; i++ {
		if m[i].Match && !m[i].holds(kept) {
			return false
		}
	}
	return true
}

// Range returns the sentence's characters.
func (s Sentence) Range() Range { return Range{Start: s.Start, End: s.End} }
