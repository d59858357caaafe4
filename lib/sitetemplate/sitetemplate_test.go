package sitetemplate

import (
	"hash/fnv"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
)

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

// TestFileName: the file-name hash is FNV-1a of the id's last path
// component, folded to 16 bits, so that copies in two trees agree.
func TestFileName(t *testing.T) {
	for _, id := range []string{"v1/git-stage.html", "v2/git-stage.html", "git-stage.html", "a/b/", "", "x/\xff\x00é"} {
		name := id[strings.LastIndexByte(id, '/')+1:]
		h := fnv.New32a()
		h.Write([]byte(name))
		if got, want := FileName(id), uint16(h.Sum32()^h.Sum32()>>16); got != want {
			t.Errorf("fileName(%q) = %#x, want %#x", id, got, want)
		}
	}
	if FileName("v1/git-stage.html") != FileName([]byte("v2/git-stage.html")) || FileName("v1/a.html") == FileName("v1/b.html") {
		t.Error("copies of one file name hash apart, or two names alike")
	}
}
