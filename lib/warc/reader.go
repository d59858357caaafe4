// Package warc reads WARC files (ISO 28500, WARC/1.0 and WARC/1.1), plain or
// gzip-compressed, and extracts pdc documents from their records.
//
// # Record format
//
// A WARC file is a sequence of records. Each record is
//
//	version line     "WARC/1.1" CRLF
//	named fields     Name ":" Value CRLF   (WARC/1.0 allows folded lines)
//	blank line       CRLF
//	block            exactly Content-Length bytes
//	trailer          CRLF CRLF
//
// Compressed files are gzip streams: usually one gzip member per record
// (so that a record can be fetched by offset), sometimes one member for the
// whole file. Both, and anything in between, are read as one decompressed
// stream; Record.Offset is the file offset of the gzip member in which the
// record starts, as in CDX indexes.
//
// The reader is lenient: LF line ends, missing trailers and blank lines
// between records are accepted. Damage (truncated records, bad
// Content-Length, garbage, oversized headers, corrupt gzip members) is
// skipped by resynchronising at the next line starting with "WARC/1." and
// counted by reason in Skipped; it never stops the reader. Only I/O errors of
// the underlying reader end it with an error.
package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
)

// Defaults for Options.
const (
	DefaultMaxBodyBytes   = 16 << 20
	DefaultMaxHeaderBytes = 64 << 10
)

// Skip reasons counted in Reader.Skipped.
const (
	SkipTruncated      = "truncated record"
	SkipContentLength  = "bad content-length"
	SkipGarbage        = "garbage"
	SkipHeaderTooLarge = "header too large"
	SkipBadHeaderLine  = "bad header line"
	SkipBadTrailer     = "bad record trailer"
	SkipFiltered       = "filtered by type"
)

// ErrNotWARC is returned by Reader.Err when the input held data but not a
// single WARC record.
var ErrNotWARC = errors.New("not a warc file")

// Options configures a Reader. The zero value selects the defaults.
type Options struct {
	// MaxBodyBytes caps Record.Body; longer blocks are cut and the record is
	// marked Truncated. Default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxHeaderBytes caps the size of a record header; larger headers are
	// skipped as damage. Default DefaultMaxHeaderBytes.
	MaxHeaderBytes int
	// Types, when not empty, lists the WARC-Type values to return (case
	// insensitive); blocks of other records are discarded unread.
	Types []string
}

// Record is one WARC record.
type Record struct {
	Version string // "WARC/1.0" or "WARC/1.1"
	Header  Header // named fields; Header.Get is case-insensitive
	// Body is the record block (Content-Length bytes), cut at
	// Options.MaxBodyBytes, in which case Truncated is set.
	Body      []byte
	Truncated bool
	// Offset is the byte offset of the record in the file: for gzip input,
	// the offset of the gzip member in which the record starts.
	Offset int64
	// StreamOffset is the offset of the record in the decompressed stream
	// (equal to Offset for uncompressed input).
	StreamOffset int64
}

// Type returns the record's WARC-Type.
func (r *Record) Type() string { return r.Header.Get("WARC-Type") }

// Reader reads WARC records in scanner style:
//
//	for r.Next() { rec := r.Record() ... }
//	if err := r.Err(); err != nil { ... }
type Reader struct {
	opts     Options
	in       *bufio.Reader // decompressed stream
	pos      int64         // offset of the next unread byte of in
	gz       *memberReader // nil for uncompressed input
	rec      *Record
	err      error
	sync     bool // resynchronise before the next record
	records  int64
	sawData  bool
	skipped  map[string]int64
	hdrLines [][]byte
}

// skipError marks a damaged record: count reason, resynchronise, go on.
type skipError struct{ reason string }

func (e *skipError) Error() string { return e.reason }

func skip(reason string) error { return &skipError{reason: reason} }

// NewReader returns a Reader for r, which may be gzip-compressed (detected by
// the gzip magic number). It fails only when the first bytes cannot be read.
func NewReader(r io.Reader, opts Options) (*Reader, error) {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxHeaderBytes <= 0 {
		opts.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	wr := &Reader{opts: opts, skipped: map[string]int64{}}
	raw := &countingReader{r: r}
	br := bufio.NewReaderSize(raw, 64<<10)
	if _, err := br.Peek(2); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read warc: %w", err)
	}
	if hasMagic(br) {
		wr.gz = newMemberReader(raw, br, wr.skipped)
		wr.in = bufio.NewReaderSize(wr.gz, 64<<10)
	} else {
		wr.in = br
	}
	return wr, nil
}

// Record returns the record read by the last successful Next.
func (r *Reader) Record() *Record { return r.rec }

// Err returns the error that ended Next, or nil at a clean end of input.
func (r *Reader) Err() error { return r.err }

// Skipped returns how many records or stretches of input were skipped, by
// reason (see the Skip constants; gzip damage has its own reasons).
func (r *Reader) Skipped() map[string]int64 { return maps.Clone(r.skipped) }

// Next reads the next record, skipping damaged ones. It returns false at the
// end of input or on an I/O error (see Err).
func (r *Reader) Next() bool {
	r.rec = nil
	for r.err == nil {
		rec, err := r.readRecord()
		var se *skipError
		switch {
		case err == nil:
			r.rec = rec
			r.records++
			return true
		case errors.As(err, &se):
			r.skipped[se.reason]++
			if se.reason != SkipFiltered && se.reason != SkipBadTrailer {
				r.sync = true
			}
		case err == io.EOF:
			if r.records == 0 && r.sawData && r.skipped[SkipFiltered] == 0 {
				r.err = ErrNotWARC
			}
			return false
		default:
			r.err = fmt.Errorf("read warc: %w", err)
		}
	}
	return false
}

// readRecord reads one record; it returns io.EOF at the end of input, a
// *skipError for damage, or an I/O error.
func (r *Reader) readRecord() (*Record, error) {
	if err := r.findRecord(); err != nil {
		return nil, err
	}
	rec := &Record{StreamOffset: r.pos, Offset: r.pos}
	if r.gz != nil {
		rec.Offset = r.gz.fileOffset(r.pos)
	}
	if err := r.readHeader(rec); err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(rec.Header.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return nil, skip(SkipContentLength)
	}
	if !r.wanted(rec) {
		if err := r.discard(n); err != nil {
			return nil, err
		}
		r.trailer()
		return nil, skip(SkipFiltered)
	}
	if err := r.readBody(rec, n); err != nil {
		return nil, err
	}
	if !r.trailer() {
		r.skipped[SkipBadTrailer]++
	}
	return rec, nil
}

func (r *Reader) wanted(rec *Record) bool {
	if len(r.opts.Types) == 0 {
		return true
	}
	t := rec.Type()
	for _, w := range r.opts.Types {
		if strings.EqualFold(w, t) {
			return true
		}
	}
	return false
}

// ioErr maps read errors: EOF and gzip breaks inside a record are damage.
func ioErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF || errors.Is(err, errStreamBreak) {
		return skip(SkipTruncated)
	}
	return err
}

// isVersionLine reports whether p starts a record: "WARC/1." or "WARC/0.".
func isVersionLine(p []byte) bool {
	return len(p) >= 7 && bytes.HasPrefix(p, []byte("WARC/")) && (p[5] == '1' || p[5] == '0') && p[6] == '.'
}

// findRecord skips blank lines (and, when resynchronising or on unexpected
// input, whole lines) until a version line starts at the read position.
func (r *Reader) findRecord() error {
	garbage := false
	for {
		if err := r.skipNewlines(); err != nil {
			return r.eofOr(err)
		}
		p, err := r.in.Peek(7)
		if isVersionLine(p) {
			r.sync = false
			return nil
		}
		if err != nil && len(p) < 7 {
			if !errors.Is(err, errStreamBreak) {
				r.consume(len(p))
				if !garbage && !r.sync {
					r.skipped[SkipGarbage]++
				}
				return r.eofOr(err)
			}
			continue
		}
		if !garbage && !r.sync {
			r.skipped[SkipGarbage]++
		}
		garbage = true
		if b := r.nextBreak(); b > r.pos && b-r.pos <= int64(r.in.Buffered()) {
			r.consume(int(b - r.pos)) // data after a gzip break starts a line
			continue
		}
		if err := r.skipLine(); err != nil {
			return r.eofOr(err)
		}
	}
}

// eofOr returns io.EOF for the end of input and gzip breaks between records
// that hit the end, else err.
func (r *Reader) eofOr(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	return err
}

// nextBreak returns the first stream position after r.pos at which the
// decompressed stream resumed after a corrupt gzip member, or -1.
func (r *Reader) nextBreak() int64 {
	if r.gz == nil {
		return -1
	}
	bs := r.gz.breaks
	for len(bs) > 0 && bs[0] <= r.pos {
		bs = bs[1:]
	}
	r.gz.breaks = bs
	if len(bs) == 0 {
		return -1
	}
	return bs[0]
}

func (r *Reader) consume(n int) {
	d, _ := r.in.Discard(n)
	r.pos += int64(d)
	if d > 0 {
		r.sawData = true
	}
}

// skipNewlines discards CR and LF bytes; a gzip break is ignored here since
// no record is in progress.
func (r *Reader) skipNewlines() error {
	for {
		b, err := r.in.ReadByte()
		if errors.Is(err, errStreamBreak) {
			continue
		}
		if err != nil {
			return err
		}
		if b != '\r' && b != '\n' {
			return r.in.UnreadByte()
		}
		r.pos++
		r.sawData = true
	}
}

// skipLine discards through the next LF.
func (r *Reader) skipLine() error {
	for {
		line, err := r.in.ReadSlice('\n')
		r.pos += int64(len(line))
		if len(line) > 0 {
			r.sawData = true
		}
		if err == bufio.ErrBufferFull || errors.Is(err, errStreamBreak) {
			if errors.Is(err, errStreamBreak) {
				return nil
			}
			continue
		}
		return err
	}
}
