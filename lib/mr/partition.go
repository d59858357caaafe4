package mr

import (
	"bytes"
	"math"
	"unicode/utf8"
)

// Partition returns the reduce partition of key among reducers, exactly as
// Hadoop's KeyFieldBasedPartitioner does with the option -k1,P
// (P = partitionFields) and the default TAB key field separator.
//
// From KeyFieldBasedPartitioner.getPartition and KeyFieldHelper
// (hadoop-mapreduce-client-core, org.apache.hadoop.mapreduce.lib.partition):
//   - the key Text is decoded and re-encoded as UTF-8 (Text.toString, then
//     getBytes(UTF_8)), so each ill-formed byte sequence becomes EF BF BD;
//   - an empty key goes to partition 0;
//   - for -k1,P the hashed bytes run from the start of field 1 through the
//     end of field P (getStartOffset/getEndOffset), so they include the tabs
//     between the fields; a key with fewer than P fields is hashed whole;
//   - hash = 31*hash + b over those bytes with b a signed Java byte and int32
//     wrap-around, then partition = (hash & 0x7fffffff) % reducers.
//
// partitionFields < 1 hashes the whole key (-k1). reducers < 2 gives 0.
func Partition(key []byte, partitionFields, reducers int) int {
	if reducers < 2 || len(key) == 0 {
		return 0
	}
	if !utf8.Valid(key) {
		key = javaUTF8(key)
	}
	end := len(key)
	if partitionFields >= 1 {
		pos := 0
		for k := 0; k < partitionFields; k++ {
			i := bytes.IndexByte(key[pos:], '\t')
			if i < 0 {
				pos = len(key)
				break
			}
			pos += i + 1
			if k+1 == partitionFields {
				pos-- // end of field P, before its tab
			}
		}
		end = pos
	}
	h := javaHash(key[:end]) & 0x7fffffff
	if reducers <= math.MaxInt32 {
		return int(uint32(h) % uint32(reducers)) // a 32-bit division is the faster
	}
	return int(h) % reducers
}

// javaHash is Java's hash = 31*hash + b over b, signed bytes, with int32
// wrap-around. It takes four bytes per step (hash*31^4 + b0*31^3 + b1*31^2
// + b2*31 + b3, the same in wrapping arithmetic), so that one multiply, not
// four, stands between a step and the next.
func javaHash(b []byte) int32 {
	var h int32
	for len(b) >= 4 {
		h = h*923521 + int32(int8(b[0]))*29791 + int32(int8(b[1]))*961 + int32(int8(b[2]))*31 + int32(int8(b[3]))
		b = b[4:]
	}
	for _, c := range b {
		h = 31*h + int32(int8(c))
	}
	return h
}

// javaUTF8 returns b with every maximal ill-formed subsequence replaced by
// U+FFFD, as Java's UTF-8 decoder does with CodingErrorAction.REPLACE (the
// Unicode "maximal subpart" practice; a truncated sequence at the end is one
// subpart).
func javaUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		n, valid := utf8Subpart(b[i:])
		if valid {
			out = append(out, b[i:i+n]...)
		} else {
			out = append(out, "\uFFFD"...)
		}
		i += n
	}
	return out
}

// utf8Subpart returns the length of the well-formed sequence starting b
// (valid=true) or of the maximal ill-formed subpart there (valid=false, n>=1),
// following Table 3-7 of the Unicode standard.
func utf8Subpart(b []byte) (n int, valid bool) {
	c := b[0]
	var size int
	lo, hi := byte(0x80), byte(0xBF) // range of the second byte
	switch {
	case c >= 0xC2 && c <= 0xDF:
		size = 2
	case c == 0xE0:
		size, lo = 3, 0xA0
	case c == 0xED:
		size, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		size = 3
	case c == 0xF0:
		size, lo = 4, 0x90
	case c == 0xF4:
		size, hi = 4, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		size = 4
	default:
		return 1, false
	}
	for n = 1; n < size; n++ {
		if n >= len(b) {
			return n, false
		}
		l, h := byte(0x80), byte(0xBF)
		if n == 1 {
			l, h = lo, hi
		}
		if b[n] < l || b[n] > h {
			return n, false
		}
	}
	return size, true
}
