package doc

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/pdc-mr/pdc/lib/htmltext"
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

// TestNotContentCounts: notContent, which counts a sentence's linked
// letters and digits a stretch between link boundaries at a time, says what
// counting them one by one says (the reference below), on random text of
// ASCII, other scripts' letters and digits, and invalid bytes, with random
// link and template ranges (some overlapping, some reaching past the
// sentence).
func TestNotContentCounts(t *testing.T) {
	ref := func(text string, off int, links []htmltext.Range) (alnum, linked int, letter bool) {
		ls := links
		for i, r := range text {
			isLetter := unicode.IsLetter(r)
			if !isLetter && !unicode.IsDigit(r) {
				continue
			}
			letter = letter || isLetter
			alnum++
			for len(ls) > 0 && ls[0].End <= off+i {
				ls = ls[1:]
			}
			if len(ls) > 0 && ls[0].Start <= off+i {
				linked++
			}
		}
		return alnum, linked, letter
	}
	pieces := []string{"a", "Z", "7", " ", ",", "[", "é", "中", "٣", "\xff", "\xe4\xb8", "ß", "_", "@"}
	rng := rand.New(rand.NewPCG(5, 6))
	whys := map[string]int{}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text, off := b.String(), rng.IntN(20)
		var links, tmpl []htmltext.Range
		for at := rng.IntN(10); at < off+len(text)+5 && len(links) < 6; at += 1 + rng.IntN(12) {
			links = append(links, htmltext.Range{Start: at, End: at + 1 + rng.IntN(15)})
		}
		if rng.IntN(4) == 0 {
			s := off + rng.IntN(len(text)+1)
			tmpl = []htmltext.Range{{Start: s, End: s + rng.IntN(len(text)+1)}}
		}
		why, gotLinks, gotTmpl := notContent(text, off, links, tmpl)
		whys[why]++
		alnum, linked, letter := ref(text, off, links)
		want := ""
		if in, _ := overlap(off, off+len(text), tmpl); in > 0 && 2*in >= len(text) {
			want = NotContentTemplate
		} else if !letter {
			want = NotContentNoLetter
		} else if linked > 0 && float64(linked) >= MaxLinkShare*float64(alnum) {
			want = NotContentLinks
		}
		if why != want {
			t.Fatalf("notContent(%q, %d, %v, %v) = %q, want %q (alnum %d, linked %d)", text, off, links, tmpl, why, want, alnum, linked)
		}
		if _, rest := overlap(off, off+len(text), links); want != NotContentTemplate && !slices.Equal(gotLinks, rest) {
			t.Fatalf("notContent(%q, %d, %v) links left %v, want %v", text, off, links, gotLinks, rest)
		}
		if _, rest := overlap(off, off+len(text), tmpl); !slices.Equal(gotTmpl, rest) {
			t.Fatalf("notContent(%q, %d, tmpl %v) left %v, want %v", text, off, tmpl, gotTmpl, rest)
		}
	}
	for _, why := range []string{"", NotContentLinks, NotContentNoLetter, NotContentTemplate} {
		if whys[why] < 50 {
			t.Errorf("only %d cases of %q: %v", whys[why], why, whys)
		}
	}
}
