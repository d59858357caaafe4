package input

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
)

// pyarrowFixture is a documents file that pyarrow wrote
// (lib/parquetio/testdata/interop.py): columns doc_id, url, content (html
// as binary), text, site and extras; rows d1 (html), one with an empty id,
// one with a null id, d3 (text only) and d4 (html, empty text).
var pyarrowFixture = filepath.Join("..", "parquetio", "testdata", "docs.parquet")

// TestParquetSource: Parquet files are found by extension and read as
// documents with renamed columns; html wins over text; rows without an id
// are counted as skipped; Where numbers the documents.
func TestParquetSource(t *testing.T) {
	in, err := Find([]string{pyarrowFixture}, Filter{})
	if err != nil || len(in.Containers) != 1 {
		t.Fatalf("Find: %+v, %v", in, err)
	}
	var docs []doc.Doc
	var where []string
	o := Options{Fields: avroio.DocFields{ID: "doc_id", HTML: "content", Site: "site"}}
	c, err := in.Each(o, func(d *doc.Doc, w string) error {
		docs = append(docs, *d)
		where = append(where, strings.TrimPrefix(w, pyarrowFixture))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if want := []string{"d1", "d3", "d4"}; !slices.Equal(ids, want) {
		t.Fatalf("ids %q, want %q", ids, want)
	}
	if !docs[0].IsHTML || docs[0].URL != "http://example.com/1" || !strings.Contains(docs[0].HTML, "wörld") {
		t.Errorf("d1: %+v", docs[0])
	}
	if docs[1].IsHTML || docs[1].Text != "Plain 文本\n\nsecond" {
		t.Errorf("d3: %+v", docs[1])
	}
	if !docs[2].IsHTML {
		t.Errorf("d4: html should win over an empty text: %+v", docs[2])
	}
	var sites []string
	for _, d := range docs {
		sites = append(sites, d.Site)
	}
	if want := []string{"example.com", "", "例え.jp"}; !slices.Equal(sites, want) {
		t.Errorf("sites %q, want %q", sites, want)
	}
	if !slices.Equal(where, []string{"#1", "#2", "#3"}) {
		t.Errorf("where %q", where)
	}
	if c.Records != 5 || c.Docs != 3 || c.SkippedTotal() != 2 {
		t.Errorf("counts %+v: want 5 records, 3 documents, 2 skipped", c)
	}
	if _, err := in.Each(Options{Fields: o.Fields, Strict: true}, func(*doc.Doc, string) error { return nil }); err == nil || !strings.Contains(err.Error(), "--strict") {
		t.Errorf("strict: err %v, want the skipped rows to be an error", err)
	}
	if _, err := in.Each(Options{}, func(*doc.Doc, string) error { return nil }); err == nil || !strings.Contains(err.Error(), "doc_id") {
		t.Errorf("default columns: err %v, want one listing the file's columns", err)
	}
}

// TestDamagedOnly: a container file whose damage left no document is an
// error naming the file and the first damage, not a file passed over.
func TestDamagedOnly(t *testing.T) {
	name := filepath.Join("..", "parquetio", "testdata", "oom.parquet")
	in, err := Find([]string{name}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = in.Each(Options{}, func(*doc.Doc, string) error { n++; return nil })
	if err == nil || n != 0 {
		t.Fatalf("%d documents, err %v; want an error", n, err)
	}
	for _, want := range []string{name, "no document could be read", "row group 0", "lz4", "6"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q is not one line", err)
	}
}
