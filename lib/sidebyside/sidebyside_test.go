package sidebyside

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/span"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"abc", 3},
		{"中文", 4},
		{"ＡＢ", 4},        // fullwidth
		{"e\u0301", 1},   // combining acute
		{"a\u200bb", 2},  // zero width space
		{"한국어 text", 11}, // Hangul syllables are wide
		{"ｶﾀｶﾅ", 4},      // halfwidth katakana
	} {
		if got := Width(tc.s); got != tc.want {
			t.Errorf("Width(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// analyzed returns the Doc of text with its sentences, as pdc show builds
// it.
func analyzed(t *testing.T, id, text string) Doc {
	t.Helper()
	var an doc.Analyzer
	a, err := an.Analyze(&doc.Doc{ID: id, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	var tok sentence.Tokenizer
	return Doc{ID: id, Text: strings.Clone(a.Text), Sentences: dedup.Sentences(a, &tok, 3)}
}

// spanOf is the span of the first occurrence of pa in a and pb in b.
func spanOf(a, b Doc, pa, pb string, length int) span.Span {
	at := func(d Doc, p string) (int, int) {
		i := len([]rune(d.Text[:strings.Index(d.Text, p)]))
		return i, i + len([]rune(p))
	}
	sa, ea := at(a, pa)
	sb, eb := at(b, pb)
	return span.Span{DocA: a.ID, DocB: b.ID, Length: length, CharStartA: sa, CharEndA: ea, CharStartB: sb, CharEndB: eb, Score: 0.9}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// checkColumns fails when a line of plain output puts the mark column
// anywhere but at the middle: the two columns line up whatever the
// characters' widths.
func checkColumns(t *testing.T, out string, width int) {
	t.Helper()
	col := (width - 3) / 2
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if Width(l) > width {
			t.Errorf("line %q is %d columns wide, over %d", l, Width(l), width)
		}
		if i < 2 || strings.HasPrefix(l, "──") || !strings.ContainsAny(l, "=~") {
			continue
		}
		left := []rune(l)
		w, i := 0, 0
		for ; i < len(left) && w < col; i++ {
			w += RuneWidth(left[i])
		}
		if w != col || i+2 > len(left) || left[i] != ' ' || !strings.ContainsRune("=~ ", left[i+1]) {
			t.Errorf("line %q: the mark is not at column %d", l, col)
		}
	}
}

func TestRenderEnglish(t *testing.T) {
	shared := "The mode argument can be any of r, rb, w or wb for binary mode. The default is rb for every file object here. A file object may be given instead of a file name to read from."
	a := analyzed(t, "a.html", "Intro of the first page only, with words of its own here. "+shared+" The first page ends on text of its own that stays.")
	edited := strings.Replace(shared, "The default is rb", "The default mode is rb", 1)
	b := analyzed(t, "b.html", "The second page starts with other words entirely, several sentences of them. Another sentence of its own before the passage. "+edited+" And its own end.")
	var out bytes.Buffer
	if err := Render(&out, a, b, []span.Span{spanOf(a, b, shared, edited, 3)}, Options{Width: 80}); err != nil {
		t.Fatal(err)
	}
	golden(t, "english.txt", out.String())
	checkColumns(t, out.String(), 80)
	if !strings.Contains(out.String(), "{mode}") {
		t.Error("the word the edit added is not marked")
	}
}

func TestRenderChinese(t *testing.T) {
	shared := "国务院新闻办公室今天举行新闻发布会。会议介绍了今年前三季度的经济运行情况。专家认为经济总体保持稳定增长。"
	edited := "国务院新闻办公室今天举行新闻发布会。会议介绍了今年前三个季度的经济运行情况。专家认为经济总体保持稳定增长。"
	a := analyzed(t, "甲", "这是第一篇文章自己的开头部分。"+shared+"文章的结尾。")
	b := analyzed(t, "乙", "第二篇文章有不同的开头和内容。"+edited)
	var out bytes.Buffer
	if err := Render(&out, a, b, []span.Span{spanOf(a, b, shared, edited, 3)}, Options{Width: 60}); err != nil {
		t.Fatal(err)
	}
	golden(t, "chinese.txt", out.String())
	checkColumns(t, out.String(), 60)
}

func TestRenderSpanAndColor(t *testing.T) {
	var sents []string
	for i := range 12 {
		sents = append(sents, "Sentence number "+strings.Repeat("x", i+1)+" of the shared passage goes here.")
	}
	shared1, shared2 := strings.Join(sents[:4], " "), strings.Join(sents[8:], " ")
	text := "Own words first of all in this page. " + strings.Join(sents, " ")
	a := analyzed(t, "a", text)
	b := analyzed(t, "b", "Other words first in the second page. "+strings.Join(sents, " "))
	spans := []span.Span{spanOf(a, b, shared1, shared1, 4), spanOf(a, b, shared2, shared2, 4)}
	var out bytes.Buffer
	if err := Render(&out, a, b, spans, Options{Width: 100, Span: 2, Context: 1, Color: true}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.Contains(s, "span 1 of 2") || !strings.Contains(s, "span 2 of 2") {
		t.Errorf("--span 2 shows other spans:\n%s", s)
	}
	if !strings.Contains(s, "\x1b[") || strings.Contains(s, "{") {
		t.Errorf("colour output without escapes or with plain marks:\n%s", s)
	}
	if !strings.Contains(s, "... 8 sentences") || strings.Count(s, "Sentence number xxxxxxxx of") != 2 || strings.Count(s, "Sentence number x of") != 0 {
		t.Errorf("the stretch before the span and its context are not folded as expected:\n%s", s)
	}
	if err := Render(&out, a, b, spans, Options{Width: 100, Span: 3}); err == nil {
		t.Error("span 3 of 2 is no error")
	}
	if err := Render(&out, a, b, spans, Options{Width: 20}); err == nil {
		t.Error("width 20 is no error")
	}
	other := spans[0]
	other.DocB = "c"
	if err := Render(&out, a, b, []span.Span{other}, Options{Width: 100}); err == nil {
		t.Error("a span of another pair is no error")
	}
}

// TestRenderControl: control characters of a page (an escape sequence
// would clear or recolour the terminal) are shown as U+FFFD.
func TestRenderControl(t *testing.T) {
	shared := "The shared sentence number one is here. The shared sentence two follows it. And a third shared sentence ends it."
	a := analyzed(t, "a", "Page a opens with \x1b[2J\x1b[31m escape codes in it. "+shared)
	b := analyzed(t, "b", shared)
	var out bytes.Buffer
	if err := Render(&out, a, b, []span.Span{spanOf(a, b, shared, shared, 3)}, Options{Width: 80, Span: 1, Context: 1}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(out.String(), '\x1b') || !strings.ContainsRune(out.String(), '\uFFFD') {
		t.Errorf("control characters reach the output:\n%q", out.String())
	}
	checkColumns(t, out.String(), 80)
}

// TestRenderMarksBesideBraces: plain marks take delimiters the sentences
// shown do not hold, so that code's own braces are not taken for marks;
// the legend names them.
func TestRenderMarksBesideBraces(t *testing.T) {
	tests := []struct {
		name, extraA, extraB string
		open, close          string
	}{
		{"no brackets", "", "", "{", "}"},
		{"braces", " {", " }", "[", "]"},
		{"braces and brackets", " {[", " ]}", "<", ">"},
		{"every pair", " {[<«", " »>]}", "{", "}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pa := "The struct holds a point in the plane today" + tt.extraA + ". The second sentence of the copied passage is here now. A third sentence closes the passage with plain words in it."
			pb := "The struct keeps a point in the plane today" + tt.extraB + ". The second sentence of the copied passage is here now. A third sentence closes the passage with plain words in it."
			a := analyzed(t, "a", pa+" Own words of a at the end.")
			b := analyzed(t, "b", pb+" Own words of b at the end.")
			var out bytes.Buffer
			if err := Render(&out, a, b, []span.Span{spanOf(a, b, pa, pb, 3)}, Options{Width: 120}); err != nil {
				t.Fatal(err)
			}
			s := out.String()
			if legend := tt.open + "x" + tt.close + ": x not in the other"; !strings.Contains(s, legend) {
				t.Errorf("no legend %q:\n%s", legend, s)
			}
			if !strings.Contains(s, tt.open+"holds"+tt.close) || !strings.Contains(s, tt.open+"keeps"+tt.close) {
				t.Errorf("holds and keeps not marked with %s%s:\n%s", tt.open, tt.close, s)
			}
		})
	}
}
