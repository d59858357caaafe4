package index

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/lib/doc"
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

// TestCopyKey: copies of a page with a line of their own at each end
// share a half of their copy keys; other pages do not; short pages have
// none.
func TestCopyKey(t *testing.T) {
	sent := func(words ...uint64) doc.Sentence { return doc.Sentence{Tokens: words} }
	page := func(seed uint64, n int) []doc.Sentence {
		var ss []doc.Sentence
		for i := range uint64(n) {
			ss = append(ss, sent(seed*1000+i, seed*1000+i+500, 7))
		}
		return ss
	}
	body := page(1, 40)
	var shared, other int
	for c := range uint64(50) {
		a := append(append([]doc.Sentence{sent(900+c, 901+c, 7)}, body...), sent(950+c, 951+c, 7)) // banner, body, footer
		b := append(append([]doc.Sentence{sent(800+c, 801+c, 7)}, body...), sent(850+c, 851+c, 7))
		ka, oka := CopyKey(a, 3)
		kb, okb := CopyKey(b, 3)
		ko, _ := CopyKey(page(2+c, 40), 3)
		if !oka || !okb {
			t.Fatal("no key for a page of 42 sentences")
		}
		if ka>>16 == kb>>16 || uint16(ka) == uint16(kb) {
			shared++
		}
		if ka>>16 == ko>>16 || uint16(ka) == uint16(ko) {
			other++
		}
	}
	if shared < 48 || other > 0 {
		t.Errorf("copies share a half %d times of 50, other pages %d times", shared, other)
	}
	if _, ok := CopyKey(page(3, copyKeyMin-1), 3); ok {
		t.Errorf("a key for a page of %d sentences", copyKeyMin-1)
	}
	if _, ok := CopyKey(append(page(3, copyKeyMin), sent(1, 2)), 3); !ok {
		t.Errorf("no key for a page of %d sentences and a short one", copyKeyMin)
	}
}
