package copies

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/span"
)

// TestBuildModel: random content records (some ids repeated, some
// occurrences dropped as duplicate ids) against a reference: each hash's
// documents in input order, but dropped occurrences and repeated ids, the
// first of each copied by the others (but for a stored document copied by
// a stored one, in a batch run); groups in their first's input order.
func TestBuildModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 200 {
		var occ []occurrence
		dropped := map[string]bool{}
		for i := range r.IntN(30) {
			o := occurrence{hash: fmt.Sprintf("%016x", r.IntN(5)), srcpos: fmt.Sprintf("f@%016d", i),
				doc: fmt.Sprintf("d%d\\t", r.IntN(25)), n: 3 + r.IntN(4), stored: round%2 == 1 && r.IntN(2) == 0}
			if r.IntN(8) == 0 {
				dropped[o.doc+"\t"+o.srcpos] = true
			}
			occ = append(occ, o)
		}
		// reference, by brute force
		var want []Copy
		firstPos := map[string]string{}
		var firsts []string // hashes whose group has copies, by first srcpos
		for _, h := range []string{"0000000000000000", "0000000000000001", "0000000000000002", "0000000000000003", "0000000000000004"} {
			var docs []occurrence
			seen := map[string]bool{}
			for _, o := range occ { // occ is in srcpos order
				if o.hash == h && !dropped[o.doc+"\t"+o.srcpos] && !seen[o.doc] {
					seen[o.doc] = true
					docs = append(docs, o)
				}
			}
			if len(docs) > 1 {
				firstPos[h] = docs[0].srcpos
				firsts = append(firsts, h)
			}
		}
		slices.SortFunc(firsts, func(a, b string) int { return strings.Compare(firstPos[a], firstPos[b]) })
		for _, h := range firsts {
			var first string
			var firstStored bool
			seen := map[string]bool{}
			for _, o := range occ {
				if o.hash != h || dropped[o.doc+"\t"+o.srcpos] || seen[o.doc] {
					continue
				}
				seen[o.doc] = true
				if first == "" {
					first, firstStored = o.doc, o.stored
					continue
				}
				if o.stored && firstStored {
					continue
				}
				want = append(want, Copy{Doc: unescape(o.doc), Of: unescape(first), Sentences: o.n})
			}
		}
		shuffled := slices.Clone(occ)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := group(shuffled, dropped); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("round %d:\n got %v\nwant %v", round, got, want)
		}
	}
}

// TestBuildFromStats: Build reads the content and duplicate-id records of
// stats part files (and nothing else), and Write and Read round-trip.
func TestBuildFromStats(t *testing.T) {
	dir := t.TempDir()
	fsys := hdfsfs.Local()
	part0 := "00000000000000ff\t4\n!N\t5\n#a\\tb\tf@0000000000000900\n" +
		"=00000000000000aa\tf@0000000000000100\tb\t5\n=00000000000000aa\tf@0000000000000000\ta\\tb\t5\n"
	part1 := "=00000000000000bb\tf@0000000000000300\tc\t3\n=00000000000000bb\tf@0000000000000900\ta\\tb\t3\n" +
		"=00000000000000bb\tf@0000000000000200\td\t3\n"
	for name, data := range map[string]string{"part-00000": part0, "part-00001": part1, "_SUCCESS": ""} {
		if err := hdfsfs.WriteFile(fsys, dir+"/"+name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := Build(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Copy{{Doc: "b", Of: "a\tb", Sentences: 5}, {Doc: "c", Of: "d", Sentences: 3}} // a\tb@900 is a dropped duplicate
	if !reflect.DeepEqual(cs, want) {
		t.Fatalf("Build = %v, want %v", cs, want)
	}
	var b bytes.Buffer
	if err := Write(&b, cs); err != nil {
		t.Fatal(err)
	}
	if want := "#doc\tcopy_of\tsentences\nb\ta\\tb\t5\nc\td\t3\n"; b.String() != want {
		t.Errorf("Write = %q, want %q", b.String(), want)
	}
	if err := hdfsfs.WriteFile(fsys, dir+"/"+File, b.Bytes()); err != nil {
		t.Fatal(err)
	}
	back, err := Read(fsys, dir)
	if err != nil || !reflect.DeepEqual(back, cs) {
		t.Errorf("Read = %v, %v", back, err)
	}
	if none, err := Read(fsys, t.TempDir()); none != nil || err != nil {
		t.Errorf("Read of a run without copies.tsv = %v, %v", none, err)
	}
}

// TestPairsAndClusters: exact-copy pairs join the span pairs in their
// order; each group becomes a cluster of whole documents, first first.
func TestPairsAndClusters(t *testing.T) {
	cs := []Copy{{Doc: "b", Of: "a", Sentences: 4}, {Doc: "c", Of: "a", Sentences: 4}, {Doc: "e", Of: "d", Sentences: 3}}
	pairs := []span.DocPair{{A: "a", B: "b", SharedA: 3}, {A: "b", B: "x"}}
	got, exact := Pairs(pairs, cs)
	var keys []string
	for _, p := range got {
		keys = append(keys, p.A+"-"+p.B)
	}
	if want := []string{"a-b", "a-c", "b-x", "d-e"}; !slices.Equal(keys, want) || got[0].SharedA != 3 {
		t.Errorf("Pairs = %v, want %v (the span pair kept as it was)", keys, want)
	}
	if !exact[[2]string{"a", "c"}] || exact[[2]string{"b", "x"}] || len(exact) != 3 {
		t.Errorf("exact = %v", exact)
	}
	cl := Clusters(cs, map[string]int{"a": 10, "b": 10, "c": 10, "d": 7})
	if len(cl) != 1 || cl[0].Size != 3 || cl[0].Members[0].Doc != "a" || cl[0].Members[2].CharEnd != 10 {
		t.Errorf("Clusters = %+v, want one cluster a, b, c (e's length is unknown: d alone is no group)", cl)
	}
}
