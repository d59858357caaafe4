package jobs

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// dedupCorpus writes documents that share two passages, P (5 sentences:
// d1, d2, d3 and the HTML page d6) and Q (4 sentences: d2 and d5), each
// with text of its own (but d3, which is P alone), and a second record of
// id d1. d2 is the longest document; by "date", d5 is the earliest of Q's
// and d3 of P's (d1 has no date, d4 is earliest of all but in no cluster).
func dedupCorpus(t *testing.T) string {
	r := rand.New(rand.NewPCG(1, 2))
	own := func(n int) string { return sentences(r, n) }
	p, q := sentences(r, 5), sentences(r, 4)
	recs := []string{
		fmt.Sprintf(`{"id":"d1","url":"https://example.com/d1","text":%q}`, own(3)+p+own(2)),
		fmt.Sprintf(`{"id":"d2","date":"2020-01-01","text":%q}`, own(4)+q+own(3)+p+own(3)),
		fmt.Sprintf(`{"id":"d3","date":"2019-05-01","text":%q}`, p),
		fmt.Sprintf(`{"id":"d4","date":"2010-01-01","text":%q}`, own(5)),
		fmt.Sprintf(`{"date":"2018-03-03","id":"d5","text":%q}`, own(2)+q+own(1)),
		fmt.Sprintf(`{"id":"d6","date":"2021-01-01","html":%q}`, "<html><body><h1>"+own(1)+"</h1><p>"+own(2)+"</p><p>"+p+"</p><p>"+own(1)+"</p></body></html>"),
		fmt.Sprintf(`{"id":"d1","text":%q}`, own(3)),
	}
	return writeFile(t, filepath.Join(t.TempDir(), "docs.jsonl"), strings.Join(recs, "\n")+"\n")
}

// sentences returns n sentences of made-up words, each followed by a space.
func sentences(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		words := 8 + r.IntN(5)
		for w := range words {
			var word []byte
			for i := range 2 + r.IntN(3) {
				word = append(word, "bcdfghklmnprstvz"[r.IntN(16)], "aeiou"[r.IntN(5)])
				if i == 0 && w == 0 {
					word[0] -= 'a' - 'A'
				}
			}
			b.Write(word)
			if w < words-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
	return b.String()
}

// TestDedup runs pdc run --clusters and pdc dedup with each --keep rule on
// dedupCorpus, and checks CLEAN: every document, each cluster's passage in
// exactly its kept document, and each document's text its extracted text
// less exactly the ranges of removed.tsv.
func TestDedup(t *testing.T) {
	t.Parallel()
	in := dedupCorpus(t)
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--clusters", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	cs, err := cluster.Read(hdfsfs.Local(), out+"/clusters")
	if err != nil {
		t.Fatal(err)
	}
	var docsOf []string
	for _, c := range cs {
		var ds []string
		for _, mem := range c.Members {
			ds = append(ds, mem.Doc)
		}
		docsOf = append(docsOf, strings.Join(ds, ","))
	}
	if want := []string{"d1,d2,d3,d6", "d2,d5"}; !slices.Equal(docsOf, want) {
		t.Fatalf("clusters' documents: %q, want %q", docsOf, want)
	}
	orig := dedupTexts(t, out, in)
	// The kept passages go to a temporary file: without a temporary
	// directory, a one-line error and no output.
	noTmp := filepath.Join(t.TempDir(), "clean-no-tmp")
	_, stderr, code := runPDCEnv(t, []string{"TMPDIR=" + filepath.Join(t.TempDir(), "missing")}, "dedup", out, "--output", noTmp)
	if code != 1 || !strings.Contains(stderr, "dedup: the kept passages' file: ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("dedup without $TMPDIR: exit %d %q, want 1 and one line about the kept passages' file", code, stderr)
	}
	if ents, _ := os.ReadDir(noTmp); len(ents) != 0 {
		t.Errorf("dedup without $TMPDIR left %d files in %s", len(ents), noTmp)
	}
	for _, tc := range []struct {
		keep    []string
		kept    []string // of the clusters P and Q
		summary string
	}{
		{nil, []string{"d1", "d2"}, "pdc dedup: 7 documents read, 6 written to CLEAN/docs.jsonl (1 duplicate id skipped, 1 left empty); 4 ranges removed from 4 documents (CLEAN/removed.tsv)"},
		{[]string{"--keep", "longest"}, []string{"d2", "d2"}, "4 ranges removed from 4 documents"},
		{[]string{"--keep", "earliest", "--date-field", "date"}, []string{"d3", "d5"}, "each held by its kept copy (checked); 0 characters of 4 removed members left, aligned to no kept copy; 1 of 5 cluster documents without date\n"},
	} {
		t.Run(strings.Join(append([]string{"keep"}, tc.keep...), " "), func(t *testing.T) {
			t.Parallel()
			clean := filepath.Join(t.TempDir(), "clean")
			_, stderr, code := runPDC(t, append([]string{"dedup", out, "--output", clean, "--verify"}, tc.keep...)...)
			if code != 0 {
				t.Fatalf("dedup: exit %d %s", code, stderr)
			}
			if want := strings.ReplaceAll(tc.summary, "CLEAN", clean); !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("summary: %q, want a line with %q", stderr, want)
			}
			checkDedup(t, cs, orig, clean, tc.kept)
		})
	}
}

// dedupTexts returns the extracted text of the documents in in, as the run
// in out read them.
func dedupTexts(t *testing.T, out, in string) map[string]string {
	t.Helper()
	m := &Main{Stdout: io.Discard, Stderr: io.Discard, Getenv: os.Getenv}
	need := map[string]bool{"d1": true, "d2": true, "d3": true, "d4": true, "d5": true, "d6": true}
	r, err := m.openRun(out)
	if err != nil {
		t.Fatal(err)
	}
	texts, _, err := m.docTexts(need, m.given([]string{in}), r.ConfigOrDefault().Analyzer())
	if err != nil || len(texts) != len(need) {
		t.Fatalf("texts: %v (%d documents)", err, len(texts))
	}
	return texts
}

// checkDedup checks CLEAN against the clusters cs (P, then Q), the
// original texts and the kept documents.
func checkDedup(t *testing.T, cs []cluster.Cluster, orig map[string]string, clean string, kept []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(clean, "docs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	docs := parseLines(t, raw)
	if ids := docIDs(docs); !slices.Equal(ids, []string{"d1", "d2", "d3", "d4", "d5", "d6"}) {
		t.Fatalf("docs.jsonl ids %q, want d1 to d6", ids)
	}
	if docs[0].URL != "https://example.com/d1" || docs[0].IsHTML {
		t.Errorf("d1: url %q, html %v", docs[0].URL, docs[0].IsHTML)
	}
	cleaned := map[string]string{}
	for _, d := range docs {
		cleaned[d.ID] = d.Text
	}
	// (1) the records keep the fields pdc does not read; html becomes text.
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"d2": "2020-01-01", "d3": "2019-05-01", "d4": "2010-01-01", "d5": "2018-03-03", "d6": "2021-01-01"}[docs[i].ID]
		if date, _ := rec["date"].(string); date != want || rec["html"] != nil {
			t.Errorf("%s: record %s, want date %q and no html", docs[i].ID, line, want)
		}
	}
	removed := readRemoved(t, filepath.Join(clean, "removed.tsv"))
	// (3) each text is the original less exactly the removed ranges.
	for id, text := range orig {
		if want := cutRanges(text, removed[id]); cleaned[id] != want {
			t.Errorf("%s: text\n%q\nwant\n%q", id, cleaned[id], want)
		}
	}
	// (2) each cluster's passage is in its kept document only.
	for i, c := range cs {
		var k *cluster.Member
		for j := range c.Members {
			if c.Members[j].Doc == kept[i] {
				k = &c.Members[j]
				break
			}
		}
		if k == nil {
			t.Fatalf("cluster %d: no member of %s", i, kept[i])
		}
		passage := runeSlice(orig[k.Doc], k.CharStart, k.CharEnd)
		var in []string
		for _, d := range docs {
			if strings.Contains(d.Text, strings.TrimSpace(passage)) {
				in = append(in, d.ID)
			}
		}
		if len(in) != 1 || in[0] != kept[i] {
			t.Errorf("cluster %d: passage in %q, want only in %s", i, in, kept[i])
		}
		// (4) each cut range is aligned to a range of the kept member
		// that holds its text.
		for id, rs := range removed {
			for _, r := range rs {
				if r.cluster != c.ID {
					continue
				}
				cut := strings.TrimSpace(runeSlice(orig[id], r.start, r.end))
				held := strings.TrimSpace(runeSlice(orig[k.Doc], r.keptStart, r.keptEnd))
				if r.keptDoc != k.Doc || r.keptStart < k.CharStart || r.keptEnd > k.CharEnd || cut != held ||
					id == k.Doc && r.start < k.CharEnd && r.end > k.CharStart || r.held != "1.0000" || r.reason != "copy" {
					t.Errorf("cluster %d: removed %+v of %s (%q), kept %s %d-%d (%q)", i, r, id, cut, k.Doc, k.CharStart, k.CharEnd, held)
				}
			}
		}
	}
}

// removedLine is a line of removed.tsv.
type removedLine struct {
	start, end         int
	cluster, keptDoc   string
	keptStart, keptEnd int
	held, reason       string
}

// readRemoved reads removed.tsv by document.
func readRemoved(t *testing.T, path string) map[string][]removedLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != "#doc\tchar_start\tchar_end\tcluster\tkept_doc\tkept_char_start\tkept_char_end\theld\treason" {
		t.Errorf("removed.tsv header %q", lines[0])
	}
	out := map[string][]removedLine{}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 9 {
			t.Fatalf("removed.tsv line %q", l)
		}
		n := make([]int, 7)
		for _, i := range []int{1, 2, 5, 6} {
			if n[i], err = strconv.Atoi(f[i]); err != nil {
				t.Fatalf("removed.tsv line %q: %v", l, err)
			}
		}
		id, _ := mr.Unescape(f[0])
		kd, _ := mr.Unescape(f[4])
		out[id] = append(out[id], removedLine{n[1], n[2], f[3], kd, n[5], n[6], f[7], f[8]})
	}
	return out
}

// cutRanges returns text without the characters in any of rs.
func cutRanges(text string, rs []removedLine) string {
	var b strings.Builder
	i := 0
	for _, c := range text {
		cut := false
		for _, r := range rs {
			cut = cut || r.start <= i && i < r.end
		}
		if !cut {
			b.WriteRune(c)
		}
		i++
	}
	return b.String()
}

// TestDedupConflicts: hand-written clusters whose members overlap in a
// document kept for one cluster and removed for the other: the kept
// characters stay, and of the removed members only the sentences aligned
// to the kept member go, each with the kept range it is aligned to.
func TestDedupConflicts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	own, s1, s2, s3, s4 := "Ἀλφα βῆτα γάμμα δέλτα ἔψιλον. ", sentences(r, 1), sentences(r, 1), sentences(r, 1), sentences(r, 1)
	texts := map[string]string{"x": own + s1 + s2 + s3, "y\tz": s1 + s2 + s3 + s4, "z": s1 + s2}
	in := writeFile(t, filepath.Join(dir, "docs.jsonl"), fmt.Sprintf("{\"id\":\"x\",\"text\":%q}\n{\"id\":\"y\\tz\",\"text\":%q}\n{\"id\":\"z\",\"text\":%q}\n",
		texts["x"], texts["y\tz"], texts["z"]))
	// at returns the rune range of sentences from..to (s1 is 1) in d.
	at := func(d string, from, to int) (int, int) {
		parts := map[string][]string{"x": {own, s1, s2, s3}, "y\tz": {"", s1, s2, s3, s4}, "z": {"", s1, s2}}[d]
		start := len([]rune(strings.Join(parts[:from], "")))
		end := len([]rune(strings.Join(parts[:to+1], ""))) - 1 // less the space after
		return start, end
	}
	out := filepath.Join(dir, "out")
	var b []byte
	member := func(cid, src, d string, from, to int) {
		s, e := at(d, from, to)
		b = cluster.AppendMember(b, []byte(cid), []byte(src), []byte(mr.Escape(d)), []byte("-"), s, e, 0)
	}
	member("c0000000000000001", "0", "x", 1, 2)
	member("c0000000000000001", "1", "y\tz", 1, 2)
	member("c0000000000000001", "2", "z", 1, 2)
	b = cluster.AppendSummary(b, []byte("c0000000000000001"), 3, 3)
	member("c0000000000000002", "1", "y\tz", 2, 4)
	member("c0000000000000002", "0", "x", 2, 3)
	b = cluster.AppendSummary(b, []byte("c0000000000000002"), 2, 2)
	writeFile(t, filepath.Join(out, "clusters", "part-00000"), string(b))
	writeFile(t, filepath.Join(out, "clusters", "_SUCCESS"), "")
	clean := filepath.Join(dir, "clean")
	_, stderr, code := runPDC(t, "dedup", out, "--input", in, "--output", clean)
	if code != 0 {
		t.Fatalf("dedup: exit %d %s", code, stderr)
	}
	if !strings.Contains(stderr, "(1 left empty); 3 ranges removed from 3 documents") {
		t.Errorf("summary: %s", stderr)
	}
	// x keeps s1 s2 (cluster 1) and loses s3 (kept in y); y keeps s2 s3
	// s4 (cluster 2) and loses s1 (kept in x); z loses both.
	got, _ := os.ReadFile(filepath.Join(clean, "docs.jsonl"))
	want := fmt.Sprintf("{\"id\":\"x\",\"text\":%q}\n{\"id\":\"y\\tz\",\"text\":%q}\n{\"id\":\"z\",\"text\":\" \"}\n",
		own+s1+s2+" ", " "+s2+s3+s4)
	if string(got) != want {
		t.Errorf("docs.jsonl:\n%s\nwant\n%s", got, want)
	}
	line := func(d string, from, to int, cid, kd string, kfrom, kto int) string {
		s, e := at(d, from, to)
		ks, ke := at(kd, kfrom, kto)
		return fmt.Sprintf("%s\t%d\t%d\t%s\t%s\t%d\t%d\t1.0000\tcopy\n", mr.Escape(d), s, e, cid, mr.Escape(kd), ks, ke)
	}
	got, _ = os.ReadFile(filepath.Join(clean, "removed.tsv"))
	want = "#doc\tchar_start\tchar_end\tcluster\tkept_doc\tkept_char_start\tkept_char_end\theld\treason\n" +
		line("x", 3, 3, "c0000000000000002", "y\tz", 3, 3) +
		line("y\tz", 1, 1, "c0000000000000001", "x", 1, 1) +
		line("z", 1, 2, "c0000000000000001", "x", 1, 2)
	if string(got) != want {
		t.Errorf("removed.tsv:\n%s\nwant\n%s", got, want)
	}
	// A member's document missing from the input, or shorter than its
	// passage: the documents are not the run's.
	for _, tc := range []struct{ docs, msg string }{
		{fmt.Sprintf("{\"id\":\"x\",\"text\":%q}\n", texts["x"]), `document "y\tz" of cluster c0000000000000001 is not in --input`},
		{`{"id":"x","text":"short"}` + "\n", `document "x" (`},
	} {
		other := writeFile(t, filepath.Join(t.TempDir(), "other.jsonl"), tc.docs)
		_, stderr, code := runPDC(t, "dedup", out, "--input", other, "--output", filepath.Join(t.TempDir(), "c"))
		if code != 1 || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("dedup with %s: exit %d %q, want 1 and %q", tc.docs, code, stderr, tc.msg)
		}
	}
}

// TestDedupErrors: usage errors exit 2, a run without clusters and an
// output in the way 1, each with one line saying what to do.
func TestDedupErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "docs.jsonl"), `{"id":"a","text":"One sentence here. Another one there."}`+"\n")
	out := filepath.Join(dir, "out")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	clean := filepath.Join(dir, "clean")
	_, stderr, code := runPDC(t, "dedup", out, "--output", clean)
	if want := "has no passage clusters: run it with them (pdc run --input DOCS --output " + out + " --clusters --overwrite)"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("run without clusters: exit %d %q, want 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(clean); err == nil {
		t.Errorf("%s created by a failed dedup", clean)
	}
	// Usage errors, in this process.
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{out}, "dedup: --output CLEAN is required (run 'pdc dedup --help')"},
		{[]string{out, "--output", clean, "--keep", "last"}, `dedup: unknown --keep "last"`},
		{[]string{out, "--output", clean, "--keep", "earliest"}, "--date-field NAME"},
		{[]string{out, "--output", clean, "--date-field", "date"}, "--date-field is for --keep earliest"},
		{[]string{out, out, "--output", clean}, "want exactly one run output directory"},
	} {
		m := &Main{Stdout: io.Discard, Stderr: io.Discard, Getenv: os.Getenv}
		err := m.Run(t.Context(), append([]string{"dedup"}, tc.args...))
		if ExitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), tc.msg) {
			t.Errorf("dedup %q: %v, want a usage error with %q", tc.args, err, tc.msg)
		}
	}
	// Outputs in the way, and a previous dedup replaced.
	writeFile(t, filepath.Join(out, "clusters", "_SUCCESS"), "") // no clusters
	other := writeFile(t, filepath.Join(dir, "other", "notes.txt"), "mine")
	previous := filepath.Join(dir, "previous")
	writeFile(t, filepath.Join(previous, "docs.jsonl"), "old\n")
	writeFile(t, filepath.Join(previous, "removed.tsv"), "old\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"not empty", []string{"--output", filepath.Dir(other)}, 1, "output " + filepath.Dir(other) + " already exists and is not empty (use --overwrite"},
		{"not a dedup", []string{"--output", filepath.Dir(other), "--overwrite"}, 1, "choose a new or empty directory"},
		{"a file", []string{"--output", other}, 1, "is a file"},
		{"a dedup", []string{"--output", previous, "--overwrite"}, 0, "pdc dedup: 1 document read, 1 written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runPDC(t, append([]string{"dedup", out}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d %q, want %d and a line with %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
	t.Cleanup(func() {
		if data, _ := os.ReadFile(filepath.Join(previous, "docs.jsonl")); string(data) != `{"id":"a","text":"One sentence here. Another one there."}`+"\n" {
			t.Errorf("overwritten docs.jsonl: %q", data)
		}
	})
}

// TestDedupJobs checks that pdc dedup --jobs (the local runner's jobs)
// writes the documents and removed ranges that pdc dedup writes through
// one process, with each --keep rule, with --drop-empty, and with exact
// copies (read by the facts job), and that it refuses what it cannot do.
func TestDedupJobs(t *testing.T) {
	t.Parallel()
	in := dedupCorpus(t)
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	// d7 is an exact copy of d4, d8 a document of P alone, like d3.
	d4 := strings.Split(string(raw), "\n")[3]
	d3 := strings.Split(string(raw), "\n")[2]
	raw = append(raw, strings.Replace(d4, `"d4"`, `"d7"`, 1)+"\n"+strings.Replace(d3, `"d3"`, `"d8"`, 1)+"\n"...)
	in = writeFile(t, filepath.Join(t.TempDir(), "docs.jsonl"), string(raw))
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--clusters", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	if cps, err := os.ReadFile(out + "/copies.tsv"); err != nil || !strings.Contains(string(cps), "d7\td4") {
		t.Fatalf("copies.tsv: %q %v, want d7 a copy of d4", cps, err)
	}
	for _, flags := range [][]string{nil, {"--keep", "longest"}, {"--keep", "earliest", "--date-field", "date"}, {"--drop-empty"}} {
		t.Run(strings.Join(append([]string{"dedup"}, flags...), " "), func(t *testing.T) {
			t.Parallel()
			one, jobs := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "jobs")
			_, stderr1, code := runPDC(t, append([]string{"dedup", out, "--output", one, "--verify"}, flags...)...)
			if code != 0 {
				t.Fatalf("dedup: exit %d %s", code, stderr1)
			}
			_, stderr2, code := runPDC(t, append([]string{"dedup", out, "--output", jobs, "--verify", "--jobs", "--quiet", "--workers", "2"}, flags...)...)
			if code != 0 {
				t.Fatalf("dedup --jobs: exit %d %s", code, stderr2)
			}
			docs, removed := partLines(t, jobs+"/docs"), partLines(t, jobs+"/removed")
			if want := sortedFileLines(t, one+"/docs.jsonl", 0); !slices.Equal(docs, want) || len(want) < 6 {
				t.Errorf("docs/ of --jobs:\n%s\nwant docs.jsonl's lines:\n%s", strings.Join(docs, "\n"), strings.Join(want, "\n"))
			}
			if want := sortedFileLines(t, one+"/removed.tsv", 1); !slices.Equal(removed, want) || len(want) < 4 {
				t.Errorf("removed/ of --jobs:\n%s\nwant removed.tsv's lines:\n%s", strings.Join(removed, "\n"), strings.Join(want, "\n"))
			}
			// pdc reads CLEAN/docs back as input.
			if text, stderr, code := runPDC(t, "text", "--input", jobs+"/docs"); code != 0 || strings.Count(text, "# doc ") != len(docs) {
				t.Errorf("pdc text --input CLEAN/docs: exit %d, %d documents, want %d\n%s", code, strings.Count(text, "# doc "), len(docs), stderr)
			}
			// The summaries differ only in the files named.
			s1 := strings.ReplaceAll(strings.ReplaceAll(stderr1, one+"/docs.jsonl", "DOCS"), one+"/removed.tsv", "REMOVED")
			s2 := strings.ReplaceAll(strings.ReplaceAll(stderr2, jobs+"/docs/", "DOCS"), jobs+"/removed/", "REMOVED")
			if s1 != s2 {
				t.Errorf("summary of --jobs:\n%s\nwant as without:\n%s", s2, s1)
			}
			ents, _ := os.ReadDir(jobs)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{"_dedup.json", "docs", "removed"}) {
				t.Errorf("CLEAN of --jobs holds %q, want _dedup.json, docs and removed", names)
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		clean := filepath.Join(t.TempDir(), "clean")
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--jobs", "--queue", "q"}, "dedup: --queue is for runs made with --hadoop"},
			{[]string{"--reducers", "3"}, "dedup: --queue and --reducers are for --jobs"},
			{[]string{"--jobs", "--output", "hdfs://nn:8020/clean"}, "dedup --jobs: the run " + out + " was made by the local runner: give a local --output"},
		} {
			args := append([]string{"dedup", out, "--output", clean}, tc.args...)
			if _, stderr, code := runPDC(t, args...); code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%q: exit %d %q, want 2 and %q", args, code, stderr, tc.want)
			}
		}
		// Documents other than the run's: the cut of the first record of
		// an id fails the job, naming it (d1's later record, of another
		// text, fails too, and is left out).
		other := writeFile(t, filepath.Join(t.TempDir(), "other.jsonl"), strings.Replace(string(raw), `{"id":"d2"`, `{"id":"d2","text":"Short."}`+"\n"+`{"id":"d2x"`, 1))
		_, stderr, code := runPDC(t, "dedup", out, "--output", clean, "--jobs", "--input", other)
		if code != 1 || !strings.Contains(stderr, "other.jsonl line 2 (id d2): passage ") || !strings.Contains(stderr, "give the run's documents") {
			t.Errorf("dedup --jobs of other documents: exit %d %q", code, stderr)
		}
		// Documents without one of the clusters': an error, and no CLEAN
		// files (d6 is in P's cluster).
		var keep []string
		for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if !strings.Contains(l, `"id":"d6"`) {
				keep = append(keep, l)
			}
		}
		missing := writeFile(t, filepath.Join(t.TempDir(), "missing.jsonl"), strings.Join(keep, "\n")+"\n")
		_, stderr, code = runPDC(t, "dedup", out, "--output", clean, "--jobs", "--overwrite", "--input", missing)
		if _, err := os.Stat(clean + "/docs"); code != 1 || !strings.Contains(stderr, "1 of the 8 documents of the clusters are not among the documents read") || err == nil {
			t.Errorf("dedup --jobs without a cluster's document: exit %d %q, docs/ %v", code, stderr, err)
		}
		// One pdc dedup per CLEAN at a time.
		lock, err := pipeline.AcquireLock(hdfsfs.Local(), clean, pipeline.LockInfo{PID: 1, Command: "pdc dedup"}, false)
		if err != nil {
			t.Fatal(err)
		}
		_, stderr, code = runPDC(t, "dedup", out, "--output", clean, "--jobs", "--overwrite")
		lock.Release()
		if code != 1 || !strings.Contains(stderr, "is in use by pdc dedup pid 1") {
			t.Errorf("dedup --jobs into a CLEAN in use: exit %d %q", code, stderr)
		}
		if err := os.MkdirAll(clean+"/other", 0o755); err != nil {
			t.Fatal(err)
		}
		_, stderr, code = runPDC(t, "dedup", out, "--output", clean, "--jobs", "--overwrite")
		if code != 1 || !strings.Contains(stderr, "holds other files than a pdc dedup") {
			t.Errorf("dedup --jobs into a directory of other files: exit %d %q", code, stderr)
		}
	})
}

// partLines returns the lines of the part files of dir, sorted, without
// the TAB that Hadoop's text output ends a line without one with.
func partLines(t *testing.T, dir string) []string {
	t.Helper()
	parts, err := filepath.Glob(dir + "/part-*")
	if err != nil || len(parts) == 0 {
		t.Fatalf("%s: no part files (%v)", dir, err)
	}
	if _, err := os.Stat(dir + "/_SUCCESS"); err != nil {
		t.Errorf("%s has no _SUCCESS", dir)
	}
	var lines []string
	for _, p := range parts {
		for _, l := range sortedFileLines(t, p, 0) {
			lines = append(lines, strings.TrimSuffix(l, "\t"))
		}
	}
	slices.Sort(lines)
	return lines
}

// sortedFileLines returns the lines of a file after its first skip lines,
// sorted.
func sortedFileLines(t *testing.T, name string, skip int) []string {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(raw) == 0 {
		lines = nil
	}
	lines = lines[min(skip, len(lines)):]
	slices.Sort(lines)
	return lines
}

// TestDedupJobsTree: for a run over a directory tree of pages, pdc dedup
// --jobs writes the documents pdc dedup writes through one process: id
// and text, not the fields of the pages' JSON Lines rendering (site).
func TestDedupJobsTree(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(t.TempDir(), "tree")
	for i, page := range samplePages(t, 6) {
		writeFile(t, filepath.Join(tree, fmt.Sprintf("p%d.html", i)), page)
		writeFile(t, filepath.Join(tree, "copies", fmt.Sprintf("p%d.html", i)), page+"<p>A line of the copy alone, in its own words here.</p>")
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", tree, "--output", out, "--clusters", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	one, jobs := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "jobs")
	if _, stderr, code := runPDC(t, "dedup", out, "--output", one, "--verify"); code != 0 {
		t.Fatalf("dedup: exit %d %s", code, stderr)
	}
	if _, stderr, code := runPDC(t, "dedup", out, "--output", jobs, "--verify", "--jobs", "--quiet"); code != 0 {
		t.Fatalf("dedup --jobs: exit %d %s", code, stderr)
	}
	docs, want := partLines(t, jobs+"/docs"), sortedFileLines(t, one+"/docs.jsonl", 0)
	if !slices.Equal(docs, want) || len(want) != 12 || strings.Contains(strings.Join(want, "\n"), `"site"`) {
		t.Errorf("docs/ of --jobs:\n%s\nwant docs.jsonl's lines:\n%s", strings.Join(docs, "\n"), strings.Join(want, "\n"))
	}
	if removed := partLines(t, jobs+"/removed"); len(removed) == 0 {
		t.Errorf("no range removed from the copies")
	}
}

// TestDedupJobsTreeBatch: for a batch run over a tree against a stored run
// over another tree, pdc dedup --jobs writes every page of the batch's
// tree, as pdc dedup does: the pages of the two trees are read in
// separate batches, so none of the batch's pages is taken for a stored one.
func TestDedupJobsTreeBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stored, batch := filepath.Join(dir, "stored"), filepath.Join(dir, "batch")
	for i, page := range samplePages(t, 6) {
		writeFile(t, filepath.Join(stored, fmt.Sprintf("s%d.html", i)), page)
		writeFile(t, filepath.Join(batch, fmt.Sprintf("b%d.html", i)), page+"<p>A line of the copy alone, in its own words here.</p>")
	}
	out0, out1 := filepath.Join(dir, "o0"), filepath.Join(dir, "o1")
	if _, stderr, code := runPDC(t, "run", "--input", stored, "--output", out0, "--store", "--clusters", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := runPDC(t, "run", "--input", batch, "--against", out0, "--output", out1, "--clusters", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	one, jobs := filepath.Join(dir, "one"), filepath.Join(dir, "jobs")
	if _, stderr, code := runPDC(t, "dedup", out1, "--output", one); code != 0 {
		t.Fatalf("dedup: exit %d %s", code, stderr)
	}
	if _, stderr, code := runPDC(t, "dedup", out1, "--output", jobs, "--jobs", "--quiet"); code != 0 {
		t.Fatalf("dedup --jobs: exit %d %s", code, stderr)
	}
	docs, want := partLines(t, jobs+"/docs"), sortedFileLines(t, one+"/docs.jsonl", 0)
	if !slices.Equal(docs, want) || len(want) != 6 {
		t.Errorf("docs/ of --jobs:\n%s\nwant docs.jsonl's 6 lines:\n%s", strings.Join(docs, "\n"), strings.Join(want, "\n"))
	}
	removed, wantRemoved := partLines(t, jobs+"/removed"), sortedFileLines(t, one+"/removed.tsv", 1)
	if !slices.Equal(removed, wantRemoved) || len(wantRemoved) == 0 {
		t.Errorf("removed/ of --jobs:\n%s\nwant removed.tsv's rows:\n%s", strings.Join(removed, "\n"), strings.Join(wantRemoved, "\n"))
	}
}

// samplePages returns the first n documents of the sample as HTML pages:
// their html field, or their text in a paragraph.
func samplePages(t *testing.T, n int) []string {
	t.Helper()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[:n] {
		var d struct{ HTML, Text string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		page := d.HTML
		if page == "" {
			page = "<p>" + html.EscapeString(d.Text) + "</p>"
		}
		pages = append(pages, page)
	}
	return pages
}
