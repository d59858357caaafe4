// Package sketch is a bottom-k sketch of a passage's distinct words, small
// enough to travel with the passage through the cluster jobs, and the test
// of whether two passages are one text (Shared).
//
// # Text form
//
//	N:HHHHHHHH...
//
// N is the number of distinct words (decimal), then the K smallest of
// their 32-bit hashes (fewer when N < K), ascending, as 8 lower-case hex
// digits each. A passage with no content word is "0:".
package sketch

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/pdc-mr/pdc/lib/signature"
)

// K is the number of hashes a sketch keeps: a passage of at most K
// distinct words is held whole, and Shared is then exact.
const K = 32

// Sketch is the bottom-K sketch of a set of words.
type Sketch struct {
	// N is the number of distinct words.
	N int
	// Min are the smallest hashes of the words, ascending, at most K.
	Min []uint32
}

// Of returns the sketch of words (64-bit word hashes, lib/sentence; in
// any order, repeats allowed). It reorders scratch, which it may use.
func Of(words []uint64, scratch []uint32) Sketch {
	h := scratch[:0]
	for _, w := range words {
		h = append(h, uint32(w^w>>32))
	}
	slices.Sort(h)
	h = slices.Compact(h)
	return Sketch{N: len(h), Min: slices.Clone(h[:min(len(h), K)])}
}

// Append appends the text form of s.
func (s Sketch) Append(b []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(strconv.AppendInt(b, int64(s.N), 10), ':')
	for _, h := range s.Min {
		for shift := 28; shift >= 0; shift -= 4 {
			b = append(b, hex[h>>uint(shift)&15])
		}
	}
	return b
}

// Parse parses the text form of a sketch.
func Parse(b []byte) (Sketch, error) {
	i := bytes.IndexByte(b, ':')
	if i < 0 {
		return Sketch{}, fmt.Errorf("malformed word sketch %q: no ':'", b)
	}
	n, err := strconv.Atoi(string(b[:i]))
	hexes := b[i+1:]
	canonical := i > 0 && b[0] >= '0' && b[0] <= '9' && (b[0] != '0' || i == 1)
	if err != nil || !canonical || len(hexes)%8 != 0 || len(hexes)/8 != min(n, K) {
		return Sketch{}, fmt.Errorf("malformed word sketch %q", b)
	}
	s := Sketch{N: n, Min: make([]uint32, 0, len(hexes)/8)}
	for j := 0; j < len(hexes); j += 8 {
		v, err := strconv.ParseUint(string(hexes[j:j+8]), 16, 32)
		if err != nil || bytes.ContainsAny(hexes[j:j+8], "+-ABCDEF") || len(s.Min) > 0 && uint32(v) <= s.Min[len(s.Min)-1] {
			return Sketch{}, fmt.Errorf("malformed word sketch %q", b)
		}
		s.Min = append(s.Min, uint32(v))
	}
	return s, nil
}

// Shared estimates the share of the smaller set's words that the other
// holds, |A∩B| / min(|A|, |B|): exact when both sets are held whole (at
// most K words), else from the K smallest hashes of the union (Broder's
// estimate of the resemblance J, and |A∩B| = J (|A|+|B|) / (1+J)). A set
// without words shares everything (1).
func Shared(a, b Sketch) float64 {
	small := min(a.N, b.N)
	if small == 0 {
		return 1
	}
	var inter float64
	if Exact(a, b) {
		inter = float64(signature.Overlap(a.Min, b.Min))
	} else {
		// The K smallest of the union; one of them is in both sets iff
		// it is in both sketches.
		both, n := 0, 0
		i, j := 0, 0
		for n < K && (i < len(a.Min) || j < len(b.Min)) {
			switch {
			case j == len(b.Min) || i < len(a.Min) && a.Min[i] < b.Min[j]:
				i++
			case i == len(a.Min) || b.Min[j] < a.Min[i]:
				j++
			default:
				both++
				i++
				j++
			}
			n++
		}
		jac := float64(both) / float64(n)
		inter = jac * float64(a.N+b.N) / (1 + jac)
	}
	return min(1, inter/float64(small))
}

// Exact reports whether Shared(a, b) is exact: both sets are held whole.
func Exact(a, b Sketch) bool { return a.N <= K && b.N <= K }
