// Package diagonal finds runs of consecutive duplicated sentence pairs
// between two documents: the sequence matching step of PDC-MR
// (Algorithm 2). Duplicated sentence pairs (a, b) are dots in the
// sentence-by-sentence matrix of documents A and B; a reused passage is a
// diagonal (a, b), (a+1, b+1), ..., (a+n-1, b+n-1).
package diagonal

import (
	"cmp"
	"slices"
)

// Pair is one duplicated sentence pair: sentence A of the first document,
// sentence B of the second, and their similarity.
type Pair struct {
	A, B  int
	Score float64
}

// Run is a diagonal: sentences StartA..StartA+Length-1 of the first
// document match StartB..StartB+Length-1 of the second. First and Last index
// the run's first and last pair in the slice given to Find (after Find
// sorted it). Score is the mean score of its pairs.
type Run struct {
	StartA, StartB, Length int
	First, Last            int
	Score                  float64
}

// Find sorts pairs and returns every maximal diagonal of at least minLen
// pairs, ordered by (StartA, StartB). Each pair belongs to at most one run.
// Duplicate pairs (same A and B) are merged, keeping the highest score.
func Find(pairs []Pair, minLen int) ([]Pair, []Run) {
	slices.SortFunc(pairs, func(x, y Pair) int {
		if c := cmp.Compare(x.A-x.B, y.A-y.B); c != 0 {
			return c
		}
		if c := cmp.Compare(x.A, y.A); c != 0 {
			return c
		}
		return cmp.Compare(y.Score, x.Score)
	})
	pairs = slices.CompactFunc(pairs, func(x, y Pair) bool { return x.A == y.A && x.B == y.B })
	var runs []Run
	for i := 0; i < len(pairs); {
		j := i + 1
		for j < len(pairs) && pairs[j].A == pairs[j-1].A+1 && pairs[j].B == pairs[j-1].B+1 {
			j++
		}
		if j-i >= max(minLen, 1) {
			sum := 0.0
			for _, p := range pairs[i:j] {
				sum += p.Score
			}
			runs = append(runs, Run{
				StartA: pairs[i].A, StartB: pairs[i].B, Length: j - i,
				First: i, Last: j - 1, Score: sum / float64(j-i),
			})
		}
		i = j
	}
	slices.SortFunc(runs, func(x, y Run) int {
		if c := cmp.Compare(x.StartA, y.StartA); c != 0 {
			return c
		}
		return cmp.Compare(x.StartB, y.StartB)
	})
	return pairs, runs
}
