package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/htmltext"
)

// Main-content extraction (--extract main) lives in go-trafilatura, whose
// dependencies take about a quarter of a second and 80 MB to initialise in
// every process that links them. scripts/build.sh therefore builds two
// binaries: bin/pdc without it (-tags nomainextract), which starts in a few
// milliseconds, and bin/pdc-extract with it. A command of bin/pdc that needs
// main-content extraction runs again, whole, as pdc-extract (which on Hadoop
// then ships itself to the tasks). A default `go build` or `go install` of
// ./jobs/pdc has both in one binary and never hands over.

// ExtractBinary is the name of the binary with main-content extraction.
const ExtractBinary = "pdc-extract"

// handedOver is returned by a command that another process ran; code is
// that process's exit status, and it has already reported its errors.
type handedOver struct{ code int }

func (h *handedOver) Error() string {
	return fmt.Sprintf("%s exited with status %d", ExtractBinary, h.code)
}

// Reported tells whether err was already reported to the user (by a
// process the command handed over to): main then prints nothing more.
func Reported(err error) bool {
	var h *handedOver
	return errors.As(err, &h)
}

// needMain makes sure --extract main can run: nil when this binary has
// main-content extraction; otherwise it runs the whole command line (args,
// the command and its arguments) with pdc-extract and returns its outcome
// as a *handedOver, which the caller returns as is.
func (m *Main) needMain(ctx context.Context, args []string) error {
	if htmltext.MainAvailable {
		return nil
	}
	if m.Getenv(envHandedOver) != "" {
		// Handed over already: this pdc-extract is a build without it.
		return fmt.Errorf("--extract main: %s lacks main-content extraction too (built with -tags nomainextract?); rebuild it with scripts/build.sh", os.Args[0])
	}
	exe, err := extractBinary(m.Getenv)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = m.Stdin, m.Stdout, m.Stderr
	cmd.Env = append(os.Environ(), envHandedOver+"=1")
	// Interrupted, pass the signal on and let the run stop cleanly (it
	// can be resumed), as it would have here.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Minute
	err = cmd.Run()
	if ps := cmd.ProcessState; ps != nil {
		// The child's status, even if an interrupt came as it finished.
		if ps.Success() {
			return &handedOver{code: 0}
		}
		return &handedOver{code: max(ps.ExitCode(), 1)}
	}
	return fmt.Errorf("--extract main: run %s: %w", exe, err)
}

// envHandedOver marks the environment of a command handed over to
// pdc-extract, so that one lacking main-content extraction fails instead
// of handing over again.
const envHandedOver = "PDC_HANDED_OVER"

// extractBinary finds pdc-extract: $PDC_EXTRACT_BINARY, else next to this
// executable, else in the working directory (a Hadoop task's -files), else
// on PATH.
func extractBinary(getenv func(string) string) (string, error) {
	if p := getenv("PDC_EXTRACT_BINARY"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("PDC_EXTRACT_BINARY %s: %w", p, hdfsfs.UnwrapPath(err))
		}
		return p, nil
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	for _, d := range dirs {
		p := filepath.Join(d, ExtractBinary)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(ExtractBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("--extract main needs %s, which has main-content extraction built in (this pdc is built without it): scripts/build.sh builds bin/%s next to bin/pdc; or put it on PATH, or set PDC_EXTRACT_BINARY", ExtractBinary, ExtractBinary)
}

// shippableBinary returns the pdc binary to ship to the cluster:
// PDC_BINARY, else this executable (pdc, or pdc-extract when a run with
// --extract main was handed over to it).
func shippableBinary(getenv func(string) string) (string, error) {
	if p := getenv("PDC_BINARY"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("PDC_BINARY %s: %w", p, hdfsfs.UnwrapPath(err))
		}
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the pdc binary to ship (set PDC_BINARY): %w", err)
	}
	if b := filepath.Base(exe); b != "pdc" && b != ExtractBinary {
		return "", fmt.Errorf("this binary is %s; Hadoop tasks run `pdc map ...`: set PDC_BINARY to a static pdc (scripts/build.sh builds bin/pdc)", exe)
	}
	return exe, nil
}
