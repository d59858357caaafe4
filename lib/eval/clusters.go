package eval

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/cluster"
)

// ClusterStats says how planted cases fall into passage clusters
// (lib/cluster): a case is clustered when one cluster has a member in its
// suspicious document overlapping the planted passage and one in its source
// overlapping the copied one. A planted source passage (the cases whose
// source ranges overlap: one per target it was planted into, or more for a
// reordered run) is whole when
// one cluster holds it and every copy, and exact when that cluster also
// holds no other document (k copies: k+1 documents).
type ClusterStats struct {
	Cases          int `json:"cases"`
	CasesClustered int `json:"cases_clustered"`
	Passages       int `json:"passages"`
	PassagesWhole  int `json:"passages_whole"`
	PassagesExact  int `json:"passages_exact"`
}

// Clusters scores clusters against cases.
func Clusters(cases []Case, cs []cluster.Cluster) ClusterStats {
	type at struct{ c, start, end int }
	byDoc := map[string][]at{}
	for i, c := range cs {
		for _, m := range c.Members {
			byDoc[m.Doc] = append(byDoc[m.Doc], at{i, m.CharStart, m.CharEnd})
		}
	}
	// in returns the clusters with a member of doc overlapping [start, start+n).
	in := func(doc string, start, n int) map[int]bool {
		out := map[int]bool{}
		for _, a := range byDoc[doc] {
			if a.start < start+n && start < a.end {
				out[a.c] = true
			}
		}
		return out
	}
	st := ClusterStats{Cases: len(cases)}
	for _, c := range cases {
		src, susp := in(c.Src, c.SrcStart, c.SrcLen), in(c.Susp, c.SuspStart, c.SuspLen)
		for k := range src {
			if susp[k] {
				st.CasesClustered++
				break
			}
		}
	}
	// A planted passage: the cases whose source ranges overlap (the parts
	// of a reordered run, split anew in each copy, are one passage).
	sorted := slices.Clone(cases)
	slices.SortFunc(sorted, func(a, b Case) int {
		return cmp.Or(strings.Compare(a.Src, b.Src), cmp.Compare(a.SrcStart, b.SrcStart))
	})
	var groups [][]Case
	end := 0
	for i, c := range sorted {
		if i == 0 || c.Src != sorted[i-1].Src || c.SrcStart >= end {
			groups = append(groups, nil)
			end = 0
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], c)
		end = max(end, c.SrcStart+c.SrcLen)
	}
	st.Passages = len(groups)
	for _, g := range groups {
		var cands map[int]bool
		for _, c := range g {
			src := in(c.Src, c.SrcStart, c.SrcLen)
			if cands == nil {
				cands = src
			}
			for k := range cands {
				if !src[k] {
					delete(cands, k)
				}
			}
		}
		for _, c := range g {
			susp := in(c.Susp, c.SuspStart, c.SuspLen)
			for k := range cands {
				if !susp[k] {
					delete(cands, k)
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		st.PassagesWhole++
		docs := map[string]bool{g[0].Src: true}
		for _, c := range g {
			docs[c.Susp] = true
		}
		for k := range cands {
			if cs[k].Size == len(docs) {
				st.PassagesExact++
				break
			}
		}
	}
	return st
}

// Targets are the cluster quality targets: at least 99% of the cases with
// both passages in one cluster, and of the planted passages in one cluster
// with all their copies; 95% of them in a cluster of no other document
// (the sources quote each other now and then).
func (s ClusterStats) Targets() []Target {
	return []Target{
		{Name: "cases in one cluster", Value: Share(s.CasesClustered, s.Cases), Bound: 0.99, Missing: s.Cases == 0},
		{Name: "planted passages in one cluster with all copies", Value: Share(s.PassagesWhole, s.Passages), Bound: 0.99, Missing: s.Passages == 0},
		{Name: "planted passages in a cluster of exactly their documents", Value: Share(s.PassagesExact, s.Passages), Bound: 0.95, Missing: s.Passages == 0},
	}
}

// Share is n/d, 0 when d is 0.
func Share(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
