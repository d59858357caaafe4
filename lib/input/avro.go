package input

// Avro: object container files of records with string id, url, html and
// text fields (names configurable with Options.Fields); html wins over text
// when both are set, as in JSON Lines. Records with neither are skipped
// ("no html or text"); lib/avroio's reasons count the rest.

import (
	"fmt"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
)

// avroSource is a Source over an Avro container file of documents.
type avroSource struct {
	path   string
	r      *avroio.DocReader
	strict bool
	d      doc.Doc
	n      int64 // records read
	empty  int64 // records without html and text
	err    error
}

// skipNoBody counts records with neither html nor text (null or empty).
var skipNoBody = doc.ErrNoBody.Error()

// avroDamage are the DocReader skip reasons that are damage rather than
// unusable records.
var avroDamage = map[string]bool{avroio.SkipBadBlock: true, avroio.SkipBadDatum: true, avroio.SkipEmptyBlock: true}

func openAvro(f *File, o Options) (Source, error) {
	dr, err := avroio.NewDocReader(f.R, o.Fields)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", f.Path, err)
	}
	return &avroSource{path: f.Path, r: dr, strict: o.Strict}, nil
}

func (s *avroSource) Next() bool {
	for s.err == nil {
		ok := s.r.Next()
		if s.strict {
			if sk := s.r.Skipped(); len(sk) > 0 {
				s.err = fmt.Errorf("input %s: bad avro records (%s) (--strict)", s.path, ReasonList(sk))
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
		s.d.Site = s.r.Site()
		return true
	}
	return false
}

func (s *avroSource) Doc() *doc.Doc { return &s.d }
func (s *avroSource) Where() string { return fmt.Sprintf("%s#%d", s.path, s.n) }
func (s *avroSource) Err() error    { return s.err }
func (s *avroSource) Close() error  { return nil }

func (s *avroSource) Counts() Counts {
	c := Counts{Records: s.n, Docs: s.n - s.empty}
	c.Skip(skipNoBody, s.empty)
	for k, v := range s.r.Skipped() {
		if avroDamage[k] {
			c.Damage(k, v)
		} else {
			c.Skip(k, v)
		}
		if k != avroio.SkipBadBlock {
			c.Records += v
		}
	}
	return c
}
