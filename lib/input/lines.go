package input

import (
	"io"

	"github.com/pdc-mr/pdc/lib/doc"
)

// Lines renders a Source as JSON Lines documents (lib/doc), one document in
// memory at a time, for map tasks that read JSON Lines. When the source is
// read to the end, done (if not nil) gets its counts. Lines' ReadLine makes
// it an mr.LineSource, so that the local runner takes each line without
// copying it through a buffer; a Lines is read with Read or ReadLine, not
// both. Close closes the source.
func Lines(src Source, done func(Counts)) *LineReader {
	return &LineReader{src: src, done: done}
}

// LineReader is the reader Lines returns.
type LineReader struct {
	src  Source
	done func(Counts)
	line []byte
	off  int
	eof  bool
}

func (r *LineReader) Read(p []byte) (int, error) {
	for r.off == len(r.line) {
		line, err := r.ReadLine()
		if err != nil {
			return 0, err
		}
		r.line, r.off = append(line, '\n'), 0
	}
	n := copy(p, r.line[r.off:])
	r.off += n
	return n, nil
}

// ReadLine returns the next document's JSON line, without its newline,
// valid until the next call.
func (r *LineReader) ReadLine() ([]byte, error) {
	if r.eof {
		return nil, io.EOF
	}
	if !r.src.Next() {
		if err := r.src.Err(); err != nil {
			return nil, err
		}
		r.eof = true
		if r.done != nil {
			r.done(r.src.Counts())
		}
		return nil, io.EOF
	}
	r.line = doc.AppendJSON(r.line[:0], r.src.Doc())
	return r.line, nil
}

// Close closes the source.
func (r *LineReader) Close() error { return r.src.Close() }
