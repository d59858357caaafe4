package doc

import (
	"strings"
	"testing"
)

// TestNotContent: which sentences the Analyzer keeps out of matching, and
// why; they keep their place (index and offsets) with no tokens.
func TestNotContent(t *testing.T) {
	page := `<html><body>
<nav><a href="/">Home page of the site</a> | <a href="/docs">The documentation index</a></nav>
<p>The first sentence of the article is long enough. It links to <a href="x.html">one page</a> only.</p>
<ul><li><a href="a.html">A page that is only a link here</a></li><li><a href="#sec">A table of contents entry in the page</a></li></ul>
<h2><a href="#sec">A heading that links to itself</a></h2>
<p>10.1.1.</p><p>中文的句子也是内容。</p>
<footer>Copyright 2024 by the people who wrote this site.</footer>
</body></html>`
	d := Doc{ID: "p", HTML: page, IsHTML: true}
	var an Analyzer
	a, err := an.Analyze(&d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Home page of the site":                       NotContentTemplate,
		"The first sentence of the article":           "",
		"It links to one page only.":                  "",
		"A page that is only a link here":             NotContentLinks,
		"A table of contents entry in the page":       NotContentLinks,
		"A heading that links to itself":              "",
		"10.1.1.":                                     NotContentNoLetter,
		"中文的句子也是内容。":                                  "",
		"Copyright 2024 by the people who wrote this": NotContentTemplate,
	}
	rs := []rune(a.Text)
	seen := 0
	for i, s := range a.Sentences {
		text := string(rs[s.Start:s.End])
		for prefix, why := range want {
			if !strings.HasPrefix(text, prefix) {
				continue
			}
			seen++
			if s.NotContent != why {
				t.Errorf("sentence %d %q: not content %q, want %q", i, text, s.NotContent, why)
			}
			if (why != "") != (len(s.Tokens) == 0) {
				t.Errorf("sentence %d %q: %d tokens", i, text, len(s.Tokens))
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d sentences in %q", seen, len(want), a.Text)
	}
	if a.NotContent[NotContentTemplate] != 2 || a.NotContent[NotContentLinks] != 2 || a.NotContent[NotContentNoLetter] != 1 {
		t.Errorf("counts %v", a.NotContent)
	}
	// The record keeps every sentence: the not-content ones without tokens.
	blob, _ := AppendBlob(nil, nil, a.Sentences)
	got, _, _, err := DecodeBlob(blob, nil, nil, nil)
	if err != nil || len(got) != len(a.Sentences) {
		t.Fatalf("blob: %d sentences, %v", len(got), err)
	}
	for i := range got {
		if got[i].Start != a.Sentences[i].Start || len(got[i].Tokens) != len(a.Sentences[i].Tokens) {
			t.Errorf("blob sentence %d: %+v, want %+v", i, got[i], a.Sentences[i])
		}
	}
}

// TestOnePageManual: a one-page manual as Texinfo writes it (a node's
// navigation line in <div class="header">, the index as a table of links
// within the page), in English and in German: the navigation lines are
// template and the index entries links, whatever the language; the
// manual's text is content.
func TestOnePageManual(t *testing.T) {
	for _, words := range [][4]string{
		{"Next", "Previous", "Up", "Contents"},
		{"Weiter", "Zurück", "Nach oben", "Inhalt"},
	} {
		page := `<html><body><div class="header"><p>` + words[0] + `: <a href="#Interface-functions">Interface functions .C and .Fortran</a>, ` +
			words[1] + `: <a href="#Operating-system-access">Operating system access</a>, ` + words[2] +
			`: <a href="#System-and-foreign-language-interfaces">System and foreign language interfaces</a> &nbsp; [<a href="#SEC_Contents">` +
			words[3] + `</a>][<a href="#Index">Index</a>]</p></div>
<h3 class="section">5.2 Interface functions</h3><p>These two functions provide an interface to compiled code that has been linked into the program at build time.</p>
<table class="index-cp"><tr><td></td><td valign="top"><a href="#index-system_002etime"><code>system.time</code></a>:</td><td>&nbsp;</td><td valign="top"><a href="#Operating-system-access">Operating system access</a></td></tr>
<tr><td></td><td valign="top"><a href="#index-system2"><code>system2</code></a>:</td><td>&nbsp;</td><td valign="top"><a href="#Operating-system-access">Operating system access</a></td></tr></table>
</body></html>`
		var an Analyzer
		a, err := an.Analyze(&Doc{ID: "manual", HTML: page, IsHTML: true})
		if err != nil {
			t.Fatal(err)
		}
		rs := []rune(a.Text)
		for _, s := range a.Sentences {
			text := string(rs[s.Start:s.End])
			want := NotContentLinks
			switch {
			case strings.HasPrefix(text, words[0]):
				want = NotContentTemplate
			case strings.HasPrefix(text, "These two functions"), strings.HasPrefix(text, "5.2"):
				want = ""
			}
			if s.NotContent != want {
				t.Errorf("%s: %q: not content %q, want %q", words[0], text, s.NotContent, want)
			}
		}
	}
}
