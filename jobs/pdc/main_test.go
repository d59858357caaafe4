package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterrupt builds pdc and stops a run with SIGINT and with SIGTERM:
// it exits 130 or 143 with a one-line message saying how to resume, and
// the same command then finishes the run.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pdc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	corpus := bigCorpus(t, filepath.Join(dir, "docs.jsonl"))
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		out := filepath.Join(dir, "out-"+tt.sig.String())
		args := []string{"run", "--input", corpus, "--output", out, "--workers", "1", "--quiet"}
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once the run is under way: pdc handles signals from its
		// start, and writes its output directory's manifest before its
		// first job, which then lasts seconds.
		for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(out, "_pdc.json")); err == nil {
				break
			}
			if time.Since(start) > 30*time.Second {
				cmd.Process.Kill()
				t.Fatalf("%v: no %s/_pdc.json after 30 s", tt.sig, out)
			}
		}
		if err := cmd.Process.Signal(tt.sig); err != nil {
			t.Fatalf("%v: %v (the run ended before the signal?)", tt.sig, err)
		}
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if code != tt.code || !strings.Contains(stderr.String(), "rerun the same command to resume") {
			t.Fatalf("%v: exit %d (%v), stderr %q; want exit %d and the resume message", tt.sig, code, err, stderr.String(), tt.code)
		}
		if n := strings.Count(strings.TrimSpace(stderr.String()), "\n"); n > 0 {
			t.Errorf("%v: message of %d lines: %q", tt.sig, n+1, stderr.String())
		}
		rerun, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(rerun), "spans between") {
			t.Errorf("%v: rerun: %v\n%s", tt.sig, err, rerun)
		}
	}
}

// bigCorpus writes the sample corpus 40 times over (new ids): a run of a
// few seconds on one worker.
func bigCorpus(t *testing.T, path string) string {
	t.Helper()
	in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample", "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range 40 {
		for _, line := range strings.Split(strings.TrimSpace(string(in)), "\n") {
			var d map[string]any
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatal(err)
			}
			d["id"] = fmt.Sprintf("%d/%s", i, d["id"])
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
