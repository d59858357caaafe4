package local

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
)

// Sorting the sort buffer.
//
// Entries are ordered by (partition, key bytes, arena offset); the offset is
// the arrival order, so the result is the one a stable sort by (partition,
// key) would give. The sort is an in-place MSD radix sort (American flag
// sort): one pass distributes the entries by partition, then each partition
// is distributed by key byte, most significant first. Each entry carries an
// 8-byte window of its key (entry.prefix, zero-padded); when a bucket has
// used up its window, the next 8 key bytes are loaded into it. Buckets of at
// most smallSort entries, and buckets whose keys all end within the bytes
// already distributed, are finished by a comparison sort.
//
// Zero padding keeps the radix order consistent with bytes.Compare (a key
// that ends sorts before any longer key with the same bytes, and pads with
// 0), but cannot tell "ab" from "ab\x00": the comparison sort settles such
// ties.

// smallSort is the bucket size below which a comparison sort is used.
const smallSort = 48

// sort orders the entries by partition, key and arrival.
func (b *sortBuffer) sort() {
	defer func() { b.tmp = nil }() // scratch of up to a whole buffer's entries: not kept past the sort
	ents := b.ents
	if b.reducers > 1 {
		count := make([]int, b.reducers)
		for i := range ents {
			count[ents[i].part]++
		}
		next, end := make([]int, b.reducers), make([]int, b.reducers)
		flagPermute(ents, count, next, end, func(e entry) int { return int(e.part) })
		for _, n := range count {
			b.radix(ents[:n], 0, 0)
			ents = ents[n:]
		}
		return
	}
	b.radix(ents, 0, 0)
}

// radix sorts ents, whose keys agree on their first depth+bi bytes (zero
// padded); prefix holds key bytes [depth, depth+8).
func (b *sortBuffer) radix(ents []entry, depth, bi int) {
	for len(ents) > smallSort {
		if bi == 0 && samePrefix(ents) {
			bi = 8
		}
		if bi == 8 {
			depth, bi = depth+8, 0
			if !longerThan(ents, depth) {
				// Every key ends within the bytes distributed: they
				// are equal up to zero padding. (Checked on the
				// entries: loading a window would read every key.)
				b.tieSort(ents)
				return
			}
			b.window(ents, depth)
			continue
		}
		shift := uint(56 - 8*bi)
		var count [256]int
		for i := range ents {
			count[byte(ents[i].prefix>>shift)]++
		}
		if count[byte(ents[0].prefix>>shift)] == len(ents) {
			bi++
			continue
		}
		var next, end [256]int
		flagPermute(ents, count[:], next[:], end[:], func(e entry) int { return int(byte(e.prefix >> shift)) })
		for _, n := range count {
			if n > 1 {
				b.radix(ents[:n], depth, bi+1)
			}
			ents = ents[n:]
		}
		return
	}
	b.compareSort(ents, depth)
}

func samePrefix(ents []entry) bool {
	p := ents[0].prefix
	for i := range ents {
		if ents[i].prefix != p {
			return false
		}
	}
	return true
}

// longerThan reports whether any key of ents is longer than depth bytes.
func longerThan(ents []entry, depth int) bool {
	for i := range ents {
		if int(ents[i].klen) > depth {
			return true
		}
	}
	return false
}

// window loads key bytes [depth, depth+8) into the prefixes of ents.
func (b *sortBuffer) window(ents []entry, depth int) {
	for i := range ents {
		if j := i + 16; j < len(ents) && int(ents[j].klen) > depth {
			prefetch(&b.arena[int(ents[j].off)+depth])
		}
		e := &ents[i]
		var k []byte
		if int(e.klen) > depth {
			k = b.arena[int(e.off)+depth : e.off+e.klen]
		}
		if len(k) >= 8 {
			e.prefix = binary.BigEndian.Uint64(k)
			continue
		}
		var p [8]byte
		copy(p[:], k)
		e.prefix = binary.BigEndian.Uint64(p[:])
	}
}

// compareSort sorts ents whose keys agree on their first depth bytes (up to
// the shorter key's length) by key bytes, then arrival.
func (b *sortBuffer) compareSort(ents []entry, depth int) {
	for i := range ents {
		if int(ents[i].klen) > depth {
			prefetch(&b.arena[int(ents[i].off)+depth])
		}
	}
	slices.SortFunc(ents, func(x, y entry) int {
		if c := cmp.Compare(x.prefix, y.prefix); c != 0 {
			return c
		}
		s := uint32(depth)
		s = min(s, x.klen, y.klen)
		if c := bytes.Compare(b.arena[x.off+s:x.off+x.klen], b.arena[y.off+s:y.off+y.klen]); c != 0 {
			return c
		}
		return cmp.Compare(x.off, y.off)
	})
}

// tieSort sorts entries whose keys are equal up to zero padding: a
// shorter key sorts first (it is a prefix of the longer, as bytes.Compare
// has it), then arrival order. Posting lists and other groups of one key
// end here. Keys of one length (the usual case) need only the arrival
// order: large groups get it from a radix sort of their arena offsets,
// small ones from a comparison sort.
func (b *sortBuffer) tieSort(ents []entry) {
	sameLen := true
	for i := range ents {
		if ents[i].klen != ents[0].klen {
			sameLen = false
			break
		}
	}
	if sameLen && len(ents) >= 64 {
		b.tmp = offsetSort(ents, b.tmp)
		return
	}
	slices.SortFunc(ents, func(x, y entry) int {
		if c := cmp.Compare(x.klen, y.klen); c != 0 {
			return c
		}
		return cmp.Compare(x.off, y.off)
	})
}

// offsetSort orders ents by arena offset with a least-significant-digit
// radix sort, a byte per pass over the bits in which the offsets differ,
// through tmp (returned, grown, for reuse).
func offsetSort(ents, tmp []entry) []entry {
	lo, hi := ents[0].off, ents[0].off
	for i := range ents {
		lo, hi = min(lo, ents[i].off), max(hi, ents[i].off)
	}
	tmp = slices.Grow(tmp[:0], len(ents))[:len(ents)]
	src, dst := ents, tmp
	for shift := 0; shift < bits.Len32(hi-lo); shift += 8 {
		var count [256]int
		for i := range src {
			count[byte((src[i].off-lo)>>shift)]++
		}
		pos := 0
		for d, n := range count {
			count[d] = pos
			pos += n
		}
		for i := range src {
			d := byte((src[i].off - lo) >> shift)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ents[0] {
		copy(ents, src)
	}
	return tmp
}

// flagPermute reorders ents in place so that the entries of digit 0 come
// first, then those of digit 1, and so on; count[d] is the number of entries
// of digit d. next and end are scratch space of len(count).
func flagPermute(ents []entry, count, next, end []int, digit func(entry) int) {
	pos := 0
	for d, n := range count {
		next[d] = pos
		pos += n
		end[d] = pos
	}
	for d := range count {
		for next[d] < end[d] {
			e := ents[next[d]]
			for k := digit(e); k != d; k = digit(e) {
				e, ents[next[k]] = ents[next[k]], e
				next[k]++
			}
			ents[next[d]] = e
			next[d]++
		}
	}
}
