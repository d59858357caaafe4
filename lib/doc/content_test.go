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
<ul><li><a href="a.html">A page that is only a link here</a></li><li><a href="#sec">A heading anchor in the page</a></li></ul>
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
		"A heading anchor in the page":                "",
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
	if a.NotContent[NotContentTemplate] != 2 || a.NotContent[NotContentLinks] != 1 || a.NotContent[NotContentNoLetter] != 1 {
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
