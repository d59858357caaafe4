package warc

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// readHeader reads the version line and named fields up to the blank line.
func (r *Reader) readHeader(rec *Record) error {
	r.hdrLines = r.hdrLines[:0]
	size := 0
	first := true
	for {
		line, err := r.readLine(r.opts.MaxHeaderBytes - size)
		size += len(line)
		if err != nil {
			if err == bufio.ErrBufferFull {
				return skip(SkipHeaderTooLarge)
			}
			return ioErr(err)
		}
		if first {
			rec.Version = strings.TrimSpace(string(trimEOL(line)))
			first = false
			continue
		}
		if len(trimEOL(line)) == 0 {
			break
		}
		r.hdrLines = append(r.hdrLines, line)
	}
	h, bad := parseHeaderLines(r.hdrLines)
	if bad > 0 {
		r.skipped[SkipBadHeaderLine] += int64(bad)
	}
	rec.Header = h
	return nil
}

// readLine returns the next line including its LF, copied. It returns
// bufio.ErrBufferFull when the line is longer than limit bytes.
func (r *Reader) readLine(limit int) ([]byte, error) {
	var out []byte
	for {
		frag, err := r.in.ReadSlice('\n')
		r.pos += int64(len(frag))
		if len(out)+len(frag) > limit {
			return nil, bufio.ErrBufferFull
		}
		out = append(out, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

// readBody reads n block bytes, keeping at most MaxBodyBytes.
func (r *Reader) readBody(rec *Record, n int64) error {
	keep := min(n, r.opts.MaxBodyBytes)
	var buf bytes.Buffer
	buf.Grow(int(min(keep, 1<<20)))
	m, err := io.CopyN(&buf, r.in, keep)
	r.pos += m
	if err != nil {
		return ioErr(err)
	}
	rec.Body = buf.Bytes()
	if n > keep {
		rec.Truncated = true
		return r.discard(n - keep)
	}
	return nil
}

// discard skips n bytes of the stream.
func (r *Reader) discard(n int64) error {
	for n > 0 {
		step := int(min(n, 1<<20))
		d, err := r.in.Discard(step)
		r.pos += int64(d)
		n -= int64(d)
		if err != nil {
			return ioErr(err)
		}
	}
	return nil
}

// trailer consumes the CRLF CRLF after a block and reports whether it was
// there. Up to four CR/LF bytes are consumed whatever they are.
func (r *Reader) trailer() bool {
	p, _ := r.in.Peek(4)
	n := 0
	for n < len(p) && (p[n] == '\r' || p[n] == '\n') {
		n++
	}
	r.consume(n)
	return string(p[:n]) == "\r\n\r\n"
}
