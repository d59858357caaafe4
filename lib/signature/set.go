package signature

// Compact words sets. A words posting (mappers/index) carries its
// sentence's whole ordered token set so that the join can verify a pair
// exactly. The set travels in text records, so its form is made of the 64
// characters A-Z a-z 0-9 + / (no tab, comma, newline or backslash):
//
//	number(u) number(r0) number(r1-r0-1) number(r2-r1-1) ...
//
// u is the number of tokens seen in one document only (they come first in
// the order and can never be shared, so only their number matters), r0 <
// r1 < ... the ranks of the shared tokens (Stats.Key). A number is written
// in groups of 5 bits, least significant first, one character per group,
// value 32 added to every group but the last. A set of n shared tokens
// among R ranked tokens takes about n*log2(R/n)/5 characters, against 10.7
// per token for base64 of 64-bit hashes.

import (
	"errors"
	"math"
)

const setAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var setValue = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := range len(setAlphabet) {
		t[setAlphabet[i]] = int8(i)
	}
	return t
}()

// ErrBadSet is returned for a malformed compact set.
var ErrBadSet = errors.New("malformed words set")

// AppendSet appends the compact form of an ascending set of order keys
// (Generator.Ordered) to dst.
func AppendSet(dst []byte, set []uint64) []byte {
	u := 0
	for u < len(set) && set[u]&Shared == 0 {
		u++
	}
	dst = appendNumber(dst, uint64(u))
	prev := int64(-1)
	for _, k := range set[u:] {
		r := int64(k &^ Shared)
		dst = appendNumber(dst, uint64(r-prev-1))
		prev = r
	}
	return dst
}

func appendNumber(dst []byte, v uint64) []byte {
	for v >= 32 {
		dst = append(dst, setAlphabet[32|v&31])
		v >>= 5
	}
	return append(dst, setAlphabet[v])
}

// DecodeSet decodes a compact set: it returns the number of tokens seen in
// one document only and appends the ranks of the shared tokens, ascending,
// to dst.
func DecodeSet(src []byte, dst []uint32) (int, []uint32, error) {
	u, src, err := number(src)
	if err != nil {
		return 0, dst, err
	}
	if u > math.MaxInt32 {
		return 0, dst, ErrBadSet
	}
	next := uint64(0) // smallest possible next rank
	for len(src) > 0 {
		var d uint64
		d, src, err = number(src)
		if err != nil {
			return 0, dst, err
		}
		r := next + d
		if r < next || r > math.MaxUint32 {
			return 0, dst, ErrBadSet
		}
		dst = append(dst, uint32(r))
		next = r + 1
	}
	return int(u), dst, nil
}

func number(src []byte) (uint64, []byte, error) {
	var v uint64
	for i, c := range src {
		if i >= 13 { // 13 groups hold 64 bits
			break
		}
		g := setValue[c]
		if g < 0 {
			return 0, src, ErrBadSet
		}
		v |= uint64(g&31) << (5 * uint(i))
		if g < 32 {
			return v, src[i+1:], nil
		}
	}
	return 0, src, ErrBadSet
}
