package jobs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildPDC builds ./pdc with the given build tags into dir/name.
func buildPDC(t *testing.T, dir, name, tags string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	if err := goBuildPDC(bin, tags); err != nil {
		t.Fatal(err)
	}
	return bin
}

// goBuildPDC builds ./pdc, static, with the given build tags into bin.
func goBuildPDC(bin, tags string) error {
	build := exec.Command("go", "build", "-tags", tags, "-o", bin, "./pdc")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", filepath.Base(bin), err, out)
	}
	return nil
}

func runBin(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	return runCmd(t, cmd)
}

// TestLightBinaryHandsOver builds the two binaries of scripts/build.sh: a
// pdc without main-content extraction must not link go-trafilatura, and
// must run commands with --extract main through pdc-extract with the same
// output and exit status, or fail with a clear message when it is missing.
func TestLightBinaryHandsOver(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	dir := t.TempDir()
	light := buildPDC(t, dir, "pdc", "nomainextract")
	full := buildPDC(t, dir, ExtractBinary, "")

	for bin, want := range map[string]bool{light: false, full: true} {
		mods, err := exec.Command("go", "version", "-m", bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(mods), "go-trafilatura"); got != want {
			t.Errorf("%s links go-trafilatura: %v, want %v", filepath.Base(bin), got, want)
		}
	}

	args := []string{"text", "--input", sample, "--extract", "main"}
	want, stderr, code := runBin(t, full, nil, args...)
	if code != 0 || !strings.Contains(want, "# doc ") {
		t.Fatalf("pdc-extract text: exit %d\n%s", code, stderr)
	}
	got, stderr, code := runBin(t, light, nil, args...)
	if code != 0 || got != want {
		t.Errorf("pdc text --extract main: exit %d, output equal to pdc-extract's: %v\n%s", code, got == want, stderr)
	}
	// A run hands over whole: same spans, counters in the same summary.
	var spans [2]string
	for i, bin := range []string{full, light} {
		out := filepath.Join(t.TempDir(), "out")
		if _, stderr, code := runBin(t, bin, nil, "run", "--input", sample, "--output", out, "--extract", "main", "--quiet"); code != 0 {
			t.Fatalf("%s run --extract main: exit %d\n%s", filepath.Base(bin), code, stderr)
		}
		spans[i], _, _ = runBin(t, bin, nil, "spans", out, "--text", "--input", sample)
	}
	if spans[0] != spans[1] || strings.Count(spans[0], "\n") < 5 {
		t.Errorf("run --extract main: light and full binaries differ or found little:\n%s\n---\n%s", spans[0], spans[1])
	}
	// The default extraction never hands over.
	if _, stderr, code := runBin(t, light, []string{"PDC_EXTRACT_BINARY=/nonexistent"}, "text", "--input", sample); code != 0 {
		t.Errorf("pdc text: exit %d\n%s", code, stderr)
	}

	// Errors of the handed-over command: its exit status, reported once.
	_, stderr, code = runBin(t, light, nil, "text", "--input", "/nonexistent", "--extract", "main")
	if code != 1 || strings.Count(stderr, "pdc:") != 1 || !strings.Contains(stderr, "/nonexistent") {
		t.Errorf("missing input: exit %d, stderr %q", code, stderr)
	}
	_, _, code = runBin(t, light, nil, "text", "--extract", "main", "--bogus")
	if code != 2 {
		t.Errorf("usage error: exit %d, want 2", code)
	}

	// A pdc-extract without main-content extraction fails, once.
	_, stderr, code = runBin(t, light, []string{"PDC_EXTRACT_BINARY=" + light}, args...)
	if code != 1 || !strings.Contains(stderr, "lacks main-content extraction") || strings.Count(stderr, "pdc:") != 1 {
		t.Errorf("light binary as pdc-extract: exit %d, stderr %q", code, stderr)
	}

	// Without pdc-extract: a one-line error naming it.
	alone := t.TempDir()
	lone := filepath.Join(alone, "pdc")
	if err := os.Link(light, lone); err != nil {
		b, _ := os.ReadFile(light)
		if err := os.WriteFile(lone, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	abs, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lone, "text", "--input", abs, "--extract", "main")
	cmd.Dir = alone
	cmd.Env = append(os.Environ(), "PATH="+alone)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "needs "+ExtractBinary) || strings.Count(string(out), "\n") != 1 {
		t.Errorf("without pdc-extract: %v\n%s", err, out)
	}
}
