package dedup

import (
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// TestNames: what is a name and what is not.
func TestNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"int sqlite3_blob_write(sqlite3_blob *, const void *z);", []string{"sqlite3_blob_write", "sqlite3_blob"}},
		{"Call os.path.join, then std::vec::Vec::new() at example.com.", []string{"os.path.join", "std::vec::Vec::new", "example.com"}},
		{"Use getElementById here; __init__ and _emphasis_ are none.", []string{"getElementById"}},
		{"See linkgit:git-commit[1] and Note: this, endif::git-asciidoc[]", []string{"endif::git", "#1"}},
		{"use a_b:::cd here", []string{"a_b:::cd"}}, // one name, by its last part

		{"Plain words, e.g. U.S. prices in v1.2 a.m. Note: done.", nil},
		{"A_B and a_b are one name; x_ is none", []string{"A_B"}},
		{"", nil},
		{"In 1894 it was 69,805, or $608,000,000; see 5.14 at 10:30, not v1.2 or sl3.", []string{"#1894", "#69805", "#608000000", "#5.14", "#10", "#30", "sl3"}},
		{"GIN, BRIN, I, Ok, U.S. and sl3 on x86 with sha256.", []string{"sl3", "x86", "sha256"}},
		{"日本語_テキスト and café_au_lait", []string{"_au_lait"}}, // ASCII only: é ends a name
	} {
		got := AppendNames(nil, tc.text)
		var want []uint64
		for _, w := range tc.want {
			if n, ok := strings.CutPrefix(w, "#"); ok { // a number, keyed by its digits
				want = append(want, sentence.Hash(n))
				continue
			}
			want = append(want, hashLower(w))
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("AppendNames(%q): %d names, want %q", tc.text, len(got), tc.want)
		}
	}
	var tok sentence.Tokenizer
	for _, tc := range []struct{ cut, kept, want string }{
		{"see sqlite3_blob_write and os.path", "see SQLITE3_BLOB_WRITE only", "os.path"},
		{"std::option::Option and java.awt.Label", "core::option::Option and java.awt.Button", "java.awt.Label"}, // a path's last part is the name
		{"see sqlite3_blob_write", "x sqlite3_blob_write y", ""},
		{"class fractions.Fraction(numerator=0)", ".. class:: Fraction(numerator=0)", ""},      // the last part as a word
		{"int sqlite3_blob_write(void)", "int sqlite3 blob write(void)", "sqlite3_blob_write"}, // not its words
		{"was 69,805 in 1894", "was 69805 in 1894", ""},
		{"was 69,805 in 1894", "was 69,806 in 1894", "69,805"},
		{"grew by 1.5 million", "grew by 15 million", "1.5"},
		{"grew by 1,5 million", "grew by 1.5 million", ""},
		{"cost $12.30", "cost $1,230", "12.30"},
		{"cost $1,230,000", "cost $1230000", ""},
		{"version 1.2.3", "version 12.3", "1.2.3"},
	} {
		if got := MissingName(&tok, tc.cut, tc.kept); got != tc.want {
			t.Errorf("MissingName(%q, %q) = %q, want %q", tc.cut, tc.kept, got, tc.want)
		}
	}
}

// TestCutKeepsNames: a page documenting sqlite3_blob_write in the words
// of the page of sqlite3_blob_read shares 90% of its words with it, as an
// edited copy would, but its sentences with the other function's name
// are not cut against it (the others are), and the Verifier fails a cut that takes a name
// the kept range lacks; a verbatim copy is still cut whole.
func TestCutKeepsNames(t *testing.T) {
	t.Parallel()
	read := "Read Data From A BLOB Incrementally. The function int sqlite3_blob_read(sqlite3_blob *p, void *z, int n, int off) reads n bytes of data from the open BLOB handle into a caller supplied buffer. " +
		"The offset is taken from the start of the blob and must be inside it. If the offset or the size is out of range then the call fails with an error code and nothing is copied. " +
		"The handle may expire when the row it points at is modified by another statement of the same connection."
	write := strings.NewReplacer("Read Data From", "Write Data Into", "sqlite3_blob_read", "sqlite3_blob_write", "void *z", "const void *z", "reads n bytes of data from", "writes n bytes of data into", "into a caller supplied buffer", "from a caller supplied buffer").Replace(read)
	texts := map[string]string{"read": read, "write": write, "copy": read}
	analyses, _ := analyzeTexts(t, texts)
	whole := func(id string) cluster.Member {
		return cluster.Member{Doc: id, CharStart: 0, CharEnd: len([]rune(texts[id]))}
	}
	cs := []cluster.Cluster{{ID: "c1", Members: []cluster.Member{whole("read"), whole("write"), whole("copy")}}}
	p := NewPlan(cs, []int{0}, 3)
	p.Keep("read", analyses["read"])
	for id, wantCut := range map[string]bool{"write": false, "copy": true} {
		o, err := p.Cut(id, analyses[id])
		if err != nil {
			t.Fatal(err)
		}
		text := texts[id]
		runes := []rune(text)
		var cut strings.Builder
		for _, rm := range o.Removals {
			cut.WriteString(string(runes[rm.Start:rm.End]))
		}
		if strings.Contains(cut.String(), "sqlite3_blob_write") {
			t.Errorf("%s: cut the sentence naming sqlite3_blob_write: %+v", id, o.Removals)
		}
		if wantCut && (len(o.Removals) != 1 || o.Removals[0].End-o.Removals[0].Start != len(runes)) {
			t.Errorf("%s: the verbatim copy not cut whole: %+v", id, o.Removals)
		}
		if !wantCut && (len(o.Removals) == 0 || !strings.HasPrefix(cut.String(), "The offset")) {
			t.Errorf("%s: not the sentences without a name cut: %+v", id, o.Removals)
		}
		var c Checker
		if bad := c.Check(p, id, text, o); len(bad) > 0 {
			t.Errorf("%s: Check: %v", id, bad)
		}
	}
	// A cut of write's whole text against read's is refused by the check.
	forged := Outcome{Removals: []Removal{{Range: Range{Start: 0, End: len([]rune(write))}, Kept: Ref{"read", Range{Start: 0, End: len([]rune(read))}}, Held: 0.9, Reason: ReasonCopy}}}
	var c Checker
	if bad := c.Check(p, "write", write, forged); len(bad) != 1 || !strings.Contains(bad[0], "lacks the name sqlite3_blob_write") {
		t.Errorf("Check of a cut taking a name: %v", bad)
	}
}

// TestSplitNames: a run is split at a sentence with a name its kept range
// lacks, each piece from its first aligned sentence to its last; a name
// the kept range has splits nothing.
func TestSplitNames(t *testing.T) {
	t.Parallel()
	m := sents("a b c", "x_y", "-", "d e f", "g h i")
	k := sents("a b c", "d e f", "g h i x_z")
	match := []int{0, -1, -1, 1, 2}
	run := []Run{{First: 0, Last: 4, KeptFirst: 0, KeptLast: 2}}
	want := []Run{{First: 0, Last: 0, KeptFirst: 0, KeptLast: 0}, {First: 3, Last: 4, KeptFirst: 1, KeptLast: 2}}
	if got := SplitNames(run, m, k, match); !slices.Equal(got, want) {
		t.Errorf("SplitNames = %+v, want %+v", got, want)
	}
	k[2] = sents("a b c", "d e f", "g h i x_y")[2]
	if got := SplitNames(run, m, k, match); !slices.Equal(got, run) {
		t.Errorf("SplitNames with the name kept = %+v, want the run whole", got)
	}
}
