package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// warcFixture is a file of lib/warc's test data: four HTML responses, a
// conversion record, and warcinfo, request, 404, text/css and metadata
// records.
func warcFixture(name string) string { return filepath.Join("..", "warc", "testdata", name) }

var fixtureIDs = []string{
	"urn:uuid:00000000-0000-4000-8000-000000000003",
	"urn:uuid:00000000-0000-4000-8000-000000000004",
	"urn:uuid:00000000-0000-4000-8000-000000000005",
	"clueweb-0001",
	"urn:uuid:00000000-0000-4000-8000-000000000010",
}

const fixtureSkips = "10 records, 5 documents, 5 skipped (http status not 2xx 1, not html 1, record type metadata 1, record type request 1, record type warcinfo 1)"

// readSplit renders a container file as JSON Lines (Lines) to the end and
// parses its lines; summary is its counts' Summary.
func readSplit(t *testing.T, path string) (docs []doc.Doc, raw []byte, summary string) {
	t.Helper()
	src, err := OpenContainer(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc := Lines(src, func(c Counts) { summary = c.Summary() })
	raw, err = io.ReadAll(rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return parseLines(t, raw), raw, summary
}

// eachDoc calls fn for each document of a container file.
func eachDoc(path string, o Options, fn func(d *doc.Doc, where string) error) (Counts, error) {
	return (&Set{Containers: []string{path}}).Each(o, fn)
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

func TestRecordSplitWARC(t *testing.T) {
	var first []doc.Doc
	for _, name := range []string{"pages.warc", "pages.warc.gz", "pages-whole.warc.gz"} {
		t.Run(name, func(t *testing.T) {
			path := warcFixture(name)
			docs, raw, summary := readSplit(t, path)
			if got := docIDs(docs); !slices.Equal(got, fixtureIDs) {
				t.Fatalf("ids %q, want %q", got, fixtureIDs)
			}
			for i, d := range docs {
				if d.IsHTML != (i < 4) || d.URL == "" || d.Body() == "" {
					t.Errorf("doc %s: html %v, url %q, %d body bytes", d.ID, d.IsHTML, d.URL, len(d.Body()))
				}
			}
			if !strings.Contains(docs[4].Text, "Lorem ipsum\ndolor sit") {
				t.Errorf("conversion text %q", docs[4].Text)
			}
			if first == nil {
				first = docs
			} else if !slices.Equal(first, docs) {
				t.Error("documents differ between the plain and the gzip fixture")
			}
			if summary != fixtureSkips {
				t.Errorf("summary %q, want %q", summary, fixtureSkips)
			}
			src, err := OpenContainer(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			rc := Lines(src, nil)
			defer rc.Close()
			if err := iotest.TestReader(rc, raw); err != nil {
				t.Error(err)
			}
		})
	}
}

// warcRecord renders one WARC/1.0 record.
func warcRecord(typ, id string, fields []string, block string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <%s>\r\n", typ, id)
	for _, f := range fields {
		b.WriteString(f + "\r\n")
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s\r\n\r\n", len(block), block)
	return b.String()
}

func httpResponse(contentType, body string) string {
	h := "HTTP/1.1 200 OK\r\n"
	if contentType != "" {
		h += "Content-Type: " + contentType + "\r\n"
	}
	return h + "\r\n" + body
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

func TestRecordCharsets(t *testing.T) {
	const ct = "Content-Type: application/http; msgtype=response"
	tests := []struct {
		name, contentType, body string
	}{
		{"http charset", "text/html; charset=windows-1252", "<p>caf\xe9 \x93ok\x94</p>"},
		{"meta charset", "text/html", `<meta charset="iso-8859-1"><p>caf` + "\xe9</p>"},
		{"utf-8 sniffed", "", "<!DOCTYPE html><p>café</p>"},
		{"http charset beats meta", "text/html; charset=utf-8", `<meta charset="iso-8859-1"><p>café</p>`},
	}
	var warc strings.Builder
	for i, tc := range tests {
		warc.WriteString(warcRecord("response", fmt.Sprint("r", i),
			[]string{"WARC-Target-URI: http://x/" + fmt.Sprint(i), ct}, httpResponse(tc.contentType, tc.body)))
	}
	path := writeFile(t, filepath.Join(t.TempDir(), "cs.warc"), warc.String())
	var docs []doc.Doc
	_, err := eachDoc(path, Options{}, func(d *doc.Doc, where string) error {
		docs = append(docs, *d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(tests) {
		t.Fatalf("got %d documents, want %d", len(docs), len(tests))
	}
	for i, tc := range tests {
		d := docs[i]
		if !d.IsHTML || !strings.Contains(d.HTML, "café") || d.ID != fmt.Sprint("r", i) {
			t.Errorf("%s: got %+v, want UTF-8 html with café", tc.name, d)
		}
	}
	if !strings.Contains(docs[0].HTML, "“ok”") {
		t.Errorf("windows-1252 quotes not decoded: %q", docs[0].HTML)
	}
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

func TestRecordDamaged(t *testing.T) {
	path := truncatedWARC(t, t.TempDir())
	docs, _, summary := readSplit(t, path)
	if got := docIDs(docs); !slices.Equal(got, fixtureIDs[:2]) {
		t.Errorf("ids %q, want %q", got, fixtureIDs[:2])
	}
	want := "4 records, 2 documents, 2 skipped (record type request 1, record type warcinfo 1), damage skipped (truncated record 1)"
	if summary != want {
		t.Errorf("summary\n%q, want\n%q", summary, want)
	}
	c, err := eachDoc(path, Options{Strict: true}, func(*doc.Doc, string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "truncated record") {
		t.Errorf("strict: err %v, want one naming %s and the damage", err, path)
	}
	if c.Docs != 2 {
		t.Errorf("strict: %d documents before the damage, want 2", c.Docs)
	}
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

func TestRecordSplitAvro(t *testing.T) {
	path := writeAvroDocs(t, filepath.Join(t.TempDir(), "docs.avro"), avroDocs)
	docs, _, summary := readSplit(t, path)
	want := []doc.Doc{
		{ID: "a1", URL: "http://a/1", HTML: "<p>one</p>", IsHTML: true, ValidUTF8: true}, // read back from JSON
		{ID: "a2", Text: "two", ValidUTF8: true},
		{ID: "a4", HTML: "<p>four</p>", IsHTML: true, ValidUTF8: true},
	}
	if !slices.Equal(docs, want) {
		t.Errorf("got %+v\nwant %+v", docs, want)
	}
	wantSum := "4 records, 3 documents, 1 skipped (neither html nor text 1)"
	if summary != wantSum {
		t.Errorf("summary %q, want %q", summary, wantSum)
	}
	var where []string
	_, err := eachDoc(path, Options{}, func(d *doc.Doc, w string) error {
		where = append(where, strings.TrimPrefix(w, path))
		return nil
	})
	if err != nil || !slices.Equal(where, []string{"#1", "#2", "#4"}) {
		t.Errorf("Each: where %q, err %v", where, err)
	}
}

func TestRecordErrors(t *testing.T) {
	dir := t.TempDir()
	notWARC := writeFile(t, filepath.Join(dir, "x.warc"), "hello\nworld\n")
	notAvro := writeFile(t, filepath.Join(dir, "x.avro"), "Obj\x01garbage")
	if _, err := OpenContainer(filepath.Join(dir, "missing.warc"), Options{}); err == nil || !strings.Contains(err.Error(), "missing.warc") {
		t.Errorf("missing file: err %v", err)
	}
	src, err := OpenContainer(notWARC, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc := Lines(src, nil)
	_, err = io.ReadAll(rc)
	rc.Close()
	if err == nil || !strings.Contains(err.Error(), "not a warc file") || !strings.Contains(err.Error(), notWARC) {
		t.Errorf("not a warc: err %v", err)
	}
	if _, err := OpenContainer(notAvro, Options{}); err == nil || !strings.Contains(err.Error(), notAvro) {
		t.Errorf("not avro: err %v", err)
	}
	stop := errors.New("stop")
	n := 0
	_, err = eachDoc(warcFixture("pages.warc.gz"), Options{}, func(*doc.Doc, string) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("callback error: got %v after %d calls", err, n)
	}
}

// TestInputTreeLinks: input directories are walked through symbolic links
// to files and directories (ids keep the linked path), each file is read
// once, by its own name when the tree holds it, else by its first link,
// a link cycle ends, and a link to nothing is reported, not fatal.
func TestInputTreeLinks(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	writeFile(t, filepath.Join(root, "a.html"), "<p>One.</p>")
	writeFile(t, filepath.Join(root, "docs", "api", "x.html"), "<p>Three.</p>")
	writeFile(t, filepath.Join(other, "sub", "b.html"), "<p>Two.</p>")
	writeFile(t, filepath.Join(other, "o.html"), "<p>Outside.</p>")
	writeFile(t, filepath.Join(root, ".hidden", "c.html"), "<p>Hidden.</p>")
	for _, l := range []struct{ target, name string }{
		{filepath.Join(other, "sub"), filepath.Join(root, "api")},              // a directory outside
		{root, filepath.Join(other, "sub", "loop")},                            // a cycle back to root
		{filepath.Join(root, "a.html"), filepath.Join(root, "z.html")},         // a file of the tree: read as a.html
		{filepath.Join(root, "a.html"), filepath.Join(root, "0.html")},         // the same, before it in path order
		{filepath.Join(other, "o.html"), filepath.Join(root, "o1.html")},       // a file outside: read once, as o1.html
		{filepath.Join(other, "o.html"), filepath.Join(root, "o2.html")},       // its second link
		{filepath.Join(other, "sub", "b.html"), filepath.Join(root, "b.html")}, // a file also reached through the api link
		{filepath.Join(root, "docs", "api"), filepath.Join(root, "alias")},     // inside: keeps its ids
		{filepath.Join(root, ".hidden"), filepath.Join(root, "shown")},         // inside, hidden
		{filepath.Join(root, "gone.html"), filepath.Join(root, "broken.html")}, // to nothing
		{"self", filepath.Join(root, "self")},                                  // to itself
		{filepath.Join(root, "a.html", "sub"), filepath.Join(root, "through")}, // through a file
	} {
		if err := os.Symlink(l.target, l.name); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	in, err := Find([]string{root}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range in.Tree {
		ids = append(ids, f.Rel)
	}
	if want := []string{"a.html", "api/b.html", "docs/api/x.html", "o1.html"}; !slices.Equal(ids, want) {
		t.Errorf("tree ids %q, want %q", ids, want)
	}
	var linked []string
	for _, l := range in.Linked {
		name, _, _ := strings.Cut(l, " -> ")
		linked = append(linked, filepath.Base(name))
	}
	if want := []string{"0.html", "b.html", "o2.html", "z.html"}; !slices.Equal(linked, want) {
		t.Errorf("links left out %q, want %q", linked, want)
	}
	if c := in.Counters(); c["input.files.linked"] != 4 || c["input.links.broken"] != 3 {
		t.Errorf("counters %v", c)
	}
	var names []string
	for _, b := range in.Broken {
		names = append(names, filepath.Base(b))
	}
	if want := []string{"broken.html", "self", "through"}; !slices.Equal(names, want) {
		t.Errorf("broken links %q, want %q", names, want)
	}
	var stderr strings.Builder
	in.Warn(&stderr)
	if !strings.Contains(stderr.String(), "skipped 3 symbolic links under the input directories that lead nowhere") {
		t.Errorf("warning %q", stderr.String())
	}
}

// TestDecodeHTML: raw pages (WARC payloads, trees of files) become UTF-8 by
// the same charset rules as pages in JSON Lines records.
func TestDecodeHTML(t *testing.T) {
	ascii := strings.Repeat("<p>plain ascii filler text.</p>\n", 40) // past the 1024-byte prescan
	gbk := "<meta charset=gbk><p>\xd6\xd0\xce\xc4</p>"               // 中文 in GBK
	tests := []struct {
		name, page, contentType, want string
	}{
		{"utf-8 declared", "<meta charset=utf-8><p>中文</p>", "", "<meta charset=utf-8><p>中文</p>"},
		{"utf-8 after an ascii head, undeclared", ascii + "<p>中文</p>", "", ascii + "<p>中文</p>"},
		{"gbk declared in meta", gbk, "", "<meta charset=gbk><p>中文</p>"},
		{"gbk from the content type", "<p>\xd6\xd0\xce\xc4</p>", "text/html; charset=GBK", "<p>中文</p>"},
		{"latin-1 undeclared", "<p>caf\xe9</p>", "", "<p>café</p>"},
		{"utf-8 with a bad byte", "<meta charset=utf-8><p>a\xffb</p>", "", "<meta charset=utf-8><p>a\uFFFDb</p>"},
		{"byte order mark", "\xef\xbb\xbf<p>x</p>", "", "<p>x</p>"},
		{"binary", "\x00\x01\xff", "", "\x00\x01\xff"},
	}
	for _, tt := range tests {
		if got := DecodeHTML([]byte(tt.page), tt.contentType); got != tt.want {
			t.Errorf("%s: DecodeHTML = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTreeSite(t *testing.T) {
	abs := func(root string) string { return "/abs/" + root }
	tests := []struct {
		rel  string
		n    int
		want string
	}{
		{"library/os.html", -1, ""},
		{"library/os.html", 0, "/abs/html"},
		{"library/os.html", 1, "/abs/html/library"},
		{"library/os.html", 2, "/abs/html/library"},
		{"a/b/c/d.html", 2, "/abs/html/a/b"},
		{"index.html", 1, "/abs/html"},
	}
	for _, tt := range tests {
		if got := Site(TreeFile{Root: "html", Rel: tt.rel}, tt.n, abs); got != tt.want {
			t.Errorf("Site(%s, %d) = %q, want %q", tt.rel, tt.n, got, tt.want)
		}
	}
	// Tree sources set it.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "x.html"), "<p>x</p>")
	in, err := Find([]string{dir}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var sites []string
	if _, err := in.Each(Options{TreeSite: 1}, func(d *doc.Doc, _ string) error { sites = append(sites, d.Site); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.ToSlash(dir) + "/a"}; !slices.Equal(sites, want) {
		t.Errorf("sites %q, want %q", sites, want)
	}
}

// TestFindKinds: files given explicitly are read by their extension; an
// unknown one is an error naming the file and the kinds pdc reads.
func TestFindKinds(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, kind string
	}{
		{"a.jsonl", "jsonl"}, {"b.ndjson.gz", "jsonl"}, {"part-00000", "jsonl"}, {"c.html", "tree"},
		{"d.txt", "tree"}, {"e.warc.gz", "container"}, {"f.parquet", "container"}, {"README.md", "error"}, {"g.pdf", "error"},
	} {
		p := writeFile(t, filepath.Join(dir, tt.name), "{}")
		in, err := Find([]string{p}, Filter{})
		got := "error"
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), "unknown input type") || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("%s: error %v", tt.name, err)
			}
		case len(in.JSONL) == 1:
			got = "jsonl"
		case len(in.Tree) == 1:
			got = "tree"
		case len(in.Containers) == 1:
			got = "container"
		}
		if got != tt.kind {
			t.Errorf("%s read as %s, want %s", tt.name, got, tt.kind)
		}
	}
}

// TestFindJobOutput: in a directory, the part files of a job's output of
// JSON objects (beside _SUCCESS) are JSON Lines; without _SUCCESS, of other
// records, and its other files, are not read.
func TestFindJobOutput(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "job", "part-r-00000"), "{}")
	writeFile(t, filepath.Join(dir, "job", "part-r-00001"), "{}")
	writeFile(t, filepath.Join(dir, "job", "_SUCCESS"), "")
	writeFile(t, filepath.Join(dir, "job", "_counters.tsv"), "a\t1\n")
	writeFile(t, filepath.Join(dir, "job", "part-r-00002.crc"), "x")
	writeFile(t, filepath.Join(dir, "spans", "part-r-00000"), "a\tb\t1\n")
	writeFile(t, filepath.Join(dir, "spans", "_SUCCESS"), "")
	writeFile(t, filepath.Join(dir, "unfinished", "part-r-00000"), "{}")
	writeFile(t, filepath.Join(dir, "page.html"), "<p>x</p>")
	in, err := Find([]string{dir}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range in.JSONL {
		got = append(got, filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator))))
	}
	if want := []string{"job/part-r-00000", "job/part-r-00001"}; !slices.Equal(got, want) || len(in.Tree) != 1 {
		t.Errorf("JSON Lines %q and %d pages, want %q and 1", got, len(in.Tree), want)
	}
}

// TestFindJSONFiles: in a directory, a JSON file whose first line is a
// JSON object is JSON Lines; a pretty-printed object, an array or a scalar
// (a site's search index or configuration) is left out, counted and
// warned about with its name; given as --input FILE, it is read as JSON
// Lines; a directory of nothing else has no documents. .jsonl and .ndjson
// files are read whatever their first line.
func TestFindJSONFiles(t *testing.T) {
	dir := t.TempDir()
	files := []struct {
		name, content string
		read          bool
	}{
		{"docs.jsonl", `{"id":"a","text":"x"}` + "\n" + `{"id":"b","text":"y"}` + "\n", true},
		{"bom.json", "\ufeff" + `{"id":"c","text":"x"}` + "\n", true},
		{"one.json", `{"id":"d","text":"x"}`, true},
		{"empty.json", "", true},
		{"long.json", `{"id":"e","text":"` + strings.Repeat("x", sniffBytes) + `"}`, true},
		{"packed.json.gz", "not looked into", true},
		{"pretty.json", "{\n  \"config\": {\"a\": 1}\n}\n", false},
		{"list.json", `["x", "y"]` + "\n", false},
		{"scalar.json", "12\n", false},
		{"broken.json", `{"id": "f", "text":` + "\n" + `"x"}` + "\n", false},
		{"number.ndjson", "12\n13\n", true},                                         // says it is JSON Lines
		{"damaged.jsonl", `{"id": "f", "text":` + "\n" + `{"id":"g"}` + "\n", true}, // its bad lines are counted
	}
	var want []string
	for _, f := range files {
		writeFile(t, filepath.Join(dir, "site", f.name), f.content)
		if f.read {
			want = append(want, f.name)
		}
	}
	writeFile(t, filepath.Join(dir, "site", "index.html"), "<p>x</p>")
	in, err := Find([]string{filepath.Join(dir, "site")}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range in.JSONL {
		got = append(got, filepath.Base(p))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(in.NotJSONL) != 4 || in.Counters()["input.files.not-jsonl"] != 4 {
		t.Errorf("JSON Lines %q, left out %q; want %q read and 4 left out", got, in.NotJSONL, want)
	}
	var warn strings.Builder
	in.Warn(&warn)
	if !strings.Contains(warn.String(), "left out 4 JSON files") || !strings.Contains(warn.String(), "--input FILE") {
		t.Errorf("warning %q", warn.String())
	}
	pretty := filepath.Join(dir, "site", "pretty.json")
	if in, err := Find([]string{pretty}, Filter{}); err != nil || len(in.JSONL) != 1 {
		t.Errorf("pretty.json given as a file: %v, %+v; want it read as JSON Lines", err, in)
	}
	only := filepath.Join(dir, "only")
	writeFile(t, filepath.Join(only, "search.json"), "[1, 2]\n")
	if _, err := Find([]string{only}, Filter{}); err == nil || !strings.Contains(err.Error(), "search.json") || !strings.Contains(err.Error(), "no documents found") {
		t.Errorf("a directory of a search index only: %v", err)
	}
}

// TestCheckRemote: container files on HDFS are refused by name; JSON Lines
// and unknown names (read as JSON Lines) pass.
func TestCheckRemote(t *testing.T) {
	for name, bad := range map[string]bool{"/in/a.parquet": true, "/in/b.warc.gz": true, "/in/c.avro": true,
		"/in/d.jsonl": false, "/in/part-00000": false, "/in/e.jsonl.gz": false} {
		err := CheckRemote(name)
		if bad != (err != nil) || bad && !strings.Contains(err.Error(), name) {
			t.Errorf("CheckRemote(%s) = %v", name, err)
		}
	}
}

// TestPositions: record positions in task messages become FILE:LINE for
// JSON Lines files, plain and gzipped; others stay.
func TestPositions(t *testing.T) {
	dir := t.TempDir()
	text := "{\"id\":\"a\"}\n{\"id\":\"b\"}\n\n{\"id\":\"a\"}\n"
	plain := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "d.jsonl.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(text))
	zw.Close()
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	off := strings.LastIndex(text, "{")
	pos := func(f string, o int) string { return fmt.Sprintf("%s@%016d", f, o) }
	for _, tc := range []struct{ in, want string }{
		{"pdc: duplicate id a at " + pos(plain, off) + " (kept the one at " + pos(plain, 0) + ")\n",
			"pdc: duplicate id a at " + plain + ":4 (kept the one at " + plain + ":1)\n"},
		{"at " + pos(gz, off) + "\n", "at " + gz + ":4\n"},
		{"at " + pos(filepath.Join(dir, "page.html"), 0) + "\n", "at " + filepath.Join(dir, "page.html") + "\n"},
		{"at " + pos(filepath.Join(dir, "c.warc.gz"), 0) + "\n", "at " + pos(filepath.Join(dir, "c.warc.gz"), 0) + "\n"},
		{"at " + pos(plain, 9999) + "\n", "at " + pos(plain, 9999) + "\n"}, // past the end: unchanged
		{"no position here\n", "no position here\n"},
	} {
		var out bytes.Buffer
		if _, err := Positions(&out).Write([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("Positions(%q) = %q, want %q", tc.in, out.String(), tc.want)
		}
	}
}

// TestSourcesSrcposOrder: whatever the order of the --input paths, the
// Sources read records in the order of their srcpos (lib/doc: the escaped
// file, or a tree page's own path, and "@"), so that a reader taking the
// first record of an id takes the one the run kept; FindRuns reads each
// run's files before the next run's.
func TestSourcesSrcposOrder(t *testing.T) {
	dir := t.TempDir()
	line := func(id string) string { return fmt.Sprintf(`{"id":%q,"text":"words of %s"}`+"\n", id, id) }
	files := map[string]string{
		"a.jsonl":        line("j1") + line("j2"),
		"a.jsonl.d.json": line("j3"),
		"b%c.jsonl":      line("j4"), // escaped: % sorts as its escape
		"a.avro":         "",
		"t/a.html":       "<p>page a</p>",
		"t/a/b.html":     "<p>page a/b</p>",
		"t/a.jsonl":      line("j5"),
		"t/b.txt":        "page b",
		"t/c/d.html":     "<p>page c/d</p>",
		"u/x.jsonl":      line("j6"),
	}
	for name, content := range files {
		if name == "a.avro" {
			writeAvroDocs(t, filepath.Join(dir, name), [][4]string{{"v1", "", "", "one"}, {"v2", "", "", "two"}})
			continue
		}
		writeFile(t, filepath.Join(dir, name), content)
	}
	key := func(op Opener, d *doc.Doc) string {
		if d.Source != "" {
			return mr.Escape(d.Source) + "@"
		}
		return mr.Escape(op.Name) + "@"
	}
	read := func(in *Set) (keys []string) {
		for _, op := range in.Sources() {
			src, err := op.Open(Options{})
			if err != nil {
				t.Fatal(err)
			}
			for src.Next() {
				keys = append(keys, key(op, src.Doc()))
			}
			if err := src.Err(); err != nil {
				t.Fatal(err)
			}
			src.Close()
		}
		return keys
	}
	paths := []string{"u", "t", "b%c.jsonl", "a.avro", "a.jsonl.d.json", "a.jsonl"}
	for i := range paths {
		paths[i] = filepath.Join(dir, paths[i])
	}
	var want []string
	for perm := range 6 {
		ps := slices.Clone(paths)
		// rotate and reverse: six orders of the paths
		ps = append(ps[perm:], ps[:perm]...)
		if perm%2 == 1 {
			slices.Reverse(ps)
		}
		in, err := Find(ps, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		keys := read(in)
		if len(keys) != 12 || !slices.IsSorted(keys) {
			t.Fatalf("order %v: read %d records in this order:\n%s", ps, len(keys), strings.Join(keys, "\n"))
		}
		if want == nil {
			want = keys
		} else if !slices.Equal(keys, want) {
			t.Fatalf("order %v: read\n%s\nwant\n%s", ps, strings.Join(keys, "\n"), strings.Join(want, "\n"))
		}
	}
	// Two runs: the second's files after the first's, each run in order.
	in, err := FindRuns([]Run{{Paths: paths[:2]}, {Paths: []string{paths[2], paths[5]}}}, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	keys := read(in)
	if len(keys) != 9 || !slices.IsSorted(keys[:6]) || !slices.IsSorted(keys[6:]) || !strings.Contains(keys[0], "/t/") || !strings.Contains(keys[5], "/u/") {
		t.Fatalf("two runs: read\n%s", strings.Join(keys, "\n"))
	}
}

// TestSourcesTreeBatches: a batch of pages holds the pages of one tree,
// named by its root, however many pages the tree before it has.
func TestSourcesTreeBatches(t *testing.T) {
	dir := t.TempDir()
	for i := range treeBatch + 3 {
		writeFile(t, filepath.Join(dir, "a", fmt.Sprintf("p%03d.html", i)), fmt.Sprintf("<p>page %d</p>", i))
	}
	for i := range 5 {
		writeFile(t, filepath.Join(dir, "b", fmt.Sprintf("q%d.html", i)), fmt.Sprintf("<p>page %d</p>", i))
	}
	in, err := Find([]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	pages := 0
	for _, op := range in.Sources() {
		src, err := op.Open(Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for src.Next() {
			if d := src.Doc(); !strings.HasPrefix(d.Source, op.Name+"/") {
				t.Errorf("page %s read by the batch named %s", d.Source, op.Name)
			}
			n++
		}
		if err := src.Err(); err != nil {
			t.Fatal(err)
		}
		src.Close()
		pages += n
		got = append(got, fmt.Sprintf("%s:%d", filepath.Base(op.Name), n))
	}
	if want := []string{"a:256", "a:3", "b:5"}; !slices.Equal(got, want) || pages != treeBatch+8 {
		t.Fatalf("batches %v, want %v", got, want)
	}
}

// TestShortNames: each path's shortest ending that ends no other path.
func TestShortNames(t *testing.T) {
	tests := []struct {
		paths []string
		want  []string
	}{
		{[]string{"/d/a.jsonl"}, []string{"a.jsonl"}},
		{[]string{"/d/a.jsonl", "/d/b.jsonl"}, []string{"a.jsonl", "b.jsonl"}},
		{[]string{"/d/x/part-0", "/d/y/part-0", "/d/y/part-1"}, []string{"x/part-0", "y/part-0", "part-1"}},
		{[]string{"/a/s/p", "/b/s/p", "/c/t/p"}, []string{"a/s/p", "b/s/p", "t/p"}},
		{[]string{"/p", "/d/p"}, []string{"p", "d/p"}},
	}
	for _, tt := range tests {
		got := ShortNames(tt.paths)
		for i, p := range tt.paths {
			if got[p] != tt.want[i] {
				t.Errorf("ShortNames(%q)[%s] = %q, want %q", tt.paths, p, got[p], tt.want[i])
			}
		}
	}
}
