package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/boilerplate"
)

// quoted is a paragraph that every page of the test trees quotes in its
// body (not in a template element).
const quoted = "The committee met on Tuesday to review the annual budget of the water board. " +
	"Members agreed that the reservoir repairs must be finished before the winter rains arrive. " +
	"The chair thanked the engineers for their careful survey of the old dam and its spillway."

// sitePage is a page with its own text around the quoted paragraph;
// canonical, if not empty, is its <link rel="canonical">.
func sitePage(i int, canonical string) string { return layoutPage(i, canonical, "") }

// layoutPage is sitePage with a header and a footer of class layout
// ("": none).
func layoutPage(i int, canonical, layout string) string {
	head := ""
	if canonical != "" {
		head = fmt.Sprintf(`<head><link rel="canonical" href="%s"></head>`, canonical)
	}
	top, bottom := "", ""
	if layout != "" {
		top = fmt.Sprintf(`<div class="%s-nav"><a href="/">Home</a> page %d</div>`, layout, i)
		bottom = fmt.Sprintf(`<div class="%s-footer">Footer of page %d</div>`, layout, i)
	}
	own := fmt.Sprintf("Page %d tells its own story about topic number %d in several words. ", i, i) +
		fmt.Sprintf("It has a second sentence that no other page shares, number %d. ", i)
	return fmt.Sprintf("<html>%s<body>%s<p>%s</p><p>%s</p><p>%s</p>%s</body></html>", head, top, own, quoted, own, bottom)
}

// TestSitesWithoutURLs: pages without URLs get a site from the page's own
// canonical link, from their tree (--site-from), else from their layout
// (pages whose header and footer elements share their classes; with
// --site-from layout, or a dump's records), so --max-site-df (4) takes a
// paragraph that six pages of one site share for that site's template;
// with --site-from none (no site, not even the layout), sites of three
// pages each (--site-from path:1) or two layouts of three pages, the
// paragraph is reuse. parse.site.* count where each site came from.
func TestSitesWithoutURLs(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(t.TempDir(), "tree")
	canon := filepath.Join(t.TempDir(), "canon")
	layout := filepath.Join(t.TempDir(), "layout")
	layouts := filepath.Join(t.TempDir(), "layouts")
	dump := filepath.Join(t.TempDir(), "dump.jsonl")
	var lines []string
	for i := range 6 {
		dir, theme := "a", "blue"
		if i >= 3 {
			dir, theme = "b", "green"
		}
		writeFile(t, filepath.Join(tree, dir, fmt.Sprintf("p%d.html", i)), sitePage(i, ""))
		writeFile(t, filepath.Join(canon, dir, fmt.Sprintf("p%d.html", i)), sitePage(i, fmt.Sprintf("https://www.example.org/%s/p%d.html", dir, i)))
		writeFile(t, filepath.Join(layout, dir, fmt.Sprintf("p%d.html", i)), layoutPage(i, "", "blue"))
		writeFile(t, filepath.Join(layouts, dir, fmt.Sprintf("p%d.html", i)), layoutPage(i, "", theme))
		rec, err := json.Marshal(map[string]string{"id": fmt.Sprintf("p%d", i), "html": layoutPage(i, "", "blue")})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(rec))
	}
	writeFile(t, dump, strings.Join(lines, "\n")+"\n")
	tests := []struct {
		name      string
		args      []string
		pairs     int
		counter   string
		templates bool
	}{
		{"tree is the site (default)", []string{"--input", tree}, 0, "parse.site.input", true},
		{"no site", []string{"--input", tree, "--site-from", "none"}, 15, "parse.site.none", false},
		{"a site per directory", []string{"--input", tree, "--site-from", "path:1"}, 15, "parse.site.input", false},
		{"canonical links", []string{"--input", canon, "--site-from", "none"}, 0, "parse.site.page", true},
		{"cross-site-only keeps named sites", []string{"--input", tree, "--site-from", "path:1", "--cross-site-only"}, 15, "parse.site.input", false},
		{"cross-site-only drops URL hosts", []string{"--input", canon, "--site-from", "none", "--max-site-df", "0", "--cross-site-only"}, 0, "parse.site.page", false},
		{"one layout is one site", []string{"--input", layout, "--site-from", "layout"}, 0, "parse.site.layout", true},
		{"no layout with none", []string{"--input", layout, "--site-from", "none"}, 15, "parse.site.none", false},
		{"two layouts are two sites", []string{"--input", layouts, "--site-from", "layout"}, 15, "parse.site.layout", false},
		{"the tree before the layout", []string{"--input", layouts}, 0, "parse.site.input", true},
		{"a dump's pages take their layout", []string{"--input", dump}, 0, "parse.site.layout", true},
		{"a dump without layouts with none", []string{"--input", dump, "--site-from", "none"}, 15, "parse.site.none", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			_, stderr, code := runPDC(t, append([]string{"run", "--output", out, "--quiet"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("run: exit %d %s", code, stderr)
			}
			// A run that found nothing because of templates says so and
			// what to try.
			note := regexp.MustCompile(`pdc: \d+% of what was indexed is left out as site templates \(sentences in more than 4 pages of one site; .*/boilerplate.tsv\): .*--site-from path:1`)
			if got := note.MatchString(stderr); got != tt.templates {
				t.Errorf("template note %v, want %v:\n%s", got, tt.templates, stderr)
			}
			if got := len(spanPairs(t, out)); got != tt.pairs {
				t.Errorf("%d document pairs, want %d", got, tt.pairs)
			}
			if c := readCountersFile(t, out); c[tt.counter] != 6 {
				t.Errorf("%s = %d, want 6", tt.counter, c[tt.counter])
			}
			report, err := os.ReadFile(filepath.Join(out, "boilerplate.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(report), "site-template"); got != tt.templates {
				t.Errorf("site templates in boilerplate.tsv: %v, want %v\n%s", got, tt.templates, report)
			}
			// Each row's text, of a tree's page or a dump's record, is
			// the text of its range.
			rows, err := boilerplate.Read(bytes.NewReader(report))
			if err != nil {
				t.Fatal(err)
			}
			checkBoilerplateTexts(t, rows, tt.args[1])
		})
	}
}
