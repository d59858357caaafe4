package jobs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/span"
)

// TestClusters: pdc run --clusters on the sample; pdc clusters prints the
// clusters largest first, each with its earliest member (first in the
// input) first; every member holds half of the words of the smaller of it
// and the first member (clusters are of one text); nearly every span's
// ends are members of one cluster (the others were split as other texts);
// --text gives each member's passage, --format jsonl one object per
// cluster, --min-size filters.
func TestClusters(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", out, "--clusters"); code != 0 || !strings.Contains(stderr, "passage clusters (their sizes add up to") {
		t.Fatalf("run --clusters: exit %d\n%s", code, stderr)
	}
	order := map[string]int{} // input order of the sample's documents
	f, err := os.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var d struct{ ID string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		order[d.ID] = len(order)
	}
	f.Close()
	tsv, stderr, code := runPDC(t, "clusters", out, "--text")
	if code != 0 {
		t.Fatalf("clusters: exit %d\n%s", code, stderr)
	}
	type member struct {
		doc        string
		start, end int
		text       string
	}
	byCluster := map[string][]member{}
	var ids []string
	lastSize := 1 << 30
	for _, line := range strings.Split(strings.TrimSuffix(tsv, "\n"), "\n") {
		fl := strings.Split(line, "\t")
		if len(fl) != 9 {
			t.Fatalf("line %q: %d fields, want 9", line, len(fl))
		}
		size, _ := strconv.Atoi(fl[1])
		start, _ := strconv.Atoi(fl[4])
		end, _ := strconv.Atoi(fl[5])
		if _, ok := byCluster[fl[0]]; !ok {
			if size > lastSize {
				t.Errorf("cluster %s of size %d after one of %d: not largest first", fl[0], size, lastSize)
			}
			lastSize = size
			ids = append(ids, fl[0])
		}
		byCluster[fl[0]] = append(byCluster[fl[0]], member{fl[2], start, end, unescapeT(t, fl[8])})
		if length, _ := strconv.Atoi(fl[7]); length != end-start || len([]rune(unescapeT(t, fl[8]))) != end-start {
			t.Errorf("member %s [%d,%d): length %s, text of %d characters", fl[2], start, end, fl[7], len([]rune(fl[8])))
		}
	}
	if len(ids) < 10 {
		t.Fatalf("%d clusters", len(ids))
	}
	for _, id := range ids {
		ms := byCluster[id]
		first := distinctWords(ms[0].text)
		for _, m := range ms[1:] {
			if order[m.doc] < order[ms[0].doc] {
				t.Errorf("cluster %s: first member %s is not the earliest (%s comes before it)", id, ms[0].doc, m.doc)
			}
			ws, shared := distinctWords(m.text), 0
			for w := range ws {
				if first[w] {
					shared++
				}
			}
			if 2*shared < min(len(ws), len(first)) {
				t.Errorf("cluster %s: member %s [%d,%d) shares %d of its %d words with the first, of %d: mixed", id, m.doc, m.start, m.end, shared, len(ws), len(first))
			}
		}
	}
	// Both ends of every span are in one cluster.
	fsys, dir, _ := hdfsfs.Resolve(out, false)
	spans, err := span.Read(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	in := func(ms []member, doc string, s, e int) bool {
		for _, m := range ms {
			if m.doc == doc && m.start <= s && e <= m.end {
				return true
			}
		}
		return false
	}
	apart := 0
	for _, s := range spans {
		found := false
		for _, id := range ids {
			if in(byCluster[id], s.DocA, s.CharStartA, s.CharEndA) && in(byCluster[id], s.DocB, s.CharStartB, s.CharEndB) {
				found = true
				break
			}
		}
		if !found {
			apart++
		}
	}
	if 20*apart > len(spans) {
		t.Errorf("%d of %d spans have their ends in no one cluster: over 5%%", apart, len(spans))
	}
	jsonl, _, code := runPDC(t, "clusters", out, "--format", "jsonl", "--min-size", "3")
	if code != 0 {
		t.Fatal("clusters --format jsonl failed")
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(jsonl, "\n"), "\n") {
		var c struct {
			cluster.Cluster
			Earliest string `json:"earliest"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		if c.Size < 3 || c.Earliest != c.Members[0].Doc || len(byCluster[c.ID]) != len(c.Members) {
			t.Errorf("cluster %s: size %d, earliest %s, %d members (tsv: %d)", c.ID, c.Size, c.Earliest, len(c.Members), len(byCluster[c.ID]))
		}
		n++
	}
	want := 0
	for _, id := range ids {
		docs := map[string]bool{}
		for _, m := range byCluster[id] {
			docs[m.doc] = true
		}
		if len(docs) >= 3 {
			want++
		}
	}
	if n != want || n == 0 {
		t.Errorf("--min-size 3: %d clusters, want %d", n, want)
	}
	// jsonl with --text carries every member's passage, as tsv does.
	jsonl, _, code = runPDC(t, "clusters", out, "--format", "jsonl", "--text")
	if code != 0 {
		t.Fatal("clusters --format jsonl --text failed")
	}
	for _, line := range strings.Split(strings.TrimSuffix(jsonl, "\n"), "\n") {
		var c cluster.Cluster
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		for i, m := range c.Members {
			if tm := byCluster[c.ID][i]; m.Text == nil || *m.Text != tm.text {
				t.Fatalf("cluster %s member %d: jsonl text differs from tsv's %q", c.ID, i, tm.text)
			}
		}
	}
	// A member's document missing from --input is named.
	one := filepath.Join(t.TempDir(), "one.jsonl")
	if err := os.WriteFile(one, []byte(`{"id":"nobody","text":"Nothing here."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runPDC(t, "clusters", out, "--text", "--input", one); code != 1 || !strings.Contains(stderr, "is not in --input "+one) {
		t.Errorf("clusters --text with a member's document missing: exit %d\n%s", code, stderr)
	}
}

func unescapeT(t *testing.T, s string) string {
	t.Helper()
	r := strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\r`, "\r", `\\`, `\`)
	return r.Replace(s)
}

// TestClustersDateField: --date-field orders members by date (undated
// last); a run without --clusters gets a one-line error saying what to do.
func TestClustersDateField(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	story := "The river rose three feet overnight and closed the old bridge. " +
		"Engineers from the county inspected the pillars at dawn on Tuesday. " +
		"They found cracks in two of the four supports near the east bank. " +
		"The bridge will stay closed until the repairs are finished in spring."
	var b strings.Builder
	for i, date := range []string{"2024-05-03", "", "2024-01-09", "2024-03-01"} {
		own := fmt.Sprintf("Page %d has its own opening words about topic number %d here. ", i, i*7)
		rec := map[string]string{"id": fmt.Sprintf("d%d", i), "text": own + story}
		if date != "" {
			rec["date"] = date
		}
		line, _ := json.Marshal(rec)
		b.Write(append(line, '\n'))
	}
	docs := filepath.Join(dir, "docs.jsonl")
	if err := os.WriteFile(docs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, stderr, code := runPDC(t, "run", "--input", docs, "--output", out, "--clusters", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	got, stderr, code := runPDC(t, "clusters", out, "--date-field", "date")
	if code != 0 {
		t.Fatal(stderr)
	}
	var order []string
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		order = append(order, strings.Split(line, "\t")[2])
	}
	if strings.Join(order, " ") != "d2 d3 d0 d1" {
		t.Errorf("members by date: %v, want d2 d3 d0 d1\n%s", order, got)
	}
	if got, _, _ := runPDC(t, "clusters", out); !strings.HasPrefix(got, strings.Split(got, "\t")[0]+"\t4\td0\t") {
		t.Errorf("without --date-field the first member is not d0 (input order):\n%s", got)
	}
	plain := filepath.Join(dir, "plain")
	if _, stderr, code := runPDC(t, "run", "--input", docs, "--output", plain, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := runPDC(t, "clusters", plain); code != 1 || !strings.Contains(stderr, "--clusters") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("clusters of a run without them: exit %d, %q", code, stderr)
	}
}

// distinctWords returns the distinct tokens of text (lib/sentence).
func distinctWords(text string) map[string]bool {
	var tok sentence.Tokenizer
	ws := map[string]bool{}
	for _, w := range tok.Tokens(nil, text) {
		ws[w] = true
	}
	return ws
}

// TestComponentsJob: the sample's graph of passages is small, so its
// connected components are found by the components job in one job, whose
// reduce task writes the clusters too (components+clusters; two jobs with
// --keep-intermediate), and its clusters are those of the star rounds
// (--component-edges 0), which run in pairs of jobs until a round changes
// nothing, then the clusters job.
func TestComponentsJob(t *testing.T) {
	t.Parallel()
	runs := map[string]string{}
	for _, tt := range []struct {
		name  string
		flags []string
		want  []string // jobs after edges
	}{
		{"components", []string{"--component-edges", "250000"}, []string{"components+clusters"}},
		{"kept", []string{"--component-edges", "250000", "--keep-intermediate"}, []string{"components", "clusters"}},
		{"rounds", []string{"--component-edges", "0"}, []string{"large-star-1", "small-star-1"}},
	} {
		out := filepath.Join(t.TempDir(), "out")
		if _, stderr, code := runPDC(t, append([]string{"run", "--input", sample, "--output", out, "--clusters", "--quiet"}, tt.flags...)...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", tt.name, code, stderr)
		}
		data, err := os.ReadFile(filepath.Join(out, "jobs.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		var jobs []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			jobs = append(jobs, strings.Split(l, "\t")[0])
		}
		i := slices.Index(jobs, "edges")
		if i < 0 || len(jobs) < i+1+len(tt.want) || !slices.Equal(jobs[i+1:i+1+len(tt.want)], tt.want) ||
			(tt.name == "rounds") != (jobs[len(jobs)-1] == "clusters" && !slices.Contains(jobs, "components")) {
			t.Errorf("%s: jobs %v, want %v after edges", tt.name, jobs, tt.want)
		}
		for _, cmd := range [][]string{{"clusters", out}, {"clusters", out, "--format", "jsonl", "--text"}} {
			got, stderr, code := runPDC(t, cmd...)
			if code != 0 || strings.Count(got, "\n") < 20 {
				t.Fatalf("%s: pdc %v: exit %d, %d lines\n%s", tt.name, cmd[2:], code, strings.Count(got, "\n"), stderr)
			}
			runs[tt.name] += got
		}
	}
	if runs["components"] != runs["rounds"] || runs["kept"] != runs["rounds"] {
		t.Error("the clusters of the components job, fused or not, differ from the star rounds'")
	}
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", filepath.Join(t.TempDir(), "o"), "--component-edges", "-1"); code != 2 || !strings.Contains(stderr, "--component-edges must be >= 0") {
		t.Errorf("--component-edges -1: exit %d, %s", code, stderr)
	}
}
