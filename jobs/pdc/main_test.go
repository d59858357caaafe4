package main

import (
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
// the same command then finishes the run. The run is held before its index
// job (PDC_FAULT=hold@index:PATH) until the signal, so that the signal
// always finds it under way, however fast the machine.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pdc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	corpus := filepath.Join("..", "..", "testdata", "sample", "pages.jsonl")
	held := filepath.Join(dir, "held")
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		out := filepath.Join(dir, "out-"+tt.sig.String())
		args := []string{"run", "--input", corpus, "--output", out, "--workers", "1", "--quiet"}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "PDC_FAULT=hold@index:"+held)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// pdc handles signals from its start, and writes its output
		// directory's manifest before its first job; the hold keeps the
		// run going until the signal.
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
