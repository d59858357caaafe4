package local

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Split is the input of one map task. Name and Start reach the task as
// PDC_INPUT_FILE and PDC_INPUT_START (see mr.InputFile).
type Split struct {
	Name   string
	Start  int64
	Length int64
	Open   func() (io.ReadCloser, error) // the split's records as LF-terminated lines

	// Divisible splits hold independent records, one per line, which the
	// runner may share out between map tasks while a task reads them
	// (state.steal): a plain file's split is cut at a byte offset, any
	// other split (a .gz file, records converted on the fly) is read in
	// turns, a batch of lines at a time (stream.go). FileSplits sets it
	// when it may cut files (splitSize > 0).
	Divisible bool

	stream *stream // the stream a task joins instead of opening the split
}

// splitSlop is Hadoop FileInputFormat's SPLIT_SLOP: the last split of a file
// may be up to 10% larger than the split size.
const splitSlop = 1.1

// FileSplits returns the splits of the files named by paths, in order. A
// directory stands for its files (sorted, not recursive), skipping names
// beginning with "_" or "." as Hadoop does. A plain file larger than
// splitSize (> 0) is cut into splits of splitSize bytes like Hadoop's
// FileInputFormat; a .gz file is never split. With splitSize > 0 the splits
// are Divisible: the runner may also share a split out between tasks while
// one reads it; with splitSize <= 0 each file is read whole by one task.
//
// Opening a split reads lines like Hadoop's LineRecordReader: lines end at
// LF, CR or CRLF (each given to the map task as LF); a split that does not
// start at 0 skips everything through the first line end at or after Start
// (that line belongs to the previous split), and a split reads every line
// that starts at or before Start+Length.
func FileSplits(paths []string, splitSize int64) ([]Split, error) {
	files, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	var splits []Split
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		size := fi.Size()
		if strings.HasSuffix(f, ".gz") || splitSize <= 0 {
			sp := fileSplit(f, 0, size)
			sp.Divisible = splitSize > 0
			splits = append(splits, sp)
			continue
		}
		start := int64(0)
		for float64(size-start)/float64(splitSize) > splitSlop {
			splits = append(splits, divisibleSplit(f, start, splitSize))
			start += splitSize
		}
		splits = append(splits, divisibleSplit(f, start, size-start))
	}
	return splits, nil
}

func expandPaths(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && !strings.HasPrefix(n, "_") && !strings.HasPrefix(n, ".") {
				files = append(files, filepath.Join(p, n))
			}
		}
	}
	return files, nil
}

func fileSplit(name string, start, length int64) Split {
	return Split{
		Name: name, Start: start, Length: length,
		Open: func() (io.ReadCloser, error) { return openSplit(name, start, length) },
	}
}

// divisibleSplit is fileSplit for a plain file that FileSplits cuts
// anyway, so that any line boundary is a fine place for a split to end.
func divisibleSplit(name string, start, length int64) Split {
	sp := fileSplit(name, start, length)
	sp.Divisible = true
	return sp
}

// lineBufSize is a split reader's initial buffer size; a longer line grows
// it. A variable for tests.
var lineBufSize = 64 << 10

func openSplit(name string, start, length int64) (io.ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	lr := &lineReader{f: f, end: -1, buf: getLineBuf()}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("open %s: %w", name, err)
		}
		lr.src = gzipData{zr, name}
		return lr, nil
	}
	lr.src, lr.end, lr.pos = f, start+length, start
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if start > 0 {
		if err := lr.skipLine(); err != nil && err != io.EOF {
			f.Close()
			return nil, fmt.Errorf("open %s: %w", name, err)
		}
	}
	return lr, nil
}

// gzipData is a .gz file's data; a read that finds it truncated or
// damaged names the file and says what to do.
type gzipData struct {
	r    io.Reader
	name string
}

func (g gzipData) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: its gzip data ends early or is damaged (fetch the file again, or leave it out: --exclude %s): %w", g.name, filepath.Base(g.name), err)
	}
	return n, err
}

// lineReader reads the lines of one split, giving each with an LF. It is
// an mr.LineSource: lines are handed out in place, from a buffer that grows
// to hold the longest line.
type lineReader struct {
	mu     sync.Mutex // guards pos and end against cut
	f      *os.File
	src    io.Reader
	buf    []byte
	r, w   int
	pos    int64 // file offset of buf[r] (plain files)
	end    int64 // last offset at which a line may start; -1: none
	rd     lineStream
	srcErr error
	keys   bool   // prefix each line with its offset and a TAB (Job.InputKeys)
	keyed  []byte // holds a keyed line
	max    int64  // Job.MaxLine
	long   func(off, n int64)
}

// ReadLine implements mr.LineSource.
func (l *lineReader) ReadLine() ([]byte, error) {
	l.mu.Lock()
	if l.end >= 0 && l.pos > l.end {
		l.mu.Unlock()
		return nil, io.EOF
	}
	off := l.pos // where the line starts: in the file, or in the gzip stream
	line, err := l.line()
	var long [][2]int64 // skipped lines: offset, length
	for err == errLongLine {
		long = append(long, [2]int64{off, l.pos - off})
		if l.end >= 0 && l.pos > l.end {
			line, err = nil, io.EOF
			break
		}
		off = l.pos
		line, err = l.line()
	}
	l.mu.Unlock()
	for _, ln := range long { // not under l.mu: l.long takes the runner's lock
		if l.long != nil {
			l.long(ln[0], ln[1])
		}
	}
	if err != nil || !l.keys {
		return line, err
	}
	l.keyed = appendKeyed(l.keyed[:0], off, line)
	return l.keyed, nil
}

// appendKeyed appends line with its input key, `offset TAB line`
// (Job.InputKeys), to dst.
func appendKeyed(dst []byte, off int64, line []byte) []byte {
	dst = strconv.AppendInt(dst, off, 10)
	return append(append(dst, '\t'), line...)
}

// left is the number of bytes of the split not read yet (-1: unknown).
func (l *lineReader) left() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end < 0 {
		return -1
	}
	return l.end - l.pos
}

// cut ends the split halfway through what is left of it, if at least
// 2*min bytes are, and returns the range [start, end) of the split that
// takes the rest: lines starting at or before start stay with this reader,
// and a split from start skips the line it starts in, as for any split.
func (l *lineReader) cut(min int64) (start, end int64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end < 0 || l.end-l.pos < 2*min {
		return 0, 0, false
	}
	start, end = l.pos+(l.end-l.pos)/2, l.end
	l.end = start
	return start, end, true
}

// Read implements io.Reader.
func (l *lineReader) Read(p []byte) (int, error) { return l.rd.read(p, l.ReadLine) }

// errLongLine is line's report of a line longer than lineReader.max, which
// it consumed without holding it.
var errLongLine = errors.New("line too long")

// line returns the next line without its terminator, consuming the
// terminator; io.EOF when nothing is left. The line is valid until the
// next call. A line longer than the buffer grows the buffer, up to max.
func (l *lineReader) line() ([]byte, error) {
	seen := 0 // bytes at buf[r:] known to hold no line end
	for {
		data := l.buf[l.r:l.w]
		i := indexEOL(data[seen:])
		if i >= 0 {
			i += seen
		}
		if n, ok := l.terminator(data, i); ok {
			l.consume(n)
			if l.max > 0 && int64(i) > l.max {
				return nil, errLongLine
			}
			return data[:i], nil
		}
		if l.srcErr != nil {
			l.consume(len(data))
			if l.max > 0 && int64(len(data)) > l.max {
				return nil, errLongLine
			}
			if len(data) > 0 {
				return data, nil
			}
			return nil, l.srcErr
		}
		if l.max > 0 && int64(len(data)) > l.max {
			if err := l.skipLine(); err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errLongLine
		}
		seen = len(data)
		if i >= 0 {
			seen = i // the CR again, with the byte after it
		}
		if l.r == 0 && l.w == len(l.buf) {
			n := 2 * len(l.buf)
			if l.max > 0 {
				n = int(min(int64(n), l.max+int64(lineBufSize)))
			}
			l.buf = slices.Grow(l.buf, n-len(l.buf))[:n]
		}
		l.fill()
	}
}

// terminator tells whether the buffered data has a line end at i (the
// first LF or CR in data, or -1 for none) and returns the number of bytes
// through the end of the terminator. A CR ending the buffered data may be
// the start of a CRLF: it is a line end only at the end of the input.
func (l *lineReader) terminator(data []byte, i int) (int, bool) {
	if i < 0 || data[i] == '\r' && i+1 == len(data) && l.srcErr == nil {
		return 0, false
	}
	if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
		return i + 2, true
	}
	return i + 1, true
}

// skipLine consumes the rest of the current line, which the previous split
// reads, like line but without holding it: a split starting inside a long
// document must not buffer the document again.
func (l *lineReader) skipLine() error {
	for {
		data := l.buf[l.r:l.w]
		if n, ok := l.terminator(data, indexEOL(data)); ok {
			l.consume(n)
			return nil
		}
		if l.srcErr != nil {
			l.consume(len(data))
			return l.srcErr
		}
		if n := len(data); n > 0 && data[n-1] == '\r' {
			l.consume(n - 1) // keep a final CR: it may start a CRLF
		} else {
			l.consume(n)
		}
		l.fill()
	}
}

// keyLines prefixes each line of r with its offset (counted from start)
// and a TAB: Job.InputKeys for splits that are not plain files.
type keyLines struct {
	lines *mr.Reader
	c     io.Closer
	off   int64
	out   []byte
}

func newKeyLines(rc io.ReadCloser, start int64) *keyLines {
	return &keyLines{lines: mr.NewReader(rc), c: rc, off: start}
}

func (k *keyLines) Read(p []byte) (int, error) {
	for len(k.out) == 0 {
		if !k.lines.Next() {
			if err := k.lines.Err(); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		line := k.lines.Line()
		k.out = append(appendKeyed(k.out[:0], k.off, line), '\n')
		k.off += int64(len(line)) + 1
	}
	c := copy(p, k.out)
	k.out = k.out[c:]
	return c, nil
}

func (k *keyLines) Close() error { return k.c.Close() }

// indexEOL returns the index of the first LF or CR in b, or -1.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

func (l *lineReader) consume(n int) {
	l.r += n
	l.pos += int64(n)
}

func (l *lineReader) fill() {
	if l.r > 0 {
		l.w = copy(l.buf, l.buf[l.r:l.w])
		l.r = 0
	}
	n, err := l.src.Read(l.buf[l.w:])
	l.w += n
	if err != nil {
		l.srcErr = err
	}
}

// Close closes the file and keeps the buffer for the next split.
func (l *lineReader) Close() error {
	if l.buf != nil && poolLineBufs && len(l.buf) <= maxPooledLineBuf {
		select {
		case lineBufs <- l.buf:
		default:
		}
	}
	l.buf = nil
	return l.f.Close()
}

// Split readers' buffers are reused (they grow to the longest line read):
// a few of them, up to maxPooledLineBuf bytes each, are kept for the next
// splits. A free list rather than a sync.Pool, which the frequent garbage
// collections of a run would empty. Tests of small buffers turn it off.
var (
	lineBufs         = make(chan []byte, 4)
	poolLineBufs     = true
	maxPooledLineBuf = 4 << 20
)

func getLineBuf() []byte {
	if poolLineBufs {
		select {
		case b := <-lineBufs:
			if len(b) >= lineBufSize {
				return b
			}
		default:
		}
	}
	return make([]byte, lineBufSize)
}
