package jobs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
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
// through hubs, sentences in three pages of a site left out).
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
				prev, compared := "", 0
				for i, f := range files {
					name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
					out := filepath.Join(dir, "run-"+name)
					args := append([]string{"run", "--quiet", "--input", f, "--output", out}, flags...)
					if i == 0 {
						args = append(args, "--store")
					} else {
						args = append(args, "--against", prev)
					}
					if _, stderr, code := runPDC(t, args...); code != 0 {
						t.Fatalf("batch %s: exit %d\n%s", name, code, stderr)
					}
					prev = out
					if i == 0 {
						continue
					}
					whole := filepath.Join(dir, "whole-"+name)
					args = append([]string{"run", "--quiet", "--output", whole}, flags...)
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
				}
				if compared == 0 {
					t.Error("the split tests nothing: no span with a document of a later batch")
				}
			})
		}
	}
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
		{[]string{"--against", stored, "--clusters"}, "--clusters with --against"},
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
	if _, stderr, code := runPDC(t, "dedup", out, "--output", filepath.Join(dir, "clean")); code == 0 || !strings.Contains(stderr, "is a batch run") {
		t.Errorf("dedup of a batch run: exit %d, %q; want it refused", code, stderr)
	}
}
