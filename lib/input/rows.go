package input

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
)

// rowReader is a reader of document records in a container format
// (lib/avroio's and lib/parquetio's DocReader).
type rowReader interface {
	Next() bool
	Doc() (id, url, html, text string)
	Site() string
	Err() error
	Skipped() map[string]int64
	// Damage describes the first damage skipped, or is empty.
	Damage() string
}

// rowSource is a Source over a rowReader. As in JSON Lines, html wins over
// text when both are set; records with neither are skipped (doc.ErrNoBody's
// text). The reader's skip reasons are counted as damage or as skipped
// records by kind.
type rowSource struct {
	path   string
	format string // for messages: "avro", "parquet"
	r      rowReader
	strict bool
	kind   func(reason string) skipKind
	d      doc.Doc
	n      int64 // records read that gave a document or had no body
	empty  int64 // records without html and text
	err    error
}

// skipKind is how a reader's skip reason counts.
type skipKind int

const (
	skipRecord         skipKind = iota // records that are no document
	damageRecords                      // damage, counted in records too (a bad datum, lost rows)
	damageNotInRecords                 // damage that is not records (a bad block, a bad row group)
)

func (s *rowSource) Next() bool {
	for s.err == nil {
		ok := s.r.Next()
		if s.strict {
			if sk := s.r.Skipped(); len(sk) > 0 {
				s.err = fmt.Errorf("input %s: bad %s records (%s) (--strict)", s.path, s.format, ReasonList(sk))
				return false
			}
		}
		if !ok {
			if err := s.r.Err(); err != nil {
				s.err = fmt.Errorf("input %s: %w", s.path, err)
			} else if s.n == s.empty && s.r.Damage() != "" {
				// Nothing but damage: not a file to count and pass over.
				s.err = fmt.Errorf("input %s: damaged %s file, no document could be read (%s)%s", s.path, s.format, s.r.Damage(), s.lost())
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

// lost lists what the damage cost, if the reader counts it: "; rows lost
// in damaged row group 6".
func (s *rowSource) lost() string {
	var parts []string
	for k, v := range s.r.Skipped() {
		if s.kind(k) == damageRecords {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}

func (s *rowSource) Doc() *doc.Doc { return &s.d }
func (s *rowSource) Where() string { return fmt.Sprintf("%s#%d", s.path, s.n) }
func (s *rowSource) Err() error    { return s.err }
func (s *rowSource) Close() error  { return nil }

func (s *rowSource) Counts() Counts {
	c := Counts{Records: s.n, Docs: s.n - s.empty}
	c.Skip(skipNoBody, s.empty)
	for k, v := range s.r.Skipped() {
		switch s.kind(k) {
		case damageNotInRecords:
			c.Damage(k, v)
		case damageRecords:
			c.Damage(k, v)
			c.Records += v
		default:
			c.Skip(k, v)
			c.Records += v
		}
	}
	return c
}

// skipNoBody counts records with neither html nor text (null or empty).
var skipNoBody = doc.ErrNoBody.Error()
