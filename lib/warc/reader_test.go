package warc

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

var fixtures = []string{"pages.warc", "pages.warc.gz", "pages-whole.warc.gz"}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll reads every record of data.
func readAll(t testing.TB, data []byte, opts Options) ([]*Record, *Reader) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Record
	for r.Next() {
		recs = append(recs, r.Record())
	}
	return recs, r
}

// summary renders records and their documents, one line each.
func summary(recs []*Record) string {
	var b strings.Builder
	for _, rec := range recs {
		fmt.Fprintf(&b, "%s %s len=%d sha=%x trunc=%v", rec.Version, rec.Type(),
			len(rec.Body), sha256.Sum256(rec.Body), rec.Truncated)
		doc, ok, reason := Document(rec)
		if !ok {
			fmt.Fprintf(&b, " skip=%q\n", reason)
			continue
		}
		fmt.Fprintf(&b, " id=%s url=%s ct=%q html=%d/%x text=%q\n", doc.ID, doc.URL,
			doc.ContentType, len(doc.HTML), sha256.Sum256(doc.HTML), doc.Text)
	}
	return b.String()
}

func TestFixtures(t *testing.T) {
	golden := filepath.Join("testdata", "pages.golden")
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			recs, r := readAll(t, readFile(t, name), Options{})
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if len(r.Skipped()) != 0 {
				t.Errorf("skipped %v on a clean file", r.Skipped())
			}
			got := summary(recs)
			if *update && name == fixtures[0] {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want := string(readFile(t, "pages.golden")); got != want {
				t.Errorf("summary mismatch\ngot:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestDocumentsFromPages checks the extracted HTML against the source pages.
func TestDocumentsFromPages(t *testing.T) {
	recs, _ := readAll(t, readFile(t, "pages.warc.gz"), Options{})
	want := map[string]string{
		"urn:uuid:00000000-0000-4000-8000-000000000003": "replace-brs",
		"urn:uuid:00000000-0000-4000-8000-000000000004": "normalize-spaces",
		"urn:uuid:00000000-0000-4000-8000-000000000005": "rtl-1",
		"clueweb-0001": "missing-paragraphs",
	}
	n := 0
	for _, rec := range recs {
		doc, ok, _ := Document(rec)
		if !ok || doc.HTML == nil {
			continue
		}
		page, found := want[doc.ID]
		if !found {
			t.Errorf("unexpected html document %q", doc.ID)
			continue
		}
		n++
		if !bytes.Equal(doc.HTML, readFile(t, "pages/"+page+".html")) {
			t.Errorf("%s: html differs from pages/%s.html", doc.ID, page)
		}
		if want := "http://example.com/" + page; doc.URL != want {
			t.Errorf("%s: url %q, want %q", doc.ID, doc.URL, want)
		}
	}
	if n != len(want) {
		t.Errorf("got %d html documents, want %d", n, len(want))
	}
}

// TestOffsets checks that offsets point at the record (plain), at its gzip
// member (per-record gzip) and at the single member (whole-file gzip).
func TestOffsets(t *testing.T) {
	plain := readFile(t, "pages.warc")
	precs, _ := readAll(t, plain, Options{})
	for _, rec := range precs {
		if !bytes.HasPrefix(plain[rec.Offset:], []byte("WARC/1.0\r\n")) {
			t.Errorf("plain offset %d is not a record start", rec.Offset)
		}
	}
	gz := readFile(t, "pages.warc.gz")
	grecs, _ := readAll(t, gz, Options{})
	for i, rec := range grecs {
		z, err := gzip.NewReader(bytes.NewReader(gz[rec.Offset:]))
		if err != nil {
			t.Fatalf("record %d: offset %d: %v", i, rec.Offset, err)
		}
		z.Multistream(false)
		m, _ := io.ReadAll(z)
		if !bytes.HasPrefix(m, []byte("WARC/1.0\r\n")) || rec.StreamOffset != precs[i].Offset {
			t.Errorf("record %d: member at %d does not start it", i, rec.Offset)
		}
	}
	wrecs, _ := readAll(t, readFile(t, "pages-whole.warc.gz"), Options{})
	for i, rec := range wrecs {
		if rec.Offset != 0 || rec.StreamOffset != precs[i].Offset {
			t.Errorf("whole gzip record %d: offset %d/%d", i, rec.Offset, rec.StreamOffset)
		}
	}
}

// TestMkwarc regenerates the fixtures with warcio and compares.
func TestMkwarc(t *testing.T) {
	if err := exec.Command("python3", "-c", "import warcio").Run(); err != nil {
		if os.Getenv("PDC_REQUIRE_INTEROP") != "" { // .ci/run: this test must run
			t.Fatal("python3 with warcio not available (pip install warcio)")
		}
		t.Skip("python3 with warcio not available (pip install warcio)")
	}
	dir := t.TempDir()
	out, err := exec.Command("python3", filepath.Join("testdata", "mkwarc.py"), dir).CombinedOutput()
	if err != nil {
		t.Fatalf("mkwarc.py: %v\n%s", err, out)
	}
	for _, name := range fixtures {
		fresh, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := readAll(t, fresh, Options{})
		want, _ := readAll(t, readFile(t, name), Options{})
		if summary(got) != summary(want) {
			t.Errorf("%s: regenerated file parses differently", name)
		}
	}
}

func TestOptions(t *testing.T) {
	data := readFile(t, "pages.warc.gz")
	recs, r := readAll(t, data, Options{Types: []string{"Response"}})
	if len(recs) != 6 || r.Skipped()[SkipFiltered] != 4 {
		t.Errorf("types filter: %d records, skipped %v", len(recs), r.Skipped())
	}
	recs, _ = readAll(t, data, Options{MaxBodyBytes: 100})
	for _, rec := range recs {
		if n := len(rec.Body); n > 100 || rec.Truncated != (n == 100 && rec.Header.Get("Content-Length") != "100") {
			t.Errorf("max body: len %d truncated %v", n, rec.Truncated)
		}
	}
	recs, r = readAll(t, data, Options{MaxHeaderBytes: 300})
	if len(recs) == 0 || r.Skipped()[SkipHeaderTooLarge] == 0 {
		t.Errorf("max header: %d records, skipped %v", len(recs), r.Skipped())
	}
}

func TestNotWARC(t *testing.T) {
	for _, in := range []string{"hello\nworld\n", "\x1f\x8bgarbage", "ARC/1.0 x\n\n<html>"} {
		_, r := readAll(t, []byte(in), Options{})
		if !errors.Is(r.Err(), ErrNotWARC) {
			t.Errorf("%q: err %v, want ErrNotWARC", in, r.Err())
		}
	}
	recs, r := readAll(t, nil, Options{})
	if len(recs) != 0 || r.Err() != nil {
		t.Errorf("empty input: %d records, err %v", len(recs), r.Err())
	}
}

type failReader struct{ n int }

func (f *failReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, bytes.Repeat([]byte("WARC/1.0\r\n"), 1+len(p)/10)[:min(len(p), f.n)])
	f.n -= n
	return n, nil
}

func TestIOError(t *testing.T) {
	r, err := NewReader(&failReader{n: 100}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	if r.Err() == nil || !strings.Contains(r.Err().Error(), "disk on fire") {
		t.Errorf("err %v, want the reader's error", r.Err())
	}
}
