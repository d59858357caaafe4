package mr

import "fmt"

// BatchBytes is how many bytes of output lines a Batch holds before it
// writes them out.
const BatchBytes = 8 << 20

// A Batch gathers a mapper's output by key (in-mapper combining): one line
// per key, `key TAB value TAB value ...`, instead of one line per value, so
// that the key travels once per batch and the shuffle sorts far fewer
// records. Lines are written out, in the order their keys first came, when
// the batch holds BatchBytes and at Flush; a key can then start a new line,
// so a reducer may get several lines of one key.
//
// Each line is kept whole (appended to, growing) rather than put together
// from pieces at the end: measured, the pieces' scattered reads cost more
// than the growing.
type Batch[K comparable] struct {
	out   Output
	index map[K]int // key -> its line in lines
	lines [][]byte
	marks []uint64 // the caller's mark of each line (Mark)
	// With Dense: line i+1 of number n at dense[n] (0: none), and the
	// numbers of the lines held, to clear dense at Flush.
	dense []int32
	nums  []int32
	size  int
	limit int // BatchBytes; smaller in tests
}

// NewBatch returns a Batch writing to out.
func NewBatch[K comparable](out Output) *Batch[K] {
	return &Batch[K]{out: out, index: make(map[K]int), limit: BatchBytes}
}

// Line returns key k's line, to append TAB and a value to and hand back to
// Put with i. A new line is empty: append the key's text first.
func (b *Batch[K]) Line(k K) (line []byte, i int) {
	i, ok := b.index[k]
	if !ok {
		i = b.newLine()
		b.index[k] = i
	}
	return b.lines[i], i
}

// newLine adds an empty line and returns its number.
func (b *Batch[K]) newLine() int {
	b.lines = append(b.lines, make([]byte, 0, 256))
	b.marks = append(b.marks, 0)
	b.size += 64 // the index entry and the line's header
	return len(b.lines) - 1
}

// Dense makes the batch find lines by number, 0 <= n < size, with LineAt
// instead of Line: an index into a slice instead of a hash lookup, for keys
// that are small dense numbers (the words method's token ranks). It takes
// 4 bytes per number.
func (b *Batch[K]) Dense(size int) {
	b.dense = make([]int32, size)
}

// LineAt is Line, by number n, for a batch made Dense.
func (b *Batch[K]) LineAt(n int) (line []byte, i int) {
	if j := b.dense[n]; j != 0 {
		return b.lines[j-1], int(j - 1)
	}
	i = b.newLine()
	b.dense[n] = int32(i + 1)
	b.nums = append(b.nums, int32(n))
	return b.lines[i], i
}

// Put stores line i after appending to it, and writes the batch out once
// it holds BatchBytes.
func (b *Batch[K]) Put(i int, line []byte) error {
	b.size += len(line) - len(b.lines[i])
	b.lines[i] = line
	if b.size >= b.limit {
		return b.Flush()
	}
	return nil
}

// Mark sets line i's mark to m and returns the mark it had: 0 for a new
// line. A mapper marks a line with what its last value was about (the
// index mapper: which document), to leave out what the value before says.
func (b *Batch[K]) Mark(i int, m uint64) (prev uint64) {
	prev, b.marks[i] = b.marks[i], m
	return prev
}

// Flush writes out the lines held and forgets them. It does not flush the
// Output.
func (b *Batch[K]) Flush() error {
	for i, l := range b.lines {
		if _, err := b.out.Write(append(l, '\n')); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		b.lines[i] = nil
	}
	b.lines, b.marks, b.size = b.lines[:0], b.marks[:0], 0
	clear(b.index)
	for _, n := range b.nums {
		b.dense[n] = 0
	}
	b.nums = b.nums[:0]
	return nil
}

// Close writes out the lines held and flushes the Output: a mapper's last
// call.
func (b *Batch[K]) Close() error {
	if err := b.Flush(); err != nil {
		return err
	}
	if err := b.out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
