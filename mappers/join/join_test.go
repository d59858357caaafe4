package join

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
)

// TestSortBySize checks the counting sort against a stable sort by size,
// for dense and sparse sizes, over reused buffers.
func TestSortBySize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var ps, spare []Posting
	for round := range 200 {
		ps = ps[:0]
		maxN := 1 + rng.IntN(20)
		if round%5 == 0 {
			maxN = 10000 // sparse: the comparison sort
		}
		for i := range rng.IntN(300) {
			ps = append(ps, Posting{NSig: 1 + rng.IntN(maxN), Sent: []byte(fmt.Sprint(i))})
		}
		want := slices.Clone(ps)
		slices.SortStableFunc(want, func(x, y Posting) int { return cmp.Compare(x.NSig, y.NSig) })
		ps, spare = sortBySize(ps, spare[:0])
		if len(ps) != len(want) {
			t.Fatalf("round %d: %d postings, want %d", round, len(ps), len(want))
		}
		for i := range want {
			if ps[i].NSig != want[i].NSig || string(ps[i].Sent) != string(want[i].Sent) {
				t.Fatalf("round %d: posting %d is (%d, %s), want (%d, %s)", round, i, ps[i].NSig, ps[i].Sent, want[i].NSig, want[i].Sent)
			}
		}
	}
}

func TestParsePosting(t *testing.T) {
	tests := []struct {
		in       string
		prefixed bool
		ok       bool
	}{
		{"0000001,3,0,10,-,doc,with,commas", false, true},
		{"0000001,3,0,10,abcd1234,1,BAB,d", true, true},  // u=1, ranks 0 and 1
		{"0000001,3,0,10,abcd1234,0,BAB,d", true, false}, // pos before the shared tokens
		{"0000001,4,0,10,abcd1234,1,BAB,d", true, false}, // set size != nsig
		{"0000001,3,0,10,abcd1234,3,BAB,d", true, false}, // pos past the set
		{"0000001,x,0,10,-,d", false, false},
		{"0000001,3,0,10", false, false},
	}
	for _, tt := range tests {
		p, _, err := ParsePosting([]byte(tt.in), tt.prefixed, nil)
		if (err == nil) != tt.ok {
			t.Errorf("ParsePosting(%q) = %+v, %v; want ok %v", tt.in, p, err, tt.ok)
		}
	}
}

// TestNumberDocs: postings of one document get one number, whether the
// list is sorted by document (the index reducer's order) or not.
func TestNumberDocs(t *testing.T) {
	var docs map[string]int
	for _, list := range [][]string{
		{"a", "a", "b", "c", "c", "c"},
		{"b", "a", "b", "c", "a"}, // not sorted: numbered through the map
		{"x"},
		{},
	} {
		ps := make([]Posting, len(list))
		for i, d := range list {
			ps[i].Doc = []byte(d)
		}
		var n int
		n, docs = numberDocs(ps, docs)
		distinct := map[string]bool{}
		for _, d := range list {
			distinct[d] = true
		}
		if n != len(distinct) {
			t.Errorf("%q: %d documents, want %d", list, n, len(distinct))
		}
		for i := range ps {
			for j := range ps {
				if same := list[i] == list[j]; same != (ps[i].docNo == ps[j].docNo) {
					t.Errorf("%q: postings %d (%s) and %d (%s) numbered %d and %d", list, i, list[i], j, list[j], ps[i].docNo, ps[j].docNo)
				}
			}
		}
	}
}

func runMap(env map[string]string, in string) (string, error) {
	var out, errb bytes.Buffer
	err := Map(&mr.Task{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	return out.String(), err
}

// TestMapSameDoc: a posting without document id is of the document of the
// posting before it (reducers/index writes lists so); the pairs are those
// of the list with every id written out. A list cannot start with one.
func TestMapSameDoc(t *testing.T) {
	env := map[string]string{"PDC_SIGNATURE": "shingle", "PDC_TAU": "0.9"}
	full := "k\tP\t5\t0000001,4,0,9,-,doc/a\t0000003,4,20,29,-,doc/a\t0000002,4,0,9,-,doc/b\t0000007,4,50,59,-,doc/b\t0000001,4,0,9,-,doc/c\n"
	short := "k\tP\t5\t0000001,4,0,9,-,doc/a\t0000003,4,20,29,-,\t0000002,4,0,9,-,doc/b\t0000007,4,50,59,-,\t0000001,4,0,9,-,doc/c\n"
	want, err := runMap(env, full)
	if err != nil {
		t.Fatal(err)
	}
	// a-b: 2x2 pairs, a-c: 2, b-c: 2, in three document-pair lines.
	if n := strings.Count(want, "\n"); n != 3 || strings.Count(want, "\t") != 3*1+8 {
		t.Fatalf("pairs of the full list:\n%s", want)
	}
	got, err := runMap(env, short)
	if err != nil || got != want {
		t.Errorf("same-document postings: %q, %v; want %q", got, err, want)
	}
	if _, err := runMap(env, "k\tP\t2\t0000001,4,0,9,-,\t0000002,4,0,9,-,doc/b\n"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("list starting without an id: err %v, want one naming line 1", err)
	}
}

// TestMapHubs: a list of more documents than PDC_HUB_DF pairs each posting
// with its list's first document (the hub) only; at or under it, every
// pair is emitted.
func TestMapHubs(t *testing.T) {
	var list strings.Builder
	list.WriteString("k\tP\t6")
	for i := range 6 {
		fmt.Fprintf(&list, "\t0000001,4,0,9,-,doc/%d", i)
	}
	list.WriteString("\n")
	for _, tt := range []struct {
		hubDF string
		pairs int
		hub   bool
	}{
		{"0", 15, false},
		{"6", 15, false},
		{"5", 5, true},
		{"2", 5, true},
	} {
		env := map[string]string{"PDC_SIGNATURE": "shingle", "PDC_TAU": "0.9", "PDC_HUB_DF": tt.hubDF}
		got, err := runMap(env, list.String())
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) != tt.pairs {
			t.Errorf("hub-df %s: %d document pairs, want %d:\n%s", tt.hubDF, len(lines), tt.pairs, got)
			continue
		}
		for _, l := range lines {
			if tt.hub && !strings.HasPrefix(l, "doc/0\t") {
				t.Errorf("hub-df %s: pair %q is not with the hub doc/0", tt.hubDF, l)
			}
		}
	}
}

// wordsPosting is a words posting of doc in a list of token rank 0 (the
// first of every set here) with the shared ranks given.
func wordsPosting(doc string, ranks ...uint64) string {
	set := make([]uint64, len(ranks))
	for i, r := range ranks {
		set[i] = r | signature.Shared
	}
	return fmt.Sprintf("\t0000001,%d,0,9,-,0,%s,%s", len(set), signature.AppendSet(nil, set), doc)
}

// docPairs parses the join's output into its document pairs.
func docPairs(t *testing.T, out string) map[[2]string]bool {
	t.Helper()
	pairs := map[[2]string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) < 3 || f[0] >= f[1] {
			t.Fatalf("malformed pair line %q", l)
		}
		pairs[[2]string{f[0], f[1]}] = true
	}
	return pairs
}

// TestMapHubLeftover: a long list of varied sentences is no list of copies:
// the first pass of hubs pairs none of them, so the list's sets are all
// joined pairwise, as a short list is. The 20 copies after 1100 other
// sentences are one set, its copies all paired with each other (20
// documents, under --hub-df): nothing is left out.
func TestMapHubLeftover(t *testing.T) {
	var list strings.Builder
	const others, copies = 1100, 20
	fmt.Fprintf(&list, "k\tP\t%d", others+copies)
	for i := range others {
		list.WriteString(wordsPosting(fmt.Sprintf("other/%04d", i), 0, uint64(100+3*i), uint64(101+3*i), uint64(102+3*i)))
	}
	for i := range copies {
		list.WriteString(wordsPosting(fmt.Sprintf("zcopy/%02d", i), 0, 1, 2, 3))
	}
	list.WriteString("\n")
	env := map[string]string{"PDC_SIGNATURE": "words", "PDC_TAU": "0.7", "PDC_HUB_DF": "100"}
	var out, errb bytes.Buffer
	err := Map(&mr.Task{Stdin: strings.NewReader(list.String()), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	pairs := docPairs(t, out.String())
	if len(pairs) != copies*(copies-1)/2 {
		t.Errorf("%d pairs, want the %d pairs of copies", len(pairs), copies*(copies-1)/2)
	}
	for _, want := range []string{"join.hub.varied,1", "join.hub.leftover,1120", "join.hub.leftover.sets,1101", "join.hub.copies.all-pairs,1"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("counters without %s: %s", want, errb.String())
		}
	}
	if strings.Contains(errb.String(), "join.hub.more-passes") {
		t.Errorf("a pass that paired nothing was followed by another: %s", errb.String())
	}
}

// TestMapHubMorePasses: a list of variants of a few sentences (each
// variant one word apart, in a document of its own) gets a pass of hubs
// after another while its passes pair most of it. 16 sentences in 100
// variants each, then 20 in 60 each: the first pass pairs the variants of
// the 16 with their first, the second those of the next 16, and the 240
// variants of the last 4 are joined pairwise. No pair is of two sentences.
func TestMapHubMorePasses(t *testing.T) {
	type family struct{ id, variants int }
	var fs []family
	for k := range 16 {
		fs = append(fs, family{k, 100})
	}
	for k := 16; k < 36; k++ {
		fs = append(fs, family{k, 60})
	}
	var list strings.Builder
	want := map[[2]string]bool{}
	list.WriteString("k\tP\t0")
	for _, f := range fs {
		for j := range f.variants {
			ranks := []uint64{0}
			for w := range 8 {
				ranks = append(ranks, uint64(1000+10*f.id+w))
			}
			ranks = append(ranks, uint64(100000+1000*f.id+j))
			list.WriteString(wordsPosting(fmt.Sprintf("f%02d/%03d", f.id, j), ranks...))
			if j > 0 && f.id < 32 {
				want[[2]string{fmt.Sprintf("f%02d/000", f.id), fmt.Sprintf("f%02d/%03d", f.id, j)}] = true
			}
		}
	}
	list.WriteString("\n")
	env := map[string]string{"PDC_SIGNATURE": "words", "PDC_TAU": "0.7", "PDC_HUB_DF": "50"}
	var out, errb bytes.Buffer
	err := Map(&mr.Task{Stdin: strings.NewReader(list.String()), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	got := docPairs(t, out.String())
	linked := map[string]bool{}
	for p := range got {
		if p[0][:3] != p[1][:3] {
			t.Errorf("pair %v of two sentences", p)
		}
		if p[0] < "f32" && !want[p] {
			t.Errorf("pair %v: a variant of the first 32 sentences is paired with its first only", p)
		}
		linked[p[0]], linked[p[1]] = true, true
	}
	for p := range want {
		if !got[p] {
			t.Errorf("no pair %v", p)
		}
	}
	for k := 32; k < 36; k++ {
		for j := range 60 {
			if d := fmt.Sprintf("f%02d/%03d", k, j); !linked[d] {
				t.Errorf("%s is paired with no variant", d)
			}
		}
	}
	for _, c := range []string{"join.hub.more-passes,1", "join.hub.leftover,240"} {
		if !strings.Contains(errb.String(), c) {
			t.Errorf("counters without %s: %s", c, errb.String())
		}
	}
	if strings.Contains(errb.String(), "join.hub.varied") {
		t.Errorf("a list of variants joined pairwise: %s", errb.String())
	}
}

// TestMapLeftoverSets: the sets left by the hubs pair their copies. S is
// in 3 documents, S2 (similar to S) in 2: with --hub-df 100 every two of
// the 5 documents are paired; with --hub-df 2, S's copies are paired with
// its first, S2's with each other, and S with S2 by their first copies.
func TestMapLeftoverSets(t *testing.T) {
	var list strings.Builder
	list.WriteString("k\tP\t0")
	for i := range 1100 {
		list.WriteString(wordsPosting(fmt.Sprintf("other/%04d", i), 0, uint64(100+3*i), uint64(101+3*i), uint64(102+3*i)))
	}
	for _, d := range []string{"s/1", "s/2", "s/3"} {
		list.WriteString(wordsPosting(d, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9))
	}
	for _, d := range []string{"t/1", "t/2"} {
		list.WriteString(wordsPosting(d, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10))
	}
	list.WriteString("\n")
	all := []string{"s/1", "s/2", "s/3", "t/1", "t/2"}
	for _, tt := range []struct {
		hubDF string
		want  [][2]string
	}{
		{"100", nil},
		{"2", [][2]string{{"s/1", "s/2"}, {"s/1", "s/3"}, {"t/1", "t/2"}, {"s/1", "t/1"}}},
	} {
		want := map[[2]string]bool{}
		for _, p := range tt.want {
			want[p] = true
		}
		if tt.want == nil {
			for i, a := range all {
				for _, b := range all[i+1:] {
					want[[2]string{a, b}] = true
				}
			}
		}
		env := map[string]string{"PDC_SIGNATURE": "words", "PDC_TAU": "0.8", "PDC_HUB_DF": tt.hubDF}
		out, err := runMap(env, list.String())
		if err != nil {
			t.Fatal(err)
		}
		if got := docPairs(t, out); !maps.Equal(got, want) {
			t.Errorf("hub-df %s: pairs %v, want %v", tt.hubDF, got, want)
		}
	}
}

// TestMapLeftoverModel checks the join of a hub list's leftover against
// the pairwise join of every posting (the model): on random lists whose
// first pass of hubs pairs nothing, every two documents with similar
// sentences are linked, directly or through the pairs of copies of one
// sentence and of similar sentences (what clusters then follow), whatever
// --hub-df.
func TestMapLeftoverModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const tau = 0.6
	for round := range 200 {
		hubDF := 1 + rng.IntN(6)
		type post struct {
			doc string
			set []uint64
		}
		var posts []post
		for i := range MaxHubs { // the first pass's hubs, similar to nothing
			posts = append(posts, post{fmt.Sprintf("a/%02d", i), []uint64{0, uint64(1000 + 3*i), uint64(1001 + 3*i), uint64(1002 + 3*i)}})
		}
		var sets [][]uint64
		for range 1 + rng.IntN(6) {
			set := []uint64{0}
			for r := uint64(1); r < 9; r++ {
				if rng.IntN(2) == 0 {
					set = append(set, r)
				}
			}
			sets = append(sets, set)
		}
		ndocs := 2 + rng.IntN(12)
		for d := range ndocs {
			for range 1 + rng.IntN(2) {
				posts = append(posts, post{fmt.Sprintf("d/%02d", d), sets[rng.IntN(len(sets))]})
			}
		}
		var list strings.Builder
		list.WriteString("k\tP\t0")
		for _, p := range posts {
			list.WriteString(wordsPosting(p.doc, p.set...))
		}
		list.WriteString("\n")
		env := map[string]string{"PDC_SIGNATURE": "words", "PDC_TAU": fmt.Sprint(tau), "PDC_HUB_DF": fmt.Sprint(hubDF)}
		var out, errb bytes.Buffer
		if err := Map(&mr.Task{Stdin: strings.NewReader(list.String()), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}); err != nil {
			t.Fatal(err)
		}
		// hubDF below the documents makes the list a hub list.
		if ndocs+MaxHubs <= hubDF {
			continue
		}
		comp := map[string]string{} // document -> its component's name
		name := func(d string) string {
			if c, ok := comp[d]; ok {
				return c
			}
			return d
		}
		for p := range docPairs(t, out.String()) {
			from, to := name(p[1]), name(p[0])
			for d, c := range comp {
				if c == from {
					comp[d] = to
				}
			}
			comp[p[1]], comp[from] = to, to
		}
		for i, a := range posts {
			for _, b := range posts[i+1:] {
				if a.doc == b.doc {
					continue
				}
				na, nb := len(a.set), len(b.set)
				if o := overlap(a.set, b.set); o >= signature.MinOverlap(na, nb, tau) && name(a.doc) != name(b.doc) {
					t.Fatalf("round %d (hub-df %d): %s %v and %s %v are similar (overlap %d) but not linked\n%s",
						round, hubDF, a.doc, a.set, b.doc, b.set, o, out.String())
				}
			}
		}
	}
}

func overlap(a, b []uint64) int {
	n := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			n++
		}
	}
	return n
}

// TestGrouperRenumbers: a grouper that numbers its documents afresh
// between lists (here after 3 documents) still puts each sentence pair on
// a line of its own document pair, and in the order added.
func TestGrouperRenumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var out bytes.Buffer
	g := newGrouper(mr.NewOutput(&out))
	g.maxDocs = 3
	want := map[string][]string{}
	for l := range 200 {
		if err := g.nextList(); err != nil {
			t.Fatal(err)
		}
		var ps []Posting
		for range 2 + rng.IntN(4) {
			ps = append(ps, Posting{Doc: fmt.Appendf(nil, "doc/%d", rng.IntN(12)), Sent: fmt.Appendf(nil, "%d", l), CS: []byte("0"), CE: []byte("9"), NSig: 4})
		}
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				a, b := &ps[i], &ps[j]
				if bytes.Equal(a.Doc, b.Doc) {
					continue
				}
				if bytes.Compare(a.Doc, b.Doc) > 0 {
					a, b = b, a
				}
				if err := g.add(a, b, i+j); err != nil {
					t.Fatal(err)
				}
				key := string(a.Doc) + "\t" + string(b.Doc)
				want[key] = append(want[key], string(appendPair(nil, a, b, i+j)[1:]))
			}
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if len(g.ids) > 3+5 {
		t.Errorf("%d document numbers held, want at most a list's more than 3", len(g.ids))
	}
	got := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		f := strings.Split(l, "\t")
		key := f[0] + "\t" + f[1]
		got[key] = append(got[key], f[2:]...)
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("pairs by document pair:\n got %v\nwant %v", got, want)
	}
}

// TestPositionCutModel: pairwise with the positional cut (the pairs past
// it counted as the positional filter's, not checked) writes the same
// pairs and counts the same as checking every pair (noCut), on random
// lists: sizes, prefix positions, tokens of one document only, batch
// marks, sites with --cross-site-only, hub lists and their leftovers.
func TestPositionCutModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 300 {
		var posts []string
		for i := range 2 + rng.IntN(60) {
			n := 1 + rng.IntN(24)
			unique := rng.IntN(min(3, n)) // tokens of one document only, first; the list's is shared
			set := make([]uint64, 0, n)
			for u := range unique {
				set = append(set, uint64(u))
			}
			for r := uint64(10); len(set) < n; r++ {
				if rng.IntN(3) > 0 {
					set = append(set, r|signature.Shared)
				}
			}
			pos := unique + rng.IntN(n-unique)
			site := []string{"-", "a.org", "b.org", "nx"}[rng.IntN(4)]
			if rng.IntN(4) == 0 {
				site = string(doc.BatchMark) + site
			}
			posts = append(posts, fmt.Sprintf("%d,%d,0,9,%s,%d,%s,d/%02d", i, n, site, pos, signature.AppendSet(nil, set), rng.IntN(25)))
		}
		slices.SortFunc(posts, func(a, b string) int {
			return strings.Compare(a[strings.LastIndexByte(a, ',')+1:], b[strings.LastIndexByte(b, ',')+1:])
		})
		base := joiner{tau: []float64{0.5, 0.6, 0.8}[rng.IntN(3)], crossSiteOnly: rng.IntN(3) == 0, batch: rng.IntN(3) == 0,
			filter: true, prefixed: true, hubDF: []int{0, 0, 3, 10}[rng.IntN(4)]}
		run := func(noCut bool) (string, stats) {
			s := base
			s.noCut = noCut
			return joinList(t, &s, posts), s.stats
		}
		cutOut, cutStats := run(false)
		allOut, allStats := run(true)
		if cutOut != allOut || cutStats != allStats {
			t.Fatalf("round %d (%+v): with the cut\n%s%+v\nchecking every pair\n%s%+v", round, base, cutOut, cutStats, allOut, allStats)
		}
	}
}

// joinList joins one list of postings (the text of each) with s and
// returns the output.
func joinList(t *testing.T, s *joiner, posts []string) string {
	t.Helper()
	var out bytes.Buffer
	g := newGrouper(mr.NewOutput(&out))
	if err := g.nextList(); err != nil {
		t.Fatal(err)
	}
	var ps []Posting
	var sets []uint32
	for _, f := range posts {
		var p Posting
		var err error
		if p, sets, err = ParsePosting([]byte(f), true, sets); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ps = append(ps, p)
	}
	if _, _, _, err := s.list(ps, nil, nil, g); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestProductsModel: the copies of sets emitted as product items (every
// copy of one document with every copy of another, one item) stand for
// the same pairs, and the same counts, as emitting each pair (noProducts),
// on random hub lists with copies of a few sets, several per document:
// sorted by document or not, batch marks, sites with --cross-site-only.
func TestProductsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var products, copiesAll, setPairsAll int64
	for round := range 300 {
		// Groups of sets, dissimilar to each other, of one or two similar
		// variants each: the first pass's hubs take 16 groups, and the sets
		// of the others are left over and joined pairwise (setPairs).
		var pool [][]uint64
		for grp := range 1 + rng.IntN(24) {
			n := 4 + rng.IntN(7)
			set := []uint64{signature.Shared} // the list's token, first in every set
			for r := range uint64(n - 1) {
				set = append(set, (uint64(100*grp+10)+r)|signature.Shared)
			}
			pool = append(pool, set)
			if rng.IntN(2) == 0 {
				v := slices.Clone(set)
				v[len(v)-1] += 50
				pool = append(pool, v)
			}
		}
		ndocs := 2 + rng.IntN(30)
		var posts []string
		sent := 0
		for d := range ndocs {
			site := []string{"-", "a.org", "b.org", "nx"}[rng.IntN(4)]
			if rng.IntN(4) == 0 {
				site = string(doc.BatchMark) + site
			}
			for range 1 + rng.IntN(4) {
				set := pool[rng.IntN(len(pool))]
				sent++
				posts = append(posts, fmt.Sprintf("%d,%d,%d,%d,%s,0,%s,d/%02d", sent, len(set), 10*sent, 10*sent+9, site, signature.AppendSet(nil, set), d))
			}
		}
		if rng.IntN(4) > 0 { // lists come sorted by document; some tests' do not
			slices.SortStableFunc(posts, func(a, b string) int {
				return strings.Compare(a[strings.LastIndexByte(a, ',')+1:], b[strings.LastIndexByte(b, ',')+1:])
			})
		}
		base := joiner{tau: []float64{0.5, 0.6, 0.8}[rng.IntN(3)], crossSiteOnly: rng.IntN(4) == 0, batch: rng.IntN(3) == 0,
			filter: true, prefixed: true, hubDF: 1 + rng.IntN(ndocs)}
		run := func(noProducts bool) (map[string][]string, stats) {
			s := base
			s.noProducts = noProducts
			pairs := map[string][]string{}
			for _, l := range strings.Split(strings.TrimSuffix(joinList(t, &s, posts), "\n"), "\n") {
				if l == "" {
					continue
				}
				f := strings.Split(l, "\t")
				key := f[0] + "\t" + f[1]
				for _, item := range f[2:] {
					if !strings.HasPrefix(item, "*") {
						pairs[key] = append(pairs[key], item)
						continue
					}
					products++
					if noProducts {
						t.Fatalf("round %d: product item %q with noProducts", round, item)
					}
					n := strings.Split(item[1:], ",")
					kA, _ := strconv.Atoi(n[3])
					as, bs := n[4:4+3*kA], n[4+3*kA:]
					if len(bs) == 0 || len(bs)%3 != 0 {
						t.Fatalf("round %d: malformed product item %q", round, item)
					}
					for i := 0; i < len(as); i += 3 {
						for j := 0; j < len(bs); j += 3 {
							pairs[key] = append(pairs[key], strings.Join([]string{as[i], bs[j], n[0], n[1], n[2], as[i+1], as[i+2], bs[j+1], bs[j+2]}, ","))
						}
					}
				}
			}
			for _, v := range pairs {
				slices.Sort(v)
			}
			return pairs, s.stats
		}
		got, gotStats := run(false)
		copiesAll += gotStats.copiesAll
		setPairsAll += gotStats.setPairsAll
		want, wantStats := run(true)
		if !maps.EqualFunc(got, want, slices.Equal) || gotStats != wantStats {
			t.Fatalf("round %d (%+v, %d documents): as products\n%v\n%+v\npair by pair\n%v\n%+v", round, base, ndocs, got, gotStats, want, wantStats)
		}
	}
	if products == 0 || copiesAll == 0 || setPairsAll == 0 {
		t.Fatalf("%d product items, %d sets' copies all paired, %d set pairs with all copies: the test misses a path", products, copiesAll, setPairsAll)
	}
}
