package plant

import (
	"strings"
)

// edit applies class to the n sentences of src starting at start. It returns
// the planted parts, in planting order, and for each part the half-open
// range of source sentence indexes it was copied from.
func (b *builder) edit(class string, src *document, start, n int, p *pool) ([]string, [][2]int) {
	ss := make([]string, n)
	gaps := make([]string, n-1) // gaps[k]: source text between sentences k and k+1
	for k := range n {
		ss[k] = src.sentence(start + k)
		if k > 0 {
			gaps[k-1] = string(src.text[src.sents[start+k-1].hi:src.sents[start+k].lo])
		}
	}
	whole := [][2]int{{start, start + n}}
	switch class {
	case Light:
		for k := range ss {
			ss[k] = b.ed.light(ss[k])
		}
	case WordEdits:
		for k := range ss {
			ss[k] = b.ed.wordEdits(ss[k])
		}
	case SentenceRewritten:
		// An inner sentence, as for SentenceDropped: rewriting the first
		// or last one would leave a shorter verbatim copy while the case
		// claims a sentence that was not copied.
		j := 1 + b.rng.IntN(n-2)
		ss[j] = b.otherSentence(p, src, ss[j])
	case SentenceDropped:
		j := 1 + b.rng.IntN(n-2)
		// Drop sentence j and the weaker of the gaps around it, so that the
		// boundary between sentences j-1 and j+1 stays as clear as either
		// of the source boundaries.
		ss = append(ss[:j:j], ss[j+1:]...)
		if gapStrength(gaps[j-1]) > gapStrength(gaps[j]) {
			gaps[j] = gaps[j-1]
		}
		gaps = append(gaps[:j-1:j-1], gaps[j:]...)
	case Edits10, Edits20, Edits30:
		for k := range ss {
			ss[k] = b.ed.ratedSentence(ss, gaps, k, editRate[class], src.zh)
		}
	case MergeSplit:
		ss, gaps = b.ed.mergeSplit(ss, gaps, src.zh)
	case Reordered:
		// Both parts get at least MinRun sentences when the run allows.
		lo := max(1, min(b.cfg.MinRun, n/2))
		k := lo + b.rng.IntN(n-2*lo+1)
		first := join(ss[:k], gaps[:k-1])
		second := join(ss[k:], gaps[k:])
		return []string{second, first}, [][2]int{{start + k, start + n}, {start, start + k}}
	}
	return []string{join(ss, gaps)}, whole
}

// gapStrength ranks separators: a line break beats a space beats nothing.
func gapStrength(g string) int {
	switch {
	case strings.Contains(g, "\n"):
		return 2
	case g != "":
		return 1
	}
	return 0
}

// join interleaves sentences and the gaps between them.
func join(ss, gaps []string) string {
	var sb strings.Builder
	for k, s := range ss {
		if k > 0 {
			sb.WriteString(gaps[k-1])
		}
		sb.WriteString(s)
	}
	return sb.String()
}

// otherSentence returns a random clean sentence, different from old, of a
// document of the pool that is neither src nor a target (falling back to the
// other sources); if there is none, old with word edits.
func (b *builder) otherSentence(p *pool, src *document, old string) string {
	docs := p.others
	if len(docs) == 0 {
		docs = p.sources
	}
	for range 50 {
		d := docs[b.rng.IntN(len(docs))]
		if d == src || len(d.sents) == 0 {
			continue
		}
		k := b.rng.IntN(len(d.sents))
		if d.goodRun[k] > 0 {
			// A sentence opening with a quote or bracket could be read as
			// closing the previous one when no space separates them.
			if s := d.sentence(k); s != old && !isCloser([]rune(s)[0]) {
				return s
			}
		}
	}
	return b.ed.wordEdits(old)
}
