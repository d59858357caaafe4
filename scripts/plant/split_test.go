package plant

import (
	"slices"
	"testing"
)

func sentences(text string) []string {
	r := []rune(text)
	var out []string
	for _, s := range split(r) {
		out = append(out, string(r[s.lo:s.hi]))
	}
	return out
}

// TestSplit pins the few properties plant relies on; lib/sentence has the
// full tests.
func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"simple", "One two. Three four! Five six? Seven",
			[]string{"One two.", "Three four!", "Five six?", "Seven"}},
		{"abbreviation", "Mr. Speaker, I thank you. Done.",
			[]string{"Mr. Speaker, I thank you.", "Done."}},
		{"blank line", "Heading\n\nBody text here.\n  \nNext para.",
			[]string{"Heading", "Body text here.", "Next para."}},
		{"chinese", "今天下雨了。我们在家里看书！你去吗？没有结尾",
			[]string{"今天下雨了。", "我们在家里看书！", "你去吗？", "没有结尾"}},
		{"rune offsets", "Ünïcödé wörds. Nächster Satz.",
			[]string{"Ünïcödé wörds.", "Nächster Satz."}},
		{"empty", " \n\n ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sentences(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("split(%q):\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTerminated(t *testing.T) {
	for s, want := range map[string]bool{
		"Done.": true, `"Done."`: true, "完成。": true, "“好！”": true, "Heading": false, "": false, "a,": false,
	} {
		if got := terminated([]rune(s)); got != want {
			t.Errorf("terminated(%q) = %v, want %v", s, got, want)
		}
	}
}
