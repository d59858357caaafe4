package join

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
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
// several document pairs, repeated candidates summed).
func TestReduceMatch(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 3))
		env := map[string]string{"PDC_SIGNATURE": "imatch", "PDC_TAU": "0.6", "PDC_GAP": fmt.Sprint(rng.IntN(2)), "PDC_LAMBDA": fmt.Sprint(2 + rng.IntN(2))}
		var lines []string
		for range 50 + rng.IntN(300) {
			a, b := rng.IntN(40), rng.IntN(40)
			docs := []string{"a\tb", "a\tc", "b/x\tc/y"}[rng.IntN(3)]
			n := 3 + rng.IntN(4)
			cs := 10 * a
			lines = append(lines, fmt.Sprintf("%s\t%07d\t%07d\t1\t%d\t%d\t%d\t%d\t%d\t%d", docs, a, b, n, n+rng.IntN(2), cs, cs+9+rng.IntN(60), 10*b, 10*b+9+rng.IntN(60)))
			if rng.IntN(2) == 0 { // a diagonal after it
				for k := 1; k < 2+rng.IntN(5); k++ {
					lines = append(lines, fmt.Sprintf("%s\t%07d\t%07d\t%d\t%d\t%d\t%d\t%d\t%d\t%d", docs, a+k, b+k, n, n, n, 10*(a+k), 10*(a+k)+50, 10*(b+k), 10*(b+k)+50))
				}
			}
		}
		slices.SortStableFunc(lines, func(x, y string) int {
			kx, _ := mr.SplitKey([]byte(x), 4)
			ky, _ := mr.SplitKey([]byte(y), 4)
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
