package mr

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Reader reads records, one per line, from a streaming input. Lines end with
// LF; the last line may lack it. Only the LF is removed: a CR before it is
// data (fields never hold a raw CR, so it signals a producer bug that the
// caller's Unescape reports). Lines may be arbitrarily long.
//
//	r := mr.NewReader(t.Stdin)
//	for r.Next() {
//		line := r.Line()
//	}
//	if err := r.Err(); err != nil { ... }
type Reader struct {
	src  LineSource // when the stream hands out whole lines
	br   *bufio.Reader
	line []byte
	long []byte // holds lines longer than the bufio buffer
	n    int64
	err  error
}

// LineSource is a stream that can hand out whole lines without copying
// them through a buffer; the local runner's in-process task inputs
// implement it. A Reader over a LineSource reads through ReadLine. A
// consumer uses either Read or ReadLine, never both.
type LineSource interface {
	io.Reader
	// ReadLine returns the next line without its LF, valid until the next
	// call, or io.EOF at the end of the input.
	ReadLine() ([]byte, error)
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	if src, ok := r.(LineSource); ok {
		return &Reader{src: src}
	}
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next advances to the next line and reports whether there is one. It returns
// false at the end of the input or on an error, which Err then returns.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	if r.src != nil {
		return r.nextLine()
	}
	b, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
		}
		b = r.long
	}
	if err != nil {
		if err != io.EOF {
			r.err = fmt.Errorf("read line %d: %w", r.n+1, err)
			return false
		}
		r.err = io.EOF
		if len(b) == 0 {
			return false
		}
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	r.line = b
	r.n++
	return true
}

func (r *Reader) nextLine() bool {
	b, err := r.src.ReadLine()
	if err != nil {
		r.err = err // a LineSource's errors name their own input
		return false
	}
	r.line = b
	r.n++
	return true
}

// Lines reports whether r reads a LineSource, whose errors name their own
// input (a line number or offset in the stream would mean nothing).
func (r *Reader) Lines() bool { return r.src != nil }

// Line returns the current line without its LF. It is valid until the next
// call to Next.
func (r *Reader) Line() []byte { return r.line }

// LineNumber returns the 1-based number of the current line.
func (r *Reader) LineNumber() int64 { return r.n }

// Err returns the first read error other than io.EOF.
func (r *Reader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// Fields splits line at every TAB, appending the fields to dst[:0]. The
// fields alias line. An empty line has one empty field.
func Fields(dst [][]byte, line []byte) [][]byte {
	dst = dst[:0]
	for {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}

// SplitKey splits line into its key, the first keyFields TAB-separated fields,
// and its value, the rest after the TAB that ends the key, as Hadoop
// Streaming does. A line with fewer than keyFields tabs is all key, with an
// empty value. keyFields < 1 is taken as 1.
func SplitKey(line []byte, keyFields int) (key, value []byte) {
	pos := 0
	for k := 0; ; k++ {
		i := bytes.IndexByte(line[pos:], '\t')
		if i < 0 {
			return line, line[len(line):]
		}
		if k+1 >= keyFields {
			return line[:pos+i], line[pos+i+1:]
		}
		pos += i + 1
	}
}

// Atoi parses a non-negative decimal of at most 18 digits (no overflow),
// the numbers of pdc's records, without converting it to a string first.
func Atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
