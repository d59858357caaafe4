package jobs

// Container inputs: WARC files (plain or .gz, lib/warc) and Avro object
// container files of documents (lib/avroio). pdc reads them as documents in
// three places:
//
//   - recordSplit renders one file as JSON Lines (lib/doc) for a map task of
//     `pdc run`, streaming: one document is held in memory at a time;
//   - eachRecordDoc calls a function per document (pdc text, spans --text);
//   - `pdc ingest` converts them to JSON Lines files, with counters.
//
// WARC: response records holding an HTTP 2xx response with an HTML media
// type, and resource records with an HTML type, become html documents,
// decoded to UTF-8 by the HTTP Content-Type charset, <meta> or sniffing
// (DecodeHTML); conversion records (WET) with text/plain become text
// documents. id is WARC-TREC-ID, else WARC-Record-ID without angle
// brackets; url is WARC-Target-URI. Other records are skipped and counted
// by reason (warc.Document's reasons: "record type warcinfo", "not html",
// "http status not 2xx", ...); damage the reader resynchronised over is
// counted separately (lib/warc's skip reasons).
//
// Avro: records with string id, url, html and text fields (names
// configurable in ingest with --avro-*); html wins over text when both are
// set, as in JSON Lines.

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr/local"
	"github.com/pdc-mr/pdc/lib/warc"
)

// recordExts are container formats read through recordSplit.
var recordExts = []string{".warc", ".warc.gz", ".avro"}

// recordStderr receives one summary line per container file that a
// recordSplit reader has read to the end: records read, documents, and
// skipped or damaged records by reason. The parse job cannot count what
// never reaches it, so this is where `pdc run` reports it. It defaults to
// io.Discard; Main.Run sets it to m.Stderr. Writes are serialised (map tasks
// read splits concurrently).
var recordStderr io.Writer = io.Discard

var recordStderrMu sync.Mutex

// recordCounts are what reading container files found.
type recordCounts struct {
	records   int64 // records read (WARC records, Avro datums, JSONL lines, tree files)
	docs      int64 // documents produced
	truncated int64 // WARC blocks cut at warc.DefaultMaxBodyBytes
	// skipped counts records that gave no document, by reason.
	skipped map[string]int64
	// damaged counts damage the readers skipped over (truncated records,
	// garbage, corrupt gzip members or Avro blocks), by reason.
	damaged map[string]int64
}

func (c *recordCounts) skip(reason string, n int64) {
	if n == 0 {
		return
	}
	if c.skipped == nil {
		c.skipped = map[string]int64{}
	}
	c.skipped[reason] += n
}

func (c *recordCounts) damage(reason string, n int64) {
	if n == 0 {
		return
	}
	if c.damaged == nil {
		c.damaged = map[string]int64{}
	}
	c.damaged[reason] += n
}

func (c *recordCounts) add(o recordCounts) {
	c.records += o.records
	c.docs += o.docs
	c.truncated += o.truncated
	for k, v := range o.skipped {
		c.skip(k, v)
	}
	for k, v := range o.damaged {
		c.damage(k, v)
	}
}

// summary is e.g. "10 records, 5 documents, 5 skipped (not html 1, record
// type request 1, ...)".
func (c *recordCounts) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s", plural(c.records, "record"), plural(c.docs, "document"))
	if len(c.skipped) > 0 {
		fmt.Fprintf(&b, ", %d skipped (%s)", countSum(c.skipped), reasonList(c.skipped))
	}
	if len(c.damaged) > 0 {
		fmt.Fprintf(&b, ", damage skipped (%s)", reasonList(c.damaged))
	}
	if c.truncated > 0 {
		fmt.Fprintf(&b, ", %d truncated", c.truncated)
	}
	return b.String()
}

func countSum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// reasonList lists counts by reason, sorted: "a 1, b 2".
func reasonList(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// recordOptions configure how container files are read.
type recordOptions struct {
	avro avroio.DocFields // Avro field names; empty names select the defaults
	// strict makes any damage, and any record the format says is unusable
	// (Avro records without id, of the wrong type), an error.
	strict bool
}

// recordSource iterates the documents of one container file.
type recordSource interface {
	Next() bool
	Doc() *doc.Doc
	Where() string // the document's position, "file@offset" or "file#n"
	Err() error
	Counts() recordCounts
}

// newRecordSource reads the container file path from r: Avro by its
// extension, else WARC (plain or gzip, detected by content).
func newRecordSource(path string, r io.Reader, o recordOptions) (recordSource, error) {
	if hasExt(path, []string{".avro"}) {
		dr, err := avroio.NewDocReader(r, o.avro)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", path, err)
		}
		return &avroSource{path: path, r: dr, strict: o.strict}, nil
	}
	wr, err := warc.NewReader(r, warc.Options{})
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	return &warcSource{path: path, r: wr, strict: o.strict}, nil
}

// warcSource is a recordSource over a WARC file.
type warcSource struct {
	path   string
	r      *warc.Reader
	strict bool
	d      doc.Doc
	where  string
	c      recordCounts
	err    error
}

func (s *warcSource) Next() bool {
	for s.err == nil {
		ok := s.r.Next()
		if s.strict {
			if dmg := s.r.Skipped(); len(dmg) > 0 {
				s.err = fmt.Errorf("input %s: damaged warc (%s) (--strict)", s.path, reasonList(dmg))
				return false
			}
		}
		if !ok {
			if err := s.r.Err(); err != nil {
				s.err = fmt.Errorf("input %s: %w", s.path, err)
			}
			return false
		}
		rec := s.r.Record()
		s.c.records++
		wd, ok, reason := warc.Document(rec)
		if !ok {
			s.c.skip(reason, 1)
			continue
		}
		if rec.Truncated {
			s.c.truncated++
		}
		s.d = doc.Doc{ID: wd.ID, URL: wd.URL, Text: wd.Text}
		if wd.HTML != nil {
			s.d.IsHTML, s.d.HTML = true, DecodeHTML(wd.HTML, wd.ContentType)
		}
		s.where = fmt.Sprintf("%s@%d", s.path, rec.Offset)
		s.c.docs++
		return true
	}
	return false
}

func (s *warcSource) Doc() *doc.Doc { return &s.d }
func (s *warcSource) Where() string { return s.where }
func (s *warcSource) Err() error    { return s.err }

func (s *warcSource) Counts() recordCounts {
	c := s.c
	c.skipped, c.damaged = maps.Clone(c.skipped), nil
	for k, v := range s.r.Skipped() {
		c.damage(k, v)
	}
	return c
}

// avroSource is a recordSource over an Avro container file of documents.
type avroSource struct {
	path   string
	r      *avroio.DocReader
	strict bool
	d      doc.Doc
	n      int64 // records read
	empty  int64 // records without html and text
	err    error
}

// skipNoBody counts Avro records with neither html nor text (null or empty).
var skipNoBody = doc.ErrNoBody.Error()

// avroDamage are the DocReader skip reasons that are damage rather than
// unusable records.
var avroDamage = map[string]bool{avroio.SkipBadBlock: true, avroio.SkipBadDatum: true, avroio.SkipEmptyBlock: true}

func (s *avroSource) Next() bool {
	for s.err == nil {
		ok := s.r.Next()
		if s.strict {
			if sk := s.r.Skipped(); len(sk) > 0 {
				s.err = fmt.Errorf("input %s: bad avro records (%s) (--strict)", s.path, reasonList(sk))
				return false
			}
		}
		if !ok {
			if err := s.r.Err(); err != nil {
				s.err = fmt.Errorf("input %s: %w", s.path, err)
			}
			return false
		}
		s.n++
		id, url, html, text := s.r.Doc()
		switch {
		case html != "":
			s.d = doc.Doc{ID: id, URL: url, HTML: html, IsHTML: true}
		case text != "":
			s.d = doc.Doc{ID: id, URL: url, Text: text}
		default:
			s.empty++
			continue
		}
		return true
	}
	return false
}

func (s *avroSource) Doc() *doc.Doc { return &s.d }
func (s *avroSource) Where() string { return fmt.Sprintf("%s#%d", s.path, s.n) }
func (s *avroSource) Err() error    { return s.err }

func (s *avroSource) Counts() recordCounts {
	c := recordCounts{records: s.n, docs: s.n - s.empty}
	c.skip(skipNoBody, s.empty)
	for k, v := range s.r.Skipped() {
		if avroDamage[k] {
			c.damage(k, v)
		} else {
			c.skip(k, v)
		}
		if k != avroio.SkipBadBlock {
			c.records += v
		}
	}
	return c
}

// openRecordFile opens a container file; onRead, if not nil, is called with
// the number of file bytes read at each read (for progress).
func openRecordFile(path string, o recordOptions, onRead func(int64)) (recordSource, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("input %s: %w", path, unwrapPathErr(err))
	}
	var r io.Reader = f
	if onRead != nil {
		r = &recordByteCounter{r: f, onRead: onRead}
	}
	src, err := newRecordSource(path, bufio.NewReaderSize(r, 1<<16), o)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return src, f, nil
}

// recordByteCounter reports the bytes read through it.
type recordByteCounter struct {
	r      io.Reader
	onRead func(int64)
}

func (c *recordByteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.onRead(int64(n))
	return n, err
}

// recordSplit returns a map input split that renders the container file
// path as JSON Lines documents. Reading it to the end prints the file's
// counts on recordStderr. Its documents may be shared out between map
// tasks (local.Split.Divisible): one big WARC file does not hold the
// parse job to one core.
func recordSplit(path string) local.Split {
	var size int64 // for packing small files into one map task
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	return local.Split{Name: path, Length: size, Divisible: true, Open: func() (io.ReadCloser, error) {
		src, c, err := openRecordFile(path, recordOptions{}, nil)
		if err != nil {
			return nil, err
		}
		return &recordReader{path: path, src: src, c: c}, nil
	}}
}

// recordReader renders a recordSource as JSON Lines, one document at a
// time.
type recordReader struct {
	path string
	src  recordSource
	c    io.Closer
	line []byte
	off  int
	done bool
}

func (r *recordReader) Read(p []byte) (int, error) {
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
// valid until the next call (an mr.LineSource, so that the local runner
// hands it on without copying it through a buffer). A reader is read with
// Read or ReadLine, not both.
func (r *recordReader) ReadLine() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	if !r.src.Next() {
		if err := r.src.Err(); err != nil {
			return nil, err
		}
		r.done = true
		counts := r.src.Counts()
		recordStderrMu.Lock()
		fmt.Fprintf(recordStderr, "pdc: input %s: %s\n", r.path, counts.summary())
		recordStderrMu.Unlock()
		return nil, io.EOF
	}
	r.line = doc.AppendJSON(r.line[:0], r.src.Doc())
	return r.line, nil
}

func (r *recordReader) Close() error { return r.c.Close() }

// eachRecordDoc calls fn for every document of a container file, in file
// order, with where naming its position. Skipped records are not reported
// here (callers look documents up); pdc ingest and pdc run count them.
func eachRecordDoc(path string, fn func(d *doc.Doc, where string) error) error {
	_, err := eachRecord(path, recordOptions{}, nil, fn)
	return err
}

// eachRecord is eachRecordDoc with options, progress and counts.
func eachRecord(path string, o recordOptions, onRead func(int64), fn func(d *doc.Doc, where string) error) (recordCounts, error) {
	src, c, err := openRecordFile(path, o, onRead)
	if err != nil {
		return recordCounts{}, err
	}
	defer c.Close()
	for src.Next() {
		if err := fn(src.Doc(), src.Where()); err != nil {
			return src.Counts(), err
		}
	}
	return src.Counts(), src.Err()
}
