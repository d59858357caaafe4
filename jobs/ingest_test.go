package jobs

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/span"
)

// runMain runs the pdc command line in-process.
func runMain(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errb, Getenv: os.Getenv}
	err = m.Run(context.Background(), args)
	return out.String(), errb.String(), err
}

// ingestCounters parses the counter lines ("  name value") of pdc ingest.
func ingestCounters(t *testing.T, stderr string) map[string]int64 {
	t.Helper()
	c := map[string]int64{}
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && strings.HasPrefix(f[0], "ingest.") {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("counter line %q", line)
			}
			c[f[0]] = n
		}
	}
	return c
}

// readJSONL reads a JSON Lines file (gzip when named .gz) with doc.ParseJSON.
func readJSONL(t *testing.T, path string) []doc.Doc {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return parseLines(t, raw)
}

// ingestInputs writes mixed inputs: a JSON Lines file with a bad line and a
// tree of .html/.txt files in src/, the Avro documents (a duplicate of a
// WARC id among them) and a truncated WARC whose two documents duplicate
// the fixture's.
func ingestInputs(t *testing.T) (dir string, args []string) {
	dir = t.TempDir()
	src := filepath.Join(dir, "src")
	writeFile(t, filepath.Join(src, "docs.jsonl"), `{"id":"j1","url":"http://j/1","text":"Jay one."}`+"\n{not json\n\n")
	writeFile(t, filepath.Join(src, "tree", "a.html"), "<p>Tree a.</p>")
	writeFile(t, filepath.Join(src, "tree", "b.txt"), "Tree b.")
	avroPath := writeAvroDocs(t, filepath.Join(dir, "docs.avro"), append(avroDocs, [4]string{"clueweb-0001", "", "<p>dup</p>", ""}))
	// The fixture, copied beside the others, comes first in srcpos order.
	fixture, err := os.ReadFile(warcFixture("pages.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	warc := writeFile(t, filepath.Join(dir, "a.warc.gz"), string(fixture))
	return dir, []string{"--input", src, "--input", warc,
		"--input", avroPath, "--input", truncatedWARC(t, dir)}
}

func TestIngest(t *testing.T) {
	t.Parallel()
	dir, inputs := ingestInputs(t)
	out := filepath.Join(dir, "out", "docs.jsonl.gz")
	_, stderr, err := runMain(append([]string{"ingest", "--output", out}, inputs...)...)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	// In the order of their srcpos, as pdc run takes them (lib/input
	// Sources): a.warc.gz, cut.warc (copies of its records), docs.avro,
	// then src/.
	wantIDs := append(slices.Clone(fixtureIDs), "a1", "a2", "a4", "j1", "tree/a.html", "tree/b.txt")
	docs := readJSONL(t, out)
	if got := docIDs(docs); !slices.Equal(got, wantIDs) {
		t.Errorf("ids %q\nwant %q", got, wantIDs)
	}
	if d := docs[slices.Index(wantIDs, "j1")]; d != (doc.Doc{ID: "j1", URL: "http://j/1", Text: "Jay one.", ValidUTF8: true}) {
		t.Errorf("jsonl doc %+v", d)
	}
	if d := docs[slices.Index(wantIDs, "clueweb-0001")]; d.ID != "clueweb-0001" || !strings.Contains(d.HTML, "<html") {
		t.Errorf("duplicate id: the first document must be kept, got %+v", d)
	}
	want := map[string]int64{
		"ingest.records.read":                  23,
		"ingest.docs.written":                  11,
		"ingest.docs.duplicate":                3,
		"ingest.docs.truncated":                0,
		"ingest.records.skipped":               9,
		"ingest.skipped.malformed-JSON":        1,
		"ingest.skipped.neither-html-nor-text": 1,
		"ingest.skipped.record-type-warcinfo":  2,
		"ingest.skipped.record-type-request":   2,
		"ingest.skipped.record-type-metadata":  1,
		"ingest.skipped.http-status-not-2xx":   1,
		"ingest.skipped.not-html":              1,
		"ingest.damaged.truncated-record":      1,
	}
	if got := ingestCounters(t, stderr); !maps.Equal(got, want) {
		t.Errorf("counters %v\nwant %v\nstderr:\n%s", got, want, stderr)
	}
	if !strings.Contains(stderr, "11 documents from 6 files") {
		t.Errorf("summary line missing:\n%s", stderr)
	}
	if _, _, err := runMain(append([]string{"ingest", "--output", out}, inputs...)...); err == nil || ExitCode(err) != 1 {
		t.Errorf("existing output: err %v, want exit 1", err)
	}
	if _, _, err := runMain(append([]string{"ingest", "--overwrite", "--output", out}, inputs...)...); err != nil {
		t.Errorf("--overwrite: %v", err)
	}
}

func TestIngestDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "parts")
	_, stderr, err := runMain("ingest", "--input", warcFixture("pages.warc"), "--output", out, "--part-size", "1")
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := []string{"_SUCCESS", "part-00000.jsonl.gz", "part-00001.jsonl.gz", "part-00002.jsonl.gz", "part-00003.jsonl.gz", "part-00004.jsonl.gz"}
	if !slices.Equal(names, want) {
		t.Fatalf("output files %q, want %q", names, want)
	}
	in, err := input.Find([]string{out}, input.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	_, err = in.Each(input.Options{}, func(d *doc.Doc, where string) error { ids = append(ids, d.ID); return nil })
	if err != nil || !slices.Equal(ids, fixtureIDs) {
		t.Errorf("reading the output back: ids %q, err %v", ids, err)
	}
	// With the default part size everything fits in one part.
	out2 := filepath.Join(dir, "one")
	if _, _, err := runMain("ingest", "--input", warcFixture("pages.warc"), "--output", out2, "--quiet"); err != nil {
		t.Fatal(err)
	}
	if docs := readJSONL(t, filepath.Join(out2, "part-00000.jsonl.gz")); len(docs) != 5 {
		t.Errorf("one part: %d documents, want 5", len(docs))
	}
}

func TestIngestAvroFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	codec, err := goavro.NewCodec(`{"type":"record","name":"Page","fields":[
		{"name":"doc_id","type":"string"},{"name":"uri","type":"string"},{"name":"content","type":"bytes"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &b, Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append([]any{map[string]any{"doc_id": "p1", "uri": "http://p/1", "content": []byte("<p>page</p>")}}); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, filepath.Join(dir, "pages.avro"), b.String())
	out := filepath.Join(dir, "out.jsonl")
	_, stderr, err := runMain("ingest", "--input", path, "--output", out,
		"--avro-id", "doc_id", "--avro-url", "uri", "--avro-html", "content")
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	want := []doc.Doc{{ID: "p1", URL: "http://p/1", HTML: "<p>page</p>", IsHTML: true, ValidUTF8: true}}
	if got := readJSONL(t, out); !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	_, _, err = runMain("ingest", "--input", path, "--output", filepath.Join(dir, "x.jsonl"))
	if err == nil || !strings.Contains(err.Error(), `no id field "id"`) || ExitCode(err) != 1 {
		t.Errorf("default field names: err %v, want a missing id field", err)
	}
}

func TestIngestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badJSONL := writeFile(t, filepath.Join(dir, "bad.jsonl"), "{\"id\":\"x\",\"text\":\"t\"}\n{\"text\":\"no id\"}\n")
	cut := truncatedWARC(t, dir)
	missing := filepath.Join(dir, "no-such.warc")
	out := filepath.Join(dir, "out.jsonl")
	tests := []struct {
		name string
		args []string
		code int
		msg  string // the error must contain it
	}{
		{"missing input", []string{"--input", missing, "--output", out}, 1, missing},
		{"no flags", nil, 2, "--input and --output are required"},
		{"no output", []string{"--input", cut}, 2, "required"},
		{"positional", []string{"--input", cut, "--output", out, "extra"}, 2, `unexpected argument "extra"`},
		{"bad part size", []string{"--input", cut, "--output", out, "--part-size", "0"}, 2, "--part-size"},
		{"unknown flag", []string{"--input", cut, "--output", out, "--nope"}, 2, "nope"},
		{"relative hdfs", []string{"--input", cut, "--output", "rel/dir", "--hdfs"}, 2, "absolute"},
		{"strict warc", []string{"--input", cut, "--output", out, "--strict"}, 1, cut + ": damaged warc (truncated record 1)"},
		{"strict jsonl", []string{"--input", badJSONL, "--output", out, "--strict"}, 1, badJSONL + ":2: missing or empty id"},
		{"bad id prefix", []string{"--input", badJSONL, "--output", out, "--id-prefix", "path"}, 2, "--id-prefix must be file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runMain(append([]string{"ingest"}, tc.args...)...)
			if err == nil || ExitCode(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %v (exit %d), want exit %d and %q", err, ExitCode(err), tc.code, tc.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written despite the error", out)
			}
			if ents, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(ents) > 0 {
				t.Errorf("temporary files left: %q", ents)
			}
		})
	}
}

// writeSpansDir writes OUT/spans/part-r-00000 and _SUCCESS.
func writeSpansDir(t *testing.T, lines ...string) string {
	t.Helper()
	out := t.TempDir()
	writeFile(t, filepath.Join(out, "spans", "part-r-00000"), strings.Join(lines, "\n")+"\n")
	writeFile(t, filepath.Join(out, "spans", "_SUCCESS"), "")
	return out
}

func TestSpansAvro(t *testing.T) {
	t.Parallel()
	out := writeSpansDir(t,
		"d2\td3\t0\t1\t2\t0\t17\t20\t37\t0.9000",
		"d1\td2\t0\t0\t1\t0\t17\t0\t17\t1.0000")
	stdout, stderr, err := runMain("spans", out, "--format", "avro")
	if err != nil {
		t.Fatalf("spans: %v\n%s", err, stderr)
	}
	got, err := avroio.ReadSpans(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	want := []span.Span{
		{DocA: "d1", DocB: "d2", Length: 1, CharEndA: 17, CharEndB: 17, Score: 1},
		{DocA: "d2", DocB: "d3", StartB: 1, Length: 2, CharEndA: 17, CharStartB: 20, CharEndB: 37, Score: 0.9},
	}
	if !slices.EqualFunc(got, want, spanEqual) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	docs := writeFile(t, filepath.Join(t.TempDir(), "docs.jsonl"),
		`{"id":"d1","url":"http://one","text":"Alpha beta gamma."}`+"\n"+
			`{"id":"d2","text":"Alpha beta gamma."}`+"\n"+
			`{"id":"d3","text":"Delta epsilon zeta. Alpha beta gamma!"}`+"\n")
	stdout, stderr, err = runMain("spans", out, "--format", "avro", "--text", "--input", docs)
	if err != nil {
		t.Fatalf("spans --text: %v\n%s", err, stderr)
	}
	got, err = avroio.ReadSpans(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	a, b := "Alpha beta gamma.", "Alpha beta gamma!"
	want[0].URLA, want[0].TextA, want[0].TextB = "http://one", &a, &a
	want[1].TextA, want[1].TextB = &a, &b
	if !slices.EqualFunc(got, want, spanEqual) {
		t.Errorf("with text: got %s\nwant %s", showSpans(got), showSpans(want))
	}
}

func spanEqual(a, b span.Span) bool {
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	if str(a.TextA) != str(b.TextA) || str(a.TextB) != str(b.TextB) {
		return false
	}
	a.TextA, a.TextB, b.TextA, b.TextB = nil, nil, nil, nil
	return a == b
}

func showSpans(spans []span.Span) string {
	var b strings.Builder
	for _, s := range spans {
		ta, tb := "<nil>", "<nil>"
		if s.TextA != nil {
			ta = strconv.Quote(*s.TextA)
		}
		if s.TextB != nil {
			tb = strconv.Quote(*s.TextB)
		}
		fmt.Fprintf(&b, "%+v text_a=%s text_b=%s; ", s, ta, tb)
	}
	return b.String()
}

func TestIngestProgress(t *testing.T) {
	old := ingestProgressEvery
	ingestProgressEvery = 0
	t.Cleanup(func() { ingestProgressEvery = old })
	out := filepath.Join(t.TempDir(), "out.jsonl")
	_, stderr, err := runMain("ingest", "--input", warcFixture("pages.warc"), "--output", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "pdc ingest: 100.0% (10.2 kB of 10.2 kB read), 5 documents written\n") {
		t.Errorf("no final progress line in\n%s", stderr)
	}
	_, stderr, err = runMain("ingest", "--input", warcFixture("pages.warc"), "--output", out, "--overwrite", "--quiet")
	if err != nil || strings.Contains(stderr, "%") {
		t.Errorf("--quiet: err %v, stderr\n%s", err, stderr)
	}
}

// TestIngestTreeSites: pages of two trees whose roots have one name are
// written with two sites named after the roots, not with local paths.
func TestIngestTreeSites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := "<html><body><p>A page of a manual with a few words in it.</p></body></html>"
	writeFile(t, filepath.Join(dir, "one", "html", "a.html"), page)
	writeFile(t, filepath.Join(dir, "two", "html", "sub", "b.html"), page)
	out := filepath.Join(dir, "out.jsonl")
	if _, stderr, err := runMain("ingest", "--input", filepath.Join(dir, "one", "html"), "--input", filepath.Join(dir, "two", "html"), "--output", out, "--quiet"); err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	var sites []string
	for _, d := range readJSONL(t, out) {
		sites = append(sites, d.Site)
	}
	if want := []string{"html", "html-2"}; !slices.Equal(sites, want) {
		t.Errorf("sites %q, want %q", sites, want)
	}
	body, _ := os.ReadFile(out)
	if strings.Contains(string(body), `"site":"`+dir) {
		t.Errorf("a site holds the local path %s:\n%s", dir, body)
	}
}

// TestIngestIDPrefix: shards whose ids restart at 0 lose their later
// records' documents to a run; pdc ingest --id-prefix file names each
// record FILE:ID (the shortest unique ending of its file's path; a tree's
// pages keep their paths), and a run over the result reads every record.
func TestIngestIDPrefix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := func(words ...string) string {
		var b strings.Builder
		for i, w := range words {
			fmt.Fprintf(&b, "{\"id\":\"%d\",\"text\":\"The %s document of this shard has its own words here.\"}\n", i, w)
		}
		return b.String()
	}
	writeFile(t, filepath.Join(dir, "in", "a", "part-00000.jsonl"), shard("first", "second"))
	writeFile(t, filepath.Join(dir, "in", "b", "part-00000.jsonl"), shard("third", "fourth"))
	writeFile(t, filepath.Join(dir, "in", "b", "part-00001.jsonl"), shard("fifth"))
	writeFile(t, filepath.Join(dir, "in", "pages", "p.html"), "<p>A page of the tree keeps its path as its id.</p>")
	out := filepath.Join(dir, "docs.jsonl")
	if _, stderr, code := runPDC(t, "ingest", "--input", filepath.Join(dir, "in"), "--output", out, "--id-prefix", "file", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var d struct{ ID string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	want := []string{"a/part-00000.jsonl:0", "a/part-00000.jsonl:1", "b/part-00000.jsonl:0", "b/part-00000.jsonl:1", "part-00001.jsonl:0", "pages/p.html"}
	if !slices.Equal(ids, want) {
		t.Errorf("ids %q, want %q", ids, want)
	}
	// Without the prefix, a run keeps one record of each id and says how
	// to keep them all.
	run := filepath.Join(dir, "run")
	_, stderr, code := runPDC(t, "run", "--input", filepath.Join(dir, "in"), "--output", run, "--quiet")
	if code != 0 || !strings.Contains(stderr, "3 records left out: an earlier record had their id") || !strings.Contains(stderr, "--id-prefix file") {
		t.Errorf("run over the shards: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runPDC(t, "run", "--input", out, "--output", run, "--overwrite", "--quiet")
	if code != 0 || !strings.Contains(stderr, "(6 documents read)") {
		t.Errorf("run over the ingested documents: exit %d, stderr %q", code, stderr)
	}
}

// TestRunContainerCounters: what a run skips in a container file, which
// the parse job never sees, is in its counters (input.containers.*).
func TestRunContainerCounters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cut := truncatedWARC(t, dir)
	out := filepath.Join(dir, "out")
	_, stderr, code := runPDC(t, "run", "--input", cut, "--input", sample, "--output", out, "--quiet")
	if code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "counters.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	c := mr.ParseCounters(string(b))
	if c["input.containers.damaged.truncated-record"] != 1 || c["input.containers.docs"] == 0 || c["input.containers.records"] < c["input.containers.docs"] {
		t.Errorf("container counters: %v", c)
	}
}
