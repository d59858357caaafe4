package local

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// segment is one partition's byte range of a run file. Segments are listed
// in (map task, spill) order; that order breaks ties between equal keys.
type segment struct {
	path       string
	start, end int64
}

// segReader reads the records of one segment.
type segReader struct {
	f          *os.File
	br         *bufio.Reader
	ord        int // position in the merge's segment list
	key, value []byte
	buf        []byte
}

const segBufSize = 32 << 10

func openSegment(s segment, ord int) (*segReader, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, fmt.Errorf("open run: %w", err)
	}
	sr := io.NewSectionReader(f, s.start, s.end-s.start)
	return &segReader{f: f, br: bufio.NewReaderSize(sr, segBufSize), ord: ord}, nil
}

// next reads the next record; io.EOF at the end of the segment.
func (r *segReader) next() error {
	klen, err := binary.ReadUvarint(r.br)
	if err != nil {
		return err // io.EOF only at a record boundary
	}
	vlen, err := binary.ReadUvarint(r.br)
	if err != nil {
		return corrupt(err)
	}
	n := int(klen + vlen)
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.br, r.buf); err != nil {
		return corrupt(err)
	}
	r.key, r.value = r.buf[:klen], r.buf[klen:]
	return nil
}

func corrupt(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read run: %w", err)
}

// mergeHeap orders segment readers by current key, then segment order.
type mergeHeap []*segReader

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].key, h[j].key); c != 0 {
		return c < 0
	}
	return h[i].ord < h[j].ord
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*segReader)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merger is a k-way merge of sorted segments. It is also an io.Reader of
// the merged records as streaming lines `key TAB value LF` (a reducer's
// stdin), and an mr.LineSource of them.
type merger struct {
	h       mergeHeap
	all     []*segReader
	started bool
	cur     *segReader // the reader whose record was returned last
	buf     []byte     // holds the current line
	rd      lineStream
}

func newMerger(segs []segment) (*merger, error) {
	m := &merger{}
	for i, s := range segs {
		if s.end <= s.start {
			continue
		}
		r, err := openSegment(s, i)
		if err != nil {
			m.close()
			return nil, err
		}
		m.all = append(m.all, r)
	}
	return m, nil
}

// next advances to the next record in merge order and returns its reader;
// nil, io.EOF at the end.
func (m *merger) next() (*segReader, error) {
	if !m.started {
		m.started = true
		for _, r := range m.all {
			if err := r.next(); err == nil {
				m.h = append(m.h, r)
			} else if err != io.EOF {
				return nil, err
			}
		}
		heap.Init(&m.h)
	} else if m.cur != nil {
		if err := m.cur.next(); err == nil {
			heap.Fix(&m.h, 0)
		} else if err == io.EOF {
			heap.Pop(&m.h)
		} else {
			return nil, err
		}
	}
	if len(m.h) == 0 {
		m.cur = nil
		return nil, io.EOF
	}
	m.cur = m.h[0]
	return m.cur, nil
}

// ReadLine implements mr.LineSource.
func (m *merger) ReadLine() ([]byte, error) {
	r, err := m.next()
	if err != nil {
		return nil, err
	}
	m.buf = appendLine(m.buf[:0], r.key, r.value)
	return m.buf[:len(m.buf)-1], nil
}

// Read implements io.Reader.
func (m *merger) Read(p []byte) (int, error) { return m.rd.read(p, m.ReadLine) }

func (m *merger) close() {
	for _, r := range m.all {
		r.f.Close()
	}
	m.all = nil
}

// mergeFanIn is the most segments merged at once; beyond it, groups of
// segments are first merged into intermediate files, which bounds the open
// files and read buffers of a reduce task. A variable for tests.
var mergeFanIn = 64

// reduceSegments merges consecutive groups of segments into new files in dir
// until at most fanIn remain. Merging neighbours keeps the tie order.
func reduceSegments(segs []segment, fanIn int, dir string, tag string) ([]segment, error) {
	for pass := 0; len(segs) > fanIn; pass++ {
		var out []segment
		for i := 0; i < len(segs); i += fanIn {
			group := segs[i:min(i+fanIn, len(segs))]
			if len(group) == 1 {
				out = append(out, group[0])
				continue
			}
			path := fmt.Sprintf("%s/%s-merge%d-%d", dir, tag, pass, i/fanIn)
			s, err := mergeToFile(group, path)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		segs = out
	}
	return segs, nil
}

func mergeToFile(segs []segment, path string) (segment, error) {
	m, err := newMerger(segs)
	if err != nil {
		return segment{}, err
	}
	defer m.close()
	f, err := os.Create(path)
	if err != nil {
		return segment{}, fmt.Errorf("merge: %w", err)
	}
	w := newRunWriter(f)
	for {
		r, err := m.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = w.write(r.key, r.value)
		}
		if err != nil {
			f.Close()
			return segment{}, err
		}
	}
	if err := w.bw.Flush(); err != nil {
		f.Close()
		return segment{}, fmt.Errorf("merge: %w", err)
	}
	if err := f.Close(); err != nil {
		return segment{}, fmt.Errorf("merge: %w", err)
	}
	return segment{path: path, start: 0, end: w.n}, nil
}
