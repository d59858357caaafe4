package dedup

import "github.com/pdc-mr/pdc/lib/cluster"

// The rules of Keep.Rule: which member of a cluster pdc dedup keeps.
const (
	KeepFirst    = "first"    // the earliest in input order (a cluster's first member)
	KeepLongest  = "longest"  // the one of the longest document
	KeepEarliest = "earliest" // the one of the document with the smallest date
)

// Keep chooses the kept member of each cluster (pdc dedup --keep).
type Keep struct {
	// Rule is KeepFirst, KeepLongest or KeepEarliest.
	Rule string
	// Batch holds the ids of a batch run's own documents, nil for a run
	// of its own: a cluster then keeps a member of a stored document when
	// it has one, one whose text the stored dedup cut nothing from
	// (Withdrawn) before one it cut from, and applies Rule among those.
	Batch map[string]bool
	// Withdrawn is what the stored runs' dedup cut, by document.
	Withdrawn map[string][]Range
}

// Choose returns the index of the kept member of each cluster of cs (ties:
// the first), given the documents' lengths in characters (KeepLongest) or
// dates (KeepEarliest, compared as text; a document without one comes
// last), and for KeepEarliest the number of the clusters' documents
// without a date.
func (k Keep) Choose(cs []cluster.Cluster, lengths map[string]int, dates map[string]string) (kept []int, undated int) {
	kept = make([]int, len(cs))
	if k.Rule == KeepFirst && k.Batch == nil {
		return kept, 0
	}
	better := func(a, b string) bool { return false } // document a's member beats b's
	switch k.Rule {
	case KeepLongest:
		better = func(a, b string) bool { return lengths[a] > lengths[b] }
	case KeepEarliest:
		seen := map[string]bool{}
		for _, c := range cs {
			for _, mem := range c.Members {
				if _, ok := dates[mem.Doc]; !ok && !seen[mem.Doc] {
					seen[mem.Doc] = true
					undated++
				}
			}
		}
		better = func(a, b string) bool {
			da, oka := dates[a]
			db, okb := dates[b]
			return oka && (!okb || da < db)
		}
	}
	for i, c := range cs {
		for j := 1; j < len(c.Members); j++ {
			x, y := &c.Members[j], &c.Members[kept[i]]
			if rx, ry := k.storedRank(x), k.storedRank(y); rx != ry {
				if rx > ry {
					kept[i] = j
				}
				continue
			}
			if better(x.Doc, y.Doc) {
				kept[i] = j
			}
		}
	}
	return kept, undated
}

// storedRank ranks a member for the kept one of a batch run's cluster: a
// stored document's member whose text the stored dedup cut nothing from
// first (2), then one it cut from (1), then the batch's (0); 0 for every
// member of a run of its own.
func (k Keep) storedRank(m *cluster.Member) int {
	switch {
	case k.Batch == nil || k.Batch[m.Doc]:
		return 0
	case Meets(k.Withdrawn[m.Doc], Range{Start: m.CharStart, End: m.CharEnd}):
		return 1
	}
	return 2
}
