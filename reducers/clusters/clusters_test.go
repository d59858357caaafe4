package clusters

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/sketch"
	clustermap "github.com/pdc-mr/pdc/mappers/clusters"
)

// run runs f on the lines in and returns its output lines and counters.
func run(t *testing.T, f mr.Func, in []string) ([]string, map[string]int64) {
	t.Helper()
	var out, errb bytes.Buffer
	task := &mr.Task{Stdin: strings.NewReader(strings.Join(in, "")), Stdout: &out, Stderr: &errb}
	if err := f(task); err != nil {
		t.Fatal(err)
	}
	c := map[string]int64{}
	for _, l := range strings.Split(errb.String(), "\n") {
		if _, n, v, ok := mr.ParseCounterLine([]byte(l)); ok {
			c[n] += v
		}
	}
	lines := strings.SplitAfter(out.String(), "\n")
	return lines[:len(lines)-1], c
}

// mapReduce runs a job in one reduce task: the map output sorted by key
// (the first keyFields fields' bytes), stably, as the runner and Hadoop
// group it.
func mapReduce(t *testing.T, mapper, reducer mr.Func, keyFields int, in []string) ([]string, map[string]int64) {
	t.Helper()
	mid, _ := run(t, mapper, in)
	slices.SortStableFunc(mid, func(a, b string) int {
		ka, _ := mr.SplitKey([]byte(strings.TrimSuffix(a, "\n")), keyFields)
		kb, _ := mr.SplitKey([]byte(strings.TrimSuffix(b, "\n")), keyFields)
		return bytes.Compare(ka, kb)
	})
	return run(t, reducer, mid)
}

// clustersOf runs the cluster jobs on spans and parsed-document records
// and returns the clusters and the number of rounds.
func clustersOf(t *testing.T, in []string) ([]cluster.Cluster, int) {
	t.Helper()
	passages, _ := mapReduce(t, clustermap.Passages, Passages, clustermap.PassagesKeyFields, in)
	edges, _ := mapReduce(t, clustermap.Edges, Edges, clustermap.EdgesKeyFields, passages)
	// The components job ends where the rounds end, in one job.
	once, _ := mapReduce(t, clustermap.Components, Components, 1, edges)
	rounds := 0
	for changed := int64(-1); changed != 0; {
		if rounds++; rounds > 64 {
			t.Fatal("no convergence in 64 rounds")
		}
		var c1, c2 map[string]int64
		edges, c1 = mapReduce(t, clustermap.LargeStar, LargeStar, clustermap.StarKeyFields, edges)
		edges, c2 = mapReduce(t, clustermap.SmallStar, SmallStar, clustermap.StarKeyFields, edges)
		changed = c1[Changed] + c2[Changed]
	}
	if a, b := sortedLines(once), sortedLines(edges); !slices.Equal(a, b) {
		t.Fatalf("components job:\n%s\nthe rounds:\n%s", strings.Join(a, ""), strings.Join(b, ""))
	}
	out, _ := mapReduce(t, clustermap.Clusters, Clusters, clustermap.StarKeyFields, edges)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "part-00000"), []byte(strings.Join(out, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := cluster.Read(hdfsfs.Local(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return cs, rounds
}

// sortedLines returns the distinct lines of records, sorted.
func sortedLines(records []string) []string {
	var lines []string
	for _, r := range records {
		for _, l := range strings.SplitAfter(r, "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

type end struct {
	doc    int
	cs, ce int
}

// TestClustersModel checks the cluster jobs against a union-find model on
// random span graphs (and the components job against the star rounds): ends of a span are one cluster, ends of a document
// that coincide (Coincides) are one passage; a cluster's members are the unions of its
// overlapping ends per document, the first of the document that comes
// first in the input.
func TestClustersModel(t *testing.T) {
	maxRounds := 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		ndocs := 2 + rng.IntN(40)
		nspans := rng.IntN(3 * ndocs)
		order := rng.Perm(ndocs) // input order of the documents
		var in []string
		for d := range ndocs {
			url := fmt.Sprintf("https://h%d.example/p", d)
			if d%3 == 0 {
				url = ""
			}
			in = append(in, fmt.Sprintf("doc %02d\tin.jsonl@%016d\t%s\t9\tAAAA\n", d, order[d], url))
		}
		var ends []end
		for range nspans {
			a, b := rng.IntN(ndocs), rng.IntN(ndocs)
			if a == b {
				continue
			}
			if a > b {
				a, b = b, a
			}
			ea, eb := randomEnd(rng, a, ends), randomEnd(rng, b, ends)
			ends = append(ends, ea, eb)
			in = append(in, fmt.Sprintf("doc %02d\tdoc %02d\t%d\t%d\t3\t%d\t%d\t%d\t%d\t0.9000\n", a, b, ea.cs/10, eb.cs/10, ea.cs, ea.ce, eb.cs, eb.ce))
		}
		rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		got, rounds := clustersOf(t, in)
		maxRounds = max(maxRounds, rounds)
		want := model(ends, order)
		if g, w := describe(got), want; !slices.Equal(g, w) {
			t.Fatalf("seed %d: clusters\n%s\nwant\n%s", seed, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
	t.Logf("at most %d rounds", maxRounds)
}

// randomEnd returns an end in document d: half of the time one that
// coincides with, overlaps or nests in an end of d made before.
func randomEnd(rng *rand.Rand, d int, before []end) end {
	var prev []end
	for _, e := range before {
		if e.doc == d {
			prev = append(prev, e)
		}
	}
	if len(prev) == 0 || rng.IntN(2) == 0 {
		e := end{d, rng.IntN(300), 0}
		e.ce = e.cs + 1 + rng.IntN(60)
		return e
	}
	e := prev[rng.IntN(len(prev))]
	n := e.ce - e.cs
	e.cs = max(0, e.cs+rng.IntN(n/2+1)-n/4)
	e.ce = max(e.cs+1, e.ce+rng.IntN(n/2+1)-n/4)
	return e
}

// describe renders clusters as sorted lines `size: doc:cs-ce ...` with
// members in order.
func describe(cs []cluster.Cluster) []string {
	var out []string
	for _, c := range cs {
		s := fmt.Sprintf("%d:", c.Size)
		for _, m := range c.Members {
			s += fmt.Sprintf(" %s:%d-%d", m.Doc, m.CharStart, m.CharEnd)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// model computes describe's lines by union-find.
func model(ends []end, order []int) []string {
	parent := make([]int, len(ends))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(i, j int) { parent[find(i)] = find(j) }
	for i := 0; i < len(ends); i += 2 {
		union(i, i+1)
	}
	// Ends of one document coincide with the first end of a passage
	// (Coincides), taken in start order, the most
	// similar first passage winning (the earliest among equals).
	idx := make([]int, len(ends))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		a, b := ends[i], ends[j]
		if a.doc != b.doc {
			return a.doc - b.doc
		}
		if a.cs != b.cs {
			return a.cs - b.cs
		}
		return a.ce - b.ce
	})
	var firsts []int        // first ends of the passages so far
	anchor := map[int]end{} // each passage's longest end, by its first end
	assign := map[int]int{} // each end's passage, by its first end
	ext := map[int]end{}    // a passage's extent, by its first end
	for _, i := range idx {
		best, bestSim := -1, 0.0
		for _, f := range firsts {
			if ends[f].doc != ends[i].doc {
				continue
			}
			a := anchor[f]
			if sim := RangeJaccard(a.cs, a.ce, ends[i].cs, ends[i].ce); Coincides(a.cs, a.ce, ends[i].cs, ends[i].ce) && sim > bestSim {
				best, bestSim = f, sim
			}
		}
		if best < 0 {
			firsts = append(firsts, i)
			best = i
			ext[i] = ends[i]
			anchor[i] = ends[i]
		}
		assign[i] = best
		union(i, best)
		e := ext[best]
		e.ce = max(e.ce, ends[i].ce)
		ext[best] = e
		if a := anchor[best]; ends[i].ce-ends[i].cs > a.ce-a.cs {
			anchor[best] = ends[i]
		}
	}
	comps := map[int][]end{}
	for i := range ends {
		comps[find(i)] = append(comps[find(i)], ext[assign[i]])
	}
	var out []string
	for _, es := range comps {
		// members: per document (in input order), the unions of
		// overlapping ends, by start.
		slices.SortFunc(es, func(a, b end) int {
			if order[a.doc] != order[b.doc] {
				return order[a.doc] - order[b.doc]
			}
			if a.cs != b.cs {
				return a.cs - b.cs
			}
			return a.ce - b.ce
		})
		var members []end
		docs := 0
		for _, e := range es {
			if n := len(members); n > 0 && members[n-1].doc == e.doc && e.cs < members[n-1].ce {
				members[n-1].ce = max(members[n-1].ce, e.ce)
				continue
			}
			if n := len(members); n == 0 || members[n-1].doc != e.doc {
				docs++
			}
			members = append(members, e)
		}
		s := fmt.Sprintf("%d:", docs)
		for _, m := range members {
			s += fmt.Sprintf(" doc %02d:%d-%d", m.doc, m.cs, m.ce)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// wordsOf returns a sketch of the words numbered ids.
func wordsOf(ids ...int) sketch.Sketch {
	var ws []uint64
	for _, id := range ids {
		ws = append(ws, uint64(id+1)*0x9E3779B97F4A7C15)
	}
	return sketch.Of(ws, nil)
}

func seq(from, n int) []int {
	var out []int
	for i := range n {
		out = append(out, from+i)
	}
	return out
}

// TestTexts checks Texts on random components of sets of at most
// sketch.K words (exact shares): the member that stands for a text is its
// first; every member shares MinShared of the smaller with it, or (a
// member that would be alone) MinAloneExact with an earlier text's; no two
// texts' first members share MinShared, and no member is alone that
// shares MinAloneExact with an earlier text (when every member may start a
// text); at most maxTexts texts of more than one member are started.
func TestTexts(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 9))
		n := 1 + rng.IntN(30)
		maxTexts := n
		if seed%3 == 0 {
			maxTexts = 1 + rng.IntN(8)
		}
		words := make([]sketch.Sketch, n)
		for i := range words {
			words[i] = wordsOf(seq(rng.IntN(60), 1+rng.IntN(sketch.K))...)
		}
		at := Texts(words, maxTexts, nil)
		share := func(i, j int) float64 { return sketch.Shared(words[i], words[j]) }
		size := map[int]int{}
		for _, f := range at {
			size[f]++
		}
		for i, f := range at {
			switch {
			case at[f] != f || f > i:
				t.Fatalf("seed %d: member %d in the text of %d, which does not stand for it first", seed, i, f)
			case f != i && share(i, f) < MinShared && share(i, f) < MinAloneExact:
				t.Fatalf("seed %d: member %d in the text of %d at share %.2f", seed, i, f, share(i, f))
			case f == i && size[i] == 1 && maxTexts == n:
				for g := range i {
					if at[g] == g && share(i, g) >= MinAloneExact {
						t.Fatalf("seed %d: member %d alone though it shares %.2f with text %d", seed, i, share(i, g), g)
					}
				}
			}
		}
		texts := 0
		for r := range at {
			if at[r] != r || size[r] < 2 {
				continue
			}
			texts++
			for g := range r {
				if maxTexts == n && at[g] == g && size[g] > 1 && share(r, g) >= MinShared {
					t.Fatalf("seed %d: texts %d and %d share %.2f", seed, g, r, share(r, g))
				}
			}
		}
		if texts > maxTexts {
			t.Fatalf("seed %d: %d texts, at most %d", seed, texts, maxTexts)
		}
	}
}

// TestClustersSplitChain runs the cluster jobs on a chain of passages,
// each an edit of the one before (A -> B -> C -> D, 30 words each, 8
// replaced at each hop, so that each shares 73% of the words of the one
// before, C 47% of A's): one component, two texts, A with B and C with D;
// a fifth passage linked to A that shares a sixth of its words is in
// neither.
func TestClustersSplitChain(t *testing.T) {
	var in []string
	words := seq(0, 30)
	for d := range 4 {
		tokens := make([]uint64, len(words))
		for i, w := range words {
			tokens[i] = uint64(w+1) * 0x9E3779B97F4A7C15
		}
		blob, _ := doc.AppendBlob(nil, nil, []doc.Sentence{{Start: 0, End: 100, Tokens: tokens}, {Start: 101, End: 150, Tokens: []uint64{1}}})
		in = append(in, fmt.Sprintf("doc%d\tin.jsonl@%016d\t-\t2\t%s\n", d, d, blob))
		words = append(slices.Clone(words[8:]), seq(100*(d+1), 8)...)
	}
	for d := range 3 {
		in = append(in, fmt.Sprintf("doc%d\tdoc%d\t0\t0\t1\t0\t100\t0\t100\t0.7000\n", d, d+1))
	}
	// doc4 shares a sixth of A's words, and nothing with C: alone.
	var tokens []uint64
	for _, w := range append(seq(0, 5), seq(300, 25)...) {
		tokens = append(tokens, uint64(w+1)*0x9E3779B97F4A7C15)
	}
	blob, _ := doc.AppendBlob(nil, nil, []doc.Sentence{{Start: 0, End: 100, Tokens: tokens}})
	in = append(in, fmt.Sprintf("doc4\tin.jsonl@%016d\t-\t1\t%s\n", 4, blob), "doc0\tdoc4\t0\t0\t1\t0\t100\t0\t100\t0.6000\n")
	cs, _ := clustersOf(t, in)
	if got, want := describe(cs), []string{"2: doc0:0-100 doc1:0-100", "2: doc2:0-100 doc3:0-100"}; !slices.Equal(got, want) {
		t.Errorf("clusters %q, want %q", got, want)
	}
}

// TestTextsAlone checks the threshold at which a member that would be alone
// joins a text: an exact share (both sets of at most sketch.K words) must
// be one half (MinAloneExact), an estimated one MinAlone.
func TestTextsAlone(t *testing.T) {
	mix := func(from, shared, other int) sketch.Sketch {
		return wordsOf(append(seq(from, shared), seq(1000, other)...)...)
	}
	for _, tc := range []struct {
		name  string
		a, b  sketch.Sketch
		joins bool
	}{
		{"exact 0.45", wordsOf(seq(0, 20)...), mix(0, 9, 11), false},
		{"exact 0.50", wordsOf(seq(0, 20)...), mix(0, 10, 10), true},
		{"estimated 0.4-0.5", wordsOf(seq(0, 200)...), mix(0, 90, 110), true},
		{"estimated 0.15", wordsOf(seq(0, 200)...), mix(0, 30, 170), false},
	} {
		sh := sketch.Shared(tc.a, tc.b)
		if exact := sketch.Exact(tc.a, tc.b); !exact && tc.joins && (sh < MinAlone || sh >= MinAloneExact) {
			t.Fatalf("%s: estimated share %.3f, want one in [MinAlone, MinAloneExact) for the case to test", tc.name, sh)
		}
		at := Texts([]sketch.Sketch{tc.a, tc.a, tc.b}, MaxTexts, nil)
		if joins := at[2] == 0; joins != tc.joins {
			t.Errorf("%s (share %.3f): member joins the text: %v, want %v", tc.name, sh, joins, tc.joins)
		}
	}
}
