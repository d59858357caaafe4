package sentence

import (
	"hash/fnv"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"punctuation only", " ,.;!? -- ", nil},
		{"ascii", "Hello, World! It's 2024.", []string{"hello", "world", "it's", "2024"}},
		{"apostrophes", "don't don’t rock 'n' roll students' 'quoted'", []string{"don't", "don't", "rock", "n", "roll", "students", "quoted"}},
		{"hyphen and decimal", "well-known 3.14 snake_case", []string{"well", "known", "3", "14", "snake", "case"}},
		{"unicode case", "Ünïcödé ÉCOLE Straße STRASSE ΣΊΣΥΦΟΣ σίσυφος", []string{"ünïcödé", "école", "strasse", "strasse", "σίσυφοσ", "σίσυφοσ"}},
		{"nfkc", "ＡＢＣ １２３ ﬁne ①", []string{"abc", "123", "fine", "1"}},
		{"combining marks", "e\u0301te\u0301 café", []string{"été", "café"}},
		{"dotted I", "İstanbul ıi", []string{"istanbul", "ii"}},
		{"chinese", "我们去公园。", []string{"我", "们", "去", "公", "园"}},
		{"japanese", "カタカナとひらがな、漢字。ラーメン", []string{"カ", "タ", "カ", "ナ", "と", "ひ", "ら", "が", "な", "漢", "字", "ラ", "ー", "メ", "ン"}},
		{"halfwidth katakana", "ｶﾀｶﾅ", []string{"カ", "タ", "カ", "ナ"}},
		{"korean", "한국어 문장", []string{"한", "국", "어", "문", "장"}},
		{"mixed", "Go语言v1.2很快", []string{"go", "语", "言", "v1", "2", "很", "快"}},
		{"apostrophe before cjk", "a'中", []string{"a", "中"}},
		{"compat han", "㍿", []string{"株", "式", "会", "社"}},
		{"devanagari", "नमस्ते दुनिया", []string{"नमस्ते", "दुनिया"}},
		{"symbols dropped", "a+b=c € $5 © ™ 😀 x", []string{"a", "b", "c", "5", "tm", "x"}},
		{"invalid utf8", "ab\xffcd", []string{"ab", "cd"}},
	}
	var tok Tokenizer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tok.Tokens(nil, tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			hashes := tok.Hashes(nil, tt.in)
			if len(hashes) != len(got) {
				t.Fatalf("%d hashes for %d tokens", len(hashes), len(got))
			}
			for k, h := range hashes {
				if h != Hash(got[k]) {
					t.Errorf("hash of %q = %x; want %x", got[k], h, Hash(got[k]))
				}
			}
		})
	}
}

func TestHash(t *testing.T) {
	// Fixed values guard against accidental changes: hashes are stored.
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"hello", 0xa430d84680aabd0b},
	}
	for _, tt := range tests {
		if got := Hash(tt.in); got != tt.want {
			t.Errorf("Hash(%q) = %#x; want %#x", tt.in, got, tt.want)
		}
		h := fnv.New64a()
		h.Write([]byte(tt.in))
		if got := Hash(tt.in); got != h.Sum64() {
			t.Errorf("Hash(%q) = %#x; hash/fnv says %#x", tt.in, got, h.Sum64())
		}
	}
}

func TestTokensCaseInsensitive(t *testing.T) {
	var tok Tokenizer
	for _, s := range []string{"Hello World", "Ωμέγα Σίσυφος", "Grüße aus Köln", "ΆΈΉ"} {
		lower := tok.Hashes(nil, strings.ToLower(s))
		upper := tok.Hashes(nil, strings.ToUpper(s))
		if !slices.Equal(lower, upper) {
			t.Errorf("%q: lower and upper case hash differently", s)
		}
	}
}

func TestHashesNoAllocs(t *testing.T) {
	var tok Tokenizer
	dst := make([]uint64, 0, 64)
	for _, s := range []string{"The quick brown fox's jumps. Over it!", "我们去公园。Ünïcödé “quotes”"} {
		tok.Hashes(dst, s) // warm the buffers
		if n := testing.AllocsPerRun(100, func() { dst = tok.Hashes(dst[:0], s) }); n != 0 {
			t.Errorf("Hashes(%q): %v allocations per run", s, n)
		}
	}
}

// benchText returns the English sample text.
func benchText(b *testing.B, name string) string {
	text, err := os.ReadFile("testdata/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return string(text)
}

func BenchmarkSplit(b *testing.B) {
	text := benchText(b, "v8-blog.txt") + "\n\n" + benchText(b, "ars-1.txt")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	spans := Split(nil, text)
	for b.Loop() {
		spans = Split(spans[:0], text)
	}
}

// BenchmarkSplitHashes is the parse step's work per page: split the
// extracted text, then hash the tokens of every sentence.
func BenchmarkSplitHashes(b *testing.B) {
	for _, name := range []string{"en", "ja"} {
		b.Run(name, func(b *testing.B) {
			text := benchText(b, "v8-blog.txt") + "\n\n" + benchText(b, "ars-1.txt")
			if name == "ja" {
				text = benchText(b, "hukumusume.txt")
			}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var tok Tokenizer
			spans := Split(nil, text)
			hashes := make([]uint64, 0, 1024)
			for b.Loop() {
				spans = Split(spans[:0], text)
				for _, sp := range spans {
					hashes = tok.Hashes(hashes[:0], text[sp.ByteStart:sp.ByteEnd])
				}
			}
		})
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Don't STOP", "我们。ＡＢＣ ﬁ ①", "e\u0301\u0323x Straße", "a'b' 'c", "\xff\xfeab"} {
		f.Add(s)
	}
	var tok Tokenizer
	f.Fuzz(func(t *testing.T, s string) {
		tok.normalize(s)
		// On invalid UTF-8, x/text's norm.Iter and Form.String disagree
		// (after an invalid byte, String leaves "ǅ" as it is, the Iter
		// gives its NFKC form "Dž": seed f0bf0f29e2791a50). pdc's text is
		// always valid UTF-8 when it is tokenized (lib/htmltext and lib/doc
		// replace invalid sequences), so only valid strings are compared.
		if got, want := string(tok.src), norm.NFKC.String(s); got != want && utf8.ValidString(s) {
			t.Fatalf("normalize(%q) = %q; want %q", s, got, want)
		}
		tokens := tok.Tokens(nil, s)
		hashes := tok.Hashes(nil, s)
		if len(tokens) != len(hashes) {
			t.Fatalf("%q: %d tokens, %d hashes", s, len(tokens), len(hashes))
		}
		for k, w := range tokens {
			if w == "" || !utf8.ValidString(w) {
				t.Fatalf("%q: bad token %q", s, w)
			}
			if hashes[k] != Hash(w) {
				t.Fatalf("%q: hash of token %q differs", s, w)
			}
		}
	})
}
