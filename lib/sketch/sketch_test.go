package sketch

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func words(ids ...int) []uint64 {
	var out []uint64
	for _, id := range ids {
		out = append(out, uint64(id)*0x9E3779B97F4A7C15)
	}
	return out
}

func span(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, ws := range [][]int{nil, {1}, {1, 1, 2}, span(0, 31), span(0, 32), span(0, 500)} {
		s := Of(words(ws...), nil)
		text := string(s.Append(nil))
		back, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		if back.N != s.N || len(back.Min) != len(s.Min) || string(back.Append(nil)) != text {
			t.Fatalf("%q came back as %q", text, back.Append(nil))
		}
		if n := len(map[int]bool(func() map[int]bool {
			m := map[int]bool{}
			for _, w := range ws {
				m[w] = true
			}
			return m
		}())); s.N != n || len(s.Min) != min(n, K) {
			t.Fatalf("Of(%d words): N %d, %d hashes", n, s.N, len(s.Min))
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"", "3", "x:", "-1:", "1:", "1:0000000", "2:0000000100000001", "2:0000000200000001", "1:zzzzzzzz", "0:00000001", "+1:00000001", "01:00000001", "1:0000000A"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

func TestSharedExact(t *testing.T) {
	for _, tc := range []struct {
		a, b []int
		want float64
	}{
		{span(0, 10), span(0, 10), 1},
		{span(0, 10), span(5, 15), 0.5},
		{span(0, 4), span(0, 20), 1}, // the smaller held whole
		{span(0, 10), span(10, 20), 0},
		{nil, span(0, 5), 1},
		{span(0, 32), span(16, 48), 0.5},
	} {
		if got := Shared(Of(words(tc.a...), nil), Of(words(tc.b...), nil)); got != tc.want {
			t.Errorf("Shared(%d words, %d words) = %v, want %v", len(tc.a), len(tc.b), got, tc.want)
		}
	}
}

// TestSharedModel compares the estimate for sets larger than K with the
// exact share, over random pairs of sets: it must be unbiased within a few
// hundredths and rarely off by more than 0.25.
func TestSharedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sumErr float64
	far, trials := 0, 2000
	for range trials {
		na, nb := 33+rng.IntN(300), 33+rng.IntN(300)
		shared := rng.IntN(min(na, nb) + 1)
		a := span(0, na)
		b := append(span(0, shared), span(100000, 100000+nb-shared)...)
		want := float64(shared) / float64(min(na, nb))
		got := Shared(Of(words(a...), nil), Of(words(b...), nil))
		sumErr += got - want
		if math.Abs(got-want) > 0.25 {
			far++
		}
	}
	if bias := sumErr / float64(trials); math.Abs(bias) > 0.03 || far > trials/50 {
		t.Errorf("bias %.3f, %d of %d estimates off by more than 0.25", bias, far, trials)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("0:")
	f.Add(string(Of(words(span(0, 40)...), nil).Append(nil)))
	f.Add("2:" + strings.Repeat("0", 16))
	f.Fuzz(func(t *testing.T, s string) {
		sk, err := Parse([]byte(s))
		if err != nil {
			return
		}
		if got := string(sk.Append(nil)); got != s {
			t.Fatalf("Parse(%q) writes back as %q", s, got)
		}
		if sh := Shared(sk, sk); sk.N > 0 && sh != 1 {
			t.Fatalf("Shared(%q, itself) = %v", s, sh)
		}
	})
}
