package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	first0 = "The Congress met in the autumn to hear the report of the Treasury."
	last0  = "Nothing further is needed from this body at the present time."
	first1 = "Our foreign relations remain friendly with every nation of the world."
	last1  = "The army and the navy have been kept at their present strength."
	first2 = "Commerce on the great lakes grew faster than in any year before."
	last2  = "I commend these matters to your careful and early consideration."
)

// checkFixture writes a truth of four copies, clusters, pairs and spans
// files and returns their paths.
func checkFixture(t *testing.T, clusters []map[string]any) (truth, cl, pairs, spans string) {
	t.Helper()
	dir := t.TempDir()
	truth, cl, pairs, spans = filepath.Join(dir, "truth.tsv"), filepath.Join(dir, "clusters.jsonl"), filepath.Join(dir, "pairs.tsv"), filepath.Join(dir, "spans.tsv")
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(truth, "mirror-00000\t"+first0+"\t"+last0+"\n"+
		"mirror-00001\t"+first1+"\t"+last1+"\n"+
		"mirror-00002\t"+first2+"\t"+last2+"\n"+
		"mirror-00003\t"+first2+"\t"+last2+"\n")
	var b strings.Builder
	for _, c := range clusters {
		j, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	write(cl, b.String())
	write(pairs, "doc_a\tdoc_b\tspans\tshared_a\tshared_b\tlen_a\tlen_b\tcontain_a\tcontain_b\tresemblance\n"+
		"mirror-00000\tmirror-00001\t1\t100\t100\t200\t200\t0.5\t0.5\t0.5\n"+
		"a.html\tmirror-00002\t1\t100\t100\t200\t200\t0.5\t0.5\t0.5\n"+
		"a.html\tb.html\t1\t100\t100\t200\t200\t0.5\t0.5\t0.5\n")
	write(spans, "a\nb\nc") // last line without a newline
	return truth, cl, pairs, spans
}

func member(doc, text string) map[string]any {
	return map[string]any{"doc": doc, "url": "https://x/" + doc, "char_start": 0, "char_end": len(text), "sentence": 0, "length": len(text), "text": text}
}

func TestCheck(t *testing.T) {
	clusters := []map[string]any{
		{"cluster": "c1", "size": 2, "members": []any{member("a.html", "x"), member("mirror-00002", first2+" "+last2)}},
		{"cluster": "c2", "size": 4, "members": []any{
			// located: the story between text of its own
			member("mirror-00000", "Own words first. "+first0+"\n\nMiddle. "+last0+" Own words after."),
			// located with one word of the first sentence changed
			member("mirror-00001", strings.Replace(first1, "friendly", "peaceful", 1)+" Middle text here. "+last1),
			// not located: its last sentence is missing
			member("mirror-00002", first2+" and no more."),
			member("b.html", "some text"),
		}},
		// no fields but members with docs: counted, not the largest
		{"members": []any{map[string]any{"doc": "mirror-00003"}}},
	}
	truth, cl, pairs, spans := checkFixture(t, clusters)
	s, err := checkFiles(truth, cl, pairs, spans)
	if err != nil {
		t.Fatal(err)
	}
	three := 3
	want := summary{Copies: 4, Clusters: 3, Largest: "c2", LargestSize: 4, CopiesInLargest: 3, Share: 0.75,
		OthersInLargest: 1, Located: 2, LocatedShare: 0.5, WithContainment: 3, ContainShare: 0.75, Pairs: 3, OtherPairs: 1, Spans: &three}
	if got, _ := json.Marshal(s); string(got) != mustJSON(t, want) {
		t.Errorf("summary\n got %s\nwant %s", got, mustJSON(t, want))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

func TestCheckMinShare(t *testing.T) {
	truth, cl, pairs, _ := checkFixture(t, []map[string]any{
		{"cluster": "c1", "size": 2, "members": []any{member("mirror-00000", first0+" "+last0), member("mirror-00001", "no")}},
	})
	for _, tc := range []struct {
		min  string
		fail bool
	}{{"0.5", false}, {"0.51", true}} {
		var out, errOut bytes.Buffer
		err := Main{Stdout: &out, Stderr: &errOut}.Run([]string{"check", "--truth", truth, "--clusters", cl, "--pairs", pairs, "--min-share", tc.min})
		if (err != nil) != tc.fail {
			t.Errorf("--min-share %s: err = %v", tc.min, err)
		}
		if !strings.Contains(out.String(), `"share":0.5,`) || !strings.Contains(out.String(), `"located":1,`) || strings.Contains(out.String(), "spans") {
			t.Errorf("--min-share %s: summary %s", tc.min, out.String())
		}
	}
}

func TestHolds(t *testing.T) {
	text := words("Before. The quick brown fox jumps over the lazy dog near the river bank. After.")
	for _, tc := range []struct {
		sent string
		want bool
	}{
		{"The quick brown fox jumps over the lazy dog near the river bank.", true},
		{"the QUICK brown fox, jumps over the lazy dog near the river bank", true},
		{"The quick brown cat jumps over the lazy dog near the river bank.", true},  // one word in 13
		{"The quick brown cat jumps over the lazy cow near the river bank.", true},  // two
		{"The slow brown cat jumps over the lazy cow near the river bank.", false},  // three
		{"The quick brown fox jumps under a sleepy dog near the river bank.", true}, // three, first and last five kept
		{"A slow red cat walks past one busy cow near the river bank.", false},      // only the last five
		{"The quick brown fox jumps over the lazy dog near the river bank too far.", false},
	} {
		if got := holds(text, words(tc.sent)); got != tc.want {
			t.Errorf("holds(%q) = %v, want %v", tc.sent, got, tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	in := "1000\t2.00\t204800\t1000000\t{\"copies\":1000,\"clusters\":5,\"share\":1,\"copies_in_largest\":1000,\"located\":990,\"located_share\":0.99,\"with_containment\":1000,\"containment_share\":1,\"other_pairs\":7,\"spans\":2000,\"dedup\":{\"seconds\":1.25,\"docs\":6000,\"story_kept\":1,\"story_remnants\":0,\"story_words\":600,\"words_left\":3,\"own\":9000,\"own_kept\":8999,\"own_intact\":999}}\n" +
		"3000\t6.60\t409600\t3000000\t{\"copies\":3000,\"clusters\":5,\"share\":0.5,\"copies_in_largest\":1500,\"located\":1500,\"located_share\":0.5,\"with_containment\":3000,\"containment_share\":1}\n"
	rows, err := readResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	peers, err := readPeers(strings.NewReader("1000\tdatatrove minhash\t{\"copies\":1000,\"dedup\":{\"seconds\":30.5,\"docs\":2810,\"story_kept\":341,\"story_remnants\":0,\"story_words\":600,\"words_left\":0,\"own\":9000,\"own_kept\":3266,\"own_intact\":341}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeTable(&b, rows, peers); err != nil {
		t.Fatal(err)
	}
	want := "| 1000 | 2.00 | - | 200 | 2000 | 1.0 | 5 | 1.0000 (1000) | 0.9900 (990) | 1.0000 (1000) | 7 |\n" +
		"| 3000 | 6.60 | 3.30 (3.00) | 400 | - | 3.0 | 5 | 0.5000 (1500) | 0.5000 (1500) | 1.0000 (3000) | 0 |\n" +
		"\n| N | tool | seconds | documents written | story whole in | first or last sentence in | story words left in the other copies (copies' worth) | own sentences kept | copies with all their own text |\n" +
		"|---:|---|---:|---:|---:|---:|---:|---:|---:|\n" +
		"| 1000 | pdc run + pdc dedup | 2.00 + 1.25 | 6000 | 1 | 0 | 3 (0.01) | 8999 of 9000 | 999 of 1000 |\n" +
		"| 1000 | datatrove minhash | 30.50 | 2810 | 341 | 0 | 0 (0.00) | 3266 of 9000 | 341 of 1000 |\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("table:\n%s\nwant rows:\n%s", b.String(), want)
	}
}

// TestCheckDedup: with --clean, check counts the copies that still hold the
// story whole or in part after pdc dedup, and their own sentences kept;
// --dedup-check fails unless the story is whole in one copy only and every
// own sentence is kept.
func TestCheckDedup(t *testing.T) {
	const own0, own1 = "My own first sentence stays here for good.", "Another own sentence closes the page."
	truth, cl, _, _ := checkFixture(t, nil)
	if err := os.WriteFile(truth, []byte("mirror-00000\t"+first0+"\t"+last0+"\t"+own0+"\t"+own1+"\n"+
		"mirror-00001\t"+first1+"\t"+last1+"\t"+own0+"\n"+
		"mirror-00002\t"+first2+"\t"+last2+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := func(id, text string) string { return mustJSON(t, map[string]string{"id": id, "text": text}) + "\n" }
	for _, tc := range []struct {
		name  string
		clean string
		want  dedupSummary
		right bool
	}{
		{"right", doc("mirror-00000", own0+" "+first0+" Middle. "+last0+" "+own1) + doc("mirror-00001", own0) + doc("mirror-00002", "") + doc("other", first1),
			dedupSummary{Docs: 4, StoryKept: 1, StoryWords: 25, Own: 3, OwnKept: 3, OwnIntact: 3}, true},
		{"story twice, a remnant, own text cut", doc("mirror-00000", first0+" "+last0+" "+own1) + doc("mirror-00001", first1+" x "+last1) + doc("mirror-00002", last2),
			dedupSummary{Docs: 3, StoryKept: 2, StoryRemnants: 1, StoryWords: 24, WordsLeft: 34, Own: 3, OwnKept: 1, OwnIntact: 1}, false},
		{"a middle sentence left", doc("mirror-00000", own0+" "+first0+" "+last0+" "+own1) + doc("mirror-00001", own0+" Middle words stay.") + doc("mirror-00002", ""),
			dedupSummary{Docs: 3, StoryKept: 1, StoryWords: 24, WordsLeft: 3, Own: 3, OwnKept: 3, OwnIntact: 3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clean := filepath.Join(t.TempDir(), "docs.jsonl")
			if err := os.WriteFile(clean, []byte(tc.clean), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			err := Main{Stdout: &out, Stderr: &errOut}.Run([]string{"check", "--truth", truth, "--clusters", cl, "--clean", clean, "--dedup-seconds", "1.5", "--dedup-check"})
			if (err == nil) != tc.right {
				t.Errorf("--dedup-check: err = %v", err)
			}
			var s summary
			if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.Dedup == nil {
				t.Fatalf("summary %q: %v", out.String(), err)
			}
			tc.want.Seconds = 1.5
			if *s.Dedup != tc.want {
				t.Errorf("dedup %+v, want %+v", *s.Dedup, tc.want)
			}
		})
	}
}

// TestCheckDedupShared: a group's shared paragraph must be whole in exactly
// one of its copies; a shared sentence that also opens one of a copy's own
// sentences is not taken for a remnant.
func TestCheckDedupShared(t *testing.T) {
	const own0, own1 = "My own first sentence stays here for good.", "Outputs the record to the file, catering for rollover."
	const sh0, sh1 = "Outputs the record to the file.", "Checks to see if the file has changed."
	truth, cl, _, _ := checkFixture(t, nil)
	if err := os.WriteFile(truth, []byte("mirror-00000\t"+first0+"\t"+last0+"\t"+own0+"\t|\tmirror-00000\t"+sh0+"\t"+sh1+"\n"+
		"mirror-00001\t"+first1+"\t"+last1+"\t"+own1+"\t|\tmirror-00000\t"+sh0+"\t"+sh1+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := func(id, text string) string { return mustJSON(t, map[string]string{"id": id, "text": text}) + "\n" }
	for _, tc := range []struct {
		name                  string
		clean                 string
		once, remnants, words int
	}{
		{"kept once", doc("mirror-00000", own0+" "+first0+" "+last0+" "+sh0+" "+sh1) + doc("mirror-00001", own1), 1, 0, 0},
		{"kept twice", doc("mirror-00000", own0+" "+first0+" "+last0+" "+sh0+" "+sh1) + doc("mirror-00001", own1+" "+sh0+" "+sh1), 0, 0, 0},
		{"a remnant", doc("mirror-00000", own0+" "+first0+" "+last0+" "+sh0+" "+sh1) + doc("mirror-00001", own1+" "+sh1), 1, 1, 8},
		{"cut from both", doc("mirror-00000", own0+" "+first0+" "+last0) + doc("mirror-00001", own1), 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clean := filepath.Join(t.TempDir(), "docs.jsonl")
			if err := os.WriteFile(clean, []byte(tc.clean), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			err := Main{Stdout: &out, Stderr: &errOut}.Run([]string{"check", "--truth", truth, "--clusters", cl, "--clean", clean, "--dedup-check"})
			var s summary
			if jerr := json.Unmarshal(out.Bytes(), &s); jerr != nil || s.Dedup == nil {
				t.Fatalf("summary %q: %v", out.String(), jerr)
			}
			d := s.Dedup
			if d.SharedGroups != 1 || d.SharedOnce != tc.once || d.SharedRemnants != tc.remnants || d.WordsLeft != tc.words {
				t.Errorf("dedup %+v, want 1 group, %d kept once, %d remnants, %d words left", *d, tc.once, tc.remnants, tc.words)
			}
			if (err == nil) != (tc.once == 1 && tc.remnants == 0 && tc.words == 0) {
				t.Errorf("--dedup-check: err = %v", err)
			}
		})
	}
}
