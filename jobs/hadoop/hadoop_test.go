package hadoop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// cluster is the test cluster of scripts/hadoop-cluster.sh: its submitter and HDFS, and a
// scratch dir on HDFS. Without PDC_HADOOP_CONF_DIR the test is skipped.
type cluster struct {
	sub  *Submitter
	fs   hdfsfs.FS
	root string
	prog string // the taskprog binary
	log  *bytes.Buffer
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	conf := os.Getenv("PDC_HADOOP_CONF_DIR")
	if conf == "" {
		t.Skip("PDC_HADOOP_CONF_DIR not set; start a cluster with scripts/hadoop-cluster.sh start")
	}
	streaming, err := FindStreaming(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := hdfsfs.FromConfDir(conf)
	if err != nil {
		t.Fatal(err)
	}
	root := fmt.Sprintf("/tmp/hadoop-test-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		if err := fsys.RemoveAll(root); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	var log bytes.Buffer
	return &cluster{
		sub:  &Submitter{Streaming: streaming, ConfDir: conf, Stderr: &log},
		fs:   fsys,
		root: root,
		prog: buildTaskprog(t),
		log:  &log,
	}
}

// buildTaskprog builds testdata/taskprog as a static binary.
func buildTaskprog(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "taskprog")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/taskprog")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build taskprog: %v\n%s", err, out)
	}
	return bin
}

func (c *cluster) put(t *testing.T, name, data string) string {
	t.Helper()
	p := c.root + "/" + name
	if err := c.fs.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := hdfsfs.WriteFile(c.fs, p, []byte(data)); err != nil {
		t.Fatal(err)
	}
	return p
}

// output concatenates the part files of dir, in name order, and counts them.
func (c *cluster) output(t *testing.T, dir string) (string, int) {
	t.Helper()
	infos, err := c.fs.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	parts := 0
	for _, fi := range infos {
		if strings.HasPrefix(fi.Name(), "part-") {
			data, err := hdfsfs.ReadFile(c.fs, dir+"/"+fi.Name())
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
			parts++
		}
	}
	return b.String(), parts
}

// TestRunRetriedAndCounters runs a two-reducer job whose map tasks fail on their first
// attempt: Hadoop retries them, the job succeeds and the pdc counters come back.
func TestRunRetriedAndCounters(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	in := c.put(t, "in/a.tsv", "b\t1\na\t2\nc\t3\na\t4\n")
	job := &Job{
		Name: "test-retry", Mapper: "taskprog map", Reducer: "taskprog reduce",
		KeyFields: 1, PartitionFields: 1, Reducers: 2,
		Env:    map[string]string{"PDC_FLAKY": "1"},
		Files:  []string{c.prog},
		Inputs: []string{in}, Output: c.root + "/out",
		CompressMapOutput: true,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := c.sub.Run(ctx, job)
	t.Logf("job took %v; progress:\n%s", time.Since(start), c.log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.JobID, "job_") || res.TrackingURL == "" {
		t.Errorf("result = %+v, want a job id and tracking URL", res)
	}
	if want := map[string]int64{"records": 4, "groups": 3}; fmt.Sprint(res.Counters) != fmt.Sprint(want) {
		t.Errorf("counters = %v, want %v", res.Counters, want)
	}
	if !strings.Contains(c.log.String(), "attempt") {
		t.Errorf("progress shows no failed attempt:\n%s", c.log)
	}
	out, parts := c.output(t, job.Output)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines)
	if got, want := strings.Join(lines, "|"), "a\t2|b\t1|c\t1"; got != want || parts != 2 {
		t.Errorf("output = %q in %d parts, want %q in 2", got, parts, want)
	}
}

// TestRunFailingMapper checks that a failing mapper gives an error with the job id, the
// stage and the task's stderr.
func TestRunFailingMapper(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	in := c.put(t, "in/a.tsv", "a\t1\n")
	job := &Job{
		Name: "test-fail", Mapper: "taskprog fail", Reducer: "taskprog reduce",
		KeyFields: 1, Reducers: 1, Files: []string{c.prog},
		Inputs: []string{in}, Output: c.root + "/out",
		Conf: map[string]string{"mapreduce.map.maxattempts": "1"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := c.sub.Run(ctx, job)
	var je *JobError
	if !errors.As(err, &je) {
		t.Fatalf("err = %v, want a *JobError", err)
	}
	t.Logf("error:\n%v", err)
	if !strings.HasPrefix(je.JobID, "job_") || je.Stage != "map" {
		t.Errorf("JobID %q Stage %q, want job_... and map", je.JobID, je.Stage)
	}
	if !strings.Contains(je.Stderr, "deliberate failure") {
		t.Errorf("stderr tail %q lacks the task's message", je.Stderr)
	}
}

// signal is an io.Writer that closes ready at the first write containing word.
type signal struct {
	word  string
	ready chan struct{}
	once  sync.Once
}

func (s *signal) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(s.word)) {
		s.once.Do(func() { close(s.ready) })
	}
	return len(p), nil
}

// TestRunCancelKillsJob cancels a running job and checks that YARN killed it.
func TestRunCancelKillsJob(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	in := c.put(t, "in/a.tsv", "a\t1\n")
	job := &Job{Name: "test-cancel", Mapper: "sleep 600", Inputs: []string{in}, Output: c.root + "/out"}
	sig := &signal{word: "hadoop: job ", ready: make(chan struct{})}
	c.sub.Stderr = sig
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-sig.ready
		cancel()
	}()
	_, err := c.sub.Run(ctx, job)
	var je *JobError
	if !errors.As(err, &je) || je.JobID == "" {
		t.Fatalf("err = %v, want a *JobError with a job id", err)
	}
	out, err := c.sub.yarnCommand(context.Background(), "application", "-status", appID(je.JobID)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`State : KILLED`).Match(out) {
		t.Errorf("application not killed:\n%s", out)
	}
}
