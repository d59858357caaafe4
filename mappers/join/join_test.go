package join

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

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

// TestMapHubPasses: in a hub list whose first postings are 1,100
// sentences similar to nothing (they share only the list's token), a
// passage copied into 20 documents comes after the first pass's 16 hubs;
// more than MaxPairwise postings are left, so further passes of hubs run
// until few enough are left to join pairwise, and the copies are linked:
// each to the others, as 20 postings of a short list are.
func TestMapHubPasses(t *testing.T) {
	posting := func(doc string, ranks ...uint64) string {
		for i := range ranks {
			ranks[i] |= signature.Shared
		}
		return fmt.Sprintf("\t0000001,%d,0,9,-,0,%s,%s", len(ranks), signature.AppendSet(nil, ranks), doc)
	}
	var list strings.Builder
	const others, copies = 1100, 20
	fmt.Fprintf(&list, "k\tP\t%d", others+copies)
	for i := range others {
		list.WriteString(posting(fmt.Sprintf("other/%04d", i), 0, uint64(100+3*i), uint64(101+3*i), uint64(102+3*i)))
	}
	for i := range copies {
		list.WriteString(posting(fmt.Sprintf("copy/%02d", i), 0, 1, 2, 3))
	}
	list.WriteString("\n")
	env := map[string]string{"PDC_SIGNATURE": "words", "PDC_TAU": "0.7", "PDC_HUB_DF": "100"}
	var out, errb bytes.Buffer
	err := Map(&mr.Task{Stdin: strings.NewReader(list.String()), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "copy/") && strings.Contains(l, "\tcopy/") {
			pairs++
		}
	}
	if pairs != copies*(copies-1)/2 {
		t.Errorf("%d pairs of copies, want %d", pairs, copies*(copies-1)/2)
	}
	if !strings.Contains(errb.String(), "join.hub.more-passes") || strings.Contains(errb.String(), "join.hub.unmatched") {
		t.Errorf("counters: %s", errb.String())
	}
}
