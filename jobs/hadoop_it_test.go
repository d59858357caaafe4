package jobs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/jobs/hadoop"
	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// These tests run the pipeline on a real Hadoop cluster (HDFS + YARN +
// Hadoop Streaming): scripts/hadoop-cluster.sh start, then
// eval "$(scripts/hadoop-cluster.sh env)". They are skipped without
// PDC_HADOOP_CONF_DIR. They run in parallel (go test -parallel), each in
// its own HDFS directory, after the fault tests (hadoop_faults_test.go),
// which kill or restart the cluster's daemons and so run alone (the
// space-quota test, whose quota is on its own directory, runs with these).

// hadoopEnv returns the environment for a pdc process talking to the
// cluster, with a static pdc binary to ship, or skips the test.
func hadoopEnv(t *testing.T) []string {
	t.Helper()
	conf := os.Getenv("PDC_HADOOP_CONF_DIR")
	if conf == "" {
		t.Skip("no Hadoop cluster (set PDC_HADOOP_CONF_DIR: scripts/hadoop-cluster.sh start && eval \"$(scripts/hadoop-cluster.sh env)\")")
	}
	return []string{"HADOOP_CONF_DIR=" + conf, "PDC_BINARY=" + pdcBinary} // the static pdc of TestMain, as Hadoop tasks run bin/pdc
}

// hdfsPartLines returns the lines of the part files of dir on HDFS,
// sorted, without the TAB that Hadoop's text output ends a line without
// one with; dir must have _SUCCESS.
func hdfsPartLines(t *testing.T, env []string, dir string) []string {
	t.Helper()
	ls, stderr, code := runPDCEnv(t, env, "fs", "ls", dir)
	if code != 0 || !strings.Contains(ls, "/_SUCCESS") {
		t.Fatalf("pdc fs ls %s: exit %d, no _SUCCESS\n%s%s", dir, code, ls, stderr)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(ls), "\n") {
		if f := strings.Fields(line); len(f) == 3 && strings.Contains(f[2], "/part-") {
			data, _, _ := runPDCEnv(t, env, "fs", "cat", f[2])
			if data != "" {
				for _, l := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
					lines = append(lines, strings.TrimSuffix(l, "\t"))
				}
			}
		}
	}
	slices.Sort(lines)
	return lines
}

func hdfsDir(t *testing.T) string {
	return fmt.Sprintf("/pdc-it/%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

// TestHadoopMatchesLocal: the full pipeline on YARN with 2 reducers, every
// job's output kept, with every first task attempt failing (Hadoop retries
// them), gives the local runner's spans and counters; pdc spans reads them
// back from HDFS. The clusters come from one star round, then the
// components job, then the clusters job (--component-edges set between the
// graph's edges before and after the first round; TestHadoopNoOrphans runs
// components+clusters).
func TestHadoopMatchesLocal(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel()
	out := hdfsDir(t)
	rounds := filepath.Join(t.TempDir(), "rounds")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", rounds, "--quiet", "--keep-intermediate", "--clusters", "--component-edges", "0"); code != 0 {
		t.Fatal(stderr)
	}
	c, _ := os.ReadFile(filepath.Join(rounds, "components-01-small", "_counters.tsv"))
	oneRound := strconv.FormatInt(mr.ParseCounters(string(c))["clusters.star-edges"], 10)
	args := []string{"--reducers", "2", "--keep-intermediate", "--clusters", "--component-edges", oneRound}
	_, stderr, code := runPDCEnv(t, append(env, "PDC_FAULT=first-attempt"), append([]string{"run", "--hadoop", "--input", sample, "--output", out}, args...)...)
	if code != 0 {
		t.Fatalf("pdc run --hadoop: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "job small-star-1: ") || strings.Contains(stderr, "job large-star-2: ") || !strings.Contains(stderr, "job components: ") || !strings.Contains(stderr, "job clusters: ") {
		t.Errorf("--component-edges %s: not one star round, then the components and the clusters jobs:\n%s", oneRound, stderr)
	}
	local := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, append([]string{"run", "--input", sample, "--output", local, "--quiet"}, args...)...); code != 0 {
		t.Fatal(stderr)
	}
	clusters := func(dir string) string { s, _, _ := runPDC(t, "clusters", dir); return s }
	if c := clusters(local); c != clusters(rounds) || strings.Count(c, "\n") < 20 {
		t.Error("the clusters of one round and the components job differ from the rounds'")
	}
	want, _, _ := runPDC(t, "spans", local)
	got, stderr, code := runPDCEnv(t, env, "spans", "hdfs://localhost:9000"+out)
	if code != 0 {
		t.Fatalf("pdc spans from HDFS: %s", stderr)
	}
	if got != want || strings.Count(got, "\n") < 20 {
		t.Errorf("Hadoop spans (%d lines) differ from local spans (%d lines)", strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	// Part files are identical too (the partitioner is Hadoop's, bit for
	// bit); map-only parts may be numbered differently.
	ls, _, _ := runPDCEnv(t, env, "fs", "ls", out+"/spans")
	var hparts, lparts []string
	for _, line := range strings.Split(strings.TrimSpace(ls), "\n") {
		if f := strings.Fields(line); len(f) == 3 && strings.Contains(f[2], "/part-") {
			data, _, _ := runPDCEnv(t, env, "fs", "cat", f[2])
			hparts = append(hparts, data)
		}
	}
	parts, _ := pipeline.PartFiles(hdfsfs.Local(), filepath.Join(local, "spans"))
	for _, p := range parts {
		data, _ := os.ReadFile(p)
		lparts = append(lparts, string(data))
	}
	slices.Sort(hparts)
	slices.Sort(lparts)
	if !slices.Equal(hparts, lparts) {
		t.Errorf("span part files differ between Hadoop (%d parts) and local (%d parts)", len(hparts), len(lparts))
	}
	hc, _, _ := runPDCEnv(t, env, "fs", "cat", out+"/counters.tsv")
	lc, _ := os.ReadFile(filepath.Join(local, "counters.tsv"))
	if !reflect.DeepEqual(mr.ParseCounters(hc), mr.ParseCounters(string(lc))) {
		t.Errorf("counters differ:\nhadoop:\n%s\nlocal:\n%s", hc, lc)
	}
	// The run extended spans (the extend job's windows went through the
	// shuffle, and its side input through -files), so the equality above
	// covers extension.
	if c := mr.ParseCounters(string(lc)); c["extend.spans.extended"] == 0 || c["extend.windows"] == 0 {
		t.Errorf("the sample's run extended no span: extend.spans.extended %d, extend.windows %d", c["extend.spans.extended"], c["extend.windows"])
	}
	// boilerplate.tsv too, its texts read from the records on HDFS.
	wantBP, _, _ := runPDC(t, "boilerplate", local)
	if gotBP, stderr, code := runPDCEnv(t, env, "boilerplate", "hdfs://localhost:9000"+out); code != 0 || gotBP != wantBP || !strings.Contains(wantBP, "\tNew in version 3.5.\n") {
		t.Errorf("pdc boilerplate: Hadoop's (exit %d)\n%s\ndiffers from local\n%s\n%s", code, gotBP, wantBP, stderr)
	}
	// Clusters, document pairs and a pair side by side are the same too.
	for _, cmd := range [][]string{{"clusters", "--text"}, {"clusters", "--format", "jsonl"}, {"pairs"},
		{"show", "python/library/bz2.html", "python/library/lzma.html", "--width", "100"}} {
		want, stderr, code := runPDC(t, append([]string{cmd[0], local}, cmd[1:]...)...)
		if code != 0 || strings.Count(want, "\n") < 10 {
			t.Fatalf("pdc %s (local): exit %d, %d lines\n%s", strings.Join(cmd, " "), code, strings.Count(want, "\n"), stderr)
		}
		got, stderr, code := runPDCEnv(t, env, append([]string{cmd[0], "hdfs://localhost:9000" + out}, cmd[1:]...)...)
		if code != 0 || got != want {
			t.Errorf("pdc %s: Hadoop output (exit %d, %d lines) differs from local (%d lines)\n%s", strings.Join(cmd, " "), code, strings.Count(got, "\n"), strings.Count(want, "\n"), stderr)
		}
	}
	// Dedup too, its output written on HDFS: by Hadoop jobs (the default
	// for a run made with --hadoop; every first task attempt failing, so
	// that the retried tasks build the same plan again), and through pdc's
	// process (--jobs=false).
	lclean := t.TempDir() // exists: local even with HADOOP_CONF_DIR set (hdfsfs.IsRemote)
	if _, stderr, code := runPDC(t, "dedup", local, "--output", lclean); code != 0 {
		t.Fatalf("pdc dedup (local): exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runPDCEnv(t, env, "dedup", "hdfs://localhost:9000"+out, "--output", "hdfs://localhost:9000"+out+"-clean1", "--jobs=false"); code != 0 {
		t.Fatalf("pdc dedup --jobs=false (HDFS): exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"docs.jsonl", "removed.tsv"} {
		want, _ := os.ReadFile(filepath.Join(lclean, f))
		got, stderr, code := runPDCEnv(t, env, "fs", "cat", out+"-clean1/"+f)
		if code != 0 || got != string(want) || strings.Count(got, "\n") < 10 {
			t.Errorf("pdc dedup --jobs=false: %s on HDFS (exit %d, %d lines) differs from local (%d lines)\n%s", f, code, strings.Count(got, "\n"), strings.Count(string(want), "\n"), stderr)
		}
	}
	// --templates: through pdc's process from HDFS as locally; refused with
	// the jobs (a Hadoop run's default), nothing written.
	ltmpl := t.TempDir()
	if _, stderr, code := runPDC(t, "dedup", local, "--output", ltmpl, "--templates"); code != 0 {
		t.Fatalf("pdc dedup --templates (local): exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runPDCEnv(t, env, "dedup", "hdfs://localhost:9000"+out, "--output", "hdfs://localhost:9000"+out+"-tmpl", "--jobs=false", "--templates"); code != 0 {
		t.Fatalf("pdc dedup --jobs=false --templates (HDFS): exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"docs.jsonl", "removed.tsv"} {
		want, _ := os.ReadFile(filepath.Join(ltmpl, f))
		got, stderr, code := runPDCEnv(t, env, "fs", "cat", out+"-tmpl/"+f)
		if code != 0 || got != string(want) {
			t.Errorf("pdc dedup --jobs=false --templates: %s on HDFS (exit %d, %d lines) differs from local (%d lines)\n%s", f, code, strings.Count(got, "\n"), strings.Count(string(want), "\n"), stderr)
		}
		if f == "removed.tsv" && !strings.Contains(got, "\ttemplate\n") {
			t.Errorf("pdc dedup --jobs=false --templates: removed.tsv on HDFS cuts no template (no row with reason template)")
		}
	}
	_, stderr, code = runPDCEnv(t, env, "dedup", "hdfs://localhost:9000"+out, "--output", "hdfs://localhost:9000"+out+"-tmpljobs", "--templates")
	if code != 2 || !strings.Contains(stderr, "give --jobs=false") {
		t.Errorf("pdc dedup --templates of a Hadoop run (jobs): exit %d, want 2 and the --jobs=false hint\n%s", code, stderr)
	}
	if _, _, code := runPDCEnv(t, env, "fs", "ls", out+"-tmpljobs"); code == 0 {
		t.Errorf("refused pdc dedup --templates wrote %s-tmpljobs", out)
	}
	_, stderr, code = runPDCEnv(t, append(env, "PDC_FAULT=first-attempt"), "dedup", "hdfs://localhost:9000"+out, "--output", "hdfs://localhost:9000"+out+"-clean", "--reducers", "2")
	if code != 0 || !strings.Contains(stderr, "job dedup-docs") || !strings.Contains(stderr, out+"-clean/docs/") {
		t.Fatalf("pdc dedup (Hadoop jobs): exit %d\n%s", code, stderr)
	}
	for _, f := range [][2]string{{"docs", "docs.jsonl"}, {"removed", "removed.tsv"}} {
		got := hdfsPartLines(t, env, out+"-clean/"+f[0])
		want := sortedFileLines(t, filepath.Join(lclean, f[1]), strings.Count(f[1], "removed"))
		if !slices.Equal(got, want) || len(want) < 10 {
			t.Errorf("pdc dedup: %s/ of the Hadoop jobs (%d lines) differs from local %s (%d lines)", f[0], len(got), f[1], len(want))
		}
	}
	if ls, _, _ := runPDCEnv(t, env, "fs", "ls", out+"-clean"); strings.Contains(ls, "_plan") || strings.Contains(ls, "_kept") {
		t.Errorf("pdc dedup left its side files on HDFS:\n%s", ls)
	}
	text, stderr, code := runPDCEnv(t, env, "spans", out, "--text")
	if code != 0 || !strings.Contains(text, "bzip2-compressed file") {
		t.Errorf("pdc spans --text from HDFS: exit %d %s", code, stderr)
	}
	report := filepath.Join(t.TempDir(), "report")
	if _, stderr, code := runPDCEnv(t, env, "report", "hdfs://localhost:9000"+out, "--output", report); code != 0 {
		t.Errorf("pdc report from HDFS: exit %d %s", code, stderr)
	} else if page, err := os.ReadFile(filepath.Join(report, "pair-0001.html")); err != nil || !strings.Contains(string(page), `<tr class="start" id="s1">`) || !strings.Contains(string(page), `<tr class="pair s1">`) {
		t.Errorf("pdc report from HDFS: no pair page with passages (%v)", err)
	}
}

// TestHadoopFailingMapper: a mapper that fails on every attempt gives a
// one-line error with the job id, the stage and the task's stderr, and no
// final output.
func TestHadoopFailingMapper(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel()
	out := hdfsDir(t)
	_, stderr, code := runPDCEnv(t, env, "run", "--hadoop", "--input", badInput(t), "--output", out, "--strict", "--quiet")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"job parse", "job_", "map task", "bad-json", "strict mode", "task stderr"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("error lacks %q:\n%s", want, stderr)
		}
	}
	if _, _, code := runPDCEnv(t, env, "spans", out); code == 0 {
		t.Error("a failed run left readable spans")
	}
	if ls, _, _ := runPDCEnv(t, env, "fs", "ls", out); strings.Contains(ls, "parsed") {
		t.Errorf("a failed job left its output directory:\n%s", ls)
	}
}

// TestHDFSRoundTrip: a file larger than one HDFS block (the test cluster
// runs with PDC_HDFS_BLOCK_SIZE=1048576) goes up with pdc fs put and comes
// back byte-identical with pdc fs get and pdc fs cat.
func TestHDFSRoundTrip(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "big.bin")
	data := make([]byte, 3<<20+12345)
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dst := hdfsDir(t) + "/big.bin"
	if _, stderr, code := runPDCEnv(t, env, "fs", "put", src, "hdfs://localhost:9000"+dst); code != 0 {
		t.Fatalf("fs put: %s", stderr)
	}
	back := filepath.Join(dir, "back.bin")
	if _, stderr, code := runPDCEnv(t, env, "fs", "get", dst, back); code != 0 {
		t.Fatalf("fs get: %s", stderr)
	}
	got, err := os.ReadFile(back)
	if err != nil || string(got) != string(data) {
		t.Fatalf("round trip changed the file (%d vs %d bytes, %v)", len(got), len(data), err)
	}
	cat, _, code := runPDCEnv(t, env, "fs", "cat", dst)
	if code != 0 || cat != string(data) {
		t.Error("fs cat differs from the original")
	}
}

// TestHadoopConvertedInputs: inputs that are converted to JSON Lines while
// uploading (a pyarrow-written Parquet file and a directory tree of pages
// without URLs, whose site is the tree) give on YARN the spans and
// counters of the local run on the same inputs, and the Parquet file the
// spans of its JSON Lines original; a batch against that run (--store,
// --against, --clusters) gives the local batch's spans and clusters.
func TestHadoopConvertedInputs(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel()
	pq := parquetSample(t)
	tree := filepath.Join(t.TempDir(), "tree")
	for i := range 6 {
		writeFile(t, filepath.Join(tree, fmt.Sprintf("p%d.html", i)), sitePage(i, ""))
	}
	out := hdfsDir(t)
	_, stderr, code := runPDCEnv(t, env, "run", "--hadoop", "--input", pq, "--input", tree, "--output", out, "--store")
	if code != 0 {
		t.Fatalf("pdc run --hadoop: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "upload: 37 documents converted to JSON Lines") {
		t.Errorf("no conversion message in\n%s", stderr)
	}
	// Six jobs, the match inside the join's reduce tasks, each job's time
	// in the summary.
	if !strings.Contains(stderr, " by 6 jobs\n") || !regexp.MustCompile(`\npdc: jobs: parse [0-9.ms]+, stats [0-9.ms]+, index [0-9.ms]+, boilerplate [0-9.ms]+, join\+match [0-9.ms]+, extend [0-9.ms]+\n`).MatchString(stderr) {
		t.Errorf("not the six jobs with their times in the summary:\n%s", stderr)
	}
	local := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", pq, "--input", tree, "--output", local, "--quiet", "--store"); code != 0 {
		t.Fatal(stderr)
	}
	want, _, _ := runPDC(t, "spans", local)
	got, stderr, code := runPDCEnv(t, env, "spans", "hdfs://localhost:9000"+out)
	if code != 0 || got != want || strings.Count(got, "\n") < 20 {
		t.Errorf("Hadoop spans (%d lines, exit %d %s) differ from local spans (%d lines)",
			strings.Count(got, "\n"), code, stderr, strings.Count(want, "\n"))
	}
	hc, _, _ := runPDCEnv(t, env, "fs", "cat", out+"/counters.tsv")
	lc, _ := os.ReadFile(filepath.Join(local, "counters.tsv"))
	hcs, lcs := mr.ParseCounters(hc), mr.ParseCounters(string(lc))
	if !reflect.DeepEqual(hcs, lcs) || hcs["parse.site.input"] != 6 {
		t.Errorf("counters differ or the tree has no site:\nhadoop:\n%s\nlocal:\n%s", hc, lc)
	}
	var sampleSpans strings.Builder // the spans between two sample pages (ids with a '/')
	for _, l := range strings.SplitAfter(got, "\n") {
		if f := strings.SplitN(l, "\t", 3); len(f) == 3 && strings.Contains(f[0], "/") && strings.Contains(f[1], "/") {
			sampleSpans.WriteString(l)
		}
	}
	if jsonOnly, _, _ := runPDC(t, "spans", sampleRun(t)); sampleSpans.String() != jsonOnly {
		t.Errorf("the Parquet file's spans differ from its JSON Lines original's")
	}
	// A batch against the stored run, on the cluster (the stored parsed
	// records read from HDFS by the batch's stats, index and extend jobs):
	// a third of the sample under new ids, besides copies of the stored
	// pages, gives the local batch run's spans, and its passages read from
	// both runs' uploaded inputs; its clusters, from the spans and parsed
	// records of both runs, the local batch's.
	batch := renamedSample(t, "new/", func(i int) bool { return i%3 == 1 })
	// and a stored page under its own id, edited: the run keeps the stored
	// record, and dedup reads that one (OUT-batch/input sorts before
	// OUT/input: the records' places decide, not their paths).
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	f, err := os.OpenFile(batch, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Replace(first, "</body>", "<p>An edited paragraph the stored page does not have, long enough to be a sentence of its own.</p></body>", 1) + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	lbatch := filepath.Join(t.TempDir(), "batch")
	for _, r := range []struct {
		env  []string
		args []string
	}{
		{env, []string{"--hadoop", "--input", batch, "--output", out + "-batch", "--against", out, "--clusters"}},
		{nil, []string{"--input", batch, "--output", lbatch, "--against", local, "--clusters"}},
	} {
		if _, stderr, code := runPDCEnv(t, r.env, append([]string{"run", "--quiet", "--reducers", "2"}, r.args...)...); code != 0 {
			t.Fatalf("pdc run %v: exit %d\n%s", r.args, code, stderr)
		}
	}
	for _, cmd := range [][]string{{"spans"}, {"spans", "--text"}, {"clusters"}, {"clusters", "--text"}} {
		want, stderr, code := runPDC(t, append([]string{cmd[0], lbatch}, cmd[1:]...)...)
		if code != 0 || strings.Count(want, "\n") < 10 || !strings.Contains(want, "new/") {
			t.Fatalf("pdc %v (local batch): exit %d, %d lines\n%s", cmd, code, strings.Count(want, "\n"), stderr)
		}
		got, stderr, code := runPDCEnv(t, env, append([]string{cmd[0], "hdfs://localhost:9000" + out + "-batch"}, cmd[1:]...)...)
		if code != 0 || got != want {
			t.Errorf("pdc %v: the Hadoop batch run's (exit %d, %d lines) differ from the local one's (%d lines)%s\n%s", cmd, code, strings.Count(got, "\n"), strings.Count(want, "\n"), firstDiff(got, want), stderr)
		}
	}
	// The batch's dedup (the stored documents read from HDFS), through
	// pdc's process and by jobs on YARN (the default for a Hadoop run):
	// the local batch's.
	bclean := t.TempDir()
	if _, stderr, code := runPDC(t, "dedup", lbatch, "--output", bclean); code != 0 {
		t.Fatalf("pdc dedup of the local batch: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runPDCEnv(t, env, "dedup", "hdfs://localhost:9000"+out+"-batch", "--output", "hdfs://localhost:9000"+out+"-batch-clean", "--jobs=false"); code != 0 || !strings.Contains(stderr, "of the batch read") {
		t.Fatalf("pdc dedup --jobs=false of the Hadoop batch: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"docs.jsonl", "removed.tsv"} {
		want, _ := os.ReadFile(filepath.Join(bclean, f))
		got, stderr, code := runPDCEnv(t, env, "fs", "cat", out+"-batch-clean/"+f)
		if code != 0 || got != string(want) || !strings.Contains(got, "new/") {
			t.Errorf("pdc dedup --jobs=false of the batch: %s on HDFS (exit %d, %d lines) differs from local (%d lines)%s\n%s", f, code, strings.Count(got, "\n"), strings.Count(string(want), "\n"), firstDiff(got, string(want)), stderr)
		}
	}
	if _, stderr, code := runPDCEnv(t, env, "dedup", "hdfs://localhost:9000"+out+"-batch", "--output", "hdfs://localhost:9000"+out+"-batch-jobs", "--reducers", "2"); code != 0 || !strings.Contains(stderr, "job dedup-docs") {
		t.Fatalf("pdc dedup (jobs) of the Hadoop batch: exit %d\n%s", code, stderr)
	}
	for _, f := range [][2]string{{"docs", "docs.jsonl"}, {"removed", "removed.tsv"}} {
		got := hdfsPartLines(t, env, out+"-batch-jobs/"+f[0])
		want := sortedFileLines(t, filepath.Join(bclean, f[1]), strings.Count(f[1], "removed"))
		if !slices.Equal(got, want) || len(want) < 5 {
			t.Errorf("pdc dedup of the batch: %s/ of the Hadoop jobs (%d lines) differs from local %s (%d lines)", f[0], len(got), f[1], len(want))
		}
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("; line %d:\n got %q\nwant %q", i+1, g[i], w[i])
		}
	}
	return ""
}

// renamedSample writes the sample's records whose line number keep
// accepts, each id prefixed, and returns the file.
func renamedSample(t *testing.T, prefix string, keep func(i int) bool) string {
	t.Helper()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !keep(i) {
			continue
		}
		if !strings.HasPrefix(l, `{"id": "`) {
			t.Fatalf("sample line %d does not start with an id", i+1)
		}
		b.WriteString(strings.Replace(l, `{"id": "`, `{"id": "`+prefix, 1) + "\n")
	}
	path := filepath.Join(t.TempDir(), "renamed.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// appState asks YARN for an application's state (yarn application
// -status, through the cluster's jars).
func appState(t *testing.T, app string) string {
	t.Helper()
	streaming, err := hadoop.FindStreaming(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	sub := &hadoop.Submitter{Streaming: streaming, ConfDir: os.Getenv("PDC_HADOOP_CONF_DIR")}
	state, err := sub.AppState(context.Background(), app)
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// hadoopRun is a pdc run started by startHadoopRun.
type hadoopRun struct {
	cmd    *exec.Cmd
	app    string // the application of its first job
	pw     *io.PipeWriter
	copied chan struct{}
	log    strings.Builder // its stderr, whole once wait returns
}

// wait waits for the process and for the rest of its stderr.
func (r *hadoopRun) wait() error {
	err := r.cmd.Wait()
	r.pw.Close()
	<-r.copied
	return err
}

// startHadoopRun starts pdc run --hadoop in a process group of its own and
// returns it once its first job is submitted.
func startHadoopRun(t *testing.T, env []string, args ...string) *hadoopRun {
	t.Helper()
	r := &hadoopRun{cmd: pdcCmd(args...), copied: make(chan struct{})}
	r.cmd.Env = append(r.cmd.Env, env...)
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	r.cmd.Stderr, r.pw = pw, pw
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		r.log.WriteString(sc.Text() + "\n")
		if _, id, ok := strings.Cut(sc.Text(), "hadoop: job job_"); ok {
			r.app = "application_" + strings.Fields(id)[0]
			break
		}
	}
	go func() {
		io.Copy(&r.log, pr)
		close(r.copied)
	}()
	if r.app == "" {
		r.wait()
		t.Fatalf("no job submitted:\n%s", r.log.String())
	}
	return r
}

// TestHadoopNoOrphans: SIGINT to the driver kills the job it submitted
// (the application ends KILLED, the driver exits with the resume message)
// and a rerun gives the local run's spans; a driver killed with SIGKILL
// leaves its application running (held so by its tasks, PDC_FAULT=hold),
// and the rerun kills it before it submits (the lock of the dead driver on this host is taken over). The
// rerun finds the clusters with the components job, as the local rounds
// do.
func TestHadoopNoOrphans(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel()
	out := hdfsDir(t)
	args := []string{"run", "--hadoop", "--queue", "default", "--input", sample, "--output", out, "--clusters"}
	want, _, _ := runPDC(t, "spans", sampleRun(t))

	r := startHadoopRun(t, env, args...)
	app := r.app
	r.cmd.Process.Signal(os.Interrupt)
	err := r.wait()
	if !strings.Contains(r.log.String(), "rerun the same command to resume") {
		t.Errorf("SIGINT: %v, no resume message:\n%s", err, r.log.String())
	}
	for start := time.Now(); appState(t, app) != "KILLED" && time.Since(start) < 30*time.Second; time.Sleep(time.Second) {
	}
	if state := appState(t, app); state != "KILLED" {
		t.Errorf("after SIGINT, %s is %s, want KILLED", app, state)
	}

	// The killed driver's job is held running (its tasks wait while the
	// file exists) until the rerun kills it.
	held := filepath.Join(t.TempDir(), "held")
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(held)
	r = startHadoopRun(t, append(env, "PDC_FAULT=hold:"+held), args...)
	app = r.app
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL) // the driver and its streaming client
	r.wait()
	if state := appState(t, app); state != "RUNNING" && state != "ACCEPTED" {
		t.Fatalf("after SIGKILL, %s is %s, want it left running", app, state)
	}
	_, stderr, code := runPDCEnv(t, env, args...)
	if code != 0 || !strings.Contains(stderr, "pdc: killed "+app+", left running by an earlier run") {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	if state := appState(t, app); state != "KILLED" {
		t.Errorf("after the rerun, %s is %s, want KILLED", app, state)
	}
	if got, _, _ := runPDCEnv(t, env, "spans", "hdfs://localhost:9000"+out); got != want {
		t.Errorf("the rerun's spans differ from the local run's")
	}
	// Its clusters came from the components job, in one job, and are the
	// local rounds' clusters.
	local := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", local, "--quiet", "--clusters", "--component-edges", "0"); code != 0 {
		t.Fatal(stderr)
	}
	lc, _, _ := runPDC(t, "clusters", local)
	hc, _, _ := runPDCEnv(t, env, "clusters", "hdfs://localhost:9000"+out)
	jobs, _, _ := runPDCEnv(t, env, "fs", "cat", out+"/jobs.tsv")
	if hc != lc || strings.Count(hc, "\n") < 20 || !strings.Contains(jobs, "\ncomponents+clusters\t") || strings.Contains(jobs, "large-star") {
		t.Errorf("clusters of the components job on Hadoop (%d lines) differ from the local rounds' (%d lines), or the jobs were others:\n%s", strings.Count(hc, "\n"), strings.Count(lc, "\n"), jobs)
	}
}

// TestHadoopQueue: --queue names the YARN queue of every job; a queue the
// cluster does not have stops the run at its first job with one line
// naming the queue, and leaves no spans. (TestHadoopNoOrphans runs with
// --queue default, the test cluster's one queue.)
func TestHadoopQueue(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel()
	out := hdfsDir(t)
	_, stderr, code := runPDCEnv(t, env, "run", "--hadoop", "--queue", "no-such-queue", "--input", sample, "--output", out, "--quiet")
	if code != 1 || !strings.Contains(stderr, "job parse") || !strings.Contains(stderr, "unknown queue: no-such-queue") {
		t.Fatalf("exit %d, want 1 naming the job and the queue:\n%s", code, stderr)
	}
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 {
		t.Errorf("error of %d lines, want one:\n%s", n+1, stderr)
	}
	if _, _, code := runPDCEnv(t, env, "spans", out); code == 0 {
		t.Error("a run refused by YARN left readable spans")
	}
}

// TestHadoopCorruptParquet: a Parquet file whose page does not decompress
// stops pdc run --hadoop with one line naming the file and the damage
// while it is converted for upload; the same file already on HDFS is
// refused by name (files on HDFS are read as JSON Lines), not read as
// lines of bad JSON.
func TestHadoopCorruptParquet(t *testing.T) {
	env := hadoopEnv(t)
	t.Parallel()
	pq := filepath.Join("..", "lib", "parquetio", "testdata", "oom.parquet")
	out := hdfsDir(t)
	_, stderr, code := runPDCEnv(t, env, "run", "--hadoop", "--input", pq, "--output", out, "--quiet")
	if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 ||
		!strings.Contains(stderr, "oom.parquet: damaged parquet file, no document could be read (row group 0") {
		t.Errorf("local file: exit %d, want 1 and one line naming the file and the row group:\n%s", code, stderr)
	}
	remote := out + "-in/oom.parquet"
	if _, stderr, code := runPDCEnv(t, env, "fs", "put", pq, "hdfs://localhost:9000"+remote); code != 0 {
		t.Fatalf("fs put: %s", stderr)
	}
	_, stderr, code = runPDCEnv(t, env, "run", "--hadoop", "--input", "hdfs://localhost:9000"+remote, "--output", out+"-2", "--quiet")
	if code != 1 || !strings.Contains(stderr, remote+": Parquet (.parquet) files on HDFS are not read in place") {
		t.Errorf("file on HDFS: exit %d, want 1 and the file refused by name:\n%s", code, stderr)
	}
}
