package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Streams: divisible splits that cannot be cut.
//
// A plain file's split is shared out by cutting it at a byte offset (see
// lineReader.cut). A .gz file, or records converted to lines on the fly
// (WARC, Avro, trees of pages), can only be read from the start; left to
// one task, such a split keeps one core busy while the others idle (a run
// over one big .gz corpus would parse on one core). A divisible split of
// that kind is read as a stream: its task takes a batch of whole lines at
// a time (streamBatch bytes) and runs the mapper over each batch, with the
// batch's first line as the split start, and an idle worker may join the
// stream as a task of its own (state.steal), taking the next batches in
// turn. The lines, and their input keys, are those one task would read.

// streamBatch is the size of a stream's batches of lines; a line longer
// than it is a batch of its own. A variable for tests.
var streamBatch = 8 << 20

// stream is an open divisible split read in batches by one or more tasks.
type stream struct {
	sp   Split
	keys bool // lines carry their input keys (Job.InputKeys)

	mu    sync.Mutex
	rc    io.ReadCloser
	lr    *lineReader // the source when it is a file's; else r
	r     *mr.Reader
	off   int64 // with r: offset of the next line (Split.Start + bytes read)
	done  bool  // the end was reached
	err   error // a read error, given to every reader
	users int   // tasks reading; the last to leave closes rc
	keyed []byte
}

// newStream reads the opened split sp as a stream; its first user is the
// task that opened it.
func newStream(sp Split, rc io.ReadCloser, keys bool) *stream {
	s := &stream{sp: sp, keys: keys, rc: rc, users: 1, off: sp.Start}
	if lr, ok := rc.(*lineReader); ok {
		s.lr, lr.keys = lr, keys
	} else {
		s.r = mr.NewReader(rc)
	}
	return s
}

// join adds a reader; it fails once the stream has ended.
func (s *stream) join() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.err != nil {
		return false
	}
	s.users++
	return true
}

// readers is the number of tasks reading, 0 once the stream has ended.
func (s *stream) readers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.err != nil {
		return 0
	}
	return s.users
}

// leave removes a reader and closes the source after the last one.
func (s *stream) leave() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users--
	if s.users > 0 {
		return nil
	}
	return s.rc.Close()
}

// next appends the next batch of lines (LF-terminated, with their input
// keys if the job wants them) to dst and returns it with the input offset
// of its first line; an empty batch at the end.
func (s *stream) next(dst []byte) ([]byte, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.offset()
	for !s.done && s.err == nil && len(dst) < streamBatch {
		line, err := s.line()
		switch {
		case err == io.EOF:
			s.done = true
		case err != nil && s.lr == nil && s.r.Lines():
			s.err = err
		case err != nil && s.lr != nil && s.lr.end < 0:
			s.err = fmt.Errorf("read after %d bytes of uncompressed input: %w", s.offset(), err)
		case err != nil:
			s.err = fmt.Errorf("read after input byte %d: %w", s.offset(), err)
		default:
			dst = append(append(dst, line...), '\n')
		}
	}
	return dst, start, s.err
}

// offset is the input offset of the next line.
func (s *stream) offset() int64 {
	if s.lr != nil {
		s.lr.mu.Lock()
		defer s.lr.mu.Unlock()
		return s.lr.pos
	}
	return s.off
}

// line reads the next line, keyed if the job wants keys.
func (s *stream) line() ([]byte, error) {
	if s.lr != nil {
		return s.lr.ReadLine()
	}
	if !s.r.Next() {
		if err := s.r.Err(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	line, off := s.r.Line(), s.off
	s.off += int64(len(line)) + 1
	if !s.keys {
		return line, nil
	}
	s.keyed = appendKeyed(s.keyed[:0], off, line)
	return s.keyed, nil
}

// mapStream runs the mapper over the batches task i takes from s, each as
// a split of its own (its first line's offset as the start), all into out
// and side. While it runs, idle workers may join s (steal).
func (st *state) mapStream(ctx context.Context, i int, s *stream, out, side *lineSplitter) (err error) {
	withdraw := st.offer(i, reading{sp: s.sp, s: s})
	defer func() {
		withdraw()
		if cerr := s.leave(); err == nil && cerr != nil {
			err = fmt.Errorf("close: %w", cerr)
		}
	}()
	var batch []byte
	for {
		var start int64
		batch, start, err = s.next(batch[:0])
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		t := st.newTaskIO(ctx, fmt.Sprintf("map %d", i), st.inputEnv(Split{Name: s.sp.Name, Start: start}))
		if err := t.callSide(st.j.Map, withContext(ctx, &batchLines{b: batch}), out, side); err != nil {
			return err
		}
		st.addCounters(t.counters)
	}
}

// batchLines hands out the lines of a batch in place (an mr.LineSource).
type batchLines struct {
	b  []byte // LF-terminated lines not read yet
	rd lineStream
}

// ReadLine implements mr.LineSource.
func (l *batchLines) ReadLine() ([]byte, error) {
	i := bytes.IndexByte(l.b, '\n')
	if i < 0 {
		return nil, io.EOF
	}
	line := l.b[:i]
	l.b = l.b[i+1:]
	return line, nil
}

// Read implements io.Reader.
func (l *batchLines) Read(p []byte) (int, error) { return l.rd.read(p, l.ReadLine) }
