package input

// Parquet: files of rows with id, url, html and text columns (names from
// Options.Fields; lib/parquetio says which column types are read), as
// Hugging Face datasets and many crawl dumps ship them. As in JSON Lines,
// html wins over text when both are set; rows with neither are skipped
// ("neither html nor text"), and lib/parquetio's reasons count the rest:
// rows without an id are unusable records, damaged row groups are damage.

import (
	"fmt"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/parquetio"
)

// parquetSource is a Source over a Parquet file of documents.
type parquetSource struct {
	path   string
	r      *parquetio.DocReader
	strict bool
	d      doc.Doc
	n      int64 // rows read that gave a document or had no body
	empty  int64 // rows without html and text
	err    error
}

func openParquet(f *File, o Options) (Source, error) {
	fields := parquetio.DocFields{ID: o.Fields.ID, URL: o.Fields.URL, HTML: o.Fields.HTML, Text: o.Fields.Text, Site: o.Fields.Site}
	r, err := parquetio.NewDocReader(f.ReaderAt, f.Size, fields)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", f.Path, err)
	}
	return &parquetSource{path: f.Path, r: r, strict: o.Strict}, nil
}

func (s *parquetSource) Next() bool {
	for s.err == nil {
		ok := s.r.Next()
		if s.strict {
			if sk := s.r.Skipped(); len(sk) > 0 {
				s.err = fmt.Errorf("input %s: bad parquet rows (%s) (--strict)", s.path, ReasonList(sk))
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

func (s *parquetSource) Doc() *doc.Doc { return &s.d }
func (s *parquetSource) Where() string { return fmt.Sprintf("%s#%d", s.path, s.n) }
func (s *parquetSource) Err() error    { return s.err }
func (s *parquetSource) Close() error  { return nil }

func (s *parquetSource) Counts() Counts {
	c := Counts{Records: s.n, Docs: s.n - s.empty}
	c.Skip(skipNoBody, s.empty)
	for k, v := range s.r.Skipped() {
		switch k {
		case parquetio.SkipBadRowGroup:
			c.Damage(k, v)
		case parquetio.SkipLostRows:
			c.Damage(k, v)
			c.Records += v
		default:
			c.Skip(k, v)
			c.Records += v
		}
	}
	return c
}
