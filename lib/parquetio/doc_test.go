package parquetio

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

func ptr(s string) *string { return &s }

// strDoc is a documents row with string ids and an extra column.
type strDoc struct {
	ID    *string `parquet:"id,optional"`
	URL   *string `parquet:"url,optional,dict"`
	HTML  *string `parquet:"html,optional"`
	Text  *string `parquet:"text,optional"`
	Extra int64   `parquet:"extra"`
}

func writeRows[T any](t testing.TB, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readDocs reads all documents of data; it fails the test on errors and
// checks that every row is accounted for.
func readDocs(t testing.TB, data []byte, f DocFields) ([][4]string, map[string]int64) {
	t.Helper()
	r, err := NewDocReader(bytes.NewReader(data), int64(len(data)), f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][4]string
	for r.Next() {
		id, url, html, text := r.Doc()
		out = append(out, [4]string{id, url, html, text})
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

var strDocs = []strDoc{
	{ID: ptr("1"), URL: ptr("http://u/"), HTML: ptr("<p>h</p>"), Extra: 1},
	{ID: ptr(""), HTML: ptr("empty id"), Extra: 2},
	{ID: nil, Text: ptr("null id"), Extra: 3},
	{ID: ptr("3"), Text: ptr("text 文本"), Extra: 4},
	{ID: ptr("4"), URL: ptr("http://u/"), HTML: ptr("<p>4</p>"), Text: ptr("four")},
	{ID: ptr("x\ty"), URL: ptr(""), HTML: ptr(""), Text: ptr("")},
}

var strDocsWant = [][4]string{
	{"1", "http://u/", "<p>h</p>", ""},
	{"3", "", "", "text 文本"},
	{"4", "http://u/", "<p>4</p>", "four"},
	{"x\ty", "", "", ""},
}

func TestDocRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"default", nil},
		{"snappy", []parquet.WriterOption{parquet.Compression(&parquet.Snappy)}},
		{"zstd", []parquet.WriterOption{parquet.Compression(&parquet.Zstd)}},
		{"gzip", []parquet.WriterOption{parquet.Compression(&parquet.Gzip)}},
		{"row groups of 2", []parquet.WriterOption{parquet.MaxRowsPerRowGroup(2)}},
		{"row groups of 1", []parquet.WriterOption{parquet.MaxRowsPerRowGroup(1)}},
		{"small pages", []parquet.WriterOption{parquet.PageBufferSize(16)}},
		{"data page v1", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.PageBufferSize(16)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped := readDocs(t, writeRows(t, strDocs, tc.opts...), DocFields{})
			if !reflect.DeepEqual(got, strDocsWant) || skipped[SkipMissingID] != 2 || len(skipped) != 1 {
				t.Errorf("got %q skipped %v", got, skipped)
			}
		})
	}
}

type int64Doc struct {
	ID   int64  `parquet:"doc_id"`
	Body string `parquet:"content"`
}

type int32Doc struct {
	ID   *int32 `parquet:"id,optional"`
	Text string `parquet:"text"`
}

type uint64Doc struct {
	ID   uint64 `parquet:"id"`
	Text string `parquet:"text"`
}

type textOnlyDoc struct {
	ID   string `parquet:"id"`
	Text string `parquet:"text"`
}

type htmlOnlyDoc struct {
	Text string `parquet:"text"` // a column named text, read as html
	ID   string `parquet:"id"`
}

func i32(n int32) *int32 { return &n }

// TestDocColumns covers integer ids, custom names and missing columns.
func TestDocColumns(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		f       DocFields
		want    [][4]string
		missing int64
	}{
		{"int64 ids", writeRows(t, []int64Doc{{0, "<p>0</p>"}, {-12345678901, "<p>n</p>"}}),
			DocFields{ID: "doc_id", HTML: "content"},
			[][4]string{{"0", "", "<p>0</p>", ""}, {"-12345678901", "", "<p>n</p>", ""}}, 0},
		{"int32 ids, null", writeRows(t, []int32Doc{{i32(-1), "a"}, {nil, "b"}, {i32(1 << 30), "c"}}),
			DocFields{}, [][4]string{{"-1", "", "", "a"}, {"1073741824", "", "", "c"}}, 1},
		{"uint64 ids", writeRows(t, []uint64Doc{{1<<64 - 1, "max"}}),
			DocFields{}, [][4]string{{"18446744073709551615", "", "", "max"}}, 0},
		{"text only", writeRows(t, []textOnlyDoc{{"a", "t"}}),
			DocFields{}, [][4]string{{"a", "", "", "t"}}, 0},
		{"html named text", writeRows(t, []htmlOnlyDoc{{"<p>x</p>", "a"}}),
			DocFields{HTML: "text", Text: "nope"}, [][4]string{{"a", "", "<p>x</p>", ""}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped := readDocs(t, tc.data, tc.f)
			if !reflect.DeepEqual(got, tc.want) || skipped[SkipMissingID] != tc.missing {
				t.Errorf("got %q skipped %v", got, skipped)
			}
		})
	}
}

type floatIDDoc struct {
	ID   float64 `parquet:"id"`
	Text string  `parquet:"text"`
}

type intTextDoc struct {
	ID   string `parquet:"id"`
	Text int64  `parquet:"text"`
}

type nestedDoc struct {
	ID   string `parquet:"id"`
	Page struct {
		HTML string `parquet:"html"`
	} `parquet:"page"`
}

type groupHTMLDoc struct {
	ID   string `parquet:"id"`
	HTML struct {
		Body string `parquet:"body"`
	} `parquet:"html"`
}

type listTextDoc struct {
	ID   string   `parquet:"id"`
	Text []string `parquet:"text,list"`
}

func TestNewDocReaderErrors(t *testing.T) {
	good := writeRows(t, strDocs)
	footerLen := append([]byte{}, good...)
	footerLen[len(footerLen)-6] ^= 0x40 // footer length beyond the file
	footer := append([]byte{}, good...)
	for i := len(footer) - 40; i < len(footer)-8; i++ {
		footer[i] = 0xff // garbage footer
	}
	encrypted := append([]byte{}, good...)
	copy(encrypted[len(encrypted)-4:], "PARE")
	tests := []struct {
		name string
		data []byte
		f    DocFields
		want string // in the error message
	}{
		{"empty", nil, DocFields{}, "not a parquet file"},
		{"not parquet", []byte("hello, this is not a parquet file"), DocFields{}, "not a parquet file"},
		{"magic only", []byte("PAR1PAR1"), DocFields{}, "not a parquet file"},
		{"truncated by one", good[:len(good)-1], DocFields{}, "truncated"},
		{"truncated by half", good[:len(good)/2], DocFields{}, "truncated"},
		{"footer length", footerLen, DocFields{}, "footer of"},
		{"garbage footer", footer, DocFields{}, "open parquet"},
		{"encrypted", encrypted, DocFields{}, "encrypted"},
		{"no id column", good, DocFields{ID: "doc_id"},
			"parquet file has columns id, url, html, text, extra; want doc_id and html or text"},
		{"no html or text", good, DocFields{HTML: "a", Text: "b"}, "want id and a or b"},
		{"float id", writeRows(t, []floatIDDoc{{1, "t"}}), DocFields{}, "column id has type DOUBLE; want a string or integer column"},
		{"int text", writeRows(t, []intTextDoc{{"a", 1}}), DocFields{}, "column text has type INT64 (INT(64,true)); want a string column"},
		{"nested html", writeRows(t, []nestedDoc{{ID: "a"}}), DocFields{}, "has columns id, page;"},
		{"group html", writeRows(t, []groupHTMLDoc{{ID: "a"}}), DocFields{}, "column html is not a plain column"},
		{"list text", writeRows(t, []listTextDoc{{"a", []string{"t"}}}), DocFields{}, "column text is not a plain column"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDocReader(bytes.NewReader(tc.data), int64(len(tc.data)), tc.f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestDocReaderDamage corrupts the pages of the middle row group: the
// reader skips that group and reads the others.
func TestDocReaderDamage(t *testing.T) {
	docs := make([]strDoc, 9)
	for i := range docs {
		docs[i] = strDoc{ID: ptr(string(rune('a' + i))), HTML: ptr(strings.Repeat("<p>x</p>", 10+i))}
	}
	data := writeRows(t, docs, parquet.MaxRowsPerRowGroup(3))
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	html := f.Metadata().RowGroups[1].Columns[2].MetaData
	damaged := append([]byte{}, data...)
	for i := range html.TotalCompressedSize / 2 {
		damaged[html.DataPageOffset+html.TotalCompressedSize/2+i] ^= 0x5a
	}
	got, skipped := readDocs(t, damaged, DocFields{})
	var ids []string
	for _, d := range got {
		ids = append(ids, d[0])
	}
	if strings.Join(ids, "") != "abcghi" || skipped[SkipBadRowGroup] != 1 || skipped[SkipLostRows] != 3 {
		t.Errorf("got ids %q skipped %v", ids, skipped)
	}
}

// failingReader fails reads once fail is set.
type failingReader struct {
	r    io.ReaderAt
	fail bool
}

var errDisk = errors.New("disk on fire")

func (f *failingReader) ReadAt(p []byte, off int64) (int, error) {
	if f.fail {
		return 0, errDisk
	}
	return f.r.ReadAt(p, off)
}

// TestDocReaderReadError: a read error ends reading, it is not damage.
func TestDocReaderReadError(t *testing.T) {
	data := writeRows(t, strDocs, parquet.MaxRowsPerRowGroup(3))
	fr := &failingReader{r: bytes.NewReader(data)}
	r, err := NewDocReader(fr, int64(len(data)), DocFields{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	fr.fail = true
	n := 1
	for r.Next() {
		n++
	}
	if !errors.Is(r.Err(), errDisk) || n != 1 || r.Skipped()[SkipBadRowGroup] != 0 {
		t.Errorf("after %d docs: err %v, skipped %v", n, r.Err(), r.Skipped())
	}
	_, err = NewDocReader(fr, int64(len(data)), DocFields{})
	if !errors.Is(err, errDisk) {
		t.Errorf("footer read error: got %v", err)
	}
}

// randomText is incompressible ASCII text of n bytes.
func randomText(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 0))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

// TestDocLargeValue reads a 10 MB html value.
func TestDocLargeValue(t *testing.T) {
	big := "<p>" + randomText(1, 10<<20) + "</p>"
	data := writeRows(t, []strDoc{{ID: ptr("small"), Text: ptr("t")}, {ID: ptr("big"), HTML: &big}},
		parquet.Compression(&parquet.Snappy))
	got, _ := readDocs(t, data, DocFields{})
	if len(got) != 2 || got[1][0] != "big" || got[1][2] != big {
		t.Errorf("got %d docs", len(got))
	}
}

// countingReader counts the bytes read.
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestDocReaderStreams: reading the first document reads the footer and
// the first row group, not the file.
func TestDocReaderStreams(t *testing.T) {
	var docs []strDoc
	for i := range 16 {
		docs = append(docs, strDoc{ID: ptr(string(rune('a' + i))), HTML: ptr(randomText(uint64(i), 1<<20))})
	}
	data := writeRows(t, docs, parquet.MaxRowsPerRowGroup(2),
		parquet.SkipPageBounds("html"), parquet.SkipPageStatistics("html"))
	cr := &countingReader{r: bytes.NewReader(data)}
	r, err := NewDocReader(cr, int64(len(data)), DocFields{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	if cr.n > int64(len(data))/8+readBufferSize*4 { // the first of 8 row groups
		t.Errorf("read %d of %d bytes for the first document", cr.n, len(data))
	}
	n := 1
	for r.Next() {
		n++
	}
	if n != 16 || r.Err() != nil {
		t.Errorf("read %d docs, err %v", n, r.Err())
	}
}

// pyarrowDocs and pyarrowIntDocs are the documents interop.py writes.
var (
	pyarrowFields = DocFields{ID: "doc_id", HTML: "content"}
	pyarrowDocs   = [][4]string{
		{"d1", "http://example.com/1", "<p>Hello, wörld</p>", ""},
		{"d3", "", "", "Plain 文本\n\nsecond"},
		{"d4", "http://例え.jp/4", "<html><body><h1>T</h1><p>x</p></body></html>", ""},
	}
	pyarrowIntDocs = [][4]string{{"0", "", "", "zero"}, {"12345678901", "", "", "big"}, {"-7", "", "", "日本語のテキスト"}}
	// Their sites, read with Site "site": a string and an int32 column.
	pyarrowSites    = [][2]string{{"d1", "example.com"}, {"d3", ""}, {"d4", "例え.jp"}}
	pyarrowIntSites = [][2]string{{"0", "3"}, {"12345678901", ""}, {"-7", "-2"}}
)

func checkPyarrowDocs(t *testing.T, docs, intDocs []byte) {
	t.Helper()
	got, skipped := readDocs(t, docs, pyarrowFields)
	if !reflect.DeepEqual(got, pyarrowDocs) || skipped[SkipMissingID] != 2 {
		t.Errorf("docs: got %q skipped %v", got, skipped)
	}
	got, skipped = readDocs(t, intDocs, DocFields{})
	if !reflect.DeepEqual(got, pyarrowIntDocs) || skipped[SkipMissingID] != 1 {
		t.Errorf("int docs: got %q skipped %v", got, skipped)
	}
	f := pyarrowFields
	f.Site = "site"
	if sites, _ := readSites(t, docs, f); !reflect.DeepEqual(sites, pyarrowSites) {
		t.Errorf("sites: got %q, want %q", sites, pyarrowSites)
	}
	if sites, _ := readSites(t, intDocs, DocFields{Site: "site"}); !reflect.DeepEqual(sites, pyarrowIntSites) {
		t.Errorf("int sites: got %q, want %q", sites, pyarrowIntSites)
	}
}

// TestPyarrowFixture reads the files interop.py wrote into testdata.
func TestPyarrowFixture(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("testdata", "docs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	intDocs, err := os.ReadFile(filepath.Join("testdata", "docs_int.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	checkPyarrowDocs(t, docs, intDocs)
}

// TestDocReaderPageCheck gives a page header of the middle row group huge
// sizes: the reader skips the group without allocating them.
func TestDocReaderPageCheck(t *testing.T) {
	docs := make([]strDoc, 9)
	for i := range docs {
		docs[i] = strDoc{ID: ptr(string(rune('a' + i))), HTML: ptr(strings.Repeat("<p>x</p>", 100))}
	}
	data := writeRows(t, docs, parquet.MaxRowsPerRowGroup(3))
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	off := f.Metadata().RowGroups[1].Columns[2].MetaData.DataPageOffset
	var proto thrift.CompactProtocol
	var h format.PageHeader
	if err := thrift.NewDecoder(proto.NewReaderFromBytes(data[off:])).Decode(&h); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                 string
		compressed, unpacked int32
	}{
		{"compressed", 1<<31 - 1, h.UncompressedPageSize},
		{"uncompressed", h.CompressedPageSize, 1<<31 - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := h
			h.CompressedPageSize, h.UncompressedPageSize = tc.compressed, tc.unpacked
			b, err := thrift.Marshal(&proto, &h)
			if err != nil {
				t.Fatal(err)
			}
			damaged := append([]byte{}, data...)
			copy(damaged[off:], b)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, skipped := readDocs(t, damaged, DocFields{})
			runtime.ReadMemStats(&after)
			if len(got) != 6 || skipped[SkipBadRowGroup] != 1 || skipped[SkipLostRows] != 3 {
				t.Errorf("got %d docs, skipped %v", len(got), skipped)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("allocated %d bytes", n)
			}
		})
	}
}
