package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadme runs the README's commands on the sample and compares what
// they print with what the README shows, so that the README cannot drift
// from the software. Transcripts are fenced blocks whose lines start with
// "$ ": each command runs in the repository's root under sh, with pdc on
// the PATH, and the lines after it up to the next command are its output
// (its stdout, or its stderr when it prints nothing on stdout; a command
// shown without output must print nothing on stdout). The block after
// "ends with:" is the end of the stderr of the run the "Try it" section
// starts with. Masks, the only differences allowed:
//
//   - elapsed times ("in 50ms", "in 1.2s") become "in ELAPSED";
//   - the README's /tmp/NAME directories are directories of the test's
//     own, named back to /tmp/NAME in the output.
func TestReadme(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sample several times")
	}
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nPDC_TEST_AS_PDC=1 exec " + pdcBinary + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "pdc"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	toTest := func(s string) string { return tmpDir.ReplaceAllString(s, tmp+"/$1") }
	fromTest := func(s string) string {
		s = strings.ReplaceAll(s, tmp+"/", "/tmp/")
		return elapsedTime.ReplaceAllString(s, "in ELAPSED")
	}
	run := func(command string) (stdout, stderr string) {
		cmd := exec.Command("sh", "-c", toTest(command))
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		cmd.Env = append(cmd.Env, "HADOOP_CONF_DIR=", "PDC_HADOOP_CONF_DIR=")
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: %v\n%s", command, err, e.String())
		}
		return fromTest(o.String()), fromTest(e.String())
	}

	// "Try it": the run and the end of what it prints.
	try := regexp.MustCompile("(?s)```sh\ngo run ./jobs/pdc (run [^\n]*)\n.*?ends with:\n\n```\n(.*?)```").FindStringSubmatch(readme)
	if try == nil {
		t.Fatal("README: no \"Try it\" run followed by its output")
	}
	_, stderr := run("pdc " + try[1])
	if want := fromTest(try[2]); !strings.HasSuffix(stderr, want) {
		t.Errorf("README, Try it: pdc %s ends with\n%s\nthe README shows\n%s", try[1], stderr, want)
	}

	blocks := regexp.MustCompile("(?s)```\n(\\$ .*?)```").FindAllStringSubmatch(readme, -1)
	if len(blocks) < 4 {
		t.Fatalf("README: %d transcripts, want at least 4", len(blocks))
	}
	for _, blk := range blocks {
		var command string
		var shown []string
		check := func() {
			if command == "" {
				return
			}
			for len(shown) > 0 && strings.TrimSpace(shown[len(shown)-1]) == "" {
				shown = shown[:len(shown)-1] // the blank line before the next command
			}
			stdout, stderr := run(command)
			want := strings.Join(shown, "")
			got := stdout
			if got == "" && want != "" {
				got = stderr
			}
			if got != fromTest(want) {
				t.Errorf("README: $ %s\nprints\n%s\nthe README shows\n%s", command, got, want)
			}
		}
		for _, line := range strings.SplitAfter(blk[1], "\n") {
			if c, ok := strings.CutPrefix(line, "$ "); ok {
				check()
				command, shown = strings.TrimSpace(c), nil
				continue
			}
			if strings.TrimSpace(line) == "" && len(shown) == 0 {
				continue
			}
			shown = append(shown, line)
		}
		check()
	}
}

var (
	tmpDir      = regexp.MustCompile(`/tmp/([A-Za-z0-9_.-]+)`)
	elapsedTime = regexp.MustCompile(`in [0-9.]+(ns|µs|ms|s|m[0-9.]+s|h[0-9m.]+s)\b`)
)
