package mr

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrRawNewline reports a field holding a raw LF or CR, which would split the
// record on Hadoop (its LineReader ends lines at LF, CR and CRLF).
var ErrRawNewline = errors.New("raw newline in field")

// Writer writes records to a streaming output through a buffer. Call Flush
// when done.
type Writer struct {
	bw *bufio.Writer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
}

// WriteRecord writes fields joined by TAB and ended by LF. A field may hold a
// TAB (a pre-joined group of fields) but not an LF or CR: such a record is
// rejected with an error wrapping ErrRawNewline and nothing is written.
func (w *Writer) WriteRecord(fields ...[]byte) error {
	for i, f := range fields {
		if bytes.IndexByte(f, '\n') >= 0 || bytes.IndexByte(f, '\r') >= 0 {
			return fmt.Errorf("write record: field %d: %w", i+1, ErrRawNewline)
		}
	}
	for i, f := range fields {
		if i > 0 {
			w.bw.WriteByte('\t')
		}
		w.bw.Write(f)
	}
	return w.bw.WriteByte('\n')
}

// WriteStrings is WriteRecord for string fields.
func (w *Writer) WriteStrings(fields ...string) error {
	for i, f := range fields {
		if hasNewline(f) {
			return fmt.Errorf("write record: field %d: %w", i+1, ErrRawNewline)
		}
	}
	for i, f := range fields {
		if i > 0 {
			w.bw.WriteByte('\t')
		}
		w.bw.WriteString(f)
	}
	return w.bw.WriteByte('\n')
}

func hasNewline(s string) bool {
	return strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("flush records: %w", err)
	}
	return nil
}

// Output is a program's buffered standard output: what is written may be
// held until Flush.
type Output interface {
	io.Writer
	Flush() error
}

// NewOutput returns the output a program should write its lines to: w
// itself when w is already an Output (the local runner's task output takes
// each line as it is written, with no system call to save, so a buffer
// would only copy every line once more), else w behind a 64 KiB buffer.
func NewOutput(w io.Writer) Output {
	if o, ok := w.(Output); ok {
		return o
	}
	return bufio.NewWriterSize(w, 64<<10)
}
