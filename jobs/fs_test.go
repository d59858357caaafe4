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
