package mr

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAppendPadded: padded numbers read back, and sort as bytes as they do
// as numbers.
func TestAppendPadded(t *testing.T) {
	for _, tt := range []struct {
		n     int64
		width int
		want  string
	}{{0, 7, "0000000"}, {42, 7, "0000042"}, {1234567, 7, "1234567"}, {12345678, 7, "12345678"}, {5, 0, "5"}} {
		if got := string(AppendPadded([]byte("x"), tt.n, tt.width)); got != "x"+tt.want {
			t.Errorf("AppendPadded(%d, %d) = %q, want %q", tt.n, tt.width, got, "x"+tt.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var ns []int64
	var bs [][]byte
	for range 1000 {
		n := rng.Int64N(10_000_000)
		ns = append(ns, n)
		bs = append(bs, AppendPadded(nil, n, 10))
	}
	slices.Sort(ns)
	slices.SortFunc(bs, bytes.Compare)
	for i := range ns {
		if string(bs[i]) != fmt.Sprintf("%010d", ns[i]) {
			t.Fatalf("position %d: %s, want %010d", i, bs[i], ns[i])
		}
	}
}
