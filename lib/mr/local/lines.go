package local

import (
	"bufio"
	"bytes"
	"context"
	"io"

	"github.com/pdc-mr/pdc/lib/mr"
)

// lineSplitter is the io.Writer given to a task as Stdout or Stderr. It cuts
// the bytes written into lines as Hadoop's LineReader does when it reads a
// streaming process's output: a line ends at LF, CR or CRLF, and a final
// unterminated line counts if it is not empty. Each line goes to emit.
type lineSplitter struct {
	ctx     context.Context
	emit    func(line []byte) error
	partial []byte
	cr      bool // the last byte written ended a line with CR
	err     error
}

// Write implements io.Writer. It fails once the task's context is done.
func (s *lineSplitter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return 0, err
	}
	n := len(p)
	if s.cr && len(p) > 0 && p[0] == '\n' {
		p = p[1:]
	}
	s.cr = false
	// Programs write LF lines: with no CR in p, a line ends at the next LF
	// (one search per line instead of indexEOL's two).
	eol := indexEOL
	if bytes.IndexByte(p, '\r') < 0 {
		eol = indexLF
	}
	for len(p) > 0 {
		i := eol(p)
		if i < 0 {
			s.partial = append(s.partial, p...)
			break
		}
		line := p[:i]
		if len(s.partial) > 0 {
			s.partial = append(s.partial, line...)
			line = s.partial
		}
		if err := s.emit(line); err != nil {
			s.err = err
			return 0, err
		}
		s.partial = s.partial[:0]
		if p[i] == '\r' {
			if i+1 == len(p) {
				s.cr = true
			} else if p[i+1] == '\n' {
				i++
			}
		}
		p = p[i+1:]
	}
	return n, nil
}

// Flush implements mr.Output: lines go to emit as they are written, so
// there is nothing to flush, but a failed emit is reported.
func (s *lineSplitter) Flush() error { return s.err }

// close emits the final unterminated line, if any. The splitter can then
// take the output of another program (a map task's next split).
func (s *lineSplitter) close() error {
	s.cr = false
	if s.err != nil {
		return s.err
	}
	if len(s.partial) > 0 {
		s.err = s.emit(s.partial)
		s.partial = s.partial[:0]
	}
	return s.err
}

// writeKeyValue writes line to w as Hadoop Streaming passes a record on: the
// key (first keyFields fields), TAB, the value, LF. A line with fewer than
// keyFields tabs is all key, so it gains a trailing TAB (the empty value),
// exactly as TextOutputFormat and the reducer's input writer do on Hadoop.
func writeKeyValue(w *bufio.Writer, line []byte, keyFields int) error {
	key, _ := mr.SplitKey(line, keyFields)
	w.Write(line)
	if len(key) == len(line) {
		w.WriteByte('\t')
	}
	return w.WriteByte('\n')
}

// lineStream is the io.Reader side of an mr.LineSource: its lines, each
// followed by an LF, at most one line per Read.
type lineStream struct {
	out []byte // the unread part of the current line
	nl  bool   // the LF after it is still owed
}

// read fills p from the current line, reading the next one with readLine
// when nothing is pending.
func (s *lineStream) read(p []byte, readLine func() ([]byte, error)) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(s.out) == 0 && !s.nl {
		line, err := readLine()
		if err != nil {
			return 0, err
		}
		s.out, s.nl = line, true
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	if len(s.out) == 0 && s.nl && n < len(p) {
		p[n] = '\n'
		n++
		s.nl = false
	}
	return n, nil
}

// ctxReader fails reads once ctx is done, so that a canceled task stops.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ctxLines is ctxReader for an mr.LineSource, which it remains.
type ctxLines struct {
	ctxReader
	src mr.LineSource
}

func (c ctxLines) ReadLine() ([]byte, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return c.src.ReadLine()
}

// withContext wraps a task's input so that reads fail once ctx is done.
func withContext(ctx context.Context, r io.Reader) io.Reader {
	if src, ok := r.(mr.LineSource); ok {
		return ctxLines{ctxReader{ctx: ctx, r: r}, src}
	}
	return ctxReader{ctx: ctx, r: r}
}

func indexLF(b []byte) int { return bytes.IndexByte(b, '\n') }
