package jobs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExactCopies: six byte-identical pages of one tree (one site, so that
// their every sentence is over --max-site-df and no span links them) are
// exact copies: OUT/copies.tsv lists five, each against the first in input
// order; pdc pairs gives them containment 1 both ways and one group; pdc
// dedup keeps the first and cuts the others whole, each held by the first.
func TestExactCopies(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(t.TempDir(), "tree")
	page := "<html><body><ul><li><a href=/>Home</a></li><li><a href=/docs>Docs</a></li></ul>" +
		"<h1>Installing the harbour crane</h1><p>Unpack the crane and check every part against the list. " +
		"Mount the base on a level quay with the bolts supplied. Raise the jib only after the counterweight is in place. " +
		"Test the brake with a light load before any real lift.</p></body></html>"
	for i := range 6 {
		writeFile(t, filepath.Join(tree, fmt.Sprintf("copy%d.html", i)), page)
	}
	for i := range 2 {
		writeFile(t, filepath.Join(tree, fmt.Sprintf("other%d.html", i)), sitePage(i, ""))
	}
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", tree, "--output", out, "--clusters")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "5 documents are exact copies of earlier ones (1 group)") {
		t.Errorf("the summary does not report the copies:\n%s", stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "copies.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "#doc\tcopy_of\tsentences\n"
	for i := 1; i < 6; i++ {
		want += fmt.Sprintf("copy%d.html\tcopy0.html\t5\n", i) // the heading and four sentences
	}
	if string(b) != want {
		t.Errorf("copies.tsv:\n%s\nwant\n%s", b, want)
	}
	pairs, stderr, code := runPDC(t, "pairs", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(pairs), "\n") {
		if f := strings.Split(l, "\t"); len(f) == 11 && strings.HasPrefix(f[0], "copy") {
			n++
			if f[7] != "1.0000" || f[8] != "1.0000" {
				t.Errorf("exact copies at containment %s, %s: %s", f[7], f[8], l)
			}
		}
	}
	if n != 5 {
		t.Errorf("%d pairs of copies, want 5 (each with the first):\n%s", n, pairs)
	}
	if groups, _, _ := runPDC(t, "pairs", out, "--groups"); !strings.HasPrefix(groups, "6\tcopy0.html\tcopy1.html") {
		t.Errorf("groups: %q, want the six copies", groups)
	}
	clean := filepath.Join(t.TempDir(), "clean")
	if _, stderr, code := runPDC(t, "dedup", out, "--output", clean); code != 0 {
		t.Fatal(stderr)
	}
	removed, err := os.ReadFile(filepath.Join(clean, "removed.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	cut := 0
	for _, l := range strings.Split(strings.TrimSpace(string(removed)), "\n")[1:] {
		f := strings.Split(l, "\t")
		if len(f) == 9 && strings.HasPrefix(f[0], "copy") && f[4] == "copy0.html" && f[7] == "1.0000" {
			cut++
		}
	}
	if cut != 5 {
		t.Errorf("%d copies cut, held by copy0.html; want 5:\n%s", cut, removed)
	}
}

// TestExactCopiesDuplicateIDs: shards whose ids restart (0, 1, 2 in each)
// give later records of an id that the run drops; a dropped record that
// holds another document's text is no copy, and the summary counts what
// copies.tsv lists: here one copy (b's record 3 holds the text of a's 1
// under a new id), not the four records of b whose texts a holds.
func TestExactCopiesDuplicateIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	texts := []string{
		"Alpha sentence number one is here today. Beta sentence follows it closely now. Gamma sentence ends the first text block.",
		"Delta opens the second text in a new way. Epsilon keeps going with more words. Zeta finishes the second story here.",
		"Eta starts a third and different text. Theta adds a middle part to it. Iota closes the third piece.",
	}
	shard := func(ids []string, of []int) string {
		var b strings.Builder
		for i, id := range ids {
			fmt.Fprintf(&b, "{\"id\":%q,\"text\":%q}\n", id, texts[of[i]])
		}
		return b.String()
	}
	writeFile(t, filepath.Join(dir, "a.jsonl"), shard([]string{"0", "1", "2"}, []int{0, 1, 2}))
	writeFile(t, filepath.Join(dir, "b.jsonl"), shard([]string{"0", "1", "2", "3"}, []int{1, 2, 0, 1}))
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runPDC(t, "run", "--input", dir, "--output", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "copies.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "#doc\tcopy_of\tsentences\n3\t1\t3\n"; string(b) != want {
		t.Errorf("copies.tsv:\n%s\nwant\n%s", b, want)
	}
	if !strings.Contains(stderr, "pdc: 1 document is an exact copy of an earlier one (1 group)") {
		t.Errorf("the summary does not count what copies.tsv lists:\n%s", stderr)
	}
}

// TestExactCopiesShort: documents with fewer content sentences than
// --lambda are exact copies only of documents with the very same words:
// two identical one-sentence mails are listed, a third whose one content
// sentence is the same but whose other words differ is not, and pdc pairs
// and pdc dedup take the pair as copies.
func TestExactCopiesShort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mail := "Please remove me from this mailing list at once, thank you very much."
	in := writeFile(t, filepath.Join(dir, "mails.jsonl"),
		fmt.Sprintf("{\"id\":\"m1\",\"text\":%q}\n{\"id\":\"m2\",\"text\":%q}\n{\"id\":\"m3\",\"text\":%q}\n{\"id\":\"m4\",\"text\":%q}\n",
			mail, mail, "Hi.\n\n"+mail, "Something else entirely is written in this mail, with its own words."))
	out := filepath.Join(dir, "out")
	_, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--clusters")
	if code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "copies.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "#doc\tcopy_of\tsentences\nm2\tm1\t1\n"; string(b) != want {
		t.Errorf("copies.tsv:\n%s\nwant\n%s", b, want)
	}
	pairs, stderr, code := runPDC(t, "pairs", out, "--doc", "m2")
	if f := strings.Split(strings.TrimSpace(pairs), "\t"); code != 0 || len(f) != 11 || f[0] != "m1" || f[1] != "m2" || f[7] != "1.0000" || f[8] != "1.0000" {
		t.Errorf("pairs --doc m2: exit %d %q %s", code, pairs, stderr)
	}
	clean := filepath.Join(dir, "clean")
	if _, stderr, code := runPDC(t, "dedup", out, "--output", clean, "--verify"); code != 0 {
		t.Fatal(stderr)
	}
	removed, err := os.ReadFile(filepath.Join(clean, "removed.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(strings.TrimSpace(string(removed)), "\n")[1:]; len(rows) != 1 || !strings.HasPrefix(rows[0], "m2\t0\t") || !strings.Contains(rows[0], "\tm1\t0\t") {
		t.Errorf("removed.tsv:\n%s\nwant m2 cut against m1", removed)
	}
}
