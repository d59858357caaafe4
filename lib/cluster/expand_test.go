package cluster

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/span"
)

func expandAll(t *testing.T, pairs []span.DocPair, cs []Cluster, only map[string]bool) []span.DocPair {
	t.Helper()
	var got []span.DocPair
	if err := ExpandPairs(pairs, cs, only, func(p span.DocPair) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestExpandPairs: the pairs of documents that share a cluster are added,
// with the characters of their members in it; a pair with spans keeps them
// and counts each character once.
func TestExpandPairs(t *testing.T) {
	m := func(doc string, s, e int) Member { return Member{Doc: doc, CharStart: s, CharEnd: e} }
	cs := []Cluster{
		{ID: "c1", Size: 3, Members: []Member{m("a", 0, 10), m("b", 5, 15), m("c", 0, 10)}},
		{ID: "c2", Size: 2, Members: []Member{m("c", 20, 30), m("a", 50, 54)}},
	}
	spans := []span.Span{{DocA: "a", DocB: "b", CharStartA: 0, CharEndA: 10, CharStartB: 5, CharEndB: 15}}
	want := []struct {
		a, b            string
		spans, shA, shB int
	}{{"a", "b", 1, 10, 10}, {"a", "c", 0, 14, 20}, {"b", "c", 0, 10, 10}}
	got := expandAll(t, span.Pairs(spans), cs, nil)
	if len(got) != len(want) {
		t.Fatalf("%d pairs, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.A != w.a || g.B != w.b || len(g.Spans) != w.spans || g.SharedA != w.shA || g.SharedB != w.shB {
			t.Errorf("pair %d: %s %s spans %d shared %d %d; want %+v", i, g.A, g.B, len(g.Spans), g.SharedA, g.SharedB, w)
		}
	}
	if of := expandAll(t, span.Pairs(spans), cs, map[string]bool{"b": true}); len(of) != 2 || of[0].B != "b" || of[1].A != "b" {
		t.Errorf("only b: %+v", of)
	}
}

// expandModel is the reference: every pair in one map, then sorted.
func expandModel(pairs []span.DocPair, cs []Cluster) []span.DocPair {
	type shared struct {
		spans []span.Span
		a, b  []ranges.Range
	}
	all := map[[2]string]*shared{}
	get := func(a, b string) *shared {
		k := [2]string{a, b}
		if all[k] == nil {
			all[k] = &shared{}
		}
		return all[k]
	}
	for _, p := range pairs {
		sh := get(p.A, p.B)
		sh.spans = p.Spans
		for _, s := range p.Spans {
			sh.a = append(sh.a, ranges.Range{Start: s.CharStartA, End: s.CharEndA})
			sh.b = append(sh.b, ranges.Range{Start: s.CharStartB, End: s.CharEndB})
		}
	}
	for _, c := range cs {
		for _, x := range c.Members {
			for _, y := range c.Members {
				if mr.Escape(x.Doc) >= mr.Escape(y.Doc) {
					continue
				}
				sh := get(x.Doc, y.Doc)
				sh.a = append(sh.a, ranges.Range{Start: x.CharStart, End: x.CharEnd})
				sh.b = append(sh.b, ranges.Range{Start: y.CharStart, End: y.CharEnd})
			}
		}
	}
	var out []span.DocPair
	for k, sh := range all {
		out = append(out, span.DocPair{A: k[0], B: k[1], Spans: sh.spans, SharedA: ranges.Len(sh.a), SharedB: ranges.Len(sh.b)})
	}
	slices.SortFunc(out, func(x, y span.DocPair) int {
		return cmp.Or(strings.Compare(mr.Escape(x.A), mr.Escape(y.A)), strings.Compare(mr.Escape(x.B), mr.Escape(y.B)))
	})
	return out
}

// TestExpandPairsModel checks ExpandPairs against the reference on random
// spans and clusters (ids with tabs and backslashes, which escaping
// orders differently).
func TestExpandPairsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ids := []string{"a", "a\tb", "a\\", "b", "c", "d/1", "d/2", "e"}
	for round := range 300 {
		var spans []span.Span
		for range rng.IntN(8) {
			x, y := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			if mr.Escape(x) >= mr.Escape(y) {
				continue
			}
			s := rng.IntN(100)
			spans = append(spans, span.Span{DocA: x, DocB: y, CharStartA: s, CharEndA: s + 1 + rng.IntN(50), CharStartB: s, CharEndB: s + 1 + rng.IntN(50)})
		}
		slices.SortFunc(spans, span.Compare)
		spans = slices.CompactFunc(spans, func(x, y span.Span) bool { return span.Compare(x, y) == 0 })
		var cs []Cluster
		for c := range rng.IntN(4) {
			cl := Cluster{ID: fmt.Sprint(c)}
			for range 1 + rng.IntN(4) {
				s := rng.IntN(100)
				cl.Members = append(cl.Members, Member{Doc: ids[rng.IntN(len(ids))], CharStart: s, CharEnd: s + 1 + rng.IntN(40)})
			}
			cs = append(cs, cl)
		}
		pairs := span.Pairs(spans)
		got := expandAll(t, pairs, cs, nil)
		for i := range got {
			got[i].RangesA, got[i].RangesB = nil, nil
		}
		if want := expandModel(pairs, cs); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: got\n%+v\nwant\n%+v", round, got, want)
		}
	}
}

// TestTop checks Top against the first clusters that Read returns, on
// random clusters in two part files.
func TestTop(t *testing.T) {
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 7))
		dir := t.TempDir()
		var parts [2][]byte
		for i := range rng.IntN(300) {
			cid := []byte(fmt.Sprintf("c%016x", rng.Uint64()))
			p := &parts[i%2]
			docs := 2 + rng.IntN(5)
			for d := range docs {
				*p = AppendMember(*p, cid, []byte("s"), []byte(fmt.Sprint("d", d)), []byte("-"), 0, 10, 0)
			}
			*p = AppendSummary(*p, cid, int64(docs), int64(docs))
		}
		for i, b := range parts {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%05d", i)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		all, err := Read(hdfsfs.Local(), dir)
		if err != nil {
			t.Fatal(err)
		}
		n := rng.IntN(60)
		top, total, err := Top(hdfsfs.Local(), dir, n)
		if err != nil {
			t.Fatal(err)
		}
		if want := all[:min(n, len(all))]; total != len(all) || len(top) != len(want) || len(want) > 0 && !reflect.DeepEqual(top, want) {
			t.Fatalf("seed %d: Top(%d) gave %d of %d clusters, want %d of %d", seed, n, len(top), total, len(want), len(all))
		}
	}
}
