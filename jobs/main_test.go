package jobs

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestMain lets the test binary act as the pdc binary: tests exec
// os.Args[0] with PDC_TEST_AS_PDC=1 to run real processes (Hadoop
// Streaming-style pipelines, exit statuses).
func TestMain(m *testing.M) {
	if os.Getenv("PDC_TEST_AS_PDC") == "1" {
		main := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
		err := main.Run(context.Background(), os.Args[1:])
		if err != nil && ExitCode(err) != 0 && !Reported(err) {
			os.Stderr.WriteString("pdc: " + err.Error() + "\n")
		}
		os.Exit(ExitCode(err))
	}
	os.Exit(m.Run())
}

// pdcCmd returns a command running the test binary as pdc.
func pdcCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PDC_TEST_AS_PDC=1")
	return cmd
}

// runPDC runs pdc as a process and returns stdout, stderr and the exit
// status.
func runPDC(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return runPDCEnv(t, nil, args...)
}

// runPDCEnv is runPDC with extra environment.
func runPDCEnv(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := pdcCmd(args...)
	cmd.Env = append(cmd.Env, env...)
	return runCmd(t, cmd)
}

// runCmd runs cmd and returns stdout, stderr and the exit status.
func runCmd(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < min(len(gl), len(wl)); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got: %.200s\nwant: %.200s\n(%d vs %d lines; go test -update rewrites)", name, i+1, gl[i], wl[i], len(gl), len(wl))
			}
		}
		t.Fatalf("%s: got %d lines, want %d (go test -update rewrites)", name, len(gl), len(wl))
	}
}

const sample = "../testdata/sample/pages.jsonl"
