package matcher

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/diagonal"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// TestMatcherSeeds: the match writes the spans and, with extension on, the
// candidates (runs of 2 pairs) and the single pairs near a seed, as seed
// records (lib/extend) with their pairs' evidence added up; a lone pair
// seeds nothing; a span short of evidence hides no candidate; without
// extension only the spans. A document pair whose seeds (or all of whose
// pairs) carry less evidence than a span needs sends nothing.
func TestMatcherSeeds(t *testing.T) {
	p := func(a, b int) Pair {
		return Pair{A: a, B: b, Score: 1, CSA: 100 * a, CEA: 100*a + 90, CSB: 100 * b, CEB: 100*b + 90, Evidence: a}
	}
	strong := func(a, b int) Pair { // an anchor: all the evidence a span needs (20)
		q := p(a, b)
		q.Evidence = 20
		return q
	}
	spanNear := []Pair{p(1, 1), p(2, 2), p(3, 3), p(6, 7), p(30, 40)}
	tests := []struct {
		name   string
		extend float64
		need   int // evidence a span needs (jobconf MinEvidence)
		pairs  []Pair
		want   []string
		weak   int // document pairs without the evidence
	}{
		{"span, a single near it, one far", 0.5, 12, spanNear,
			[]string{"s\t1\t1\t3\t3\t3\t100\t390\t100\t390\t1.0000\t6", "c\t6\t7\t6\t7\t1\t600\t690\t700\t790\t1.0000\t6"}, 0},
		{"the same short of evidence: the far pair is no seed", 0.5, 13, spanNear, nil, 1},
		{"candidate of two pairs", 0.5, 3,
			[]Pair{p(1, 1), p(2, 2)},
			[]string{"c\t1\t1\t2\t2\t2\t100\t290\t100\t290\t1.0000\t3"}, 0},
		{"pairs short of evidence", 0.5, 4, []Pair{p(1, 1), p(2, 2)}, nil, 1},
		{"two singles joined across a merge", 0.5, 8,
			[]Pair{p(3, 151), p(5, 154)},
			[]string{"c\t3\t151\t5\t154\t2\t300\t590\t15100\t15490\t1.0000\t8"}, 0},
		{"a lone pair", 0.5, 1, []Pair{p(4, 9)}, nil, 0},
		{"a span short of evidence hides no candidate", 0.5, 10,
			[]Pair{p(1, 1), p(2, 2), p(2, 3), p(3, 3), p(3, 4)},
			[]string{"s\t1\t1\t3\t3\t3\t100\t390\t100\t390\t1.0000\t6", "c\t2\t3\t3\t4\t2\t200\t390\t300\t490\t1.0000\t5"}, 0},
		{"a span with the evidence hides it", 0.5, 20,
			[]Pair{strong(1, 1), p(2, 2), p(2, 3), p(3, 3), p(3, 4)},
			[]string{"s\t1\t1\t3\t3\t3\t100\t390\t100\t390\t1.0000\t25", "c\t3\t4\t3\t4\t1\t300\t390\t400\t490\t1.0000\t3"}, 0},
		{"no extension", 0, 6,
			[]Pair{p(1, 1), p(2, 2), p(3, 3), p(6, 7), p(10, 20), p(11, 21)},
			[]string{"s\t1\t1\t3\t3\t3\t100\t390\t100\t390\t1.0000\t6"}, 0},
		{"no extension, the span short of evidence", 0, 7,
			[]Pair{p(1, 1), p(2, 2), p(3, 3), p(6, 7), p(10, 20), p(11, 21)}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := jobconf.Default()
			cfg.ExtendTau = tt.extend
			cfg.MinEvidence = tt.need
			var out, errs bytes.Buffer
			w := mr.NewOutput(&out)
			m := NewMatcher(cfg, mr.NewCounters(&errs), w)
			for _, pr := range tt.pairs {
				if err := m.Add([]byte("a\tb"), pr); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := m.Counters().Flush(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if l != "" {
					got = append(got, strings.TrimPrefix(l, "a\tb\t"))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("seeds:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			var weak int64
			for _, l := range bytes.SplitAfter(errs.Bytes(), []byte("\n")) {
				if _, name, n, ok := mr.ParseCounterLine(l); ok && name == "match.doc-pairs.without-evidence" {
					weak += n
				}
			}
			if weak != int64(tt.weak) {
				t.Errorf("match.doc-pairs.without-evidence = %d, want %d", weak, tt.weak)
			}
		})
	}
}

// TestPointCursor: a cursor's hit answers as boxes.hit does, for points
// in order of A (as the pairs of a document pair come) and out of order.
func TestPointCursor(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for round := range 200 {
		var runs []diagonal.Run
		for range rng.IntN(30) {
			a, b, n := rng.IntN(200), rng.IntN(200), 1+rng.IntN(40)
			runs = append(runs, diagonal.Run{StartA: a, EndA: a + n, StartB: b, EndB: b + n + rng.IntN(3)})
		}
		bx := newBoxes(runs)
		d := rng.IntN(8)
		c := bx.cursor(d)
		var pts [][2]int
		for range 300 {
			pts = append(pts, [2]int{rng.IntN(260) - 10, rng.IntN(260) - 10})
		}
		if round%2 == 0 {
			slices.SortFunc(pts, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
		}
		for _, p := range pts {
			if got, want := c.hit(p[0], p[1]), bx.hit(p[0], p[0], p[1], p[1], d); got != want {
				t.Fatalf("round %d: point %v, d %d: cursor %v, hit %v", round, p, d, got, want)
			}
		}
	}
}
