package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/clean"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// splitSample writes the sample's documents to dir as one JSON Lines file
// per name, document i going to the file part(i) names, and returns the
// files in name order and the ids of each.
func splitSample(t *testing.T, dir string, part func(i int) string) (files []string, ids map[string][]string) {
	t.Helper()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	ids = map[string][]string{}
	lines := map[string][]string{}
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var d struct{ ID string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		name := part(i)
		lines[name] = append(lines[name], l)
		ids[name] = append(ids[name], d.ID)
	}
	for name, ls := range lines {
		path := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	slices.Sort(files)
	return files, ids
}

// spanLines returns pdc spans OUT as lines, sorted.
func spanLines(t *testing.T, out string) []string {
	t.Helper()
	stdout, stderr, code := runPDC(t, "spans", out)
	if code != 0 {
		t.Fatalf("pdc spans %s: exit %d\n%s", out, code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if stdout == "" {
		lines = nil
	}
	slices.Sort(lines)
	return lines
}

// TestBatchMatchesFull: the sample split into batches, each run against
// the run of the one before (the first with --store), gives in each batch
// run exactly the spans that one run over that batch and all before it
// finds between a document of the batch and any other. Through hubs and
// site templates too (--hub-df 2 --max-site-df 2: most lists joined
// through hubs, sentences in three pages of a site left out). With
// defaults, its clusters (--clusters, from the spans of the batch and of
// the stored runs) that have a member in the batch are that run's. Through
// hubs and templates they may differ there: the stored runs' spans between
// two stored documents were found on the stored collection's counts, and
// the run over all finds a few others (a pair through another hub).
func TestBatchMatchesFull(t *testing.T) {
	t.Parallel()
	splits := []struct {
		name string
		part func(i int) string
	}{
		{"thirds by position", func(i int) string { return string(rune('a' + i*3/31)) }},
		{"every third", func(i int) string { return string(rune('a' + i%3)) }},
		{"last seven", func(i int) string {
			if i >= 24 {
				return "b"
			}
			return "a"
		}},
	}
	for _, flags := range [][]string{nil, {"--hub-df", "2", "--max-site-df", "2"}} {
		for _, sp := range splits {
			t.Run(sp.name+" "+strings.Join(flags, " "), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				files, ids := splitSample(t, dir, sp.part)
				prev, compared, clustered, untouched := "", 0, 0, 0
				for i, f := range files {
					name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
					out := filepath.Join(dir, "run-"+name)
					args := append([]string{"run", "--quiet", "--clusters", "--input", f, "--output", out}, flags...)
					if i == 0 {
						args = append(args, "--store")
					} else {
						args = append(args, "--against", prev)
					}
					if _, stderr, code := runPDC(t, args...); code != 0 {
						t.Fatalf("batch %s: exit %d\n%s", name, code, stderr)
					}
					storedRun := prev
					prev = out
					if i == 0 {
						continue
					}
					whole := filepath.Join(dir, "whole-"+name)
					args = append([]string{"run", "--quiet", "--clusters", "--output", whole}, flags...)
					for _, f := range files[:i+1] {
						args = append(args, "--input", f)
					}
					if _, stderr, code := runPDC(t, args...); code != 0 {
						t.Fatalf("run over batches up to %s: exit %d\n%s", name, code, stderr)
					}
					batch := map[string]bool{}
					for _, id := range ids[name] {
						batch[id] = true
					}
					var want []string
					for _, l := range spanLines(t, whole) {
						f := strings.SplitN(l, "\t", 3)
						if batch[f[0]] || batch[f[1]] {
							want = append(want, l)
						}
					}
					got := spanLines(t, out)
					if !slices.Equal(got, want) {
						t.Errorf("batch %s: %d spans, want the %d of the run over it and the batches before with a document of it:\n got %q\nwant %q", name, len(got), len(want), got, want)
					}
					compared += len(want)
					if flags != nil {
						continue
					}
					wantAll, _, _ := runPDC(t, "clusters", whole)
					gotAll, stderr, code := runPDC(t, "clusters", out)
					wantC, gotC := withMember(wantAll, batch), withMember(gotAll, batch)
					if code != 0 || gotC != wantC {
						t.Errorf("batch %s: pdc clusters (exit %d, %d lines) differ from the run over it and the batches before (%d lines)\n%s\ngot:\n%s\nwant:\n%s", name, code, strings.Count(gotC, "\n"), strings.Count(wantC, "\n"), stderr, gotC, wantC)
					}
					// A cluster the batch does not touch keeps its id and
					// members: it is the stored run's.
					before := clusterBlocks(runPDCOut(t, "clusters", storedRun))
					for id, block := range clusterBlocks(gotAll) {
						if withMember(block, batch) != "" {
							continue
						}
						if before[id] != block {
							t.Errorf("batch %s: cluster %s, with no batch member, is not the stored run's:\n%s\nstored run:\n%s", name, id, block, before[id])
						}
						untouched++
					}
					clustered += strings.Count(wantC, "\n")
				}
				if clustered == 0 && flags == nil {
					t.Error("the runs have no cluster")
				}
				// (every third document of the sample is in each cluster's
				// reach: its batches touch every cluster)
				if untouched == 0 && flags == nil && sp.name != "every third" {
					t.Error("no batch leaves a stored cluster untouched")
				}
				if compared == 0 {
					t.Error("the split tests nothing: no span with a document of a later batch")
				}
			})
		}
	}
}

// clusterBlocks splits pdc clusters output into its clusters' lines, by id.
func clusterBlocks(clusters string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.SplitAfter(clusters, "\n") {
		if id, _, ok := strings.Cut(l, "\t"); ok {
			out[id] += l
		}
	}
	return out
}

// runPDCOut is runPDC's stdout, the command failing the test otherwise.
func runPDCOut(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, code := runPDC(t, args...)
	if code != 0 {
		t.Fatalf("pdc %v: exit %d\n%s", args, code, stderr)
	}
	return stdout
}

// withMember returns the clusters of pdc clusters output that have a
// member in a document of ids.
func withMember(clusters string, ids map[string]bool) string {
	keep := map[string]bool{}
	lines := strings.SplitAfter(clusters, "\n")
	for _, l := range lines {
		if f := strings.Split(l, "\t"); len(f) > 2 && ids[f[2]] {
			keep[f[0]] = true
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if keep[strings.SplitN(l, "\t", 2)[0]] {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestBatchCopies: a batch run's copies.tsv lists the exact copies that
// one run over the stored documents and the batch lists with a batch
// document on either side, not the stored runs' copies of stored
// documents by each other.
func TestBatchCopies(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	copyOf := func(i int, id string) string {
		var d map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &d); err != nil {
			t.Fatal(err)
		}
		d["id"] = id
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dir := t.TempDir()
	base, batch := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	baseLines := append(slices.Clone(lines[:20]), copyOf(0, "copy/stored-of-stored"))
	batchLines := append(slices.Clone(lines[20:]), copyOf(0, "copy/new-of-stored"), copyOf(25, "copy/new-of-new"))
	for name, ls := range map[string][]string{base: baseLines, batch: batchLines} {
		if err := os.WriteFile(name, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	isBatch := map[string]bool{}
	for _, l := range batchLines {
		var d struct{ ID string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		isBatch[d.ID] = true
	}
	stored, out, whole := filepath.Join(dir, "stored"), filepath.Join(dir, "batch"), filepath.Join(dir, "whole")
	for _, args := range [][]string{
		{"run", "--quiet", "--input", base, "--output", stored, "--store"},
		{"run", "--quiet", "--input", batch, "--output", out, "--against", stored},
		{"run", "--quiet", "--input", base, "--input", batch, "--output", whole},
	} {
		if _, stderr, code := runPDC(t, args...); code != 0 {
			t.Fatalf("pdc %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	copyLines := func(run string) []string {
		data, err := os.ReadFile(filepath.Join(run, "copies.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		ls := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
		slices.Sort(ls)
		return ls
	}
	var want []string
	storedOnly := 0
	for _, l := range copyLines(whole) {
		if f := strings.Split(l, "\t"); isBatch[f[0]] || isBatch[f[1]] {
			want = append(want, l)
		} else {
			storedOnly++
		}
	}
	if len(want) != 2 || storedOnly != 1 {
		t.Fatalf("the whole run's copies.tsv: %d lines with a batch document, %d without; want 2 and 1:\n%s", len(want), storedOnly, copyLines(whole))
	}
	if got := copyLines(out); !slices.Equal(got, want) {
		t.Errorf("the batch run's copies.tsv:\n got %q\nwant %q", got, want)
	}
	// The counters the summary line reports count what the file lists.
	counters, err := os.ReadFile(filepath.Join(out, "counters.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"stats.copies.documents\t2\n", "stats.copies.groups\t2\n"} {
		if !strings.Contains(string(counters), c) {
			t.Errorf("the batch run's counters have no %q:\n%s", c, counters)
		}
	}
	// The documents of a batch run are its chain's, each read with its run:
	// --input is refused, in one line.
	for _, args := range [][]string{{"spans", out, "--text", "--input", batch}, {"text", out, "--input", base, "--input", batch}} {
		if _, stderr, code := runPDC(t, args...); code != 2 || !strings.Contains(stderr, "is a batch run: its documents are those of every run of its chain") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("pdc %s: exit %d %q, want 2 and one line", strings.Join(args, " "), code, stderr)
		}
	}
	// The report of a batch names the stored run, and its batch number is
	// no parameter.
	rep := filepath.Join(dir, "report")
	if _, stderr, code := runPDC(t, "report", out, "--output", rep); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(rep, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<td id="against"><code>`+stored+`</code>`) || strings.Contains(string(page), "--batch") {
		t.Errorf("the batch run's report does not name its stored run %s, or lists --batch:\n%s", stored, page)
	}
}

// TestBatchRefused: what cannot run as a batch says why, in one line.
func TestBatchRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, _ := splitSample(t, dir, func(i int) string { return string(rune('a' + i%2)) })
	plain, stored := filepath.Join(dir, "plain"), filepath.Join(dir, "stored")
	for _, args := range [][]string{
		{"run", "--quiet", "--input", files[0], "--output", plain},
		{"run", "--quiet", "--input", files[0], "--output", stored, "--store"},
	} {
		if _, stderr, code := runPDC(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(plain, "parsed")); !os.IsNotExist(err) {
		t.Errorf("a run without --store kept its parsed records: %v", err)
	}
	out := filepath.Join(dir, "new")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--against", plain}, "run without --store"},
		{[]string{"--against", stored, "--output", stored, "--overwrite"}, "--output is the stored run"},
		{[]string{"--against", stored, "--output", filepath.Join(stored, "sub")}, "is inside the stored run"},
		{[]string{"--against", filepath.Join(dir, "none")}, "not a pdc run's output"},
		{[]string{"--against", stored, "--tau", "0.8"}, `--tau "0.7", not "0.8"`},
	} {
		args := append([]string{"run", "--quiet", "--input", files[1], "--output", out}, tt.args...)
		_, stderr, code := runPDC(t, args...)
		if code == 0 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("%v: exit %d, %q; want an error saying %q", tt.args, code, stderr, tt.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: refused, but wrote %s (%v)", tt.args, out, err)
		}
	}
	// A stored run in use by another run (here: its lock held) is not read.
	lock, err := pipeline.AcquireLock(hdfsfs.Local(), stored, pipeline.ThisProcess("pdc test"), false)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runPDC(t, "run", "--quiet", "--input", files[1], "--output", out, "--against", stored)
	if code == 0 || !strings.Contains(stderr, "the stored run "+stored) || !strings.Contains(stderr, "pdc test pid") || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
		t.Errorf("a batch against a stored run in use: exit %d, %q; want one line naming the run and its user", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a batch against a stored run in use wrote %s (%v)", out, err)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	// The stored layout is recorded; a run stored in another is refused.
	manPath := filepath.Join(stored, pipeline.ManifestFile)
	manData, err := os.ReadFile(manPath)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`"store_layout": %d`, pipeline.StoreLayout)
	if !strings.Contains(string(manData), want) {
		t.Errorf("the stored run's manifest has no %s:\n%s", want, manData)
	}
	if err := os.WriteFile(manPath, []byte(strings.Replace(string(manData), want, `"store_layout": 99`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runPDC(t, "run", "--quiet", "--input", files[1], "--output", out, "--against", stored)
	if code == 0 || !strings.Contains(stderr, "keeps its collection in layout 99, and this pdc reads layout") || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
		t.Errorf("a batch against a stored run of another layout: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a batch against a stored run of another layout wrote %s (%v)", out, err)
	}
	if err := os.WriteFile(manPath, manData, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runPDC(t, "run", "--quiet", "--input", files[1], "--output", out, "--against", stored, "--strict"); code != 0 {
		t.Fatalf("batch run (--strict, which changes no result): exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(stored, "spans", "_SUCCESS")); err != nil {
		t.Errorf("the stored run was touched: %v", err)
	}
	// The chain is checked whole: a stored run that lost its parsed
	// records is named when a batch runs against a later one.
	if err := os.RemoveAll(filepath.Join(stored, "parsed")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runPDC(t, "run", "--quiet", "--input", files[0], "--output", filepath.Join(dir, "third"), "--against", out)
	if code == 0 || !strings.Contains(stderr, "the stored run "+stored+" did not finish") {
		t.Errorf("a batch against a chain missing a run's parsed records: exit %d, %q", code, stderr)
	}
	// The batch's spans read the stored run's documents too.
	text, stderr, code := runPDC(t, "spans", out, "--text")
	if code != 0 || strings.Count(text, "\n") == 0 {
		t.Errorf("spans --text of a batch run: exit %d, %d lines\n%s", code, strings.Count(text, "\n"), stderr)
	}
	// Its dedup needs clusters: the hint reruns it as the batch it is.
	if _, stderr, code := runPDC(t, "dedup", out, "--output", filepath.Join(dir, "clean")); code == 0 || !strings.Contains(stderr, "--against "+stored+" --output "+out+" --clusters") {
		t.Errorf("dedup of a batch run without clusters: exit %d, %q", code, stderr)
	}
}

// TestBatchTreesOneSite: a chain of batches of directory trees (a week's
// pages each, no URLs) with --site-from name:NAME takes every tree as one
// site, so that its templates are those of a run over all the trees and
// the batch's spans are that run's; with --site-from tree each tree is a
// site of its own, and the batch run warns that its templates are learnt
// apart.
func TestBatchTreesOneSite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	week := []string{filepath.Join(dir, "week1"), filepath.Join(dir, "week2")}
	inWeek2 := map[string]bool{}
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var d struct{ ID, HTML string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(week[i%2], filepath.FromSlash(d.ID))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(d.HTML), 0o644); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			inWeek2[d.ID] = true
		}
	}
	flags := []string{"--quiet", "--max-site-df", "2"}
	run := func(args ...string) string {
		t.Helper()
		_, stderr, code := runPDC(t, append(append([]string{"run"}, args...), flags...)...)
		if code != 0 {
			t.Fatalf("pdc run %v: exit %d\n%s", args, code, stderr)
		}
		return stderr
	}
	out := func(name string) string { return filepath.Join(dir, name) }
	run("--input", week[0], "--output", out("w1"), "--store", "--site-from", "name:docs")
	if stderr := run("--input", week[1], "--output", out("w2"), "--against", out("w1"), "--site-from", "name:docs"); strings.Contains(stderr, "warning") {
		t.Errorf("a batch of trees with --site-from name:docs warns:\n%s", stderr)
	}
	run("--input", week[0], "--input", week[1], "--output", out("whole"), "--site-from", "name:docs")
	var want []string
	for _, l := range spanLines(t, out("whole")) {
		f := strings.SplitN(l, "\t", 3)
		if inWeek2[f[0]] || inWeek2[f[1]] {
			want = append(want, l)
		}
	}
	if got := spanLines(t, out("w2")); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("the batch of week 2: %d spans, want the %d of the run over both trees with a page of week 2", len(got), len(want))
	}
	run("--input", week[0], "--output", out("t1"), "--store")
	stderr := run("--input", week[1], "--output", out("t2"), "--against", out("t1"))
	if !strings.Contains(stderr, "pdc: warning: --site-from tree: the pages of "+week[1]+" are a site of their own") || !strings.Contains(stderr, "--site-from name:NAME") {
		t.Errorf("a batch of a new tree with --site-from tree does not warn that its templates are learnt apart:\n%s", stderr)
	}
	// Its templates are learnt apart indeed: it finds other spans.
	if tree := spanLines(t, out("t2")); slices.Equal(tree, spanLines(t, out("w2"))) {
		t.Errorf("the batch of week 2 finds the same %d spans with a site per tree as with one site", len(tree))
	}
}

// TestBatchDedup: pdc dedup of a batch run writes the batch's documents
// alone. Without --stored-clean (the stored documents as they are) they
// are cut as pdc dedup of one run over the stored documents and the batch
// cuts them (the stored documents come first in input order, so every
// cluster with a stored member keeps one); an exact copy of a stored page
// under a new id is cut against the stored page. With --stored-clean (the
// stored run's own dedup output), no kept range meets text that dedup cut,
// and nearly as much is cut; --jobs writes the same.
func TestBatchDedup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, ids := splitSample(t, dir, func(i int) string {
		if i < 20 {
			return "a"
		}
		return "b"
	})
	copies, err := os.ReadFile(renamedSample(t, "new/", func(i int) bool { return i < 20 && i%3 == 1 }))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(files[1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(copies); err != nil {
		t.Fatal(err)
	}
	// A stored id again, its text edited: the run keeps the stored
	// record, and dedup neither writes the batch's nor reads it for the
	// stored document's kept passages.
	first, _, _ := strings.Cut(string(copies), "\n")
	again := strings.Replace(first, `{"id": "new/`, `{"id": "`, 1)
	if !strings.Contains(again, "</body>") {
		t.Fatal("the sample's page has no </body>")
	}
	again = strings.Replace(again, "</body>", "<p>An edited paragraph the stored page does not have, long enough to be a sentence of its own.</p></body>", 1)
	if _, err := f.WriteString(again + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	other := renamedSample(t, "other/", func(i int) bool { return i < 10 })
	stored, batch, whole := filepath.Join(dir, "stored"), filepath.Join(dir, "batch"), filepath.Join(dir, "whole")
	clean := func(name string) string { return filepath.Join(dir, name) }
	cutChars := map[string]int{}   // by dedup output: the characters cut, as its summary says
	summary := map[string]string{} // and its summary, the files it names masked
	for _, args := range [][]string{
		{"run", "--input", files[0], "--output", stored, "--store", "--clusters"},
		{"dedup", stored, "--output", clean("c0")},
		{"run", "--input", files[1], "--output", batch, "--against", stored, "--clusters"},
		{"dedup", batch, "--output", clean("c1")},
		{"dedup", batch, "--output", clean("c1s"), "--stored-clean", clean("c0")},
		{"dedup", batch, "--output", clean("c1j"), "--stored-clean", clean("c0"), "--jobs", "--workers", "2"},
		{"run", "--input", files[0], "--input", files[1], "--output", whole, "--clusters"},
		{"dedup", whole, "--output", clean("cw")},
		{"run", "--input", other, "--output", filepath.Join(dir, "other"), "--clusters"},
		{"dedup", filepath.Join(dir, "other"), "--output", clean("cother")},
		{"dedup", batch, "--output", clean("c1f"), "--stored-clean", clean("c0") + "/removed.tsv"},
	} {
		_, stderr, code := runPDC(t, append(args, "--quiet")...)
		if code != 0 {
			t.Fatalf("pdc %v: exit %d\n%s", args, code, stderr)
		}
		if m := regexp.MustCompile(`, ([0-9]+) of [0-9]+ characters`).FindStringSubmatch(stderr); m != nil {
			name := filepath.Base(args[3])
			cutChars[name] = atoiT(t, m[1])
			summary[name] = strings.NewReplacer(args[3]+"/docs.jsonl", "DOCS", args[3]+"/removed.tsv", "REMOVED", args[3]+"/docs/", "DOCS", args[3]+"/removed/", "REMOVED").Replace(stderr)
		}
		if args[0] == "dedup" && !strings.Contains(stderr, "(checked)") {
			t.Errorf("pdc %v: the cuts are not all checked:\n%s", args, stderr)
		}
		if args[0] == "run" && args[4] == batch && (!strings.Contains(stderr, "pdc: 1 record of the batch left out: a stored run holds their ids, and a batch does not replace a stored document") || strings.Contains(stderr, "--id-prefix")) {
			t.Errorf("the batch run does not say that it left out the batch's record of a stored id, or advises --id-prefix:\n%s", stderr)
		}
	}
	inBatch := map[string]bool{}
	for _, id := range ids["b"] {
		inBatch[id] = true
	}
	if !strings.Contains(summary["c1"], "1 document of the batch left out: their ids are stored") {
		t.Errorf("the summary does not count the batch's record of a stored id:\n%s", summary["c1"])
	}
	if summary["c1f"] != strings.ReplaceAll(summary["c1s"], "c1s", "c1f") {
		t.Errorf("--stored-clean C0/removed.tsv:\n%s\nwant as --stored-clean C0:\n%s", summary["c1f"], summary["c1s"])
	}
	for _, l := range strings.Split(strings.TrimSpace(string(copies)), "\n") {
		var d struct{ ID string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		inBatch[d.ID] = true
	}
	docsOf := func(name string, keep func(id string) bool) []string {
		data, err := os.ReadFile(filepath.Join(clean(name), "docs.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var d struct{ ID string }
			if err := json.Unmarshal([]byte(l), &d); err != nil {
				t.Fatal(err)
			}
			if keep(d.ID) {
				out = append(out, l)
			}
		}
		return out
	}
	removed := func(name string) (rows []string) {
		data, err := os.ReadFile(filepath.Join(clean(name), "removed.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	}
	all := func(string) bool { return true }
	for _, name := range []string{"c1", "c1s"} {
		if got := docsOf(name, all); len(got) != len(inBatch) || !slices.Equal(got, docsOf(name, func(id string) bool { return inBatch[id] })) {
			t.Errorf("%s/docs.jsonl: %d documents, want the %d of the batch", name, len(got), len(inBatch))
		}
	}
	// Without --stored-clean: the whole run's dedup, in the batch's documents.
	if got, want := docsOf("c1", all), docsOf("cw", func(id string) bool { return inBatch[id] }); !slices.Equal(got, want) {
		t.Errorf("c1/docs.jsonl differs from the whole run's dedup of the batch's documents")
	}
	c1, cw := removed("c1"), removed("cw")
	var want []string
	for _, l := range cw {
		if inBatch[strings.SplitN(l, "\t", 2)[0]] {
			want = append(want, l)
		}
	}
	if !slices.Equal(c1, want) {
		t.Errorf("c1/removed.tsv: %d ranges, want the %d of the whole run's dedup in the batch's documents", len(c1), len(want))
	}
	copyCuts := map[string]bool{}
	for _, l := range c1 {
		f := strings.Split(l, "\t")
		if strings.HasPrefix(f[0], "new/") && f[4] == strings.TrimPrefix(f[0], "new/") {
			copyCuts[f[0]] = true
		}
	}
	if want := strings.Count(strings.TrimSpace(string(copies)), "\n") + 1; len(copyCuts) != want {
		t.Errorf("%d of the %d copies of stored pages cut against their stored page", len(copyCuts), want)
	}
	// With --stored-clean: no kept range meets what the stored dedup cut.
	c0 := removed("c0")
	cut := map[string][][2]int{}
	for _, l := range c0 {
		f := strings.Split(l, "\t")
		cut[f[0]] = append(cut[f[0]], [2]int{atoiT(t, f[1]), atoiT(t, f[2])})
	}
	c1s := removed("c1s")
	againstStored := 0
	for _, l := range c1s {
		f := strings.Split(l, "\t")
		if !inBatch[f[0]] {
			t.Errorf("c1s/removed.tsv cuts %s, a stored document", f[0])
		}
		if inBatch[f[4]] {
			continue
		}
		againstStored++
		ks, ke := atoiT(t, f[5]), atoiT(t, f[6])
		for _, c := range cut[f[4]] {
			if c[0] < ke && ks < c[1] {
				t.Errorf("cut %s: its kept range meets %s %d-%d, which the stored run's dedup cut", l, f[4], c[0], c[1])
			}
		}
	}
	if againstStored == 0 || cutChars["c1"] == 0 || 10*cutChars["c1s"] < 9*cutChars["c1"] {
		t.Errorf("with --stored-clean: %d cuts against stored pages, %d characters cut (without: %d)", againstStored, cutChars["c1s"], cutChars["c1"])
	}
	// --jobs: the same documents and cuts, the same summary.
	if docs, want := partLines(t, clean("c1j")+"/docs"), sortedFileLines(t, clean("c1s")+"/docs.jsonl", 0); !slices.Equal(docs, want) {
		t.Errorf("docs/ of --jobs: %d lines, want docs.jsonl's %d", len(docs), len(want))
	}
	if removed, want := partLines(t, clean("c1j")+"/removed"), sortedFileLines(t, clean("c1s")+"/removed.tsv", 1); !slices.Equal(removed, want) {
		t.Errorf("removed/ of --jobs: %d lines, want removed.tsv's %d", len(removed), len(want))
	}
	if summary["c1j"] != summary["c1s"] {
		t.Errorf("summary of --jobs:\n%s\nwant as without:\n%s", summary["c1j"], summary["c1s"])
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{stored, "--stored-clean", clean("c0")}, "--stored-clean is for a batch run"},
		{[]string{batch, "--stored-clean", stored}, "not a pdc dedup output"},
		{[]string{batch, "--stored-clean", clean("c1")}, "is the dedup of " + batch + ": not the dedup of a stored run of this batch"},
		{[]string{batch, "--stored-clean", clean("cother")}, "is the dedup of " + filepath.Join(dir, "other") + ": not the dedup of a stored run of this batch"},
	} {
		args := append([]string{"dedup", "--output", clean("refused")}, tt.args...)
		if _, stderr, code := runPDC(t, args...); code == 0 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("pdc %v: exit %d, want an error saying %q in one line:\n%s", args, code, tt.want, stderr)
		}
		if _, err := os.Stat(clean("refused")); err == nil {
			t.Errorf("pdc %v wrote its output", args)
		}
	}
}

// TestBatchDedupChain: the dedup outputs of a chain of three runs, each
// batch's dedup given the one before it. Each records its run and the
// outputs it was made with (_dedup.json), so that the last batch's dedup
// given the latest takes the earlier ones too; one that leaves the run
// the batch ran against as it is while it covers one before it, the
// batch's own output, a stale or an older output are refused in one line,
// nothing written.
func TestBatchDedupChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, _ := splitSample(t, dir, func(i int) string { return string(rune('a' + i%3)) })
	r := func(n int) string { return filepath.Join(dir, fmt.Sprintf("r%d", n)) }
	c := func(name string) string { return filepath.Join(dir, name) }
	summary := map[string]string{}
	for _, args := range [][]string{
		{"run", "--input", files[0], "--output", r(1), "--store", "--clusters"},
		{"run", "--input", files[1], "--output", r(2), "--against", r(1), "--clusters"},
		{"run", "--input", files[2], "--output", r(3), "--against", r(2), "--clusters"},
		{"dedup", r(1), "--output", c("c1")},
		{"dedup", r(2), "--output", c("c2"), "--stored-clean", c("c1")},
		{"dedup", r(2), "--output", c("c2j"), "--stored-clean", c("c1") + "/removed.tsv", "--jobs", "--workers", "2"},
		{"dedup", r(3), "--output", c("c3"), "--stored-clean", c("c2")},
		{"dedup", r(3), "--output", c("c3all"), "--stored-clean", "file://" + c("c1"), "--stored-clean", c("c2j") + "/removed/"},
		{"dedup", r(3), "--output", c("c3none")},
	} {
		_, stderr, code := runPDC(t, append(args, "--quiet")...)
		if code != 0 {
			t.Fatalf("pdc %v: exit %d\n%s", args, code, stderr)
		}
		if args[0] == "dedup" {
			summary[filepath.Base(args[3])] = stderr
		}
	}
	man := func(name string) clean.Manifest {
		f, err := os.Open(filepath.Join(c(name), clean.ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := clean.ReadManifest(f)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for name, want := range map[string][]clean.StoredRun{
		"c1":     nil,
		"c2":     {{Run: r(1), Clean: c("c1")}},
		"c2j":    {{Run: r(1), Clean: c("c1")}},
		"c3":     {{Run: r(1), Clean: c("c1")}, {Run: r(2), Clean: c("c2")}},
		"c3all":  {{Run: r(1), Clean: c("c1")}, {Run: r(2), Clean: c("c2j")}},
		"c3none": {{Run: r(1)}, {Run: r(2)}},
	} {
		m := man(name)
		run := r(int(name[1] - '0'))
		for i := range want {
			if want[i].Clean != "" {
				want[i].CleanID = man(filepath.Base(want[i].Clean)).ID
			}
		}
		if stamp, err := pipeline.StoredStamp(hdfsfs.Local(), run); err != nil || m.Run != run || m.Stamp != stamp || len(m.ID) != 16 || !slices.Equal(m.Stored, want) {
			t.Errorf("%s/%s: %+v, want run %s, stamp %d, stored %+v", name, clean.ManifestFile, m, run, stamp, want)
		}
	}
	for name, want := range map[string]string{
		"c3":     "the stored documents as the dedup outputs " + c("c1") + ", " + c("c2") + " left them",
		"c3none": "the stored documents as they are",
	} {
		if !strings.Contains(summary[name], want) {
			t.Errorf("summary of %s does not say %q:\n%s", name, want, summary[name])
		}
	}
	// c3 (given c2 alone) cuts as c3all (given both, c2 by --jobs).
	for _, f := range []string{clean.DocsFile, clean.RemovedFile} {
		a, err := os.ReadFile(filepath.Join(c("c3"), f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(c("c3all"), f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s of the dedup given c2 alone differs from that given c1 and c2", f)
		}
	}
	refused := func(want string, args ...string) {
		t.Helper()
		args = append([]string{"dedup", r(3), "--output", c("refused")}, args...)
		if _, stderr, code := runPDC(t, args...); code == 0 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("pdc %v: exit %d, want an error saying %q in one line:\n%s", args, code, want, stderr)
		}
		if _, err := os.Stat(c("refused")); err == nil {
			t.Errorf("pdc %v wrote its output", args)
		}
	}
	refused("--stored-clean "+c("c1")+" covers "+r(1)+" but not "+r(2), "--stored-clean", c("c1"))
	refused("--output "+c("c2")+" is a dedup output this dedup reads", "--stored-clean", c("c2"), "--output", c("c2"), "--overwrite")
	// c1 moved: c2 names its old place; given at the new one, it is taken
	// (the same output by its id).
	if err := os.Rename(c("c1"), c("c1moved")); err != nil {
		t.Fatal(err)
	}
	refused(c("c2")+" was made with --stored-clean "+c("c1")+": no such directory (if it was moved, give its new place with --stored-clean)", "--stored-clean", c("c2"))
	if _, stderr, code := runPDC(t, "dedup", r(3), "--output", c("c3moved"), "--stored-clean", c("c2"), "--stored-clean", c("c1moved"), "--quiet"); code != 0 || !strings.Contains(stderr, c("c1moved")+", "+c("c2")) {
		t.Errorf("dedup given c1 at its new place: exit %d\n%s", code, stderr)
	}
	// c1 made again at its place after c2 was made with it.
	if _, stderr, code := runPDC(t, "dedup", r(1), "--output", c("c1"), "--keep", "longest", "--quiet"); code != 0 {
		t.Fatalf("dedup r1 again: exit %d\n%s", code, stderr)
	}
	refused(c("c2")+" was made with --stored-clean "+c("c1")+", which was made again since", "--stored-clean", c("c2"))
	refused(c("c2")+" was made with --stored-clean "+c("c1")+", which was made again since", "--stored-clean", c("c2"), "--stored-clean", c("c1"))
	if err := os.RemoveAll(c("c1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(c("c1moved"), c("c1")); err != nil {
		t.Fatal(err)
	}
	refused("is the dedup of "+r(3)+": not the dedup of a stored run", "--stored-clean", c("c3"))
	refused("are both dedup outputs of "+r(2), "--stored-clean", c("c2"), "--stored-clean", c("c2j"))
	// A stored run's dedup made before the run was run again (its stamp
	// edited so), and one without a manifest.
	m := man("c1")
	m.Stamp--
	var b bytes.Buffer
	if err := clean.WriteManifest(&b, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c("c1"), clean.ManifestFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	refused(c("c1")+" (from the manifest of "+c("c2")+"): made before its run was run again ("+r(1)+" was run again after this dedup): run pdc dedup "+r(1)+" --output "+c("c1")+" --overwrite again, then the dedup outputs made with it", "--stored-clean", c("c2"))
	if err := os.Remove(filepath.Join(c("c2j"), clean.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	refused("no "+clean.ManifestFile+": an older pdc dedup made it, or it did not finish", "--stored-clean", c("c2j"))
	refused("--stored-clean "+c("c2j")+": no "+clean.ManifestFile+": an older pdc dedup made it", "--stored-clean", c("c2j")+"/removed/")
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBatchStoredRerun: a stored run run again after a batch ran against
// it holds another collection: the commands that read the batch's
// documents, and a batch against it, refuse it in one line.
func TestBatchStoredRerun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, _ := splitSample(t, dir, func(i int) string { return string(rune('a' + i%2)) })
	stored, batch := filepath.Join(dir, "stored"), filepath.Join(dir, "batch")
	for _, args := range [][]string{
		{"run", "--input", files[0], "--output", stored, "--store"},
		{"run", "--input", files[1], "--output", batch, "--against", stored, "--clusters"},
	} {
		if _, stderr, code := runPDC(t, append(args, "--quiet")...); code != 0 {
			t.Fatalf("pdc %v: exit %d\n%s", args, code, stderr)
		}
	}
	if _, stderr, code := runPDC(t, "spans", batch, "--text"); code != 0 {
		t.Fatalf("pdc spans --text of the batch: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runPDC(t, "run", "--quiet", "--input", files[0], "--output", stored, "--store", "--overwrite"); code != 0 {
		t.Fatalf("the stored run again: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{
		{"spans", batch, "--text"},
		{"dedup", batch, "--output", filepath.Join(dir, "clean")},
		{"run", "--quiet", "--input", files[1], "--output", filepath.Join(dir, "next"), "--against", batch},
	} {
		_, stderr, code := runPDC(t, args...)
		if code == 0 || !strings.Contains(stderr, "was run again after the batch run") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("pdc %v after the stored run was run again: exit %d, want one line saying so:\n%s", args, code, stderr)
		}
	}
}
