package jobs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// largeSample writes the sample corpus n times over, with new ids and, in
// copy i > 0, every word of the pages' text marked with i: each copy
// shares passages within itself as the sample does, none with another.
func largeSample(t *testing.T, n int) string {
	t.Helper()
	in, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		for _, line := range strings.Split(strings.TrimSpace(string(in)), "\n") {
			var d map[string]any
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatal(err)
			}
			d["id"] = fmt.Sprintf("%d/%s", i, d["id"])
			if i > 0 {
				d["html"] = textRun.ReplaceAllStringFunc(d["html"].(string), func(text string) string {
					return word.ReplaceAllString(text, fmt.Sprintf("${0}q%d", i))
				})
			}
			b, _ := json.Marshal(d)
			w.Write(append(b, '\n'))
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	textRun = regexp.MustCompile(`>[^<]+<`)
	word    = regexp.MustCompile(`[A-Za-z]{3,}`)
)

// waitFor waits until path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", path)
}

// TestOneRunPerOutput: while a run works on OUT, a second run on OUT, with
// or without --overwrite, fails at once naming the first (pid, host,
// start), and leaves the first run's output alone: it finishes with the
// spans of a run on its own. A run killed with SIGKILL leaves no lock
// behind (the OS lock ends with it): the rerun resumes.
func TestOneRunPerOutput(t *testing.T) {
	docs := largeSample(t, 30)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--input", docs, "--output", out, "--quiet", "--workers", "1"}
	first := pdcCmd(args...)
	var stderr strings.Builder
	first.Stderr = &stderr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, filepath.Join(out, "_pdc.json"))
	for _, extra := range [][]string{nil, {"--overwrite"}} {
		_, msg, code := runPDC(t, append(args, extra...)...)
		want := fmt.Sprintf("is in use by pdc run pid %d on ", first.Process.Pid)
		if code != 1 || !strings.Contains(msg, want) || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("second run %v: exit %d %q; want exit 1 and one line with %q", extra, code, msg, want)
		}
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr.String())
	}
	alone := filepath.Join(t.TempDir(), "alone")
	if _, msg, code := runPDC(t, "run", "--input", docs, "--output", alone, "--quiet"); code != 0 {
		t.Fatal(msg)
	}
	got, _, _ := runPDC(t, "spans", out)
	want, _, _ := runPDC(t, "spans", alone)
	if got != want || len(got) == 0 {
		t.Errorf("the first run's spans (%d bytes) differ from a run on its own (%d bytes)", len(got), len(want))
	}
	if _, err := os.Stat(pipeline.LockName(hdfsfs.Local(), out)); !os.IsNotExist(err) {
		t.Errorf("lock file left after the run: %v", err)
	}

	killed := filepath.Join(t.TempDir(), "killed")
	kargs := []string{"run", "--input", docs, "--output", killed, "--quiet", "--workers", "1"}
	k := pdcCmd(kargs...)
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, filepath.Join(killed, "_pdc.json"))
	k.Process.Signal(syscall.SIGKILL)
	k.Wait()
	if _, msg, code := runPDC(t, kargs...); code != 0 {
		t.Fatalf("rerun after SIGKILL: exit %d %s", code, msg)
	}
	if got, _, _ := runPDC(t, "spans", killed); got != want {
		t.Errorf("the resumed run's spans differ from a run on its own")
	}
}
