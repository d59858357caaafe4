//go:build !nomainextract

package htmltext

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// mainGolden returns the golden file of ExtractMain for page.html.
func mainGolden(page string) string {
	return strings.TrimSuffix(page, ".html") + ".main.txt"
}

func TestExtractMainGolden(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatal("no test pages in testdata", err)
	}
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			body, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			res, err := ExtractMain(body, "", "")
			if err != nil {
				t.Fatal(err)
			}
			checkShape(t, res.Text)
			if res.Charset != "utf-8" || res.InvalidUTF8 != 0 || res.Fallback {
				t.Errorf("charset %q, %d invalid, fallback %v; want utf-8, 0, false", res.Charset, res.InvalidUTF8, res.Fallback)
			}
			checkGolden(t, mainGolden(page), res.Text)
		})
	}
}

// TestExtractMainBoilerplate checks, on real pages, that text Extract finds
// in navigation, headers and footers is gone from ExtractMain's output while
// the article body is kept.
func TestExtractMainBoilerplate(t *testing.T) {
	tests := []struct {
		page        string
		article     []string // in both outputs
		boilerplate []string // in Extract's output only
	}{
		{
			page: "ars-1.html",
			article: []string{
				"A flaw in the wildly popular online game Minecraft makes it easy",
				"Ars is asking Mojang for comment and will update this post if company officials respond.",
			},
			boilerplate: []string{"Skip to main content", "Staff Directory", "Sign up or login to join the discussions!",
				"Join the Ars Orbital Transmission mailing list", "© 2020 Condé Nast"},
		},
		{
			page: "daringfireball-1.html",
			article: []string{
				"Daring Fireball is written and produced by John Gruber.",
				"please do let me know.",
			},
			boilerplate: []string{"The Talk Show", "Copyright © 2002–2015 The Daring Fireball Company LLC.", "Ads via The Deck"},
		},
		{
			page:        "hukumusume.html",
			article:     []string{"肉をくわえたイヌが、橋を渡っていました。", "おしまい"},
			boilerplate: []string{"きょうの誕生花", "子どもの病気相談所", "世界60秒巡り"},
		},
		{
			page: "v8-blog.html",
			article: []string{
				"Emscripten has always focused first and foremost on compiling to the Web",
				"\n\n#include <emscripten.h>\n\nEMSCRIPTEN_KEEPALIVE\n\n", // a code block, one line per block
				"Please file bugs, and as always help is welcome!",
			},
			boilerplate: []string{"Show navigation", "Branding · Terms · Privacy",
				"Except as otherwise noted, any code samples from the V8 project"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", tt.page))
			if err != nil {
				t.Fatal(err)
			}
			all, err := Extract(body, "")
			if err != nil {
				t.Fatal(err)
			}
			main, err := ExtractMain(body, "", "")
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.article {
				if !strings.Contains(all.Text, s) || !strings.Contains(main.Text, s) {
					t.Errorf("article text %q: in Extract %v, in ExtractMain %v; want both", s,
						strings.Contains(all.Text, s), strings.Contains(main.Text, s))
				}
			}
			for _, s := range tt.boilerplate {
				if !strings.Contains(all.Text, s) {
					t.Errorf("boilerplate %q missing from Extract's text: bad test", s)
				}
				if strings.Contains(main.Text, s) {
					t.Errorf("boilerplate %q in ExtractMain's text", s)
				}
			}
			if len(main.Text) >= len(all.Text) {
				t.Errorf("ExtractMain kept %d bytes of Extract's %d", len(main.Text), len(all.Text))
			}
		})
	}
}

// article is a small page with navigation, an article and a footer.
const article = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Notes</title></head><body>
<header><nav><ul><li><a href="/">Home</a></li><li><a href="/blog">Blog</a></li><li><a href="/about">About us</a></li></ul></nav></header>
<main><article><h1>On partial duplicates</h1>
<p>Partial duplicates are pages that share some passages but not all of their text. They arise when news agencies syndicate stories, when documentation is mirrored, and when forums quote earlier posts.</p>
<p>A detector splits every page into sentences, computes a signature for each sentence and looks for runs of shared signatures between pairs of documents.</p>
<pre><code>for each sentence s:
    emit signature(s)</code></pre>
<p>Runs that are long enough are reported as spans, with character offsets into both documents.</p>
</article></main>
<footer><p>Copyright 2024 Example Press. All rights reserved.</p></footer>
</body></html>`

func TestExtractMainArticle(t *testing.T) {
	res, err := ExtractMain([]byte(article), "", "https://example.org/notes")
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, res.Text)
	if res.Fallback {
		t.Error("fell back on a page with an article")
	}
	for _, s := range []string{
		"On partial duplicates\n\nPartial duplicates are pages",
		"pairs of documents.\n\nfor each sentence s:\n\nemit signature(s)\n\nRuns that are long enough",
	} {
		if !strings.Contains(res.Text, s) {
			t.Errorf("missing %q in %q", s, res.Text)
		}
	}
	for _, s := range []string{"About us", "Copyright 2024"} {
		if strings.Contains(res.Text, s) {
			t.Errorf("boilerplate %q in %q", s, res.Text)
		}
	}
}

func TestExtractMainFallback(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		fallback bool
	}{
		{"empty", "", true},
		{"whitespace", " \n<p> </p>", true},
		{"navigation only", `<html><body><nav><ul><li><a href="/">Home</a><li><a href="/docs">Docs</a></ul></nav><footer>© 2024 Example</footer></body></html>`, true},
		{"button only", "<html><body><button>Click me</button></body></html>", true},
		{"invalid utf-8 navigation", "<meta charset=utf-8><nav><a href=/>caf\xff menu</a></nav>", true},
		{"one paragraph", "<p>hi</p>", false},
		{"article", article, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main, err := ExtractMain([]byte(tt.in), "", "")
			if err != nil {
				t.Fatal(err)
			}
			all, err := Extract([]byte(tt.in), "")
			if err != nil {
				t.Fatal(err)
			}
			checkShape(t, main.Text)
			if main.Fallback != tt.fallback {
				t.Errorf("Fallback = %v; want %v (text %q)", main.Fallback, tt.fallback, main.Text)
			}
			if main.Fallback && main.Text != all.Text {
				t.Errorf("fallback text %q; want Extract's %q", main.Text, all.Text)
			}
			if main.Charset != all.Charset || main.InvalidUTF8 != all.InvalidUTF8 {
				t.Errorf("charset %q, %d invalid; Extract says %q, %d", main.Charset, main.InvalidUTF8, all.Charset, all.InvalidUTF8)
			}
			if all.Fallback {
				t.Error("Extract set Fallback")
			}
		})
	}
}

func TestExtractMainGBK(t *testing.T) {
	paras := []string{
		zhHans,
		"网页正文抽取只保留文章本身的文字，去掉导航栏、页眉、页脚和评论区。这样得到的句子更少，但每一句都属于正文。",
		"对于新闻网站来说，同一篇报道经常被多家网站转载，转载时页面的导航和广告各不相同，而正文基本一致。",
	}
	page := `<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>检测</title></head><body>` +
		`<div class="nav"><a href="/">首页</a> | <a href="/news">新闻中心</a> | <a href="/about">关于我们</a></div>` +
		"<article><h1>部分重复检测</h1><p>" + strings.Join(paras, "</p><p>") + "</p></article>" +
		`<div class="footer">版权所有 示例公司</div></body></html>`
	body := encode(t, simplifiedchinese.GBK, page)
	for _, ct := range []string{"", "text/html; charset=GBK"} {
		res, err := ExtractMain(body, ct, "")
		if err != nil {
			t.Fatal(err)
		}
		checkShape(t, res.Text)
		if res.Charset != "gbk" || res.InvalidUTF8 != 0 || res.Fallback {
			t.Errorf("content type %q: charset %q, %d invalid, fallback %v; want gbk, 0, false", ct, res.Charset, res.InvalidUTF8, res.Fallback)
		}
		if want := "部分重复检测\n\n" + strings.Join(paras, "\n\n"); !strings.Contains(res.Text, want) {
			t.Errorf("content type %q: got %q\nwant it to contain %q", ct, res.Text, want)
		}
		if strings.Contains(res.Text, "关于我们") || strings.Contains(res.Text, "版权所有") {
			t.Errorf("content type %q: navigation or footer in %q", ct, res.Text)
		}
	}
}

// TestNodeText checks the conversion of the library's tree to Extract's
// format on hand-made trees.
func TestNodeText(t *testing.T) {
	tests := []struct {
		name, in, want string
		rename         string // if set, every <span> is renamed to this
	}{
		{name: "paragraphs", in: "<p>a</p><p>b\n c</p>", want: "a\n\nb c"},
		{name: "inline code", in: "<p>use <code>x()</code> here</p>", want: "use x() here"},
		{name: "code block", in: "<p>x</p><code>a\n  b\n\n\nc</code>after", want: "x\n\na\n\nb\n\nc\n\nafter"},
		{name: "nested code block", in: "<code><code>a</code>\nb</code>", want: "a\n\nb"},
		{name: "code with br", in: "<code>a<br>b</code>", want: "a\n\nb"},
		{name: "pre", in: "<pre>a\nb</pre>", want: "a\n\nb"},
		{name: "br", in: "one<br>two", want: "one\n\ntwo"},
		{name: "list", in: "<ul><li>a<li>b</ul>", want: "a\n\nb"},
		{name: "table", in: "<table><tr><th>h<td>a<td>b</table>", want: "h\n\na\n\nb"},
		{name: "headings", in: "<h2>T</h2>x<h3>U</h3>", want: "T\n\nx\n\nU"},
		{name: "skipped", in: "<script>s</script><style>t</style><select><option>o</select>z", want: "z"},
		{name: "comment", in: "a<!-- c -->b", want: "a b"},
		{name: "trimmed gaps", in: "<p>Raises<code>ValueError</code>if<em>n</em>is bad.<b>Next</b>(like<code>5.0</code>) is f(x)<i>y</i></p>",
			want: "Raises ValueError if n is bad. Next(like 5.0) is f(x) y"},
		{name: "no gap in code", in: "<p>a<code><span>x</span>.<span>y</span></code></p>", want: "a x.y"},
		{name: "no gap in cjk", in: "<p>中文<b>文本</b>を<i>読む</i>문서<b>를</b></p>", want: "中文文本を読む문서를"},
		{name: "flattened list item", in: "<dl><dd><p>Return</p><em>n</em>factorial.<p>More.</p></dd></dl>", want: "Return n factorial.\n\nMore."},
		{name: "paragraph then text", in: "<div><p>Title</p>text</div>", want: "Title\n\ntext"},
		{name: "list item code block", in: "<li><p>Run</p><code>a\nb</code></li>", want: "Run\n\na\n\nb"},
		{name: "whitespace", in: "  a \t\u00a0 b  ", want: "a b"},
		{name: "controls", in: "a\x01b\u0085c", want: "ab c"},
		{name: "renamed to block", in: "<span>a</span><span>b</span>", rename: "p", want: "a\n\nb"},
		{name: "renamed to unknown", in: "<p><span>a</span><span>b</span></p>", rename: "done", want: "a b"},
		{name: "renamed upper case", in: "<span>a</span><span>b</span>", rename: "LI", want: "a\n\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if tt.rename != "" {
				rename(doc, "span", tt.rename)
			}
			got := nodeText(doc)
			if got != tt.want {
				t.Errorf("nodeText(%q) = %q; want %q", tt.in, got, tt.want)
			}
			checkShape(t, got)
		})
	}
}

// rename renames the elements called from to to, keeping their DataAtom, as
// the extraction library does.
func rename(n *html.Node, from, to string) {
	if n.Type == html.ElementNode && n.Data == from {
		n.Data = to
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		rename(c, from, to)
	}
}

// TestExtractMainConcurrent checks that concurrent calls give the same
// results as sequential ones (run with -race).
func TestExtractMainConcurrent(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatal("no test pages in testdata", err)
	}
	bodies := make([][]byte, len(pages))
	want := make([]string, len(pages))
	for i, p := range pages {
		if bodies[i], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		res, err := ExtractMain(bodies[i], "", "")
		if err != nil {
			t.Fatal(err)
		}
		want[i] = res.Text
	}
	var wg sync.WaitGroup
	got := make([]string, 2*len(pages))
	for i := range got {
		wg.Go(func() {
			res, err := ExtractMain(bodies[i%len(pages)], "", "")
			if err == nil {
				got[i] = res.Text
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != want[i%len(pages)] {
			t.Errorf("%s: concurrent result differs", pages[i%len(pages)])
		}
	}
}

// fuzzHang is how long one ExtractMain call on a fuzz input may take.
const fuzzHang = 20 * time.Second

func FuzzExtractMain(f *testing.F) {
	f.Add([]byte("<p>a &amp; b</p><br>c<script>x</script>"), "", "")
	f.Add([]byte("<meta charset=gbk><article><p>\xd6\xd0\xce\xc4</p></article>"), "", "http://example.org/")
	f.Add([]byte("<nav><a href=/>x</a></nav><pre><code>a\n\n b</code></pre><svg><p>x"), "text/html; charset=big5", "")
	f.Add([]byte("\xff\xfe<\x00p\x00>\x00"), "", "::")
	f.Add([]byte(article), "", "https://example.org/a")
	f.Fuzz(func(t *testing.T, body []byte, contentType, pageURL string) {
		// The fuzzer does not detect hangs: crash the worker so that it
		// records the input.
		timer := time.AfterFunc(fuzzHang, func() { panic(fmt.Sprintf("ExtractMain hangs on %q, %q, %q", body, contentType, pageURL)) })
		res, err := ExtractMain(body, contentType, pageURL)
		timer.Stop()
		if err != nil {
			return
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
		all, err := Extract(body, contentType)
		if err != nil {
			t.Fatalf("ExtractMain succeeded, Extract failed: %v", err)
		}
		if res.Charset != all.Charset || res.InvalidUTF8 != all.InvalidUTF8 {
			t.Fatalf("charset %q, %d invalid; Extract says %q, %d", res.Charset, res.InvalidUTF8, all.Charset, all.InvalidUTF8)
		}
		if res.Fallback && s != all.Text {
			t.Fatalf("fallback text %q differs from Extract's %q", s, all.Text)
		}
	})
}

// BenchmarkExtractMain measures main-content extraction over the same pages
// as BenchmarkExtract.
func BenchmarkExtractMain(b *testing.B) {
	pages := benchPages(b)
	b.SetBytes(totalSize(pages))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			if _, err := ExtractMain(p, "", ""); err != nil {
				b.Fatal(err)
			}
		}
	}
}
