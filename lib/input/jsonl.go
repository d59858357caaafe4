package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// jsonlSource is a Source over a JSON Lines file of documents (lib/doc),
// gzip-compressed when its name ends in .gz. Blank lines are ignored;
// lines that are no document are skipped and counted by reason (no id, no
// html or text, bad json).
type jsonlSource struct {
	name   string
	c      io.Closer
	zr     *gzip.Reader
	lr     *mr.Reader
	strict bool
	site   string // Options.Fields.Site
	d      doc.Doc
	raw    []byte // the current document's line
	n      Counts
	err    error
}

// OpenJSONL opens a local JSON Lines file.
func OpenJSONL(path string, o Options) (Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", path, hdfsfs.UnwrapPath(err))
	}
	s, err := NewJSONL(path, f, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// NewJSONL returns a Source over the JSON Lines stream rc, named name;
// closing the Source closes rc.
func NewJSONL(name string, rc io.ReadCloser, o Options) (Source, error) {
	s := &jsonlSource{name: name, c: rc, strict: o.Strict, site: o.Fields.Site}
	var r io.Reader = bufio.NewReaderSize(counting(rc, o.OnRead), 1<<16)
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
		s.zr, r = zr, zr
	}
	s.lr = mr.NewReader(r)
	return s, nil
}

func (s *jsonlSource) Next() bool {
	for s.err == nil && s.lr.Next() {
		line := s.lr.Line()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s.n.Records++
		d, err := doc.ParseJSONSite(line, s.site)
		if err != nil {
			if s.strict {
				s.err = fmt.Errorf("input %s:%d: %w (--strict)", s.name, s.lr.LineNumber(), err)
				return false
			}
			s.n.Skip(SkipReason(err), 1)
			continue
		}
		s.d, s.raw = d, line
		s.n.Docs++
		return true
	}
	if s.err == nil {
		if err := s.lr.Err(); err != nil {
			s.err = fmt.Errorf("input %s: %w", s.name, err)
		}
	}
	return false
}

// SkipReason names why a JSON line is no document: doc.ErrNoID,
// doc.ErrNoBody or doc.ErrBadJSON's text, else "bad record".
func SkipReason(err error) string {
	for _, e := range []error{doc.ErrNoID, doc.ErrNoBody, doc.ErrBadJSON} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	return "bad record"
}

func (s *jsonlSource) Doc() *doc.Doc  { return &s.d }
func (s *jsonlSource) Raw() []byte    { return s.raw }
func (s *jsonlSource) Where() string  { return fmt.Sprintf("%s:%d", s.name, s.lr.LineNumber()) }
func (s *jsonlSource) Err() error     { return s.err }
func (s *jsonlSource) Counts() Counts { return s.n }

func (s *jsonlSource) Close() error {
	if s.zr != nil {
		s.zr.Close()
	}
	return s.c.Close()
}
