package mr

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSideStamp: the stamp of side files is the same while they are, and
// changes with a file's size or time; a missing file is an error.
func TestSideStamp(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "part-00000"), filepath.Join(dir, "part-00001")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stamp := func(files ...string) string {
		t.Helper()
		s, err := SideStamp(files)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := stamp(a, b)
	if again := stamp(a, b); again != first {
		t.Errorf("stamp of unchanged files changed: %q, then %q", first, again)
	}
	if stamp(a) == first {
		t.Errorf("stamp of one file equals that of two")
	}
	if err := os.WriteFile(b, []byte("xy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	grown := stamp(a, b)
	if grown == first {
		t.Errorf("stamp unchanged after a file grew")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	if stamp(a, b) == grown {
		t.Errorf("stamp unchanged after a file's time changed")
	}
	if _, err := SideStamp([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Errorf("stamp of a missing file: no error")
	}
}
