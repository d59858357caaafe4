package join

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/mappers/match"
)

func runProgram(t *testing.T, f mr.Func, env map[string]string, in string) (string, map[string]int64) {
	t.Helper()
	var out, errb bytes.Buffer
	task := &mr.Task{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	if err := f(task); err != nil {
		t.Fatal(err)
	}
	c := map[string]int64{}
	for _, l := range strings.Split(errb.String(), "\n") {
		if g, n, v, ok := mr.ParseCounterLine([]byte(l)); ok {
			c[g+"."+n] += v
		}
	}
	return out.String(), c
}

// TestReduceMatch: the join reducer with the match in the same program
// writes the spans and counters of the join reducer followed by the match
// job, on random candidate pairs (runs, near misses below tau, gaps,
// several document pairs, repeated candidates summed, a document pair's
// candidates spread over lines in any order).
func TestReduceMatch(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 3))
		env := map[string]string{"PDC_SIGNATURE": "imatch", "PDC_TAU": "0.6", "PDC_GAP": fmt.Sprint(rng.IntN(2)), "PDC_LAMBDA": fmt.Sprint(2 + rng.IntN(2))}
		cands := map[string][]string{}
		for range 50 + rng.IntN(300) {
			a, b := rng.IntN(40), rng.IntN(40)
			docs := []string{"a\tb", "a\tc", "b/x\tc/y"}[rng.IntN(3)]
			n := 3 + rng.IntN(4)
			cs := 10 * a
			cands[docs] = append(cands[docs], fmt.Sprintf("%d,%d,1,%d,%d,%d,%d,%d,%d", a, b, n, n+rng.IntN(2), cs, cs+9+rng.IntN(60), 10*b, 10*b+9+rng.IntN(60)))
			if rng.IntN(2) == 0 { // a diagonal after it
				for k := 1; k < 2+rng.IntN(5); k++ {
					cands[docs] = append(cands[docs], fmt.Sprintf("%d,%d,%d,%d,%d,%d,%d,%d,%d", a+k, b+k, n, n, n, 10*(a+k), 10*(a+k)+50, 10*(b+k), 10*(b+k)+50))
				}
			}
		}
		var lines []string
		for docs, cs := range cands {
			rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
			for len(cs) > 0 { // batches of 1 to 5 pairs, as mappers flush them
				n := min(len(cs), 1+rng.IntN(5))
				lines = append(lines, docs+"\t"+strings.Join(cs[:n], "\t"))
				cs = cs[n:]
			}
		}
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		slices.SortStableFunc(lines, func(x, y string) int {
			kx, _ := mr.SplitKey([]byte(x), KeyFields)
			ky, _ := mr.SplitKey([]byte(y), KeyFields)
			return bytes.Compare(kx, ky)
		})
		in := strings.Join(lines, "\n") + "\n"
		pairs, jc := runProgram(t, Reduce, env, in)
		want, mc := runProgram(t, match.Map, env, pairs)
		for k, v := range mc {
			jc[k] += v
		}
		got, gc := runProgram(t, ReduceMatch, env, in)
		if got != want {
			t.Fatalf("seed %d: spans\n%s\nwant\n%s", seed, got, want)
		}
		if fmt.Sprint(gc) != fmt.Sprint(jc) {
			t.Fatalf("seed %d: counters %v, want %v", seed, gc, jc)
		}
		if seed == 0 && (want == "" || jc["pdc.match.spans"] == 0 && jc["match.spans"] == 0) {
			t.Fatalf("seed 0 finds no spans: the test tests nothing (counters %v)", jc)
		}
	}
}

// TestReduce pins the join reducer's output on a hand-made input: counts
// of a repeated pair summed across lines, pairs sorted within a document
// pair, a pair below tau dropped.
func TestReduce(t *testing.T) {
	in := "a\tb\t2,0,1,4,4,20,29,0,9\t0,1,3,4,4,0,9,10,19\n" +
		"a\tb\t0,1,1,4,4,0,9,10,19\t1,1,1,4,4,10,19,10,19\n" +
		"a\tc\t0,0,3,3,4,0,9,0,8\n"
	got, c := runProgram(t, Reduce, map[string]string{"PDC_SIGNATURE": "imatch", "PDC_TAU": "0.6"}, in)
	want := "a\tb\t0000000\t0000001\t1.0000\t0\t9\t10\t19\t0\n" + // a signature method's pairs: no evidence needed
		"a\tc\t0000000\t0000000\t0.7500\t0\t9\t0\t8\t0\n"
	if got != want {
		t.Errorf("Reduce:\n%s\nwant\n%s", got, want)
	}
	if c["pdc.join.pairs.verified"] != 2 || c["pdc.join.pairs.below-tau"] != 2 {
		t.Errorf("counters %v, want 2 verified, 2 below tau", c)
	}
}

// TestReduceMalformed: a bad candidate pair is an error naming the line.
func TestReduceMalformed(t *testing.T) {
	for _, in := range []string{
		"a\tb\t0,1,1,4,4,0,9,10\n",      // 8 numbers
		"a\tb\t0,1,1,4,4,0,9,10,19,1\n", // 10
		"a\tb\t0,1,1,0,4,0,9,10,19\n",   // empty set
		"a\tb\t0,1,x,4,4,0,9,10,19\n",
		"a\tb\t0,1,1,4,4,0,9,10,99999999999\n",
		"a\tb\n",
		"a\tb\t0,1,1,4,4,0,9,10,19\t\n",
		"a\tb\t*3,4,4,1,0,0,9\n",          // no sentence of B
		"a\tb\t*3,4,4,2,0,0,9,1,10,19\n",  // kA past the end
		"a\tb\t*3,4,4,1,0,0,9,1,10\n",     // a B sentence without its end
		"a\tb\t*3,4,4,0,0,0,9,1,10,19\n",  // kA 0
		"a\tb\t*3,0,4,1,0,0,9,1,10,19\n",  // empty set
		"a\tb\t*3,4,4,1,0,0,9,1,10,,19\n", // empty number
		"a\tb\t*\n",
	} {
		var out, errb bytes.Buffer
		task := &mr.Task{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
		if err := Reduce(task); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("Reduce(%q) = %v, want an error naming line 1", in, err)
		}
	}
}

// TestReduceProducts: a product item (every sentence of A's with every
// one of B's) is read as the pairs it stands for, beside pairs of its own
// document pair and of others, on random inputs.
func TestReduceProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	env := map[string]string{"PDC_SIGNATURE": "words", "PDC_TAU": "0.6"}
	for round := range 50 {
		var asProducts, asPairs []string
		for _, docs := range []string{"a\tb", "a\tc", "b\tc"} {
			var items, pairs []string
			for range 1 + rng.IntN(4) {
				n := 3 + rng.IntN(3)
				count := n - rng.IntN(2)
				var as, bs [][3]int
				for range 1 + rng.IntN(4) {
					s := rng.IntN(30)
					as = append(as, [3]int{s, 10 * s, 10*s + 9})
				}
				for range 1 + rng.IntN(4) {
					s := rng.IntN(30)
					bs = append(bs, [3]int{s, 10 * s, 10*s + 5})
				}
				item := fmt.Sprintf("*%d,%d,%d,%d", count, n, n, len(as))
				for _, x := range append(slices.Clone(as), bs...) {
					item += fmt.Sprintf(",%d,%d,%d", x[0], x[1], x[2])
				}
				items = append(items, item)
				for _, a := range as {
					for _, b := range bs {
						pairs = append(pairs, fmt.Sprintf("%d,%d,%d,%d,%d,%d,%d,%d,%d", a[0], b[0], count, n, n, a[1], a[2], b[1], b[2]))
					}
				}
			}
			single := fmt.Sprintf("%d,%d,4,4,4,%d,%d,0,9", 40+round, rng.IntN(40), 400+round, 409+round)
			asProducts = append(asProducts, docs+"\t"+strings.Join(append(items, single), "\t"))
			asPairs = append(asPairs, docs+"\t"+strings.Join(append(pairs, single), "\t"))
		}
		got, gc := runProgram(t, Reduce, env, strings.Join(asProducts, "\n")+"\n")
		want, wc := runProgram(t, Reduce, env, strings.Join(asPairs, "\n")+"\n")
		if got != want || fmt.Sprint(gc) != fmt.Sprint(wc) {
			t.Fatalf("round %d: products\n%s%v\nwant (their pairs)\n%s%v", round, got, gc, want, wc)
		}
		if want == "" {
			t.Fatalf("round %d: no pair verified: the test tests nothing", round)
		}
	}
}

// TestRounded: the score without strconv equals the strconv round trip
// for every fraction c/u with u up to 2000, ties included.
func TestRounded(t *testing.T) {
	for u := int64(1); u <= 2000; u++ {
		for c := int64(0); c <= u; c++ {
			j := float64(c) / float64(u)
			want, _ := mr.ParseDecimal(strconv.AppendFloat(nil, j, 'f', 4, 64))
			if got := rounded(c, u, j); got != want {
				t.Fatalf("rounded(%d, %d) = %v, want %v", c, u, got, want)
			}
		}
	}
}

// TestSortCands: both ways of sorting (packed keys, and structs when an
// index is too large to pack) give a stable sort by sentence pair.
func TestSortCands(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var keys []uint64
	for round := range 200 {
		cands := make([]cand, rng.IntN(300))
		for i := range cands {
			cands[i] = cand{a: int32(rng.IntN(20)), b: int32(rng.IntN(20)), count: int32(i)}
			if round%4 == 0 && i == 0 {
				cands[i].a = 1 << 22 // too large to pack
			}
		}
		want := slices.Clone(cands)
		slices.SortStableFunc(want, func(x, y cand) int { return cmp.Compare(x.sentences(), y.sentences()) })
		var packed bool
		keys, packed = sortCands(cands, keys)
		got := cands
		if packed {
			got = nil
			for _, k := range keys {
				got = append(got, cands[k&posMask])
			}
		}
		if packed == (round%4 == 0 && len(cands) > 0) || !slices.Equal(got, want) {
			t.Fatalf("round %d: packed %v, %v, want %v", round, packed, got, want)
		}
	}
}

// TestReduceExactOverlaps: with words (exact overlaps), copies of one
// candidate pair (found in several lists joined through hubs) count once;
// with a counting method they add up.
func TestReduceExactOverlaps(t *testing.T) {
	in := "a\tb\t1,2,4,10,10,0,50,0,50\na\tb\t1,2,4,10,10,0,50,0,50\n"
	for _, tt := range []struct {
		sig, want string
	}{
		{"words", ""}, // 4 of 16: below tau
		{"shingle", "a\tb\t0000001\t0000002\t0.6667\t0\t50\t0\t50\t0\n"}, // 8 of 12
	} {
		got, _ := runProgram(t, Reduce, map[string]string{"PDC_SIGNATURE": tt.sig, "PDC_TAU": "0.6"}, in)
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.sig, got, tt.want)
		}
	}
}

// TestReduceEvidence pins the evidence column with words (lib/signature
// Evidence, --min-evidence 20): anchors 20, identical sets twice their
// words, the others their shared words; with --min-evidence 0, 0.
func TestReduceEvidence(t *testing.T) {
	in := "a\tb\t0,0,5,5,5,0,9,0,9\t1,1,3,3,3,10,19,10,19\t2,2,10,11,11,20,29,20,29\t3,3,4,5,5,30,39,30,39\t4,4,9,10,10,40,49,40,49\n"
	for _, tt := range []struct {
		need string
		want []string // evidence of the pairs, in order
	}{
		{"20", []string{"20", "6", "20", "4", "9"}}, // 9 of 11 is 0.8 but shares under 10
		{"0", []string{"0", "0", "0", "0", "0"}},
	} {
		got, _ := runProgram(t, Reduce, map[string]string{"PDC_SIGNATURE": "words", "PDC_TAU": "0.6", "PDC_MIN_EVIDENCE": tt.need}, in)
		var ev []string
		for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
			f := strings.Split(l, "\t")
			ev = append(ev, f[len(f)-1])
		}
		if !slices.Equal(ev, tt.want) {
			t.Errorf("--min-evidence %s: evidence %v, want %v\n%s", tt.need, ev, tt.want, got)
		}
	}
}

// FuzzCandidates: any candidate item, pair or product, is read as its
// pairs or refused, never a panic; a product's pairs are those of its
// expansion written as pair items.
func FuzzCandidates(f *testing.F) {
	for _, s := range []string{"0,1,1,4,4,0,9,10,19", "*3,4,4,1,0,0,9,1,10,19", "*3,4,4,2,0,0,9,1,10,19,2,20,29", "*", "*1,1,1,1,0,0,0", "0,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, item string) {
		if len(item) > 400 {
			return
		}
		got, _, ok := appendProduct(nil, []byte(strings.TrimPrefix(item, "*")), nil)
		if !strings.HasPrefix(item, "*") {
			var p cand
			p, ok = parseCand([]byte(item))
			got = []cand{p}
		}
		if !ok {
			return
		}
		for _, p := range got {
			if p.nA < 1 || p.nB < 1 || p.a < 0 || p.b < 0 {
				t.Fatalf("%q: read as %+v", item, p)
			}
			q, ok := parseCand(fmt.Appendf(nil, "%d,%d,%d,%d,%d,%d,%d,%d,%d", p.a, p.b, p.count, p.nA, p.nB, p.csA, p.ceA, p.csB, p.ceB))
			if !ok || q != p {
				t.Fatalf("%q: pair %+v does not read back (%+v, %v)", item, p, q, ok)
			}
		}
	})
}

// BenchmarkReduceMatchRepeated: the join reducer with the match on one
// document pair of repeated sentences, the shape of two source files of
// one test suite (a line that opens each test, in 300 and 400 places): a
// product item of 120,000 pairs, with 200 diagonal runs of 5 pairs
// between the copies on one side.
func BenchmarkReduceMatchRepeated(b *testing.B) {
	var in strings.Builder
	in.WriteString("a\tb\t*6,6,6,300")
	for i := range 300 {
		fmt.Fprintf(&in, ",%d,%d,%d", 10*i, 1000*i, 1000*i+40)
	}
	for j := range 400 {
		fmt.Fprintf(&in, ",%d,%d,%d", 7*j+3, 700*j+300, 700*j+340)
	}
	in.WriteString("\na\tb")
	for r := range 200 {
		for k := 1; k <= 5; k++ {
			a, bb := 10*r+k, 3000+10*r+k
			fmt.Fprintf(&in, "\t%d,%d,8,8,8,%d,%d,%d,%d", a, bb, 100*a, 100*a+90, 100*bb, 100*bb+90)
		}
	}
	in.WriteString("\n")
	src := in.String()
	for b.Loop() {
		var out, errb bytes.Buffer
		if err := ReduceMatch(&mr.Task{Stdin: strings.NewReader(src), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}); err != nil {
			b.Fatal(err)
		}
		if out.Len() == 0 {
			b.Fatal("no spans or seeds: the benchmark matches nothing")
		}
	}
}
