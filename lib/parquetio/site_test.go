package parquetio

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// siteDoc is a documents row with candidate site columns: a nullable
// dictionary-encoded string, a nullable integer, a string named site and a
// double.
type siteDoc struct {
	ID    string  `parquet:"id"`
	HTML  string  `parquet:"html"`
	Host  *string `parquet:"host,optional,dict"`
	Num   *int64  `parquet:"num,optional"`
	Site  string  `parquet:"site"`
	Score float64 `parquet:"score"`
}

func i64(n int64) *int64 { return &n }

var siteDocs = []siteDoc{
	{ID: "1", HTML: "<p>1</p>", Host: ptr("example.com"), Num: i64(7), Site: "s1"},
	{ID: "2", HTML: "<p>2</p>", Site: "s2"},
	{ID: "", HTML: "<p>no id</p>", Host: ptr("skipped.org"), Num: i64(8), Site: "s"},
	{ID: "3", HTML: "<p>3</p>", Host: ptr("例え.jp"), Num: i64(-1), Site: "s3"},
	{ID: "4", HTML: "<p>4</p>", Host: ptr("example.com"), Site: "s4"},
}

// readSites reads the ids and sites of the documents of data; it fails the
// test on errors and checks that every row is accounted for.
func readSites(t testing.TB, data []byte, f DocFields) ([][2]string, map[string]int64) {
	t.Helper()
	r, err := NewDocReader(bytes.NewReader(data), int64(len(data)), f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for r.Next() {
		id, _, _, _ := r.Doc()
		out = append(out, [2]string{id, r.Site()})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	sk := r.Skipped()
	if n := int64(len(out)) + sk[SkipMissingID] + sk[SkipLostRows]; n != r.Rows() {
		t.Errorf("%d docs and skipped %v, want %d rows", len(out), sk, r.Rows())
	}
	return out, sk
}

func TestDocSite(t *testing.T) {
	fields := []struct {
		name string
		f    DocFields
		want [][2]string
	}{
		{"nullable string", DocFields{Site: "host"}, [][2]string{{"1", "example.com"}, {"2", ""}, {"3", "例え.jp"}, {"4", "example.com"}}},
		{"integer", DocFields{Site: "num"}, [][2]string{{"1", "7"}, {"2", ""}, {"3", "-1"}, {"4", ""}}},
		{"not configured", DocFields{}, [][2]string{{"1", ""}, {"2", ""}, {"3", ""}, {"4", ""}}},
	}
	layouts := []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"default", nil},
		{"row groups of 2", []parquet.WriterOption{parquet.MaxRowsPerRowGroup(2)}},
		{"small pages v1", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.PageBufferSize(16)}},
	}
	for _, l := range layouts {
		data := writeRows(t, siteDocs, l.opts...)
		for _, tc := range fields {
			t.Run(l.name+"/"+tc.name, func(t *testing.T) {
				got, skipped := readSites(t, data, tc.f)
				if !reflect.DeepEqual(got, tc.want) || skipped[SkipMissingID] != 1 || len(skipped) != 1 {
					t.Errorf("got %q skipped %v, want %q", got, skipped, tc.want)
				}
			})
		}
	}
}

func TestDocSiteErrors(t *testing.T) {
	data := writeRows(t, siteDocs)
	tests := []struct {
		name string
		f    DocFields
		want string // in the error message
	}{
		{"no site column", DocFields{Site: "domain"},
			"parquet file has columns id, html, host, num, site, score; want site column domain"},
		{"no id column first", DocFields{ID: "doc_id", Site: "domain"}, "; want doc_id and html or text"},
		{"double site", DocFields{Site: "score"}, "column score has type DOUBLE; want a string or integer column"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDocReader(bytes.NewReader(data), int64(len(data)), tc.f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestDocSiteDamage corrupts a column chunk of the middle row group: when
// the reader reads that column it skips the group for every column, and the
// sites of the other rows stay with their ids; an unread site column is
// never looked at.
func TestDocSiteDamage(t *testing.T) {
	docs := make([]siteDoc, 9)
	var all, noSite [][2]string // id and site of each row
	for i := range docs {
		id := string(rune('a' + i))
		docs[i] = siteDoc{ID: id, HTML: strings.Repeat("<p>x</p>", 10+i), Site: strings.Repeat(id, 80+i)}
		all = append(all, [2]string{id, docs[i].Site})
		noSite = append(noSite, [2]string{id, ""})
	}
	data := writeRows(t, docs, parquet.MaxRowsPerRowGroup(3))
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	without := append(append([][2]string{}, all[:3]...), all[6:]...) // row group 1 lost
	tests := []struct {
		name   string
		column int // index of the damaged column
		f      DocFields
		want   [][2]string
		lost   int64
	}{
		{"html damaged", 1, DocFields{Site: "site"}, without, 3},
		{"site damaged", 4, DocFields{Site: "site"}, without, 3},
		{"unread site damaged", 4, DocFields{}, noSite, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := f.Metadata().RowGroups[1].Columns[tc.column].MetaData
			damaged := append([]byte{}, data...)
			for i := range m.TotalCompressedSize / 2 {
				damaged[m.DataPageOffset+m.TotalCompressedSize/2+i] ^= 0x5a
			}
			got, skipped := readSites(t, damaged, tc.f)
			if !reflect.DeepEqual(got, tc.want) || skipped[SkipLostRows] != tc.lost {
				t.Errorf("got %q skipped %v, want %q", got, skipped, tc.want)
			}
		})
	}
}
