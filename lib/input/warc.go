package input

// WARC: response records holding an HTTP 2xx response with an HTML media
// type, and resource records with an HTML type, become html documents,
// decoded to UTF-8 by the HTTP Content-Type charset, <meta> or sniffing
// (DecodeHTML); conversion records (WET) with text/plain become text
// documents. id is WARC-TREC-ID, else WARC-Record-ID without angle
// brackets; url is WARC-Target-URI. Other records are skipped and counted
// by reason (warc.Document's reasons: "record type warcinfo", "not html",
// "http status not 2xx", ...); damage the reader resynchronised over is
// counted separately (lib/warc's skip reasons).

import (
	"fmt"
	"maps"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/warc"
)

// warcSource is a Source over a WARC file (plain or gzip, detected by
// content).
type warcSource struct {
	path   string
	r      *warc.Reader
	strict bool
	d      doc.Doc
	where  string
	c      Counts
	err    error
}

func openWARC(f *File, o Options) (Source, error) {
	wr, err := warc.NewReader(f.R, warc.Options{})
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", f.Path, err)
	}
	return &warcSource{path: f.Path, r: wr, strict: o.Strict}, nil
}

func (s *warcSource) Next() bool {
	for s.err == nil {
		ok := s.r.Next()
		if s.strict {
			if dmg := s.r.Skipped(); len(dmg) > 0 {
				s.err = fmt.Errorf("input %s: damaged warc (%s) (--strict)", s.path, ReasonList(dmg))
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
		s.c.Records++
		wd, ok, reason := warc.Document(rec)
		if !ok {
			s.c.Skip(reason, 1)
			continue
		}
		if rec.Truncated {
			s.c.Truncated++
		}
		s.d = doc.Doc{ID: wd.ID, URL: wd.URL, Text: wd.Text}
		if wd.HTML != nil {
			s.d.IsHTML, s.d.HTML = true, DecodeHTML(wd.HTML, wd.ContentType)
		}
		s.where = fmt.Sprintf("%s@%d", s.path, rec.Offset)
		s.c.Docs++
		return true
	}
	return false
}

func (s *warcSource) Doc() *doc.Doc { return &s.d }
func (s *warcSource) Where() string { return s.where }
func (s *warcSource) Err() error    { return s.err }
func (s *warcSource) Close() error  { return nil }

func (s *warcSource) Counts() Counts {
	c := s.c
	c.Skipped, c.Damaged = maps.Clone(c.Skipped), nil
	for k, v := range s.r.Skipped() {
		c.Damage(k, v)
	}
	return c
}
