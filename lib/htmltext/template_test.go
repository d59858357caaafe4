package htmltext

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// templateText returns the text of the template ranges of page.
func templateText(t *testing.T, page string) []string {
	t.Helper()
	res, err := ExtractUTF8([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Template {
		got = append(got, strings.TrimSpace(res.Text[r.Start:r.End]))
	}
	return got
}

func TestTemplateElements(t *testing.T) {
	body := "<p>" + strings.Repeat("The body of the page has much more text than its frame. ", 6) + "</p>"
	big := "<p>" + strings.Repeat("The body of the page has much more text than its frame. ", 80) + "</p>"
	tests := []struct {
		name, page string
		want       []string
	}{
		{"nav and aside", `<nav><a href=/>Home</a></nav>` + body + `<aside>Ads here</aside>`, []string{"Home", "Ads here"}},
		{"page header and footer", `<header>Site name</header>` + body + `<footer>© Site</footer>`, []string{"Site name", "© Site"}},
		{"article header is content", `<article><header><h1>Headline</h1></header>` + body + `<footer>By a writer</footer></article>`, nil},
		{"landmark roles", `<div role="navigation">Menu</div><div role=contentinfo>Legal</div><div role="main">` + body + `</div><div role="search">Find</div>`, []string{"Menu\n\nLegal", "Find"}},
		{"class words", `<div class="site-footer">Footer text</div><ul id="top_menu"><li>A</li></ul>` + body + `<div class="sphinxsidebar nav">Side</div>`, []string{"Footer text\n\nA", "Side"}},
		{"content word wins", `<div class="sidebar-content">Kept</div>` + body, nil},
		{"nested", `<div class="footer"><div>one</div><div>two</div></div>` + body, []string{"one\n\ntwo"}},
		{"wrapper of main", `<div class="nav-wrapper"><nav>Top</nav><main>` + body + `</main></div>`, []string{"Top"}},
		{"unclosed", body + `<div class="footer">never closed`, nil},
		{"over half the page", `<div class="footer">` + big + `</div><p>short</p>`, nil},
		{"template inside a dropped one", `<div class="menu">` + big + `<nav>inner</nav></div>`, []string{"inner"}},
		{"footer of a short page", `<p>Short.</p><div class="footer">A footer longer than the page's own text.</div>`, []string{"A footer longer than the page's own text."}},
		{"unknown class", `<div class="navy-blue">Kept</div>` + body, nil},
		{"header class", `<div class="header"><p>Next: Intro, Up: Top</p></div>` + body, []string{"Next: Intro, Up: Top"}},
		{"header class in a section", `<section><div class="header">Kept</div>` + body + `</section>`, nil},
		{"header as a part is not", `<div class="page-header">Kept</div><div id="header-x">Kept too</div>` + body, nil},
		{"skipped element", `<script>var nav = 1</script><nav>N</nav>` + body, []string{"N"}},
	}
	for _, tt := range tests {
		if got := templateText(t, tt.page); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: template %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestTemplateRealPages: on real article pages (go-readability's test
// pages, testdata/README.md) no line of the article, as readability
// extracts it, lies in a template range, and the pages' navigation does.
func TestTemplateRealPages(t *testing.T) {
	for _, page := range []string{"ars-1", "daringfireball-1", "v8-blog", "hukumusume"} {
		b, err := os.ReadFile(filepath.Join("testdata", page+".html"))
		if err != nil {
			t.Fatal(err)
		}
		main, err := os.ReadFile(filepath.Join("testdata", page+".main.txt"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Extract(b, "")
		if err != nil {
			t.Fatal(err)
		}
		inTemplate := func(s string) bool {
			i := strings.Index(res.Text, s)
			for _, r := range res.Template {
				if i >= r.Start && i < r.End {
					return true
				}
			}
			return false
		}
		lines, lost := 0, 0
		for _, l := range strings.Split(string(main), "\n") {
			if l = strings.TrimSpace(l); len(l) < 30 || !strings.Contains(res.Text, l) {
				continue
			}
			lines++
			if inTemplate(l) {
				lost++
				t.Errorf("%s: article line in the template: %.80q", page, l)
			}
		}
		covered := 0
		for _, r := range res.Template {
			covered += r.End - r.Start
		}
		t.Logf("%s: %d article lines, %d in the template; template %d of %d bytes", page, lines, lost, covered, len(res.Text))
		if lines < 2 {
			t.Errorf("%s: only %d article lines found", page, lines)
		}
	}
}

// TestTemplateSphinx: a Sphinx page of the Python manual (from the sample
// corpus): the related-pages bars, the sidebar and the footer are template,
// the module's text is not.
func TestTemplateSphinx(t *testing.T) {
	res := samplePage(t, "python/library/bz2.html")
	tmpl := ""
	for _, r := range res.Template {
		tmpl += res.Text[r.Start:r.End] + "\n"
	}
	for _, s := range []string{"modules |", "Previous topic", "Show Source", "© Copyright", "Created using Sphinx"} {
		if !strings.Contains(tmpl, s) {
			t.Errorf("%q not in the template", s)
		}
	}
	for _, s := range []string{"This module provides a comprehensive interface", "One-shot (de)compression¶"} {
		if strings.Contains(tmpl, s) {
			t.Errorf("%q in the template", s)
		}
	}
}

// samplePage extracts a page of testdata/sample/pages.jsonl.
func samplePage(t *testing.T, id string) Result {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "sample", "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d struct{ ID, HTML string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if d.ID == id {
			res, err := ExtractUTF8([]byte(d.HTML))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("no page %s in the sample", id)
	return Result{}
}

// TestLayout: a page's layout is named by its first and last outermost
// template elements (tags, classes, ids, roles), not by their text nor by
// the template elements between them; none when neither has a class, id or
// role, or the page has no template element.
func TestLayout(t *testing.T) {
	page := func(head, middle, foot string) string {
		return `<html><body>` + head + `<main><p>Some text of the page.</p>` + middle + `</main>` + foot + `</body></html>`
	}
	layout := func(s string) string {
		res, err := ExtractUTF8([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return res.Layout
	}
	site := page(`<div class="related" role="navigation"><a href=a>Up</a></div>`, ``, `<div class="footer">© One</div>`)
	tests := []struct {
		name, page string
		same       bool // same layout as site
		none       bool
	}{
		{"other text in the same elements", page(`<div class="related" role="navigation"><a href=b>Next</a> and more</div>`, ``, `<div class="footer">© Two, all rights</div>`), true, false},
		{"a template element between them", page(`<div class="related" role="navigation">Up</div>`, `<div class="sidebar">See also</div>`, `<div class="footer">©</div>`), true, false},
		{"another footer", page(`<div class="related" role="navigation">Up</div>`, ``, `<div class="site-footer">©</div>`), false, false},
		{"another header", page(`<nav id="top">Up</nav>`, ``, `<div class="footer">©</div>`), false, false},
		{"bare elements only", page(`<nav>Up</nav>`, `<div class="sidebar">x</div>`, `<footer>©</footer>`), false, true},
		{"no template element", page(``, ``, ``), false, true},
	}
	want := layout(site)
	if want == "" {
		t.Fatalf("layout of %s is empty", site)
	}
	for _, tt := range tests {
		got := layout(tt.page)
		if (got == "") != tt.none || (got == want) != tt.same {
			t.Errorf("%s: layout %q (site's %q), want same %v, none %v", tt.name, got, want, tt.same, tt.none)
		}
	}
}

// TestAttrsModel: attrs finds in one scan what a scan per name finds:
// the first `name=value` outside quotes after a space or the tag's start,
// on random tags.
func TestAttrsModel(t *testing.T) {
	model := func(raw []byte, name string) ([]byte, bool) {
		var quote byte
		for i := 1; i < len(raw); i++ {
			c := raw[i]
			if quote != 0 {
				if c == quote {
					quote = 0
				}
				continue
			}
			if c == '"' || c == '\'' {
				quote = c
				continue
			}
			if !isSpaceOrTagStart(raw[i-1]) || !strings.HasPrefix(strings.ToLower(string(raw[i:])), name) {
				continue
			}
			rest := strings.TrimLeft(string(raw[i+len(name):]), " \t\n\r\f")
			if !strings.HasPrefix(rest, "=") {
				continue
			}
			rest = strings.TrimLeft(rest[1:], " \t\n\r\f")
			j := len(raw) - len(rest)
			switch {
			case rest == "":
				return nil, false
			case rest[0] == '"' || rest[0] == '\'':
				if k := strings.IndexByte(rest[1:], rest[0]); k >= 0 {
					return raw[j+1 : j+1+k], true
				}
				return raw[j+1:], true
			}
			k := strings.IndexAny(rest, " \t\n\r\f>")
			if k < 0 {
				k = len(rest)
			}
			return raw[j : j+k], true
		}
		return nil, false
	}
	alphabet := []string{"<div", " ", "class", "ID", "id", "role", "=", "\"", "'", "x", "nav", ">", "\t", "data-role", "classes"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		raw := []byte(b.String())
		var vals [3][]byte
		var found [3]bool
		attrs(raw, templateAttrs[:], vals[:], found[:])
		for k, name := range templateAttrs {
			v, ok := model(raw, name)
			if ok != found[k] || string(v) != string(vals[k]) {
				t.Fatalf("attrs(%q)[%s] = %q, %v; want %q, %v", raw, name, vals[k], found[k], v, ok)
			}
			if v1, ok1 := attr(raw, name); ok1 != ok || string(v1) != string(v) {
				t.Fatalf("attr(%q, %s) = %q, %v; want %q, %v", raw, name, v1, ok1, v, ok)
			}
		}
	}
}
