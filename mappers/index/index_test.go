package index

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/lib/signature"
)

// TestLoadStatsCache: map tasks of one process share the loaded stats
// while the files are unchanged, and a rewritten file is read again.
func TestLoadStatsCache(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "part-r-00000")
	write := func(s string, mtime time.Time) {
		if err := os.WriteFile(part, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(part, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	cfg := signature.Config{Method: "words", Tau: 0.7}
	t0 := time.Now().Add(-time.Hour)
	write("!N\t3\n00000000000000aa\t2\n", t0)
	st1, dups1, err := LoadStats(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st2, dups2, err := LoadStats(dir, cfg)
	if err != nil || st2 != st1 || dups2 != dups1 {
		t.Fatalf("second load: %p %p (%v), want the cached %p %p", st2, dups2, err, st1, dups1)
	}
	if st3, _, _ := LoadStats(dir, signature.Config{Method: "words", Tau: 0.8}); st3 == st1 {
		t.Error("another configuration got the cached stats")
	}
	write("!N\t3\n00000000000000aa\t2\n#d\t1\n", t0.Add(time.Second))
	st4, dups4, err := LoadStats(dir, cfg)
	if err != nil || st4 == st1 || dups4 == nil || !dups4.IsDuplicate([]byte("d"), []byte("1")) {
		t.Errorf("after a rewrite: stats %p (cached %p), duplicates %v, err %v", st4, st1, dups4, err)
	}
}
