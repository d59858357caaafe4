package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFSCommands runs pdc fs on file:// URIs, which name the local disk
// (the same commands on HDFS: TestHDFSRoundTrip): put copies a directory
// into an existing one, ls lists it, cat prints a file, get copies it back
// byte for byte, rm removes it; usage mistakes exit 2.
func TestFSCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeFile(t, filepath.Join(src, "a.txt"), "alpha\n")
	writeFile(t, filepath.Join(src, "sub", "b.txt"), strings.Repeat("beta ", 1000))
	dst := filepath.Join(dir, "dst")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	uri := func(p string) string { return "file://" + p }
	if _, stderr, code := runPDC(t, "fs", "put", src, uri(dst)); code != 0 {
		t.Fatalf("put: exit %d %s", code, stderr)
	}
	ls, _, code := runPDC(t, "fs", "ls", uri(filepath.Join(dst, "src")))
	if code != 0 || !strings.Contains(ls, "a.txt") || !strings.Contains(ls, "d ") {
		t.Errorf("ls: exit %d\n%s", code, ls)
	}
	cat, _, code := runPDC(t, "fs", "cat", uri(filepath.Join(dst, "src", "a.txt")))
	if code != 0 || cat != "alpha\n" {
		t.Errorf("cat: exit %d %q", code, cat)
	}
	back := filepath.Join(dir, "back")
	if _, stderr, code := runPDC(t, "fs", "get", uri(filepath.Join(dst, "src")), back); code != 0 {
		t.Fatalf("get: exit %d %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(back, "sub", "b.txt"))
	if err != nil || string(got) != strings.Repeat("beta ", 1000) {
		t.Errorf("get changed sub/b.txt (%d bytes, %v)", len(got), err)
	}
	if _, stderr, code := runPDC(t, "fs", "rm", uri(filepath.Join(dst, "src"))); code != 0 {
		t.Fatalf("rm: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dst, "src")); !os.IsNotExist(err) {
		t.Errorf("rm left %s/src: %v", dst, err)
	}
	for _, args := range [][]string{{"fs"}, {"fs", "put", "x"}, {"fs", "get", "x"}, {"fs", "ls"}, {"fs", "nope"}} {
		if _, _, code := runPDC(t, args...); code != 2 {
			t.Errorf("pdc %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

// TestFSFlagsAfterSubcommand: --principal and --keytab after the subcommand
// are flags, as in every other command, never paths: put does not
// overwrite the keytab with the file, rm does not delete it; an unknown
// flag there is a usage error.
func TestFSFlagsAfterSubcommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keytab := filepath.Join(dir, "alice.keytab")
	writeFile(t, keytab, "keytab bytes")
	doc := filepath.Join(dir, "corpus.jsonl")
	writeFile(t, doc, "{}\n")
	dst := filepath.Join(dir, "dst")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runPDC(t, "fs", "put", doc, "file://"+dst, "--principal", "alice@EXAMPLE.COM", "--keytab", keytab); code != 0 {
		t.Fatalf("put with flags after it: exit %d %s", code, stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "corpus.jsonl")); err != nil || string(got) != "{}\n" {
		t.Errorf("put did not copy the file to the destination (%q, %v)", got, err)
	}
	runPDC(t, "fs", "rm", "file://"+filepath.Join(dst, "corpus.jsonl"), "--keytab", keytab, "--principal", "alice@EXAMPLE.COM")
	if got, err := os.ReadFile(keytab); err != nil || string(got) != "keytab bytes" {
		t.Errorf("the keytab changed: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "corpus.jsonl")); !os.IsNotExist(err) {
		t.Errorf("rm with flags after it did not remove the file: %v", err)
	}
	if _, stderr, code := runPDC(t, "fs", "ls", "file://"+dst, "--bogus"); code != 2 || !strings.Contains(stderr, "bogus") {
		t.Errorf("unknown flag: exit %d %s", code, stderr)
	}
}
