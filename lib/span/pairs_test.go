package span

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// TestStreamPairs checks StreamPairs against Pairs of every span read
// at once, on random spans in part files partitioned by document pair as
// the extend job writes them.
func TestStreamPairs(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		dir := t.TempDir()
		parts := make([][]Span, 1+rng.IntN(4))
		for range rng.IntN(200) {
			a, b := rng.IntN(12), rng.IntN(12)
			if a == b {
				continue
			}
			s := Span{DocA: fmt.Sprintf("d%02d", min(a, b)), DocB: fmt.Sprintf("d%02d\tx", max(a, b)),
				StartA: rng.IntN(50), StartB: rng.IntN(50), Length: 1 + rng.IntN(5)}
			s.CharStartA, s.CharStartB = rng.IntN(1000), rng.IntN(1000)
			s.CharEndA, s.CharEndB = s.CharStartA+rng.IntN(300), s.CharStartB+rng.IntN(300)
			p := (a*12 + b) % len(parts) // a pair's spans in one part
			if a > b {
				p = (b*12 + a) % len(parts)
			}
			parts[p] = append(parts[p], s)
		}
		for i, ss := range parts {
			var b []byte
			var parsed []Span
			for _, s := range ss {
				line := string(s.AppendTSV(nil))
				ps, err := Parse(line)
				if err != nil {
					t.Fatal(err)
				}
				parsed = append(parsed, ps)
			}
			slices.SortFunc(parsed, Compare)
			for _, s := range parsed {
				b = append(s.AppendTSV(b), '\n')
			}
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
		want := Pairs(all)
		var got []DocPair
		if err := StreamPairs(hdfsfs.Local(), dir, func(p DocPair) error { got = append(got, p); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: StreamPairs gave %d pairs, Pairs %d; first difference in %+v", seed, len(got), len(want), got)
		}
	}
}
