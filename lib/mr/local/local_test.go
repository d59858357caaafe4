package local

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
)

// identity copies its input lines to its output.
func identity(t *mr.Task) error {
	_, err := io.Copy(t.Stdout, t.Stdin)
	return err
}

// wcMap emits `word TAB 1` per word and counts lines.
func wcMap(t *mr.Task) error {
	r, w, c := mr.NewReader(t.Stdin), mr.NewWriter(t.Stdout), mr.NewCounters(t.Stderr)
	for r.Next() {
		c.Add("lines", 1)
		for _, word := range strings.Fields(string(r.Line())) {
			if err := w.WriteStrings(word, "1"); err != nil {
				return err
			}
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return c.Flush()
}

// wcSum sums the counts of each word (reducer and combiner).
func wcSum(t *mr.Task) error {
	r, w, c := mr.NewReader(t.Stdin), mr.NewWriter(t.Stdout), mr.NewCounters(t.Stderr)
	var cur string
	var sum int64
	flush := func() error {
		if cur == "" {
			return nil
		}
		return w.WriteStrings(cur, strconv.FormatInt(sum, 10))
	}
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), 1)
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return fmt.Errorf("line %d: %w", r.LineNumber(), err)
		}
		c.Add("in", 1)
		if string(k) != cur {
			if err := flush(); err != nil {
				return err
			}
			cur, sum = string(k), 0
		}
		sum += n
	}
	if err := r.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return c.Flush()
}

// writeInputs writes files of generated records and returns their splits.
func writeInputs(t testing.TB, dir string, files, lines int, splitSize int64) []Split {
	t.Helper()
	var paths []string
	for f := range files {
		var b strings.Builder
		for i := range lines {
			// keys repeat across files so ties occur; some lines lack a value.
			k := (i*7919 + f*31) % (lines/3 + 1)
			if i%10 == 0 {
				fmt.Fprintf(&b, "k%05d\n", k)
			} else {
				fmt.Fprintf(&b, "k%05d\tf%d\tl%d\n", k, f, i)
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("in%d.tsv", f))
		if err := os.WriteFile(p, []byte(b.String()), 0o666); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	splits, err := FileSplits(paths, splitSize)
	if err != nil {
		t.Fatal(err)
	}
	return splits
}

// readOutput returns the files of an output directory.
func readOutput(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// wantIdentity computes the expected output of an identity job: records in
// split order, normalised, stably sorted by key, partitioned.
func wantIdentity(t *testing.T, splits []Split, reducers int) map[string]string {
	t.Helper()
	type rec struct{ key, line string }
	var recs []rec
	for _, sp := range splits {
		rc, err := sp.Open()
		if err != nil {
			t.Fatal(err)
		}
		r := mr.NewReader(rc)
		for r.Next() {
			line := string(r.Line())
			k, _ := mr.SplitKey(r.Line(), 1)
			if !strings.Contains(line, "\t") {
				line += "\t"
			}
			recs = append(recs, rec{string(k), line})
		}
		rc.Close()
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return strings.Compare(a.key, b.key) })
	parts := make([]strings.Builder, reducers)
	for _, r := range recs {
		p := mr.Partition([]byte(r.key), 1, reducers)
		parts[p].WriteString(r.line + "\n")
	}
	want := map[string]string{"_SUCCESS": ""}
	for p := range parts {
		want[fmt.Sprintf("part-r-%05d", p)] = parts[p].String()
	}
	return want
}

func TestRunIdentity(t *testing.T) {
	dir := t.TempDir()
	splits := writeInputs(t, dir, 3, 3000, 20000)
	if len(splits) < 6 {
		t.Fatalf("only %d splits", len(splits))
	}
	for _, tc := range []struct {
		name     string
		reducers int
		sortMem  int64
		workers  int
		fanIn    int
		pack     int64
	}{
		{"r1 in memory", 1, 64 << 20, 2, 64, 0},
		{"r3 in memory", 3, 64 << 20, 3, 64, 0},
		{"r3 spill", 3, 64 << 10, 2, 64, 0},
		{"r3 spill fan-in 3", 3, 16 << 10, 4, 3, 0},
		{"r1 spill serial", 1, 8 << 10, 1, 64, 0},
		{"r3 packed", 3, 64 << 10, 2, 64, 50000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(n int) { mergeFanIn = n }(mergeFanIn)
			mergeFanIn = tc.fanIn
			out := filepath.Join(t.TempDir(), "out")
			r := &Runner{Workers: tc.workers, SortMem: tc.sortMem, TempDir: t.TempDir()}
			_, err := r.Run(context.Background(), &Job{
				Name: "id", Map: identity, Reduce: identity, KeyFields: 1, PartitionFields: 1,
				Reducers: tc.reducers, Inputs: splits, Output: out, PackSize: tc.pack,
			})
			if err != nil {
				t.Fatal(err)
			}
			got, want := readOutput(t, out), wantIdentity(t, splits, tc.reducers)
			if !maps.Equal(got, want) {
				for k := range want {
					if got[k] != want[k] {
						t.Errorf("%s differs: got %d bytes, want %d", k, len(got[k]), len(want[k]))
					}
				}
				t.Fatalf("output files %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			if _, err := os.Stat(out + "._tmp"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temp output left: %v", err)
			}
		})
	}
}

func TestRunWordCount(t *testing.T) {
	dir := t.TempDir()
	text := "the cat sat\non the mat\r\nthe end"
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	splits, err := FileSplits([]string{p, p}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]string
	for _, combine := range []mr.Func{nil, wcSum} {
		out := filepath.Join(t.TempDir(), "out")
		counters, err := (&Runner{Workers: 2, SortMem: 1 << 10}).Run(context.Background(), &Job{
			Name: "wc", Map: wcMap, Reduce: wcSum, Combine: combine, Reducers: 2,
			Inputs: splits, Output: out,
		})
		if err != nil {
			t.Fatal(err)
		}
		if counters["lines"] != 6 {
			t.Errorf("lines counter = %d, want 6 (%v)", counters["lines"], counters)
		}
		got = append(got, readOutput(t, out))
	}
	all := got[0]["part-r-00000"] + got[0]["part-r-00001"]
	for _, w := range []string{"the\t6\n", "cat\t2\n", "mat\t2\n", "end\t2\n"} {
		if !strings.Contains(all, w) {
			t.Errorf("output lacks %q:\n%s", w, all)
		}
	}
	if !maps.Equal(got[0], got[1]) {
		t.Errorf("combiner changed the output:\n%v\n%v", got[0], got[1])
	}
}

func TestRunMapOnly(t *testing.T) {
	dir := t.TempDir()
	splits := writeInputs(t, dir, 2, 100, 0)
	out := filepath.Join(dir, "out")
	upper := func(t *mr.Task) error {
		b, err := io.ReadAll(t.Stdin)
		if err != nil {
			return err
		}
		_, err = t.Stdout.Write(bytes.ToUpper(b))
		return err
	}
	if _, err := (&Runner{}).Run(context.Background(), &Job{Name: "m", Map: upper, Inputs: splits, Output: out}); err != nil {
		t.Fatal(err)
	}
	got := readOutput(t, out)
	if len(got) != 3 {
		t.Fatalf("files %v", slices.Sorted(maps.Keys(got)))
	}
	lines := strings.Split(got["part-m-00001"], "\n")
	if lines[0] != "K00031\t" || !strings.HasPrefix(lines[1], "K") || strings.HasSuffix(lines[1], "\t") {
		t.Errorf("part-m-00001 starts %q", lines[:2])
	}
}

func TestRunEmpty(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "empty")
	if err := os.WriteFile(p, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	splits, err := FileSplits([]string{p}, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]Split{nil, splits} {
		out := filepath.Join(t.TempDir(), "out")
		_, err := (&Runner{}).Run(context.Background(), &Job{
			Name: "e", Map: identity, Reduce: identity, Reducers: 2, Inputs: in, Output: out,
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"_SUCCESS": "", "part-r-00000": "", "part-r-00001": ""}
		if got := readOutput(t, out); !maps.Equal(got, want) {
			t.Errorf("got %v", got)
		}
	}
}

func TestRunFailure(t *testing.T) {
	dir := t.TempDir()
	splits := writeInputs(t, dir, 4, 200, 0)
	boom := errors.New("boom")
	failing := func(t *mr.Task) error {
		if strings.HasSuffix(mr.InputFile(t.Getenv), "in2.tsv") {
			return boom
		}
		return identity(t)
	}
	panicky := func(t *mr.Task) error { panic("oops") }
	for _, tc := range []struct {
		name   string
		job    Job
		want   string
		target error
	}{
		{"map", Job{Map: failing, Reduce: identity}, "job f: map task 2 (in2.tsv@0): boom", boom},
		{"map only", Job{Map: failing}, "job f: map task 2 (in2.tsv@0): boom", boom},
		{"reduce panic", Job{Map: identity, Reduce: panicky}, "job f: reduce task ", nil},
		{"combine", Job{Map: identity, Reduce: identity, Combine: failing}, "combine: boom", boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			j := tc.job
			j.Name, j.Inputs, j.Output, j.Reducers = "f", splits, out, 2
			j.Env = map[string]string{"X": "1"}
			_, err := (&Runner{Workers: 2}).Run(context.Background(), &j)
			if err == nil || !strings.Contains(err.Error(), tc.want) || tc.target != nil && !errors.Is(err, tc.target) {
				t.Fatalf("err = %v, want %q (%v)", err, tc.want, tc.target)
			}
			ents, _ := os.ReadDir(filepath.Dir(out))
			if len(ents) != 0 {
				t.Errorf("left behind: %v", ents)
			}
		})
	}
}

func TestRunCountersAndStderr(t *testing.T) {
	dir := t.TempDir()
	splits := writeInputs(t, dir, 3, 50, 0)
	var log bytes.Buffer
	chatty := func(t *mr.Task) error {
		fmt.Fprintf(t.Stderr, "reporter:counter:pdc,maps,1\nreporter:status:busy\nreporter:counter:other,x,2\nhello %s", t.Getenv("X"))
		return identity(t)
	}
	out := filepath.Join(dir, "out")
	counters, err := (&Runner{Workers: 1, Stderr: &log}).Run(context.Background(), &Job{
		Name: "c", Map: chatty, Reduce: identity, Env: map[string]string{"X": "env"},
		Inputs: splits, Output: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"maps": 3, "other.x": 6}; !maps.Equal(counters, want) {
		t.Errorf("counters %v, want %v", counters, want)
	}
	if want := "c map 0: hello env\nc map 1: hello env\nc map 2: hello env\n"; log.String() != want {
		t.Errorf("stderr %q, want %q", log.String(), want)
	}
}

func TestRunDeterministic(t *testing.T) {
	dir := t.TempDir()
	splits := writeInputs(t, dir, 4, 2000, 9000)
	var first map[string]string
	for i := range 3 {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		r := &Runner{Workers: 1 + i, SortMem: int64(16<<10) << i}
		if _, err := r.Run(context.Background(), &Job{
			Name: "d", Map: identity, Reduce: identity, Reducers: 3, Inputs: splits, Output: out,
		}); err != nil {
			t.Fatal(err)
		}
		got := readOutput(t, out)
		if first == nil {
			first = got
		} else if !maps.Equal(first, got) {
			t.Fatalf("run %d differs", i)
		}
	}
}

func TestRunOutputExists(t *testing.T) {
	out := t.TempDir()
	_, err := (&Runner{}).Run(context.Background(), &Job{Name: "x", Map: identity, Output: out})
	if !errors.Is(err, os.ErrExist) {
		t.Errorf("err = %v, want ErrExist", err)
	}
}

// TestInputKeys: with Job.InputKeys every map input line arrives as
// `offset TAB line`, the offset pointing at the line in its file, across
// splits, CRLF line ends, gzip (offsets in the uncompressed stream) and
// splits of other kinds (counted from their start).
func TestInputKeys(t *testing.T) {
	dir := t.TempDir()
	var plain strings.Builder
	for i := range 3000 {
		end := "\n"
		if i%3 == 0 {
			end = "\r\n"
		}
		fmt.Fprintf(&plain, "line %d %s%s", i, strings.Repeat("x", i%17), end)
	}
	text := plain.String()
	pPath := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(pPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("first\nsecond line\nthird\n"))
	zw.Close()
	gPath := filepath.Join(dir, "b.txt.gz")
	if err := os.WriteFile(gPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	splits, err := FileSplits([]string{pPath, gPath}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	splits = append(splits, Split{Name: "mem", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("ab\ncde\n\nf")), nil
	}})
	var mu sync.Mutex
	got := map[string][]string{} // file -> keyed lines
	mapper := func(task *mr.Task) error {
		if !mr.InputKeyed(task.Getenv) {
			return fmt.Errorf("%s not set", mr.EnvInputKeys)
		}
		r := mr.NewReader(task.Stdin)
		var lines []string
		for r.Next() {
			lines = append(lines, string(r.Line()))
		}
		mu.Lock()
		defer mu.Unlock()
		f := mr.InputFile(task.Getenv)
		got[f] = append(got[f], lines...)
		return r.Err()
	}
	job := &Job{Name: "keys", Map: mapper, Inputs: splits, Output: filepath.Join(dir, "out"), InputKeys: true, PackSize: 3 * 4096}
	if _, err := (&Runner{Workers: 3}).Run(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, kl := range got[pPath] {
		off, line, err := mr.CutInputKey([]byte(kl))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(text[off:], string(line)+"\n") && !strings.HasPrefix(text[off:], string(line)+"\r\n") {
			t.Fatalf("offset %d of %q points at %q", off, line, text[off:min(int64(len(text)), off+20)])
		}
		if off > 0 && text[off-1] != '\n' {
			t.Fatalf("offset %d of %q is not a line start", off, line)
		}
		n++
	}
	if n != 3000 {
		t.Errorf("%d keyed lines of %s, want 3000", n, pPath)
	}
	want := map[string][]string{
		gPath: {"0\tfirst", "6\tsecond line", "18\tthird"},
		"mem": {"0\tab", "3\tcde", "7\t", "8\tf"},
	}
	for f, w := range want {
		if !slices.Equal(got[f], w) {
			t.Errorf("%s: got %q, want %q", f, got[f], w)
		}
	}
}

func TestPackSplits(t *testing.T) {
	sp := func(n int64) Split { return Split{Length: n} }
	tests := []struct {
		splits []Split
		size   int64
		want   [][]int
	}{
		{[]Split{sp(10), sp(10), sp(10)}, 0, [][]int{{0}, {1}, {2}}},
		{[]Split{sp(10), sp(10), sp(10)}, 25, [][]int{{0, 1}, {2}}},
		{[]Split{sp(30), sp(10), sp(10)}, 25, [][]int{{0}, {1, 2}}},
		{[]Split{sp(10), sp(0), sp(10), sp(10)}, 100, [][]int{{0}, {1}, {2, 3}}}, // unknown length alone
		{nil, 100, nil},
	}
	for _, tt := range tests {
		if got := packSplits(tt.splits, tt.size); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("packSplits(%v, %d) = %v, want %v", tt.splits, tt.size, got, tt.want)
		}
	}
}

// TestRunFeeding: a map-only job whose mappers also write a word count's
// map output to their side output gives the word count job the output it
// gets when its own map tasks read the first job's output, with spills and
// a combiner; each job keeps its own counters. A failing feeder leaves
// neither output.
func TestRunFeeding(t *testing.T) {
	dir := t.TempDir()
	splits := writeInputs(t, dir, 3, 2000, 9000)
	upper := func(t *mr.Task) error { // the feeder: upper-cases its lines
		r, w, c := mr.NewReader(t.Stdin), mr.NewWriter(t.Stdout), mr.NewCounters(t.Stderr)
		var side *mr.Writer
		if t.Side != nil {
			side = mr.NewWriter(t.Side)
		}
		for r.Next() {
			line := bytes.ToUpper(r.Line())
			c.Add("upper", 1)
			if err := w.WriteRecord(line); err != nil {
				return err
			}
			if side != nil {
				for _, word := range strings.Fields(string(line)) {
					side.WriteStrings(word, "1")
				}
			}
		}
		if side != nil {
			if err := side.Flush(); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		return c.Flush()
	}
	r := &Runner{Workers: 2, SortMem: 1 << 12}
	count := func(name string) *Job {
		return &Job{Name: name, Map: wcMap, Reduce: wcSum, Combine: wcSum, Reducers: 3, Output: filepath.Join(dir, name)}
	}
	// Two jobs, the second reading the first's output.
	if _, err := r.Run(context.Background(), &Job{Name: "upper", Map: upper, Inputs: splits, Output: filepath.Join(dir, "upper")}); err != nil {
		t.Fatal(err)
	}
	parts, err := FileSplits([]string{filepath.Join(dir, "upper")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	read := count("read")
	read.Inputs = parts
	if _, err := r.Run(context.Background(), read); err != nil {
		t.Fatal(err)
	}
	// The same, fed.
	feeder := &Job{Name: "feeder", Map: upper, Inputs: splits, Output: filepath.Join(dir, "feeder")}
	fed := count("fed")
	jc, feed, err := r.RunFeeding(context.Background(), feeder, fed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "fed")); err == nil {
		t.Error("the fed job's output exists before Feed.Run")
	}
	sc, err := feed.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readOutput(t, feeder.Output), readOutput(t, filepath.Join(dir, "upper")); !maps.Equal(got, want) {
		t.Error("the feeder's own output differs from the plain job's")
	}
	got, want := readOutput(t, fed.Output), readOutput(t, read.Output)
	if !maps.Equal(got, want) || want["part-r-00000"] == "" {
		t.Errorf("fed word count differs from the one reading the output:\n%v\n%v", got, want)
	}
	if jc["upper"] == 0 || sc["upper"] != 0 || jc["lines"] != 0 {
		t.Errorf("counters: feeder %v, fed %v", jc, sc)
	}

	// The fed job's output exists: an error, and no output of the feeder.
	if _, _, err := r.RunFeeding(context.Background(), &Job{Name: "again", Map: upper, Inputs: splits, Output: filepath.Join(dir, "again")}, count("fed")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("feeding an existing output: %v", err)
	}
	for _, name := range []string{"again", "again._tmp"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s left behind", name)
		}
	}

	// A failing feeder: no output of either job.
	bad := &Job{Name: "bad", Map: func(*mr.Task) error { return errors.New("boom") }, Inputs: splits, Output: filepath.Join(dir, "bad")}
	if _, _, err := r.RunFeeding(context.Background(), bad, count("badfed")); err == nil {
		t.Fatal("a failing feeder succeeded")
	}
	for _, name := range []string{"bad", "badfed", "bad._tmp", "badfed._tmp"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s left behind", name)
		}
	}
}

// slowMap copies `offset TAB line` lines after a pause, and feeds a word
// count when it has a side output.
func slowMap(t *mr.Task) error {
	r, w := mr.NewReader(t.Stdin), mr.NewWriter(t.Stdout)
	var side *mr.Writer
	if t.Side != nil {
		side = mr.NewWriter(t.Side)
	}
	for r.Next() {
		for range 800 { // busy, not asleep: the other worker runs meanwhile
			runtime.Gosched()
		}
		if err := w.WriteRecord(r.Line()); err != nil {
			return err
		}
		_, line := mr.SplitKey(r.Line(), 1)
		for _, word := range strings.Fields(string(line)) {
			if side != nil {
				side.WriteStrings(word, "1")
			}
		}
	}
	if side != nil {
		if err := side.Flush(); err != nil {
			return err
		}
	}
	return w.Flush()
}

// TestDivideSplits: idle workers share out the one divisible split a slow
// map task is reading, by cutting a plain file's split or by joining the
// stream of a .gz file or of records read through any reader, and every
// line is still read exactly once, with its own offset, by a map-only job,
// a job with a reduce and a fed job. Splits that are not divisible are
// read whole.
func TestDivideSplits(t *testing.T) {
	defer func(n int64, b int) { minCut, streamBatch = n, b }(minCut, streamBatch)
	minCut, streamBatch = 256, 512
	dir := t.TempDir()
	var in strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&in, "w%d w%d line%05d\n", i%7, i%13, i)
	}
	p := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(p, []byte(in.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "in.txt.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(in.String()))
	zw.Close()
	if err := os.WriteFile(gz, zb.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	split := func(path string, size int64) Split {
		sps, err := FileSplits([]string{path}, size)
		if err != nil || len(sps) != 1 {
			t.Fatalf("FileSplits(%s, %d) = %v, %v", path, size, sps, err)
		}
		return sps[0]
	}
	records := Split{Name: "records", Divisible: true, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(in.String())), nil
	}}
	for _, tc := range []struct {
		name    string
		sp      Split
		divided bool
	}{
		{"file", split(p, 1<<30), true}, // one split: only cuts share it out
		{"gzip", split(gz, 1<<30), true},
		{"records", records, true},
		{"whole file", split(p, 0), false}, // what jobs reading grouped part files use
		{"whole gzip", split(gz, 0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testDivideSplit(t, tc.sp, in.String(), tc.divided)
		})
	}

	// A task failing while others wait to cut: the error, not a hang.
	many, err := FileSplits([]string{p}, 8000)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	failing := &Job{Name: "failing", Map: func(t *mr.Task) error {
		if start, _ := mr.InputStart(t.Getenv); start == 0 {
			return boom
		}
		return slowMap(t)
	}, Inputs: many, Output: filepath.Join(dir, "failing")}
	if _, err := (&Runner{Workers: 2}).Run(context.Background(), failing); !errors.Is(err, boom) {
		t.Errorf("failing job: %v", err)
	}
}

func testDivideSplit(t *testing.T, sp Split, in string, divided bool) {
	dir := t.TempDir()
	splits := []Split{sp}
	r := &Runner{Workers: 2, SortMem: 1 << 14}
	job := &Job{Name: "divide", Map: slowMap, Inputs: splits, InputKeys: true, Output: filepath.Join(dir, "divide")}
	if _, err := r.Run(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	parts := readOutput(t, job.Output)
	var lines []string
	for name, content := range parts {
		if strings.HasPrefix(name, "part-") && content != "" {
			lines = append(lines, strings.Split(strings.TrimSuffix(content, "\n"), "\n")...)
		}
	}
	if got := len(parts) > 2; got != divided { // _SUCCESS and one part when read whole
		t.Errorf("divided %v (%d files), want %v", got, len(parts), divided)
	}
	byOffset := make(map[int64]string)
	for _, l := range lines {
		k, v, _ := strings.Cut(l, "\t")
		off, err := strconv.ParseInt(k, 10, 64)
		if _, dup := byOffset[off]; err != nil || dup {
			t.Fatalf("bad or repeated line %q", l)
		}
		byOffset[off] = v
	}
	var off int64
	for _, want := range strings.SplitAfter(in, "\n") {
		if want == "" {
			break
		}
		if got := byOffset[off]; got != strings.TrimSuffix(want, "\n") {
			t.Fatalf("line at %d = %q, want %q", off, got, want)
		}
		off += int64(len(want))
	}
	if len(byOffset) != 3000 {
		t.Errorf("%d lines read, want 3000", len(byOffset))
	}
	if !divided {
		return
	}

	// A reduce over divided splits, and a job fed by them, count as one
	// worker does.
	count := func(name string, sp []Split) *Job {
		return &Job{Name: name, Map: wcMap, Reduce: wcSum, Combine: wcSum, Reducers: 2, Inputs: sp, Output: filepath.Join(dir, name)}
	}
	one := count("one", splits)
	if _, err := (&Runner{Workers: 1}).Run(context.Background(), one); err != nil {
		t.Fatal(err)
	}
	want := readOutput(t, one.Output)
	wc := count("wc", splits)
	wc.Map = func(t *mr.Task) error { // slow wcMap
		pr, pw := io.Pipe()
		go func() {
			pw.CloseWithError(slowMap(&mr.Task{Stdin: t.Stdin, Stdout: pw, Stderr: io.Discard, Getenv: t.Getenv}))
		}()
		return wcMap(&mr.Task{Stdin: pr, Stdout: t.Stdout, Stderr: t.Stderr, Getenv: t.Getenv})
	}
	if _, err := r.Run(context.Background(), wc); err != nil {
		t.Fatal(err)
	}
	feeder := &Job{Name: "feeder", Map: slowMap, Inputs: splits, InputKeys: true, Output: filepath.Join(dir, "feeder")}
	fed := count("fed", nil)
	if _, feed, err := r.RunFeeding(context.Background(), feeder, fed); err != nil {
		t.Fatal(err)
	} else if _, err := feed.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, j := range []*Job{wc, fed} {
		if got := readOutput(t, j.Output); !maps.Equal(got, want) {
			t.Errorf("%s: word count over divided splits differs from one worker's", j.Name)
		}
	}
	if n := len(readOutput(t, feeder.Output)); n < 3 {
		t.Errorf("feeder: the split was not divided: %d files", n)
	}
}
