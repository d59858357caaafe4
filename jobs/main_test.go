package jobs

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestMain lets the test binary act as the pdc binary (PDC_TEST_AS_PDC=1),
// and builds the pdc that tests run as real processes (Hadoop
// Streaming-style pipelines, exit statuses): pdcBinary.
func TestMain(m *testing.M) {
	if out := os.Getenv("PDC_TEST_HOLD_LOCK"); out != "" {
		holdLock(out)
	}
	if os.Getenv("PDC_TEST_AS_PDC") == "1" {
		// As jobs/pdc's main: the first SIGINT or SIGTERM stops the
		// command, which exits 128 + the signal.
		ctx, cancel := context.WithCancel(context.Background())
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		var signo atomic.Int32
		go func() { s := <-sigs; signo.Store(int32(s.(syscall.Signal))); signal.Stop(sigs); cancel() }()
		main := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
		err := main.Run(ctx, os.Args[1:])
		if n := signo.Load(); err != nil && n != 0 {
			err = NewInterrupted(err, int(n))
		}
		if err != nil && ExitCode(err) != 0 && !Reported(err) {
			os.Stderr.WriteString("pdc: " + err.Error() + "\n")
		}
		os.Exit(ExitCode(err))
	}
	dir, err := os.MkdirTemp("", "pdc-test-bin")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	if err := buildPDCBinary(dir); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// pdcBinary is the pdc that tests run: built by TestMain as
// scripts/build.sh builds bin/pdc (static, without main-content
// extraction, so that it starts in milliseconds; this test binary links
// go-trafilatura, whose initialisation takes a quarter of a second in
// every process), with a pdc-extract beside it that is this test binary
// acting as pdc, for the commands that hand over to it.
var pdcBinary string

// buildPDCBinary builds pdcBinary into dir.
func buildPDCBinary(dir string) error {
	bin := filepath.Join(dir, "pdc")
	if err := goBuildPDC(bin, "nomainextract"); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.Symlink(self, filepath.Join(dir, ExtractBinary)); err != nil {
		return err
	}
	pdcBinary = bin
	return nil
}

// holdLock takes the lock of output directory out as a run does, says
// "locked" on stdout, and holds it until stdin ends (or the process is
// killed): a run that the test controls.
func holdLock(out string) {
	l, err := pipeline.AcquireLock(hdfsfs.Local(), out, pipeline.ThisProcess(""), false)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
	if err := l.Release(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// pdcCmd returns a command running pdc (pdcBinary; the environment makes
// the pdc-extract beside it act as pdc).
func pdcCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(pdcBinary, args...)
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

// TestHelpAndVersion: help goes to stdout with exit 0, by `pdc help CMD`,
// `pdc CMD --help` and -h; `pdc --version` prints the version.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "Usage:\n  pdc run"},
		{[]string{"--help"}, "Usage:\n  pdc run"},
		{[]string{"help", "run"}, "Usage: pdc run --input"},
		{[]string{"run", "--help"}, "\nDetection:\n  --signature method"},
		{[]string{"spans", "-h"}, "Usage: pdc spans OUT"},
		{[]string{"ingest", "--help"}, "--part-size size"},
		{[]string{"fs", "--help"}, "pdc fs put LOCAL... DEST"},
		{[]string{"completion", "--help"}, "Usage: pdc completion bash|zsh"},
		{[]string{"--version"}, "pdc dev\n"},
		{[]string{"version"}, "pdc dev\n"},
	} {
		stdout, stderr, code := runPDC(t, tt.args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, tt.want) {
			t.Errorf("pdc %s: exit %d, stderr %q, stdout %.300q; want exit 0 and %q on stdout", strings.Join(tt.args, " "), code, stderr, stdout, tt.want)
		}
	}
	if _, stderr, code := runPDC(t, "help", "nope"); code != 2 || !strings.Contains(stderr, `unknown command "nope"`) {
		t.Errorf("help of an unknown command: exit %d %q", code, stderr)
	}
}

// TestCompletion: the completion scripts are valid bash and complete the
// commands and a command's flags.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh"} {
		script, stderr, code := runPDC(t, "completion", shell)
		if code != 0 || !strings.Contains(script, "complete -o filenames -F _pdc pdc") {
			t.Fatalf("completion %s: exit %d %s", shell, code, stderr)
		}
		if shell != "bash" {
			continue
		}
		test := script + `
COMP_WORDS=(pdc sp); COMP_CWORD=1; _pdc; echo "${COMPREPLY[*]}"
COMP_WORDS=(pdc run --site); COMP_CWORD=2; _pdc; echo "${COMPREPLY[*]}"`
		out, err := exec.Command("bash", "-c", test).CombinedOutput()
		if err != nil || string(out) != "spans\n--site-field --site-from\n" {
			t.Errorf("bash completion: %v\n%s", err, out)
		}
	}
	if _, _, code := runPDC(t, "completion", "fish"); code != 2 {
		t.Errorf("completion fish: exit %d, want 2", code)
	}
}

func TestParseByteSize(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true}, {"64K", 64 << 10, true}, {"512M", 512 << 20, true}, {"2g", 2 << 30, true},
		{"1T", 1 << 40, true}, {"512MB", 512 << 20, true}, {"512MiB", 512 << 20, true}, {"0", 0, true},
		{"12X", 0, false}, {"-1", 0, false}, {"M", 0, false}, {"", 0, false}, {"99999999999T", 0, false},
	} {
		got, err := parseByteSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
