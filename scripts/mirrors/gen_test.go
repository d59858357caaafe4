package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pseudoWords returns n distinct made-up words of 3 to 9 letters.
func pseudoWords(rng *rand.Rand, n int) []string {
	const cons, vow = "bcdfghklmnprstvz", "aeiou"
	seen := make(map[string]bool)
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteByte(cons[rng.IntN(len(cons))])
			b.WriteByte(vow[rng.IntN(len(vow))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// fakeText returns n sentences of 7 to 14 words of vocab, each
// capitalized and ended by a period.
func fakeText(rng *rand.Rand, vocab []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		ws := make([]string, 7+rng.IntN(8))
		for j := range ws {
			ws[j] = vocab[rng.IntN(len(vocab))]
		}
		ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
		out[i] = strings.Join(ws, " ") + "."
	}
	return out
}

// writeJSONL writes records as JSON Lines.
func writeJSONL(t *testing.T, path string, recs []map[string]string) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture writes a story file (one address long enough for a story, two
// too short), an others file of nOthers HTML pages and a pool file, and
// returns a config for n copies.
func fixture(t *testing.T, copies, nOthers int) genConfig {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	storyVocab, otherVocab, ownVocab := pseudoWords(rng, 3000), pseudoWords(rng, 400), pseudoWords(rng, 20000)
	storyVocab = slices.DeleteFunc(storyVocab, func(w string) bool { return slices.Contains(otherVocab, w) })
	stories := []map[string]string{
		{"id": "sotu/short1", "text": strings.Join(fakeText(rng, storyVocab, 10), " ")},
		{"id": "sotu/long", "text": strings.Join(fakeText(rng, storyVocab, 60), " ")},
		{"id": "sotu/short2", "text": strings.Join(fakeText(rng, storyVocab, 12), " ")},
	}
	var others []map[string]string
	for i := range nOthers {
		var b strings.Builder
		b.WriteString("<html><head><title>Doc</title><script>var x = 1;</script></head><body>")
		for range 2 + i%3 {
			fmt.Fprintf(&b, "<p>%s</p>\n", strings.Join(fakeText(rng, otherVocab, 3+rng.IntN(4)), " "))
		}
		b.WriteString("</body></html>")
		others = append(others, map[string]string{"id": fmt.Sprintf("o/%03d.html", i), "url": fmt.Sprintf("https://docs.example.com/o/%03d.html", i), "html": b.String()})
	}
	var own []map[string]string
	for i := range 40 {
		own = append(own, map[string]string{"id": fmt.Sprintf("own/%02d", i), "text": strings.Join(fakeText(rng, ownVocab, 50), " ")})
	}
	cfg := defaultGenConfig()
	cfg.Copies, cfg.Others = copies, 30
	cfg.StoryFrom, cfg.OthersFrom = filepath.Join(dir, "sotu.jsonl"), filepath.Join(dir, "others.jsonl")
	cfg.OwnFrom = []string{filepath.Join(dir, "own.jsonl")}
	cfg.Out, cfg.Truth = filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "truth.tsv")
	writeJSONL(t, cfg.StoryFrom, stories)
	writeJSONL(t, cfg.OthersFrom, others)
	writeJSONL(t, cfg.OwnFrom[0], own)
	return cfg
}

func TestGenerateDeterministic(t *testing.T) {
	cfg := fixture(t, 20, 40)
	read := func(cfg genConfig) (string, string) {
		t.Helper()
		if _, err := generate(cfg); err != nil {
			t.Fatal(err)
		}
		c, err := os.ReadFile(cfg.Out)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := os.ReadFile(cfg.Truth)
		if err != nil {
			t.Fatal(err)
		}
		return string(c), string(tr)
	}
	c1, t1 := read(cfg)
	c2, t2 := read(cfg)
	if c1 != c2 || t1 != t2 {
		t.Fatal("two runs with the same seed differ")
	}
	cfg.Seed = 2
	if c3, t3 := read(cfg); c3 == c1 || t3 == t1 {
		t.Fatal("another seed gives the same corpus")
	}
	if n := strings.Count(t1, "\n"); n != 20 {
		t.Errorf("truth has %d lines, want 20", n)
	}
}

func TestGenerateCorpus(t *testing.T) {
	cfg := fixture(t, 25, 40)
	c, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Story.Doc != "sotu/long" || len(c.Story.Sentences) != 30 {
		t.Fatalf("story from %s, %d sentences; want sotu/long, 30", c.Story.Doc, len(c.Story.Sentences))
	}
	if len(c.Copies) != 25 || len(c.Others) != 30 || len(c.Order) != 55 {
		t.Fatalf("%d copies, %d others, %d records; want 25, 30, 55", len(c.Copies), len(c.Others), len(c.Order))
	}
	ids, hosts := make(map[string]bool), make(map[string]bool)
	for k := range c.Order {
		r := c.record(k)
		host := strings.SplitN(strings.TrimPrefix(r.URL, "https://"), "/", 2)[0]
		if ids[r.ID] || hosts[host] {
			t.Errorf("record %s (%s): id or host seen before", r.ID, r.URL)
		}
		ids[r.ID], hosts[host] = true, true
	}
	for i, p := range c.Copies {
		if want := fmt.Sprintf("mirror-%05d", i); p.ID != want || p.URL != fmt.Sprintf("https://mirror%05d.example.org/story.html", i) {
			t.Errorf("copy %d: id %s url %s", i, p.ID, p.URL)
		}
		checkEdits(t, p, c.Story.Sentences)
		text := htmlText(p.HTML)
		for _, s := range p.Story {
			if !strings.Contains(strings.Join(strings.Fields(text), " "), s) {
				t.Errorf("%s: story sentence %q not in the page", p.ID, s)
			}
		}
	}
	for _, o := range c.Others {
		for _, s := range c.Story.Sentences {
			if strings.Contains(normalize(o.Text), normalize(s)) {
				t.Errorf("other %s holds story sentence %q", o.ID, s)
			}
		}
	}
}

// checkEdits checks that exactly 20% of the copy's story sentences differ
// from the story's, each in exactly one word, and that the truth is the
// first and last sentence as placed.
func checkEdits(t *testing.T, p copyPage, story []string) {
	t.Helper()
	var edited []int
	for k, s := range p.Story {
		a, b := words(story[k]), words(s)
		if len(a) != len(b) {
			t.Errorf("%s sentence %d: %d words, was %d", p.ID, k, len(b), len(a))
			continue
		}
		diff := 0
		for j := range a {
			if a[j] != b[j] {
				diff++
			}
		}
		switch diff {
		case 0:
		case 1:
			edited = append(edited, k)
		default:
			t.Errorf("%s sentence %d: %d words replaced", p.ID, k, diff)
		}
	}
	if len(edited) != 6 || !slices.Equal(edited, p.Edited) {
		t.Errorf("%s: edited sentences %v, want the 6 of %v", p.ID, edited, p.Edited)
	}
	if p.First != p.Story[0] || p.Last != p.Story[len(p.Story)-1] {
		t.Errorf("%s: truth %q ... %q is not the placed story", p.ID, p.First, p.Last)
	}
}

func TestOwnTextUnique(t *testing.T) {
	cfg := fixture(t, 30, 40)
	c, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	story := make(map[string]bool)
	for _, p := range c.Copies {
		for _, s := range p.Story {
			story[s] = true
		}
	}
	seen := make(map[string]string)
	for _, p := range c.Copies {
		n := 0
		for _, s := range sentences(htmlText(p.HTML)) {
			if story[s] || s == fmt.Sprintf("Mirror %s", strings.TrimPrefix(p.ID, "mirror-")) {
				continue
			}
			n++
			if other, ok := seen[s]; ok {
				t.Errorf("%s and %s share own sentence %q", p.ID, other, s)
			}
			seen[s] = p.ID
		}
		if n < 2*3 || n > 2*6 {
			t.Errorf("%s: %d own sentences, want 2 paragraphs of 3 to 6", p.ID, n)
		}
	}
}

func TestCopiesAndOthersDoNotDependOnN(t *testing.T) {
	cfg := fixture(t, 5, 40)
	small, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Copies = 12
	big, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range small.Copies {
		if p.HTML != big.Copies[i].HTML {
			t.Errorf("copy %d differs between N=5 and N=12", i)
		}
	}
	if !slices.Equal(small.Others, big.Others) {
		t.Error("the others differ between N=5 and N=12")
	}
}

func TestOthersSplitWhenTooFew(t *testing.T) {
	cfg := fixture(t, 3, 12)
	c, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Others) != 30 || c.Stats.Pieces == 0 {
		t.Fatalf("%d others, %d pieces; want 30 others, some pieces", len(c.Others), c.Stats.Pieces)
	}
	for _, o := range c.Others {
		if o.HTML == "" && (o.Text == "" || !strings.Contains(o.ID, "#")) {
			t.Errorf("piece %s: empty or not numbered", o.ID)
		}
	}
}

func TestOthersWithStoryDropped(t *testing.T) {
	cfg := fixture(t, 3, 40)
	stories, err := readDocuments(cfg.StoryFrom)
	if err != nil {
		t.Fatal(err)
	}
	// An other page that quotes the whole address the story comes from.
	b, err := os.ReadFile(cfg.OthersFrom)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(map[string]string{"id": "quote", "html": "<p>" + stories[1].Text + "</p>"})
	if err := os.WriteFile(cfg.OthersFrom, append(append(b, j...), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Stats.OthersDropped != 1 {
		t.Errorf("%d others dropped, want 1", c.Stats.OthersDropped)
	}
	for _, o := range c.Others {
		if strings.HasPrefix(o.ID, "quote") {
			t.Errorf("other %s holds the story", o.ID)
		}
	}
}

func TestPoolRunsOut(t *testing.T) {
	cfg := fixture(t, 2000, 40)
	_, err := build(cfg)
	if err == nil || !strings.Contains(err.Error(), "--own-from") {
		t.Fatalf("err = %v, want the pool to run out", err)
	}
}

func TestGenUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Main{Stdout: &out, Stderr: &errOut}.Run([]string{"gen", "--copies", "3"})
	if err != errUsage {
		t.Fatalf("err = %v, want errUsage", err)
	}
}
