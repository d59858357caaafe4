package jobs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Fixtures shared by the command tests: lib/warc's test WARC files, Avro
// document files, and helpers to parse JSON Lines output.

// warcFixture is a file of lib/warc's test data: four HTML responses, a
// conversion record, and warcinfo, request, 404, text/css and metadata
// records.
func warcFixture(name string) string { return filepath.Join("..", "lib", "warc", "testdata", name) }

var fixtureIDs = []string{
	"urn:uuid:00000000-0000-4000-8000-000000000003",
	"urn:uuid:00000000-0000-4000-8000-000000000004",
	"urn:uuid:00000000-0000-4000-8000-000000000005",
	"clueweb-0001",
	"urn:uuid:00000000-0000-4000-8000-000000000010",
}

func parseLines(t *testing.T, raw []byte) []doc.Doc {
	t.Helper()
	var docs []doc.Doc
	r := mr.NewReader(bytes.NewReader(raw))
	for r.Next() {
		d, err := doc.ParseJSON(r.Line())
		if err != nil {
			t.Fatalf("line %d: %v: %s", r.LineNumber(), err, r.Line())
		}
		docs = append(docs, d)
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		t.Error("output does not end with a newline")
	}
	return docs
}

func docIDs(docs []doc.Doc) []string {
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	return ids
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// truncatedWARC writes lib/warc's plain fixture cut inside its fifth
// record: warcinfo, request and two HTML responses survive.
func truncatedWARC(t *testing.T, dir string) string {
	t.Helper()
	plain, err := os.ReadFile(warcFixture("pages.warc"))
	if err != nil {
		t.Fatal(err)
	}
	rec5 := bytes.Index(plain, []byte("WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000005>"))
	if rec5 < 0 {
		t.Fatal("fixture record 5 not found")
	}
	return writeFile(t, filepath.Join(dir, "cut.warc"), string(plain[:rec5+300]))
}

// writeAvroDocs writes documents {id, url, html, text} with avroio.DocWriter.
func writeAvroDocs(t *testing.T, path string, docs [][4]string) string {
	t.Helper()
	var b bytes.Buffer
	w, err := avroio.NewDocWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := w.Write(d[0], d[1], d[2], d[3]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, path, b.String())
}

var avroDocs = [][4]string{
	{"a1", "http://a/1", "<p>one</p>", ""},
	{"a2", "", "", "two"},
	{"a3", "http://a/3", "", ""}, // no body: skipped
	{"a4", "", "<p>four</p>", "four"},
}
