package htmltext

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestExtract(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"whitespace only", " \n\t <p> </p> &nbsp; ", ""},
		{"plain text", "hello   world", "hello world"},
		{"entities", "<p>a &amp; b &lt;c&gt; &quot;d&quot; &#233;t&#xE9; &copy; &nbsp;x&hellip;</p>", `a & b <c> "d" été © x…`},
		{"bad entities", "<p>&bogus; &amp &#0; &#x110000;</p>", "&bogus; & \uFFFD \uFFFD"},
		{"nbsp collapses", "a&nbsp;&nbsp; b\u00a0\u3000c", "a b c"},
		{"blocks", "<div>one</div><div>two</div><p>three</p>", "one\n\ntwo\n\nthree"},
		{"nested blocks", "<div><div><p>a</p></div></div><div><p>b</p></div>", "a\n\nb"},
		{"br", "line one<br>line two<br/><br />line three", "line one\n\nline two\n\nline three"},
		{"end br", "a</br>b", "a\n\nb"},
		{"inline nesting", "<p>a<b>b<i>c</i></b> <span>d <a href=x>e</a></span>f</p>", "abc d ef"},
		{"inline adjacent", "<span>foo</span><span>bar</span>", "foobar"},
		{"whitespace collapse", "<p>  a \n\n\t b\r\n c  </p>", "a b c"},
		{"list", "<ul><li>one</li><li>two<li>three</ul>", "one\n\ntwo\n\nthree"},
		{"table", "<table><tr><th>h1<th>h2<tr><td>a</td><td>b</td></tr></table>", "h1\n\nh2\n\na\n\nb"},
		{"headings", "<h1>Title</h1>body <h2>Sub</h2>more", "Title\n\nbody\n\nSub\n\nmore"},
		{"hr", "a<hr>b", "a\n\nb"},
		{"comment", "a<!-- hidden <p>x</p> -->b", "ab"},
		{"conditional comment", "a<!--[if IE]><p>ie</p><![endif]-->b", "ab"},
		{"cdata", "a<![CDATA[x < y]]>b", "ab"},
		{"doctype", "<!DOCTYPE html><p>x</p>", "x"},
		{"script", "a<script>var s = '<p>no</p>';</script>b", "ab"},
		{"script self-closing", "a<script/>var x;</script>b", "ab"},
		{"style", "<style>p { color: red }</style><p>x</p>", "x"},
		{"head and title", "<html><head><title>T</title><meta charset=utf-8></head><body><p>x</p></body></html>", "x"},
		{"no head end", "<head><title>T</title><body>visible", "visible"},
		{"noscript", "a<noscript>enable js</noscript>b", "ab"},
		{"template", "a<template><p>t</p><template>u</template>v</template>b", "ab"},
		{"svg", "a<svg><text>t</text><svg/><g><text>u</text></g></svg>b", "ab"},
		{"svg self-closing", "a<svg/>b", "ab"},
		{"math", "x <math><mi>y</mi></math> z", "x z"},
		{"iframe", "a<iframe>fallback <p>x</p></iframe>b", "ab"},
		{"object", "a<object><param name=x>fallback</object>b", "ab"},
		{"video", "a<video src=v><p>no video</p></video>b", "ab"},
		{"select", "<form>Pick <select><option>one<option>two</select> now</form>", "Pick now"},
		{"textarea", "a<textarea>typed <b>text</b></textarea>b", "ab"},
		{"unclosed skip ends at body end", "<p>a<svg><text>t</p></body><p>after", "a\n\nafter"},
		{"button and label inline", "<label>Name</label> <button>Go</button>", "Name Go"},
		{"pre lines", "<p>x</p><pre>  line 1\n    line 2\n\n\nline 3</pre>after", "x\n\nline 1\n\nline 2\n\nline 3\n\nafter"},
		{"pre inline markup", "<pre><b>a</b>  b\n<i>c</i></pre>", "a b\n\nc"},
		{"newline outside pre", "a\nb", "a b"},
		{"controls dropped", "a\x00b\x01c\x7fd\u0085e\u0091f\ufeffg", "abcd efg"},
		{"line separator", "a\u2028b", "a b"},
		{"malformed tags", "<p<b>x</b><div class='a>y</div>z<", "x"},
		{"unclosed tag at eof", "text <a href=", "text"},
		{"lt in text", "a < b and c > d", "a < b and c > d"},
		{"uppercase tags", "<P>a</P><DIV>b</DIV><SCRIPT>c</SCRIPT>", "a\n\nb"},
		{"stray end tags", "</span></p>a</div></td>b", "a\n\nb"},
		{"custom elements inline", "<my-el>a</my-el><x-y>b</x-y>", "ab"},
		{"cjk", "<p>中文　文本</p><p>日本語</p>", "中文 文本\n\n日本語"},
		{"plaintext", "a<plaintext><p>raw\nlines", "a\n\n<p>raw\n\nlines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Extract([]byte(tt.in), "text/html; charset=utf-8")
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.want {
				t.Errorf("Extract(%q).Text\n got %q\nwant %q", tt.in, got.Text, tt.want)
			}
			checkShape(t, got.Text)
		})
	}
}

// checkShape checks the invariants of Result.Text.
func checkShape(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("invalid UTF-8 in %q", s)
	}
	if strings.TrimSpace(s) != s {
		t.Errorf("leading or trailing whitespace in %q", s)
	}
	if strings.Contains(s, "\n\n\n") {
		t.Errorf("more than one blank line in %q", s)
	}
	if s == "" {
		return
	}
	for _, para := range strings.Split(s, "\n\n") {
		if para == "" || strings.TrimSpace(para) != para || strings.ContainsAny(para, "\n\r\t\v\f") || strings.Contains(para, "  ") {
			t.Errorf("badly formed block %q", para)
		}
	}
}

func TestBinaryGarbage(t *testing.T) {
	inputs := [][]byte{
		{0x00, 0xff, 0xfe, 0x00, 0x3c, 0x70, 0x3e},
		bytes.Repeat([]byte{0x80, 0x3c, 0xc3}, 1000),
		{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9},
		[]byte("<p>\xff\xfe\xfd text \xe4\xb8</p>"),
	}
	for i, in := range inputs {
		got, err := Extract(in, "")
		if err != nil {
			t.Errorf("input %d: %v", i, err)
		}
		checkShape(t, got.Text)
	}
}

// checkGolden compares text with the golden file (with a final LF), or
// rewrites the file with -update.
func checkGolden(t *testing.T, golden, text string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text+"\n" != string(want) {
		t.Errorf("text differs from %s (rerun with -update and review the diff)", golden)
	}
}

func TestGolden(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.html")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no test pages in testdata")
	}
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			body, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Extract(body, "")
			if err != nil {
				t.Fatal(err)
			}
			checkShape(t, res.Text)
			if res.Charset != "utf-8" || res.InvalidUTF8 != 0 {
				t.Errorf("charset %q, %d invalid; want utf-8, 0", res.Charset, res.InvalidUTF8)
			}
			checkGolden(t, strings.TrimSuffix(page, ".html")+".txt", res.Text)
		})
	}
}

func FuzzExtract(f *testing.F) {
	f.Add([]byte("<p>a &amp; b</p><br>c<script>x</script>"), "")
	f.Add([]byte("<meta charset=gbk><p>\xd6\xd0\xce\xc4</p>"), "")
	f.Add([]byte("<pre>a\n\n b</pre><svg><p>x"), "text/html; charset=big5")
	f.Add([]byte("\xff\xfe<\x00p\x00>\x00"), "")
	f.Add([]byte("<dl><dt><a href=a>a</a> x<dd>A<dl><dt><a href=b>b</a></dl><dt><a href=c>c</a><dt><a href=d>d</a></dt></dl>"), "")
	f.Add([]byte("<dl><dt><a href=a>a</a><dt><a href=b>b</a><table><tr><td><a href=c>c</a><td>C<tr><td><a href=d>d</a><td>D</dl></table>"), "")
	f.Add([]byte("<table><tr><td><a href=a>a</a><td>A<tr><td><div class=item-table><div><a href=b>b</a></div><div><a href=c>c</a><div><a href=d>d</a></table></div>"), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		if utf8.Valid(body) {
			want, err1 := Extract(body, "text/html; charset=utf-8")
			got, err2 := ExtractUTF8(body)
			if !reflect.DeepEqual(got, want) || (err1 == nil) != (err2 == nil) {
				t.Fatalf("ExtractUTF8 = %+v, %v; Extract as UTF-8 = %+v, %v", got, err2, want, err1)
			}
		}
		res, err := Extract(body, contentType)
		if err != nil {
			return
		}
		for i, l := range res.Links {
			if l.Start < 0 || l.End <= l.Start || l.End > len(res.Text) || (i > 0 && l.Start < res.Links[i-1].End) {
				t.Fatalf("bad link range %d %+v of %d (text %d bytes)", i, l, len(res.Links), len(res.Text))
			}
		}
		s := res.Text
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 output %q", s)
		}
		if strings.TrimSpace(s) != s {
			t.Fatalf("leading or trailing whitespace in %q", s)
		}
		if strings.Contains(s, "\n\n\n") {
			t.Fatalf("\\n\\n\\n in %q", s)
		}
	})
}

// benchPages returns the test pages, concatenated size and all.
func benchPages(b *testing.B) [][]byte {
	pages, err := filepath.Glob("testdata/*.html")
	if err != nil || len(pages) == 0 {
		b.Fatal("no test pages", err)
	}
	var bodies [][]byte
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	return bodies
}

func totalSize(pages [][]byte) int64 {
	var n int64
	for _, p := range pages {
		n += int64(len(p))
	}
	return n
}

// BenchmarkExtract measures the whole pipeline (charset detection, decoding,
// tokenizing, text assembly) over the test pages.
func BenchmarkExtract(b *testing.B) {
	pages := benchPages(b)
	b.SetBytes(totalSize(pages))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			if _, err := Extract(p, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkTokenizeOnly is the baseline: a bare x/net/html tokenizer pass
// over the same pages.
func BenchmarkTokenizeOnly(b *testing.B) {
	pages := benchPages(b)
	b.SetBytes(totalSize(pages))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			z := html.NewTokenizer(bytes.NewReader(p))
			for z.Next() != html.ErrorToken {
			}
		}
	}
}

func TestTagAtom(t *testing.T) {
	// tagAtom must agree with Tokenizer.TagName on every tag.
	// So must the cache in front of it, asked twice (miss, then hit).
	src := "<DIV class=x><p/><br/><Svg:x></svg:x><a\nhref=x>x</a ><td\t>" +
		`<averyveryveryverylongelementname><x-y>` + "</PRE\f><articles><article>" +
		"<a\x00><a>< ></>"
	var c atomCache
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt == html.TextToken {
			continue
		}
		got := tagAtom(z.Raw())
		name, _ := z.TagName()
		want := atom.Lookup(name)
		if got != want {
			t.Errorf("tagAtom(%q) = %v; want %v", z.Raw(), got, want)
		}
		for range 2 {
			if got := c.tag(z.Raw()); got != want {
				t.Errorf("atomCache.tag(%q) = %v; want %v", z.Raw(), got, want)
			}
		}
	}
}

// TestLinks: link text (inside <a href>, not <a name>) is reported as byte
// ranges of the text; a space inside one link belongs to it, a block break
// between two links ends the range, and links inside skipped elements are
// not counted; a link within the page counts, but in a heading.
func TestLinks(t *testing.T) {
	tests := []struct {
		page string
		want []string
	}{
		{`<p>See <a href="/x">the manual page</a> for more.</p>`, []string{"the manual page"}},
		{`<ul><li><a href=a>One</a></li><li><a HREF='b'>Two</a></li></ul>`, []string{"One", "Two"}},
		{`<p><a name="top">Anchor</a> text</p>`, nil},
		{`<p><a title="href=x">no</a> <a data-x=1 href = "y">yes</a></p>`, []string{"yes"}},
		{`<p><a href=x>Home</a> <a href=y>Docs</a></p>`, []string{"Home Docs"}},
		{`<a href=x><script>var a</script>in</a> out`, []string{"in"}},
		{`<p>plain</p>`, nil},
		{`<h2><a href="#usage">Usage</a></h2><p><a href='#x'>x</a> <a href= "other.html#x">y</a></p>`, []string{"x y"}},
		{`<h3 id=s>Setup <a class=headerlink href="#s">link</a></h3><ul><li><a href="#s">Setup</a></li></ul>`, []string{"Setup"}},
		{`<a href=>empty</a>`, nil},
	}
	for _, tt := range tests {
		res, err := ExtractUTF8([]byte(tt.page))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range res.Links {
			got = append(got, res.Text[l.Start:l.End])
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: links %q, want %q (text %q)", tt.page, got, tt.want, res.Text)
		}
	}
}

// TestIndexLists: a definition list most of whose terms (at least
// minIndexTerms) begin with a link is an index, and all its text, terms
// and descriptions, is one link range; a glossary (terms not links), a
// list with too few linked terms, and terms with a link later in them are
// not. Terms whose end tag is left out end at the next <dt> or <dd>, and
// an inner list's terms count for the outer one.
func TestIndexLists(t *testing.T) {
	entry := func(name string) string {
		return `<dt><a href="C.html#` + name + `">` + name + `()</a> - Method in class p.<a href="C.html">C</a></dt><dd><div class="block">Does ` + name + `.</div></dd>`
	}
	javadoc := `<h1>Index</h1><dl class="index">` + entry("get") + entry("set") + entry("put") + `</dl><p>After.</p>`
	tests := []struct {
		name, page string
		want       []string
	}{
		{"javadoc index", javadoc, []string{"get() - Method in class p.C\n\nDoes get.\n\nset() - Method in class p.C\n\nDoes set.\n\nput() - Method in class p.C\n\nDoes put."}},
		{"glossary", `<dl><dt>alpha</dt><dd>First, see <a href=b>beta</a>.</dd><dt>beta</dt><dd>Second.</dd><dt>gamma</dt><dd>Third.</dd></dl>`, []string{"beta"}},
		{"two linked terms", `<dl>` + entry("get") + entry("set") + `</dl>`, []string{"get()", "C", "set()", "C"}},
		{"linked terms a minority", `<dl>` + entry("get") + entry("set") + entry("put") + `<dt>a</dt><dt>b</dt><dt>c</dt><dt>d</dt></dl>`, []string{"get()", "C", "set()", "C", "put()", "C"}},
		{"link later in the term", `<dl><dt>x <a href=a>a</a></dt><dt>y <a href=b>b</a></dt><dt>z <a href=c>c</a></dt></dl>`, []string{"a", "b", "c"}},
		{"end tags left out", `<dl><dt><a href=a>a</a> one<dd>A.<dt><a href=b>b</a> two<dd>B.<dt><a href=c>c</a> three<dd>C.</dl>`, []string{"a one\n\nA.\n\nb two\n\nB.\n\nc three\n\nC."}},
		{"an index inside a glossary", `<dl><dt>alpha</dt><dd>First.</dd><dt>beta</dt><dd>Second.</dd><dt>gamma</dt><dd>Third.</dd><dt>delta</dt><dd><dl>` + entry("get") + entry("set") + entry("put") + `</dl></dd></dl>`,
			[]string{"get() - Method in class p.C\n\nDoes get.\n\nset() - Method in class p.C\n\nDoes set.\n\nput() - Method in class p.C\n\nDoes put."}},
		{"an index after an unclosed list", `<dl><dt>alpha</dt><dd>First.<p>Text.</p><dl>` + entry("get") + entry("set") + entry("put") + `</dl><p>More.</p>`,
			[]string{"get() - Method in class p.C\n\nDoes get.\n\nset() - Method in class p.C\n\nDoes set.\n\nput() - Method in class p.C\n\nDoes put."}},
		{"an index left open", `<p>Before.</p><dl>` + entry("get") + entry("set") + entry("put"),
			[]string{"get() - Method in class p.C\n\nDoes get.\n\nset() - Method in class p.C\n\nDoes set.\n\nput() - Method in class p.C\n\nDoes put."}},
		{"nested lists", `<dl><dt>Letter A</dt><dd><dl>` + entry("get") + entry("set") + `</dl></dd><dt>Letter B</dt><dd><dl>` + entry("put") + entry("pop") + `</dl></dd></dl>`,
			[]string{"Letter A\n\nget() - Method in class p.C\n\nDoes get.\n\nset() - Method in class p.C\n\nDoes set.\n\nLetter B\n\nput() - Method in class p.C\n\nDoes put.\n\npop() - Method in class p.C\n\nDoes pop."}},
	}
	for _, tt := range tests {
		if got, text := linkTexts(t, tt.name, tt.page); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: links %q, want %q (text %q)", tt.name, got, tt.want, text)
		}
	}
}

// linkTexts extracts page and returns the texts of its link ranges, which
// must not overlap, and its text.
func linkTexts(t *testing.T, name, page string) ([]string, string) {
	t.Helper()
	res, err := ExtractUTF8([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, l := range res.Links {
		if i > 0 && l.Start < res.Links[i-1].End {
			t.Errorf("%s: link ranges overlap: %+v", name, res.Links)
		}
		got = append(got, res.Text[l.Start:l.End])
	}
	return got, res.Text
}
