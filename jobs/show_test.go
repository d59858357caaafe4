package jobs

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestShow: pdc show prints two documents of the sample run side by side
// (golden), one span with --span, falls back to matching the pair alone
// when the run links it through a hub, and says what is wrong with bad
// arguments.
func TestShow(t *testing.T) {
	t.Parallel()
	out := sampleRun(t)
	got, stderr, code := runPDC(t, "show", out, "python/library/bz2.html", "python/library/lzma.html", "--width", "100")
	if code != 0 {
		t.Fatalf("show: exit %d\n%s", code, stderr)
	}
	golden(t, "show-sample.txt", got)
	if strings.Contains(got, "\x1b[") {
		t.Error("colour written to a pipe")
	}
	// The pair named the other way round shows B on the left.
	rev, _, code := runPDC(t, "show", out, "python/library/lzma.html", "python/library/bz2.html", "--width", "100")
	if code != 0 || !strings.HasPrefix(rev, "A: python/library/lzma.html") {
		t.Errorf("show B A: exit %d\n%.200s", code, rev)
	}
	one, _, code := runPDC(t, "show", out, "python/library/bz2.html", "python/library/lzma.html", "--width", "100", "--span", "2", "--context", "1", "--color", "always")
	if code != 0 || !strings.Contains(one, "span 2 of 6") || strings.Contains(one, "span 1 of 6") || !strings.Contains(one, "\x1b[") {
		t.Errorf("show --span 2 --color always: exit %d\n%s", code, one)
	}

	hubs := filepath.Join(t.TempDir(), "hubs")
	if _, stderr, code := runPDC(t, "run", "--input", sample, "--output", hubs, "--hub-df", "2", "--quiet"); code != 0 {
		t.Fatalf("run --hub-df 2: exit %d\n%s", code, stderr)
	}
	alone, stderr, code := runPDC(t, "show", hubs, "rust/core/result/index.html", "rust/std/option/index.html", "--width", "90")
	if code != 0 || !strings.Contains(stderr, "matched alone") || !strings.Contains(alone, "span 1 of") {
		t.Errorf("show of a pair linked through a hub: exit %d\n%s\n%.300s", code, stderr, alone)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"show", out, "python/library/bz2.html"}, 2, "two document ids"},
		{[]string{"show", out, "python/library/bz2.html", "python/library/bz2.html"}, 2, "same document"},
		{[]string{"show", out, "python/library/bz2.html", "nope.html"}, 1, `"nope.html" is not among the documents read`},
		{[]string{"show", out, "python/library/bz2.html", "python/library/lzma.html", "--width", "10"}, 2, "--width must be at least"},
		{[]string{"show", out, "python/library/bz2.html", "python/library/lzma.html", "--span", "9"}, 1, "span 9: the pair has 6 spans"},
		{[]string{"show", out, "python/library/bz2.html", "python/library/lzma.html", "--color", "pink"}, 2, "--color must be"},
	} {
		_, stderr, code := runPDC(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", tc.args[2:], code, tc.code, stderr, tc.msg)
		}
	}
}
