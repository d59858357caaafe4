package jobs

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/signature"
	"github.com/pdc-mr/pdc/lib/sitetemplate"
)

// TestDedupTemplates: pdc dedup --templates cuts a site's footer from all
// of the site's pages (reason template, no kept copy) and every sentence
// the run's boilerplate.tsv lists as a site template; it leaves the pages'
// own text, a mirrored manual's text (copies are not templates: one copy
// stays) and the same footer on two pages of another site, which is no
// template there (one copy stays). Without --templates nothing is cut as a
// template. A run without site templates, and --jobs, are refused.
func TestDedupTemplates(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	footer, manual := sentences(r, 3), sentences(r, 12)
	var recs []string
	own := map[string]string{}
	add := func(id, url, text string) {
		recs = append(recs, fmt.Sprintf(`{"id":%q,"url":%q,"text":%q}`, id, url, text))
	}
	for i := range 6 {
		id := fmt.Sprintf("a%d", i)
		own[id] = sentences(r, 6)
		add(id, fmt.Sprintf("https://a.example/p%d.html", i), own[id]+footer)
	}
	for i := range 5 {
		id := fmt.Sprintf("m%d", i)
		own[id] = sentences(r, 1)
		add(id, fmt.Sprintf("https://a.example/v%d/manual.html", i), own[id]+manual)
	}
	for i := range 2 {
		id := fmt.Sprintf("b%d", i)
		own[id] = sentences(r, 6)
		add(id, fmt.Sprintf("https://b.example/p%d.html", i), own[id]+footer)
	}
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "docs.jsonl"), strings.Join(recs, "\n")+"\n")
	out := filepath.Join(dir, "out")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--clusters", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	plain, tmpl := filepath.Join(dir, "plain"), filepath.Join(dir, "templates")
	if _, stderr, code := runPDC(t, "dedup", out, "--output", plain, "--verify"); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := runPDC(t, "dedup", out, "--output", tmpl, "--verify", "--templates")
	if code != 0 || !strings.Contains(stderr, "--templates: 6 ranges of them site templates") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		dir       string
		templates bool
	}{{plain, false}, {tmpl, true}} {
		texts := cleanTexts(t, c.dir+"/docs.jsonl")
		removed := readRemoved(t, c.dir+"/removed.tsv")
		nTemplate := 0
		for id, rs := range removed {
			for _, l := range rs {
				if l.reason == "template" {
					nTemplate++
					if !strings.HasPrefix(id, "a") || l.cluster != "-" || l.keptDoc != "" || l.held != "0.0000" {
						t.Errorf("%s: template cut %+v of %s", c.dir, l, id)
					}
				}
			}
		}
		if want := map[bool]int{false: 0, true: 6}[c.templates]; nTemplate != want {
			t.Errorf("%s: %d template cuts, want %d", c.dir, nTemplate, want)
		}
		for id, o := range own {
			if !strings.Contains(texts[id], strings.TrimSpace(o)) {
				t.Errorf("%s: %s lost its own text: %q", c.dir, id, texts[id])
			}
		}
		footers, manuals := map[string]int{}, 0
		for id, text := range texts {
			if strings.Contains(text, strings.TrimSpace(footer)) {
				footers[id[:1]]++
			}
			if strings.Contains(text, strings.TrimSpace(manual)) {
				manuals++
			}
		}
		if want := map[bool]int{false: 6, true: 0}[c.templates]; footers["a"] != want || footers["b"] != 1 {
			t.Errorf("%s: the footer is on %d pages of a (want %d) and %d of b (want 1)", c.dir, footers["a"], want, footers["b"])
		}
		if manuals != 1 {
			t.Errorf("%s: the manual's text is in %d documents, want 1", c.dir, manuals)
		}
	}
	// Every site-template row of the run's boilerplate.tsv is inside a
	// template cut of its document.
	data, err := os.ReadFile(out + "/boilerplate.tsv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := boilerplate.Read(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	removed, n := readRemoved(t, tmpl+"/removed.tsv"), 0
	for _, row := range rows {
		if row.Kind != boilerplate.SiteTemplate {
			continue
		}
		n++
		inside := false
		for _, l := range removed[row.Doc] {
			inside = inside || l.reason == "template" && l.start <= row.CharStart && row.CharEnd <= l.end
		}
		if !inside {
			t.Errorf("site-template row %+v is in no template cut of %v", row, removed[row.Doc])
		}
	}
	if n == 0 {
		t.Error("boilerplate.tsv has no site-template row")
	}
	// Refused: a run without site templates, and --jobs.
	noSite := filepath.Join(dir, "nosite")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", noSite, "--clusters", "--quiet", "--max-site-df", "0"); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"dedup", noSite, "--output", filepath.Join(dir, "c1"), "--templates"}, "has no site templates (it was made with --max-site-df 0)"},
		{[]string{"dedup", out, "--output", filepath.Join(dir, "c2"), "--templates", "--jobs"}, "--templates is not supported with --jobs yet"},
	} {
		if _, stderr, code := runPDC(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%q: exit %d %q, want 2 and %q", tc.args, code, stderr, tc.msg)
		}
	}
}

// cleanTexts returns the texts of the documents of a docs.jsonl, by id.
func cleanTexts(t *testing.T, name string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var d struct{ ID, Text string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("%s: %q: %v", name, line, err)
		}
		texts[d.ID] = d.Text
	}
	return texts
}

// TestTemplatesAsTheRun: the template sentences of whole documents
// (lib/sitetemplate Counter, what pdc dedup --templates cuts) are those
// the index reducer leaves out of its posting lists as site templates:
// their prefix postings (signature.PrefixLen of each set) add up to the
// run's index.postings.site-template, on the sample and on pages of many
// sites with footers, copies and short pages.
func TestTemplatesAsTheRun(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	var recs []string
	footers := []string{sentences(r, 3), sentences(r, 2), sentences(r, 1)}
	body := sentences(r, 10)
	for i := range 40 {
		text := sentences(r, r.IntN(12))
		if r.IntN(3) == 0 {
			text += body // copies of one text, counted as one page where they have a copy key
		}
		text += footers[r.IntN(3)]
		recs = append(recs, fmt.Sprintf(`{"id":"p%d/page%d.html","url":"https://s%d.example/p%d","text":%q}`, i, r.IntN(4), r.IntN(3), i, text))
	}
	dir := t.TempDir()
	for _, in := range []string{sample, writeFile(t, filepath.Join(dir, "sites.jsonl"), strings.Join(recs, "\n")+"\n")} {
		out := filepath.Join(t.TempDir(), "out")
		if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--quiet"); code != 0 {
			t.Fatal(stderr)
		}
		want := readCountersFile(t, out)["index.postings.site-template"]
		cfg := jobconf.Default()
		an := cfg.Analyzer()
		c := sitetemplate.NewCounter(cfg.MaxSiteDF, cfg.MinTokens)
		each := func(f func(id, site string, a doc.Analysis)) {
			set, err := input.Find([]string{in}, input.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := set.Each(input.Options{}, func(d *doc.Doc, _ string) error {
				a, err := an.Analyze(d)
				if err == nil {
					v, _ := doc.URLField(d, &a, true)
					f(d.ID, sitetemplate.SiteOf(v), a)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		each(func(id, site string, a doc.Analysis) { c.Add(id, site, a.Sentences) })
		var got int64
		each(func(_, site string, a doc.Analysis) {
			for i, tm := range c.Templates(site, a.Sentences) {
				if tm {
					got += int64(signature.PrefixLen(len(slices.Compact(slices.Sorted(slices.Values(a.Sentences[i].Tokens)))), cfg.Tau))
				}
			}
		})
		if got != want || want == 0 {
			t.Errorf("%s: template sentences of whole documents make %d postings, the run left out %d", in, got, want)
		}
	}
}
