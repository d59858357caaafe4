package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// chromium returns the path of headless Chromium, or skips the test (fails
// it under .ci/run, which sets PDC_REQUIRE_BROWSER).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("PDC_REQUIRE_BROWSER") != "" {
		t.Fatal("no headless Chromium (apt-get install chromium)")
	}
	t.Skip("no headless Chromium (apt-get install chromium)")
	return ""
}

// browse runs headless Chromium on a page of the report with args
// (--dump-dom, --screenshot=FILE) and returns its standard output.
func browse(t *testing.T, browser, page string, args ...string) string {
	t.Helper()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.Command(browser, append(args, "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
	}
	return stdout.String()
}

// TestReport: pdc report on the sample, rendered by headless Chromium:
// the summary shows the run's spans and pairs, the top pairs table lists
// every pair with a link to its page, and a pair page highlights the
// shared passages on both sides, each linked to its counterpart. With
// -update the index's screenshot is written to docs/report.png.
func TestReport(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet", "--clusters"); code != 0 {
		t.Fatal(stderr)
	}
	dir := filepath.Join(t.TempDir(), "report")
	_, stderr, code := runPDC(t, "report", out, "--output", dir)
	if code != 0 || !strings.Contains(stderr, "18 document pairs, 18 with a page") {
		t.Fatalf("report: exit %d %s", code, stderr)
	}
	c := readCountersFile(t, out)
	dom := browse(t, browser, filepath.Join(dir, "index.html"), "--dump-dom")
	for _, want := range []string{
		fmt.Sprintf(`<td id="spans">%d</td>`, c["extend.spans"]),
		fmt.Sprintf(`<td id="pairs">%d</td>`, c["extend.doc-pairs.with-spans"]),
		`<a href="pair-0018.html">18</a>`,
		`https://doc.rust-lang.org/`,
		`<svg class="hist"`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("index.html's DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, `<tr class="pair">`); n != 18 {
		t.Errorf("%d pair rows, want 18", n)
	}
	// The clusters: the 50 largest, each with its earliest member's passage.
	if n, want := strings.Count(dom, `<tr class="cluster">`), min(50, int(c["clusters.clusters"])); n != want || n == 0 {
		t.Errorf("%d cluster rows, want %d", n, want)
	}
	if m := regexp.MustCompile(`<tr class="cluster"><td title="c[0-9a-f]{16}">1</td><td>(\d+)</td>`).FindStringSubmatch(dom); m == nil {
		t.Error("no first cluster row with its id and size")
	}
	// The boilerplate table: a row per boilerplate.tsv row, each with the
	// text of its example sentence.
	boiler := dom[strings.Index(dom, `<section id="boilerplate">`):]
	rows := regexp.MustCompile(`<tr><td>\d+</td><td>(site-template|max-df)</td><td>[^<]+</td><td class="passage">([^<]+)</td>`).FindAllStringSubmatch(boiler, -1)
	tsv, err := os.ReadFile(filepath.Join(out, "boilerplate.tsv"))
	if err != nil || len(rows) == 0 || len(rows) != strings.Count(string(tsv), "\n")-1 {
		t.Errorf("%d boilerplate rows with their text; boilerplate.tsv (%v):\n%s", len(rows), err, tsv)
	}
	// A pair page: each span's two passages start side by side, at one
	// height, laid out by Chromium; every span of the pair has its rows.
	for _, page := range []string{"pair-0001.html", "pair-0002.html"} {
		spans, boxes := measurePair(t, browser, filepath.Join(dir, page))
		if len(boxes) == 0 || len(boxes) != spans {
			t.Errorf("%s: %d spans laid out, the span table has %d", page, len(boxes), spans)
		}
		for _, b := range boxes {
			if b.ATop != b.BTop || b.ARight > b.BLeft || b.AFirst != b.BFirst {
				t.Errorf("%s: span %d's passages are not side by side: %+v", page, b.Span, b)
			}
		}
	}
	shot := filepath.Join(t.TempDir(), "pair.png")
	browse(t, browser, filepath.Join(dir, "pair-0002.html"), "--screenshot="+shot, "--window-size=1280,1000", "--hide-scrollbars")
	if *update {
		copyFile(t, shot, filepath.Join("..", "docs", "report-pair.png"))
	}
	png := filepath.Join(t.TempDir(), "index.png")
	browse(t, browser, filepath.Join(dir, "index.html"), "--screenshot="+png, "--window-size=1280,1000", "--hide-scrollbars")
	data, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %v", err)
	}
	if *update {
		if err := os.WriteFile(filepath.Join("..", "docs", "report.png"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// spanBox is where Chromium put span Span of a pair page: the tops of its
// A and B start cells, A's right and B's left edge, and the tops of the
// first sentence of each passage.
type spanBox struct {
	Span                      int
	ATop, BTop, ARight, BLeft float64
	AFirst, BFirst            float64
}

// measurePair lays out a copy of a pair page in headless Chromium (the
// copy without the page's Content-Security-Policy, and with a script that
// reads the element boxes into the DOM) and returns the number of rows of
// its span table and the boxes of its spans.
func measurePair(t *testing.T, browser, page string) (int, []spanBox) {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAllString(string(data), "")
	const script = `<script>
const out = [];
for (const row of document.querySelectorAll("tr.start")) {
  const n = Number(row.id.slice(1));
  const a = document.getElementById("a" + n).getBoundingClientRect(), b = document.getElementById("b" + n).getBoundingClientRect();
  const first = document.querySelector("tr.pair.s" + n);
  const cells = first ? first.querySelectorAll("td") : [];
  const top = (c) => c ? c.getBoundingClientRect().top : -1;
  out.push({Span: n, ATop: a.top, BTop: b.top, ARight: a.right, BLeft: b.left, AFirst: top(cells[0]), BFirst: top(cells[2])});
}
const pre = document.createElement("pre");
pre.id = "measure";
pre.textContent = document.querySelectorAll("table.spans tbody tr").length + "\n" + JSON.stringify(out);
document.body.appendChild(pre);
</script></body>`
	html = strings.Replace(html, "</body>", script, 1)
	copyPage := filepath.Join(filepath.Dir(page), "measure-"+filepath.Base(page))
	if err := os.WriteFile(copyPage, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, browser, copyPage, "--dump-dom", "--window-size=1280,1000")
	m := regexp.MustCompile(`(?s)<pre id="measure">(\d+)\n(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("%s: no measurements in the DOM", page)
	}
	var boxes []spanBox
	if err := json.Unmarshal([]byte(stdhtml.UnescapeString(m[2])), &boxes); err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	n, _ := strconv.Atoi(m[1])
	return n, boxes
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportHostile: documents whose ids, URLs and text carry markup and
// scripts are shown as text: Chromium's DOM holds no element from them, no
// script ran (the title is unchanged, nothing was added), and links go
// only to http(s) URLs.
func TestReportHostile(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	attack := `<script>document.title='pwned';document.body.append('PWNED')</script>` +
		`"><img src=x onerror="document.title='pwned'"> <iframe src="javascript:alert(1)"></iframe> ` +
		"\u202etxt.exe\u200b "
	shared := "The council approved the new budget after a long debate about the harbour. " +
		"Several members asked for more money for the schools in the northern districts. " +
		"The mayor promised a second vote before the end of the year. "
	var lines []string
	for i, url := range []string{`javascript:document.title='pwned'`, `https://example.org/a?x="><script>document.title='pwned'</script>`} {
		id := fmt.Sprintf(`doc%d<script>document.title='pwned'</script>"'&`, i)
		text := fmt.Sprintf("Own text of document %d comes first here. ", i) + attack + shared + attack
		lines = append(lines, fmt.Sprintf(`{"id":%q,"url":%q,"text":%q}`, id, url, text))
	}
	docs := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(docs, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", docs, "--output", out, "--quiet", "--lambda", "2"); code != 0 {
		t.Fatal(stderr)
	}
	dir := filepath.Join(t.TempDir(), "report")
	if _, stderr, code := runPDC(t, "report", out, "--output", dir); code != 0 || !strings.Contains(stderr, "1 document pairs, 1 with a page") {
		t.Fatalf("report: exit %d %s", code, stderr)
	}
	for _, page := range []string{"index.html", "pair-0001.html"} {
		dom := browse(t, browser, filepath.Join(dir, page), "--dump-dom")
		for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(dom, -1) {
			lower := strings.ToLower(tag)
			for _, bad := range []string{"<script", "<img", "<iframe", " onerror", "javascript:"} {
				if strings.Contains(lower, bad) {
					t.Errorf("%s: the DOM has the element %q", page, tag)
				}
			}
		}
		if strings.Contains(dom, "PWNED</body>") || !regexp.MustCompile(`<title>pdc[^<]*</title>`).MatchString(dom) {
			t.Errorf("%s: a document's script ran", page)
		}
		if !strings.Contains(dom, "&lt;script&gt;document.title='pwned'") {
			t.Errorf("%s: the documents' markup is not shown as text", page)
		}
		if !strings.Contains(dom, "Content-Security-Policy") {
			t.Errorf("%s: no Content-Security-Policy", page)
		}
	}
}

// TestReportOverwrite: --overwrite replaces an earlier report but never a
// directory that is not one, even if it holds an index.html.
func TestReportOverwrite(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	dir := filepath.Join(t.TempDir(), "report")
	for i := range 2 {
		if _, stderr, code := runPDC(t, "report", out, "--output", dir, "--overwrite"); code != 0 {
			t.Fatalf("report %d: exit %d %s", i, code, stderr)
		}
	}
	site := filepath.Join(t.TempDir(), "site")
	writeFile(t, filepath.Join(site, "index.html"), "<html>my site</html>")
	if _, stderr, code := runPDC(t, "report", out, "--output", site, "--overwrite"); code != 1 || !strings.Contains(stderr, "is not a pdc report") {
		t.Errorf("a site's directory: exit %d %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(site, "index.html")); err != nil || string(b) != "<html>my site</html>" {
		t.Errorf("the site was touched: %q %v", b, err)
	}
}

// TestReportMatchesPairs: the index's top pairs show the shared
// characters and containment pdc pairs prints for them, in the order of
// pdc pairs --sort shared.
func TestReportMatchesPairs(t *testing.T) {
	t.Parallel()
	out := sampleRun(t)
	dir := filepath.Join(t.TempDir(), "report")
	if _, stderr, code := runPDC(t, "report", out, "--output", dir); code != 0 {
		t.Fatal(stderr)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	pairs, stderr, code := runPDC(t, "pairs", out, "--sort", "shared")
	if code != 0 {
		t.Fatal(stderr)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(pairs), "\n") {
		f := strings.Split(l, "\t")
		ca, _ := strconv.ParseFloat(f[7], 64)
		cb, _ := strconv.ParseFloat(f[8], 64)
		want = append(want, fmt.Sprintf("%s %s %s %s %.0f%% %.0f%%", f[0], f[1], f[3], f[4], 100*ca, 100*cb))
	}
	cell := regexp.MustCompile(`<td[^>]*>(.*?)</td>`)
	tag := regexp.MustCompile(`<[^>]+>`)
	var got []string
	for _, row := range regexp.MustCompile(`(?s)<tr class="pair">(.*?)</tr>`).FindAllStringSubmatch(string(index), -1) {
		var cells []string
		for _, c := range cell.FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, stdhtml.UnescapeString(tag.ReplaceAllString(c[1], "")))
		}
		got = append(got, strings.Join([]string{cells[1], cells[2], cells[4], cells[5], cells[6]}, " "))
	}
	if len(got) == 0 || len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
		t.Errorf("report's top pairs:\n%s\nwant pdc pairs --sort shared:\n%s", strings.Join(got, "\n"), strings.Join(want[:min(len(want), len(got)+1)], "\n"))
	}
}
