package local

// Run files.
//
// A map task collects its output records in a sort buffer (one byte arena
// holding key and value bytes back to back, plus a fixed-size entry per
// record). When the buffer reaches the task's share of Runner.SortMem, and at
// the end of the task, the entries are sorted by (partition, key bytes,
// arrival order) and written to a run file in the job's temporary directory:
//
//	run file   = record*            (partition 0's records, then 1's, ...)
//	record     = uvarint(len(key)) uvarint(len(value)) key value
//
// The byte range of each partition is kept in memory (run.offs), so a reduce
// task reads only its own segment of every run. When Job.Combine is set, each
// partition's sorted records pass through it before they are written.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/pdc-mr/pdc/lib/mr"
)

// run is one sorted spill file.
type run struct {
	path string
	offs []int64 // partition p is bytes [offs[p], offs[p+1])
}

// entry locates one record of the sort buffer.
type entry struct {
	prefix uint64 // first 8 key bytes, big-endian, zero-padded
	off    uint32 // key at arena[off:off+klen], value right after
	klen   uint32
	vlen   uint32
	part   uint32
}

const entrySize = 24

// sortBuffer is a map task's in-memory output buffer.
type sortBuffer struct {
	keyFields, partFields, reducers int
	limit                           int // bytes of arena + entries before a spill
	arena                           []byte
	ents                            []entry
	tmp                             []entry // scratch space of the sort
	spill                           func() error
}

func (b *sortBuffer) size() int { return len(b.arena) + entrySize*len(b.ents) }

// capacity is the memory the buffer holds.
func (b *sortBuffer) capacity() int { return cap(b.arena) + entrySize*cap(b.ents) }

// add appends one map output line.
func (b *sortBuffer) add(line []byte) error {
	key, value := mr.SplitKey(line, b.keyFields)
	n := len(key) + len(value)
	if len(b.ents) > 0 && b.size()+n+entrySize > b.limit {
		if err := b.spill(); err != nil {
			return err
		}
	}
	if int64(len(b.arena))+int64(n) > 1<<32-1 {
		return fmt.Errorf("map output record of %d bytes is too large", n)
	}
	b.grow(n)
	b.growEnts()
	off := len(b.arena)
	b.arena = append(append(b.arena, key...), value...)
	b.ents = append(b.ents, entry{
		prefix: keyPrefix(key),
		off:    uint32(off),
		klen:   uint32(len(key)),
		vlen:   uint32(len(value)),
		part:   uint32(mr.Partition(key, b.partFields, b.reducers)),
	})
	return nil
}

// grow makes room for n more arena bytes without letting append double the
// arena (with the entries) past the limit.
func (b *sortBuffer) grow(n int) {
	need := len(b.arena) + n
	if need <= cap(b.arena) {
		return
	}
	c := max(2*cap(b.arena), 64<<10, need)
	if room := b.limit - entrySize*cap(b.ents); c > room && need <= room {
		c = room
	}
	b.arena = append(make([]byte, 0, c), b.arena...)
}

// growEnts makes room for one more entry, keeping the capacity of arena and
// entries together within the limit when it can, so that the buffer can be
// reused (Runner.getBuffer).
func (b *sortBuffer) growEnts() {
	if len(b.ents) < cap(b.ents) {
		return
	}
	c := max(2*cap(b.ents), 1024)
	if room := (b.limit - cap(b.arena)) / entrySize; c > room && room > len(b.ents) {
		c = room
	}
	ents := make([]entry, len(b.ents), c)
	copy(ents, b.ents)
	b.ents = ents
}

func keyPrefix(key []byte) uint64 {
	var p [8]byte
	copy(p[:], key)
	return binary.BigEndian.Uint64(p[:])
}

func (b *sortBuffer) key(e *entry) []byte { return b.arena[e.off : e.off+e.klen] }

func (b *sortBuffer) value(e *entry) []byte {
	return b.arena[e.off+e.klen : e.off+e.klen+e.vlen]
}

func (b *sortBuffer) reset() {
	b.arena = b.arena[:0]
	b.ents = b.ents[:0]
}

// writeRun sorts the buffer and writes it to a new run file at path. With a
// combiner, each partition's records go through combine first.
func (b *sortBuffer) writeRun(path string, combine func(in io.Reader, out *runWriter) error) (*run, error) {
	b.sort()
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	w := newRunWriter(f)
	rn := &run{path: path, offs: make([]int64, b.reducers+1)}
	next := 0 // offs[:next] are set
	for i := 0; i < len(b.ents); {
		p := int(b.ents[i].part)
		j := i + 1
		for j < len(b.ents) && int(b.ents[j].part) == p {
			j++
		}
		for ; next <= p; next++ {
			rn.offs[next] = w.n
		}
		if err := b.writePart(w, b.ents[i:j], combine); err != nil {
			f.Close()
			return nil, err
		}
		i = j
	}
	for ; next <= b.reducers; next++ {
		rn.offs[next] = w.n
	}
	if err := w.bw.Flush(); err != nil {
		f.Close()
		return nil, fmt.Errorf("spill: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	b.reset()
	return rn, nil
}

// writePart writes the sorted records of one partition, through combine if
// it is set.
func (b *sortBuffer) writePart(w *runWriter, ents []entry, combine func(io.Reader, *runWriter) error) error {
	if combine == nil {
		for i := range ents {
			if j := i + 16; j < len(ents) {
				e := &ents[j]
				for off := e.off; off < e.off+e.klen+e.vlen; off += 64 {
					prefetch(&b.arena[off])
				}
			}
			if err := w.write(b.key(&ents[i]), b.value(&ents[i])); err != nil {
				return err
			}
		}
		return nil
	}
	w.prev, w.checkOrder = w.prev[:0], true
	defer func() { w.checkOrder = false }()
	return combine(&entryReader{b: b, ents: ents}, w)
}

// entryReader presents sorted buffer entries as streaming input lines
// `key TAB value LF` (the combiner's stdin); it is an mr.LineSource.
type entryReader struct {
	b    *sortBuffer
	ents []entry
	buf  []byte // holds the current line
	rd   lineStream
}

// ReadLine implements mr.LineSource.
func (r *entryReader) ReadLine() ([]byte, error) {
	if len(r.ents) == 0 {
		return nil, io.EOF
	}
	e := &r.ents[0]
	r.ents = r.ents[1:]
	r.buf = appendLine(r.buf[:0], r.b.key(e), r.b.value(e))
	return r.buf[:len(r.buf)-1], nil
}

func (r *entryReader) Read(p []byte) (int, error) { return r.rd.read(p, r.ReadLine) }

func appendLine(dst, key, value []byte) []byte {
	dst = append(dst, key...)
	dst = append(dst, '\t')
	dst = append(dst, value...)
	return append(dst, '\n')
}

// runWriter writes records in the run file format.
type runWriter struct {
	bw         *bufio.Writer
	n          int64 // bytes written
	hdr        [2 * binary.MaxVarintLen64]byte
	checkOrder bool // fail if keys decrease (combiner output)
	prev       []byte
}

func newRunWriter(w io.Writer) *runWriter {
	return &runWriter{bw: bufio.NewWriterSize(w, 256<<10)}
}

func (w *runWriter) write(key, value []byte) error {
	if w.checkOrder {
		if bytes.Compare(key, w.prev) < 0 {
			return fmt.Errorf("combiner output not sorted: key %q after %q", key, w.prev)
		}
		w.prev = append(w.prev[:0], key...)
	}
	h := binary.AppendUvarint(w.hdr[:0], uint64(len(key)))
	h = binary.AppendUvarint(h, uint64(len(value)))
	w.bw.Write(h)
	w.bw.Write(key)
	_, err := w.bw.Write(value)
	w.n += int64(len(h) + len(key) + len(value))
	if err != nil {
		return fmt.Errorf("write run: %w", err)
	}
	return nil
}
