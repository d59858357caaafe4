package sentence

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// texts returns the sentences of text as strings.
func texts(text string, spans []Span) []string {
	var out []string
	for _, sp := range spans {
		out = append(out, text[sp.ByteStart:sp.ByteEnd])
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"whitespace", " \n\n \t\n ", nil},
		{"one", "Hello world", []string{"Hello world"}},
		{"trimmed", "  Hello world.  ", []string{"Hello world."}},
		{"basic", "One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"runs", "Really?! Yes... Fine!!! Ok", []string{"Really?!", "Yes...", "Fine!!!", "Ok"}},
		{"closing quotes", `He said "Stop." Then he left. (Really.) [Yes!] 'No.' Done`,
			[]string{`He said "Stop."`, "Then he left.", "(Really.)", "[Yes!]", "'No.'", "Done"}},
		{"curly quotes", "He said “Stop.” Then ‘no.’ Done", []string{"He said “Stop.”", "Then ‘no.’", "Done"}},
		{"quote then lowercase", "“Help!” she cried. Then", []string{"“Help!” she cried.", "Then"}},
		{"lowercase continues", "It was 5 p.m. and late. The end", []string{"It was 5 p.m. and late.", "The end"}},
		{"titles", "Mr. Smith met Mrs. Jones and Dr. Who. Prof. X and St. Paul left.",
			[]string{"Mr. Smith met Mrs. Jones and Dr. Who.", "Prof. X and St. Paul left."}},
		{"suffixes", "John Smith Jr. Was there. Sr. Ana too.", []string{"John Smith Jr. Was there.", "Sr. Ana too."}},
		{"vs etc", "Cats vs. Dogs etc. Were compared. Ok", []string{"Cats vs. Dogs etc. Were compared.", "Ok"}},
		{"eg ie", "Fruit, e.g. Apples. Also i.e. Pears. End", []string{"Fruit, e.g. Apples.", "Also i.e. Pears.", "End"}},
		{"us", "The U.S. Army won. Then", []string{"The U.S. Army won.", "Then"}},
		{"no", "See No. 5 and Fig. 3 on p. 7. I said no. Then", []string{"See No. 5 and Fig. 3 on p. 7.", "I said no.", "Then"}},
		{"companies", "Acme Inc. And Foo Ltd. And Bar Co. Merged. Ok", []string{"Acme Inc. And Foo Ltd. And Bar Co. Merged.", "Ok"}},
		{"months", "On Jan. 5 and Feb. 6 and Sept. 7 it rained. Ok", []string{"On Jan. 5 and Feb. 6 and Sept. 7 it rained.", "Ok"}},
		{"initials", "J. R. R. Tolkien wrote. A. Smith too.", []string{"J. R. R. Tolkien wrote.", "A. Smith too."}},
		{"pronoun I", "So did I. Then we left.", []string{"So did I.", "Then we left."}},
		{"paren abbrev", "He (Dr. Who) came. Ok", []string{"He (Dr. Who) came.", "Ok"}},
		{"decimal", "Pi is 3.14 today. Ok", []string{"Pi is 3.14 today.", "Ok"}},
		{"urls", "Visit www.example.org/a.b?x=1. Mail a.b@x.com now. Ok",
			[]string{"Visit www.example.org/a.b?x=1.", "Mail a.b@x.com now.", "Ok"}},
		{"url end", "See example.com. Next", []string{"See example.com.", "Next"}},
		{"version", "Go v1.2.3 is out. Ok", []string{"Go v1.2.3 is out.", "Ok"}},
		{"no space", "end.Next one", []string{"end.Next one"}},
		{"ellipsis lowercase", "I was... thinking. Ok… and then… Fine", []string{"I was... thinking.", "Ok… and then…", "Fine"}},
		{"ellipsis upper", "Wait... What? So…anyway", []string{"Wait...", "What?", "So…anyway"}},
		{"digit after", "It ended in 2010. 2011 was better.", []string{"It ended in 2010.", "2011 was better."}},
		{"single newline", "one line\nnext line. Two", []string{"one line\nnext line.", "Two"}},
		{"blank line", "Title\n\nBody text here", []string{"Title", "Body text here"}},
		{"blank line spaces", "Title \n \t \nBody", []string{"Title", "Body"}},
		{"crlf blank line", "a\r\n\r\nb\r\nc", []string{"a", "b\r\nc"}},
		{"cr blank line", "a\r\rb", []string{"a", "b"}},
		{"paragraph separator", "a\u2029b", []string{"a", "b"}},
		{"blank line beats abbrev", "Mr.\n\nSmith", []string{"Mr.", "Smith"}},
		{"chinese", "我们去公园。天气很好！你去吗？好的；走吧",
			[]string{"我们去公园。", "天气很好！", "你去吗？", "好的；", "走吧"}},
		{"chinese quotes", "他说：“我们走吧。”然后走了。「好。」『行！』（完。）结束",
			[]string{"他说：“我们走吧。”", "然后走了。", "「好。」", "『行！』", "（完。）", "结束"}},
		{"chinese ellipsis", "他想了想……然后走了……。好", []string{"他想了想……", "然后走了……。", "好"}},
		{"chinese ascii punctuation", "你好!我是谁?他.她. Next", []string{"你好!", "我是谁?", "他.", "她.", "Next"}},
		{"chinese ascii dot after a quote", "请参阅 “系统升级”.一个守护进程", []string{"请参阅 “系统升级”.", "一个守护进程"}},
		{"ascii dot after a latin quote before chinese", `He said "no".他`, []string{`He said "no".他`}},
		{"chinese with spaces", "第一句。 第二句。\n第三句", []string{"第一句。", "第二句。", "第三句"}},
		{"japanese", "今日は晴れです。明日は雨でしょう｡本当？", []string{"今日は晴れです。", "明日は雨でしょう｡", "本当？"}},
		{"mixed", "We use Go语言。It is fast. 很快！Yes", []string{"We use Go语言。", "It is fast.", "很快！", "Yes"}},
		{"full-width dot not terminator", "版本３．１４发布", []string{"版本３．１４发布"}},
		{"terminator only", "...", []string{"..."}},
		{"leading terminators", ". . . Hi", []string{".", ".", ".", "Hi"}},
		{"invalid utf8", "a\xff. B\xfe", []string{"a\xff.", "B\xfe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := Split(nil, tt.in)
			got := texts(tt.in, spans)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Split(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			checkSpans(t, tt.in, spans)
		})
	}
}

func TestSplitAppends(t *testing.T) {
	dst := []Span{{Start: -1}}
	got := Split(dst, "One. Two.")
	if len(got) != 3 || got[0].Start != -1 || got[2] != (Span{Start: 5, End: 9, ByteStart: 5, ByteEnd: 9}) {
		t.Errorf("Split appended %v", got)
	}
}

// checkSpans checks the invariants of Split's result.
func checkSpans(t *testing.T, text string, spans []Span) {
	t.Helper()
	prevEnd, prevByteEnd := 0, 0
	for k, sp := range spans {
		if sp.ByteStart < prevByteEnd || sp.Start < prevEnd || sp.ByteStart >= sp.ByteEnd || sp.Start >= sp.End || sp.ByteEnd > len(text) {
			t.Fatalf("span %d %+v out of order or empty (previous ends %d/%d, len %d)", k, sp, prevEnd, prevByteEnd, len(text))
		}
		if n := utf8.RuneCountInString(text[:sp.ByteStart]); n != sp.Start {
			t.Fatalf("span %d %+v: %d runes before ByteStart", k, sp, n)
		}
		if n := utf8.RuneCountInString(text[sp.ByteStart:sp.ByteEnd]); n != sp.End-sp.Start {
			t.Fatalf("span %d %+v: %d runes inside", k, sp, n)
		}
		s := text[sp.ByteStart:sp.ByteEnd]
		if strings.TrimFunc(s, unicode.IsSpace) != s {
			t.Fatalf("span %d %q not trimmed", k, s)
		}
		prevEnd, prevByteEnd = sp.End, sp.ByteEnd
	}
	// Everything between sentences is whitespace.
	covered := 0
	for _, sp := range spans {
		if gap := text[covered:sp.ByteStart]; strings.TrimFunc(gap, unicode.IsSpace) != "" {
			t.Fatalf("text %q between sentences dropped", gap)
		}
		covered = sp.ByteEnd
	}
	if gap := text[covered:]; strings.TrimFunc(gap, unicode.IsSpace) != "" {
		t.Fatalf("trailing text %q dropped", gap)
	}
}

func TestSplitGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(inputs) == 0 {
		t.Fatal("no inputs in testdata", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			text, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			spans := Split(nil, string(text))
			checkSpans(t, string(text), spans)
			var b strings.Builder
			for _, s := range texts(string(text), spans) {
				b.WriteString(strings.ReplaceAll(s, "\n", `\n`))
				b.WriteByte('\n')
			}
			golden := strings.TrimSuffix(in, ".txt") + ".sentences"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("sentences differ from %s (rerun with -update and review the diff)", golden)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"Mr. Smith. Hi!", "我们。“好。”", "a\n \nb", "x... y… Z", "U.S. v1.2. 3.14"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkSpans(t, text, Split(nil, text))
	})
}

func TestSplitLowercaseAfterFullStop(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"The benefit of all. we are determined to go on.", 2},
		{"It was fine, e.g. not bad at all.", 1},
		{"I was... thinking of you.", 1},
		{"“Stop!” she said and left.", 1},
		{"See version 3. then continue.", 1},
		{"Call Mr. smith tomorrow.", 1},
	}
	for _, tt := range tests {
		if got := Split(nil, tt.text); len(got) != tt.want {
			t.Errorf("Split(%q) = %d sentences, want %d", tt.text, len(got), tt.want)
		}
	}
}
