package clean

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
)

const passage = "The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall. "

// texts are the test's documents in input order: k holds the kept copy of
// passage, c and d copies of it, o none; c comes twice (the second record
// is a duplicate id).
var texts = []struct{ id, text string }{
	{"k", "Own words of the kept page come first here. " + passage + "And the kept page ends with this line."},
	{"o", "A page of other words about gardens and their many flowers in the spring."},
	{"c", "The copy starts with its own opening sentence today. " + passage},
	{"c", "A second record of an id that was read before."},
	{"d", passage},
}

// writeDocs writes texts as a JSON Lines file in dir and returns its Set.
func writeDocs(t *testing.T, dir string) *input.Set {
	t.Helper()
	var b []byte
	for _, d := range texts {
		b = append(doc.AppendJSON(b, &doc.Doc{ID: d.id, Text: d.text}), '\n')
	}
	p := filepath.Join(dir, "docs.jsonl")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := input.Find([]string{p}, input.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// member is passage's member in the first record of id.
func member(id string) cluster.Member {
	for _, d := range texts {
		if d.id == id {
			i := len([]rune(d.text[:strings.Index(d.text, passage)]))
			return cluster.Member{Doc: id, CharStart: i, CharEnd: i + len([]rune(strings.TrimSpace(passage)))}
		}
	}
	panic(id)
}

// TestWrite: the copies of the kept passage are cut from c and d, each
// cut in removed.tsv with k's range as its kept copy; k and o are written
// whole, every document once, in input order, and the counts say so.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	in := writeDocs(t, dir)
	cs := []cluster.Cluster{{ID: "c1", Size: 3, Members: []cluster.Member{member("k"), member("c"), member("d")}}}
	p := dedup.NewPlan(cs, []int{0}, 3)
	out := filepath.Join(dir, "clean")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	an := &doc.Analyzer{}
	st, err := Write(in, in, an, p, hdfsfs.Local(), out, Options{DropEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, DocsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var d struct{ ID, Text string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("%s: %q", err, line)
		}
		got[d.ID] = d.Text
		order = append(order, d.ID)
	}
	if strings.Join(order, ",") != "k,o,c" {
		t.Errorf("documents written %v, want k,o,c (d left empty and dropped)", order)
	}
	if got["k"] != texts[0].text || got["o"] != texts[1].text {
		t.Errorf("k or o not written whole: %q", got)
	}
	if c := got["c"]; strings.Contains(c, "harbour") || !strings.HasPrefix(c, "The copy starts") {
		t.Errorf("c's copy of the passage not cut, or its own text cut: %q", c)
	}
	rm, err := os.ReadFile(filepath.Join(out, RemovedFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(string(rm), dedup.RemovedHeader), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "c\t") || !strings.HasPrefix(lines[1], "d\t") {
		t.Fatalf("removed.tsv:\n%s", rm)
	}
	for _, l := range lines {
		if !strings.Contains(l, "\tk\t") {
			t.Errorf("cut without k as its kept copy: %q", l)
		}
	}
	if st.Written != 3 || st.Dropped != 1 || st.Dups != 1 || st.DocsCut != 2 || st.Passages != 2 || st.Violations != 0 || st.Verified != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestWriteMissingKept: a document of a cluster that is not among the
// inputs is an error that names it, and nothing is left in CLEAN.
func TestWriteMissingKept(t *testing.T) {
	dir := t.TempDir()
	in := writeDocs(t, dir)
	gone := member("k")
	gone.Doc = "gone"
	cs := []cluster.Cluster{{ID: "c1", Size: 2, Members: []cluster.Member{member("c"), gone}}}
	p := dedup.NewPlan(cs, []int{0}, 3)
	out := filepath.Join(dir, "clean")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Write(in, in, &doc.Analyzer{}, p, hdfsfs.Local(), out, Options{Inputs: []string{"docs.jsonl"}})
	if err == nil || !strings.Contains(err.Error(), `"gone"`) {
		t.Fatalf("Write: %v, want an error naming gone", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("CLEAN holds %v after the error", ents)
	}
}
