package jobs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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

// TestOneRunPerOutput: while another run holds OUT (a process of this
// test binary holding OUT's lock as a run does), a run on OUT, with or
// without --overwrite, fails at once naming it (pid, host, start) and
// leaves OUT alone. Once that process is killed with SIGKILL, no lock is
// left behind (the OS lock ends with it): a run on OUT succeeds, with the
// spans of a run on its own, and releases its lock. A run killed with
// SIGKILL is resumed by the same command.
func TestOneRunPerOutput(t *testing.T) {
	t.Parallel()
	docs := largeSample(t, 2)
	out := filepath.Join(t.TempDir(), "out")
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), "PDC_TEST_HOLD_LOCK="+out)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var holderErr strings.Builder
	holder.Stderr = &holderErr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		holder.Process.Kill()
		t.Fatalf("lock holder: %q %v %s", line, err, holderErr.String())
	}
	args := []string{"run", "--input", docs, "--output", out, "--quiet"}
	for _, extra := range [][]string{nil, {"--overwrite"}} {
		_, msg, code := runPDC(t, append(args, extra...)...)
		want := fmt.Sprintf("is in use by pdc run pid %d on ", holder.Process.Pid)
		if code != 1 || !strings.Contains(msg, want) || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("run %v while held: exit %d %q; want exit 1 and one line with %q", extra, code, msg, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the held output was written: %v", err)
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	if _, msg, code := runPDC(t, args...); code != 0 {
		t.Fatalf("run after the holder was killed: exit %d %s", code, msg)
	}
	sameSpansAsAlone(t, out, docs)
	if _, err := os.Stat(pipeline.LockName(hdfsfs.Local(), out)); !os.IsNotExist(err) {
		t.Errorf("lock file left after the run: %v", err)
	}

	// A run killed with SIGKILL under way (held before its index job by
	// PDC_FAULT=hold@index, so never done first) leaves no lock and what
	// it wrote: the rerun resumes it.
	held := filepath.Join(t.TempDir(), "held")
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(t.TempDir(), "killed")
	kargs := []string{"run", "--input", docs, "--output", killed, "--quiet", "--workers", "1"}
	k := pdcCmd(kargs...)
	k.Env = append(k.Env, "PDC_FAULT=hold@index:"+held)
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, filepath.Join(killed, "_pdc.json"))
	k.Process.Signal(syscall.SIGKILL)
	k.Wait()
	if _, msg, code := runPDC(t, kargs...); code != 0 {
		t.Fatalf("rerun after SIGKILL: exit %d %s", code, msg)
	}
	sameSpansAsAlone(t, killed, docs)
}

// sameSpansAsAlone checks that run out has the spans of a run of docs on
// its own.
func sameSpansAsAlone(t *testing.T, out, docs string) {
	t.Helper()
	alone := filepath.Join(t.TempDir(), "alone")
	if _, msg, code := runPDC(t, "run", "--input", docs, "--output", alone, "--quiet"); code != 0 {
		t.Fatal(msg)
	}
	got, _, _ := runPDC(t, "spans", out)
	want, _, _ := runPDC(t, "spans", alone)
	if got != want || len(got) == 0 {
		t.Errorf("%s: spans (%d bytes) differ from a run on its own (%d bytes)", out, len(got), len(want))
	}
}

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
