package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// TestRunSample runs the whole pipeline on the sample corpus and pins its
// spans.
func TestRunSample(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet", "--reducers", "3")
	if code != 0 {
		t.Fatalf("pdc run: exit %d\n%s", code, stderr)
	}
	spans, stderr, code := runPDC(t, "spans", out)
	if code != 0 {
		t.Fatalf("pdc spans: exit %d\n%s", code, stderr)
	}
	if strings.Count(spans, "\n") < 20 {
		t.Fatalf("only %d spans on the sample corpus", strings.Count(spans, "\n"))
	}
	golden(t, "sample.spans.tsv", spans)
	// --text finds the documents through OUT/_pdc.json.
	withText, stderr, code := runPDC(t, "spans", out, "--text")
	if code != 0 || !strings.Contains(withText, "bzip2-compressed file") {
		t.Errorf("spans --text without --input: exit %d %s", code, stderr)
	}
	// The reused std/core prose must be found.
	if !strings.Contains(spans, "rust/core/option/index.html\trust/std/option/index.html") {
		t.Error("no span between core::option and std::option")
	}
	// The boilerplate report names real documents as examples.
	report, err := os.ReadFile(filepath.Join(out, "boilerplate.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := boilerplate.Read(bytes.NewReader(report))
	if err != nil || len(rows) == 0 {
		t.Errorf("boilerplate report: %d rows, %v", len(rows), err)
	}
	for _, row := range rows {
		if !strings.HasPrefix(row.Doc, "rust/") && !strings.HasPrefix(row.Doc, "python/") || row.Sentences < 1 || row.CharEnd <= row.CharStart {
			t.Errorf("boilerplate row %+v: want a document id, a range and its sentences", row)
			break
		}
	}
	checkBoilerplateTexts(t, rows, sample)
	for _, dir := range []string{"parsed", "index", "pairs"} {
		if _, err := os.Stat(filepath.Join(out, dir)); !os.IsNotExist(err) {
			t.Errorf("intermediate %s not removed: %v", dir, err)
		}
	}
}

// checkBoilerplateTexts checks that every row of a run's boilerplate.tsv
// has the text a whole analysis of its document, read from the start of
// the inputs, gives (the run reads only the records it needs, and only as
// much of each as its rows need).
func checkBoilerplateTexts(t *testing.T, rows []boilerplate.Row, inputs ...string) {
	t.Helper()
	in, err := input.Find(inputs, input.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]doc.Analysis{}
	an := jobconf.Default().Analyzer()
	if _, err := in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		a, err := an.Analyze(d)
		if err != nil {
			return err
		}
		a.Text, a.Sentences = strings.Clone(a.Text), slices.Clone(a.Sentences)
		if _, ok := texts[mr.Escape(d.ID)]; !ok {
			texts[mr.Escape(d.ID)] = a
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		want := row
		if !want.SetText(texts[row.Doc]) || row.Text != want.Text {
			t.Errorf("boilerplate row %s sentence %d: text %q, want %q", row.Doc, row.Sentence, row.Text, want.Text)
		}
	}
}

// TestRunDeterministic: reducer count and worker count do not change the
// result, nor does running the match job inside the join's reduce tasks
// (the default) instead of as a job of its own (--keep-intermediate).
func TestRunDeterministic(t *testing.T) {
	t.Parallel()
	var results, counters []string
	for _, flags := range [][]string{
		{"--reducers", "1", "--workers", "1"},
		{"--reducers", "4", "--workers", "2", "--sort-mem", "65536", "--split-size", "100000"},
		{"--reducers", "4", "--workers", "2", "--sort-mem", "65536", "--split-size", "100000", "--keep-intermediate"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := append([]string{"run", "--input", sample, "--output", out}, flags...)
		_, stderr, code := runPDC(t, args...)
		if code != 0 {
			t.Fatalf("pdc %v: exit %d\n%s", flags, code, stderr)
		}
		chained := strings.Contains(stderr, "job join+match: done")
		if _, err := os.Stat(filepath.Join(out, "pairs")); chained == (err == nil) || chained == slices.Contains(flags, "--keep-intermediate") {
			t.Errorf("pdc %v: match chained %v, pairs kept %v", flags, chained, err == nil)
		}
		spans, _, _ := runPDC(t, "spans", out)
		results = append(results, spans)
		c, _ := os.ReadFile(filepath.Join(out, "counters.tsv"))
		counters = append(counters, string(c))
	}
	if results[0] != results[1] {
		t.Error("spans differ between 1 reducer in memory and 4 reducers with spills")
	}
	if results[1] != results[2] || counters[1] != counters[2] {
		t.Errorf("match chained onto the join and as its own job differ:\n%s\n%s", counters[1], counters[2])
	}
}

// TestStatsFedOrRead: the stats job fed by the parse job's mappers (the
// local default) and the stats job reading the parsed records (what a
// resumed run and Hadoop do) give the same stats, spans and counters.
func TestStatsFedOrRead(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--input", sample, "--output", out, "--keep-intermediate", "--reducers", "3"}
	_, stderr, code := runPDC(t, args...)
	if code != 0 || !strings.Contains(stderr, "job stats: done") {
		t.Fatalf("pdc run: exit %d\n%s", code, stderr)
	}
	fedStats := catPartsText(t, filepath.Join(out, "stats"))
	fedCounters, _ := os.ReadFile(filepath.Join(out, "counters.tsv"))
	fedSpans, _, _ := runPDC(t, "spans", out)
	// Resume after the parse job: the stats job now reads the records.
	for _, d := range []string{"stats", "index", "pairs", "spans", "counters.tsv"} {
		if err := os.RemoveAll(filepath.Join(out, d)); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, code = runPDC(t, args...)
	if code != 0 || !strings.Contains(stderr, "job parse: finished in an earlier run") {
		t.Fatalf("resumed pdc run: exit %d\n%s", code, stderr)
	}
	if got := catPartsText(t, filepath.Join(out, "stats")); got != fedStats || got == "" {
		t.Errorf("stats read from the records differ from the fed stats")
	}
	if got, _ := os.ReadFile(filepath.Join(out, "counters.tsv")); string(got) != string(fedCounters) {
		t.Errorf("counters differ:\nread:\n%s\nfed:\n%s", got, fedCounters)
	}
	if got, _, _ := runPDC(t, "spans", out); got != fedSpans {
		t.Error("spans differ")
	}
}

// TestProgramsMatchRunner proves that the streaming programs run as
// `cat in | pdc map J | LC_ALL=C sort | pdc reduce J`, the way Hadoop
// Streaming runs them, give what the local runner gives.
func TestProgramsMatchRunner(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sort"); err != nil {
		t.Skip("no sort(1)")
	}
	for _, sig := range []string{"words", "imatch", "shingle"} {
		t.Run(sig, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet", "--keep-intermediate", "--reducers", "2", "--signature", sig); code != 0 {
				t.Fatalf("pdc run: %s", stderr)
			}
			inputs := map[string]string{"parse": sample}
			absSample, err := filepath.Abs(sample) // the file name the runner gives the parse job
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range pipeline.Stages() {
				in := inputs[st.Name]
				if in == "" {
					text := catPartsText(t, filepath.Join(out, st.Input))
					for _, x := range st.Extra {
						text += catPartsText(t, filepath.Join(out, x))
					}
					in = filepath.Join(t.TempDir(), st.Name+".in")
					writeFile(t, in, text)
				}
				env := []string{"PDC_SIGNATURE=" + sig, "PDC_STATS=" + filepath.Join(out, "stats"), "PDC_SEEDS=" + filepath.Join(out, "matches"), "PDC_INPUT_FILE=" + absSample}
				var got string
				if st.WholeFiles { // one map task per part file, as Hadoop runs it
					parts, _ := pipeline.PartFiles(hdfsfs.Local(), filepath.Join(out, st.Input))
					for _, p := range parts {
						got += shellPipeline(t, st.Name, p, env, st.MapOnly)
					}
				} else {
					got = shellPipeline(t, st.Name, in, env, st.MapOnly)
				}
				want := sortedLines(catPartsText(t, filepath.Join(out, st.OutputDir())))
				if sortedLines(got) != want {
					t.Errorf("job %s: shell pipeline and local runner differ (%d vs %d bytes)", st.Name, len(got), len(want))
				}
			}
		})
	}
}

func shellPipeline(t *testing.T, job, input string, env []string, mapOnly bool) string {
	t.Helper()
	self := pdcBinary
	script := `"$PDC" map "$JOB" < "$IN" | LC_ALL=C sort | "$PDC" reduce "$JOB"`
	if mapOnly {
		script = `"$PDC" map "$JOB" < "$IN"`
	}
	cmd := exec.Command("bash", "-c", "set -o pipefail; "+script)
	cmd.Env = append(os.Environ(), append(env, "PDC_TEST_AS_PDC=1", "PDC="+self, "JOB="+job, "IN="+input)...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pipeline %s: %v\n%s", job, err, errb.String())
	}
	return string(out)
}

// catParts concatenates a job output's part files into one temp file.
func catParts(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(dir)+".txt")
	if err := os.WriteFile(path, []byte(catPartsText(t, dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func catPartsText(t *testing.T, dir string) string {
	t.Helper()
	parts, err := pipeline.PartFiles(hdfsfs.Local(), dir)
	if err != nil || len(parts) == 0 {
		t.Fatalf("no part files in %s: %v", dir, err)
	}
	var b strings.Builder
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestRunAvroOutput: --output-format avro writes OUT/spans.avro with the
// same spans as the TSV output, with URLs and passages.
func TestRunAvroOutput(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet", "--output-format", "avro", "--output-text"); code != 0 {
		t.Fatal(stderr)
	}
	f, err := os.Open(filepath.Join(out, "spans.avro"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := avroio.ReadSpans(f)
	if err != nil {
		t.Fatal(err)
	}
	tsv, _, _ := runPDC(t, "spans", out)
	if n := strings.Count(tsv, "\n"); len(got) != n || n == 0 {
		t.Fatalf("avro has %d spans, tsv %d", len(got), n)
	}
	s := got[0]
	if s.URLA == "" || s.TextA == nil || *s.TextA == "" {
		t.Errorf("first span lacks url or text: %+v", s)
	}
}

// TestTemplatesNeedTheSameSentence: one site's sentences that share most
// words but each hold a word of their own are not that site's template,
// so their copies on another site are found (the site-template rule drops
// only a sentence repeated in more than --max-site-df of a site's pages).
func TestTemplatesNeedTheSameSentence(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	sent := func(name string, k int) string {
		return fmt.Sprintf("Alpha beta gamma delta epsilon zeta eta theta iota kappa %s%d. ", name, k)
	}
	doc := func(id, url, name string) {
		var text strings.Builder
		text.WriteString("Intro " + id + " here. ")
		for k := range 3 {
			text.WriteString(sent(name, k))
		}
		fmt.Fprintf(&b, `{"id":%q,"url":%q,"text":%q}`+"\n", id, url, text.String())
	}
	for i := range 6 {
		doc(fmt.Sprintf("s%d", i), fmt.Sprintf("http://s.example/%d", i), fmt.Sprintf("sname%c", 'a'+i))
	}
	doc("t0", "http://t.example/0", "tname")
	in := filepath.Join(t.TempDir(), "docs.jsonl")
	writeFile(t, in, b.String())
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, err := runMain("run", "--input", in, "--output", out, "--quiet"); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	spans, _, err := runMain("spans", out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if !strings.Contains(spans, fmt.Sprintf("s%d\tt0\t1\t1\t3\t", i)) {
			t.Errorf("no span s%d-t0 of 3 sentences:\n%s", i, spans)
		}
	}
}

// TestManySmallFiles: a directory of many small JSON Lines files runs as a
// few map tasks (packed up to the split size), not one task per file, and
// every document is read.
func TestManySmallFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 300 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("d%03d.json", i)),
			fmt.Sprintf(`{"id":"d%03d","text":"Document %d says hello. It has a second sentence too. And a third one here."}`+"\n", i, i))
	}
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, err := runMain("run", "--input", dir, "--output", out, "--keep-intermediate", "--workers", "2")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	parts, err := pipeline.PartFiles(hdfsfs.Local(), filepath.Join(out, "parsed"))
	if err != nil || len(parts) > 8 {
		t.Errorf("%d parsed part files for 300 small inputs (%v), want a few", len(parts), err)
	}
	counters, err := os.ReadFile(filepath.Join(out, "counters.tsv"))
	if err != nil || !strings.Contains(string(counters), "parse.docs.ok\t300\n") {
		t.Errorf("not all 300 documents parsed (%v):\n%s", err, counters)
	}
}

// knownPairs are the document pairs of the sample corpus that share runs
// of sentences (testdata/sample/README.md, "Expected shared passages").
var knownPairs = []string{
	"python/library/bz2.html python/library/lzma.html",
	"python/library/cmath.html python/library/math.html",
	"python/library/email.compat32-message.html python/library/email.message.html",
	"rust/alloc/ffi/index.html rust/std/ffi/index.html",
	"rust/alloc/fmt/index.html rust/std/fmt/index.html",
	"rust/alloc/rc/index.html rust/std/rc/index.html",
	"rust/alloc/vec/index.html rust/std/vec/index.html",
	"rust/book/ch12-04-testing-the-librarys-functionality.html rust/book/ch12-05-working-with-environment-variables.html",
	"rust/book/ch12-04-testing-the-librarys-functionality.html rust/book/ch13-03-improving-our-io-project.html",
	"rust/book/ch12-05-working-with-environment-variables.html rust/book/ch13-03-improving-our-io-project.html",
	"rust/core/arch/index.html rust/std/arch/index.html",
	"rust/core/iter/index.html rust/std/iter/index.html",
	"rust/core/option/index.html rust/core/result/index.html",
	"rust/core/option/index.html rust/std/option/index.html",
	"rust/core/option/index.html rust/std/result/index.html",
	"rust/core/result/index.html rust/std/option/index.html",
	"rust/core/result/index.html rust/std/result/index.html",
	"rust/std/option/index.html rust/std/result/index.html",
}

// spanPairs returns the sorted distinct document pairs of a run's spans.
func spanPairs(t *testing.T, out string) []string {
	t.Helper()
	stdout, stderr, code := runPDC(t, "spans", out)
	if code != 0 {
		t.Fatalf("spans: exit %d %s", code, stderr)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if f := strings.Split(l, "\t"); len(f) > 2 {
			seen[f[0]+" "+f[1]] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// TestTemplatesWithoutURLs: the sample's pages as a directory tree, so
// without URLs and no site to learn templates from: the Sphinx and rustdoc
// navigation, sidebars, mdBook's table of contents and the footers make no
// span; exactly the known pairs are found. With the sample's URLs the same
// pairs, and nothing else, are found.
func TestTemplatesWithoutURLs(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(t.TempDir(), "tree")
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var d struct{ ID, HTML string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(tree, filepath.FromSlash(d.ID)), d.HTML)
	}
	for _, in := range []string{tree, sample} {
		out := filepath.Join(t.TempDir(), "out")
		if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--quiet"); code != 0 {
			t.Fatalf("run: exit %d %s", code, stderr)
		}
		if got := spanPairs(t, out); !slices.Equal(got, knownPairs) {
			t.Errorf("input %s: pairs\n%s\nwant the known pairs\n%s", in, strings.Join(got, "\n"), strings.Join(knownPairs, "\n"))
		}
		c := readCountersFile(t, out)
		if c["parse.sentences.not-content.template"] < 1000 || c["parse.sentences.not-content.links"] < 100 {
			t.Errorf("input %s: not-content counters %v", in, c)
		}
	}
}

func TestJobTimes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		jobs []pipeline.Job
		want string
	}{
		{nil, ""},
		{[]pipeline.Job{{Name: "parse", Took: 121930 * time.Millisecond}}, "parse 2m1.9s"},
		{[]pipeline.Job{{Name: "parse", Skipped: true}, {Name: "join+match", Took: 25049 * time.Millisecond}, {Name: "extend", Took: 40 * time.Millisecond}},
			"parse (earlier run), join+match 25s, extend 0s"},
	} {
		if got := jobTimes(tt.jobs); got != tt.want {
			t.Errorf("jobTimes(%v) = %q, want %q", tt.jobs, got, tt.want)
		}
	}
}

// TestTemplateNote: the note comes when most of what was indexed is left
// out as templates, or when a run finds no span and leaves out a percent
// or more; not for a run without spans whose templates are a trifle.
func TestTemplateNote(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     map[string]int64
		noted bool
	}{
		{"most left out", map[string]int64{"index.postings.prefix": 100, "index.postings.site-template": 60, "extend.spans": 5}, true},
		{"some left out, spans found", map[string]int64{"index.postings.prefix": 100, "index.postings.site-template": 20, "extend.spans": 5}, false},
		{"some left out, no span", map[string]int64{"index.postings.prefix": 100, "index.postings.site-template": 20}, true},
		{"a trifle left out, no span", map[string]int64{"index.postings.prefix": 10000, "index.postings.site-template": 3}, false},
		{"none left out", map[string]int64{"index.postings.prefix": 100}, false},
	} {
		if got := templateNote(tc.c, 4, "OUT"); (got != "") != tc.noted {
			t.Errorf("%s: note %q, want one: %v", tc.name, got, tc.noted)
		}
	}
}
