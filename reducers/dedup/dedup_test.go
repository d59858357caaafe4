package dedup

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
)

// reduce runs a reducer on the lines in and returns its output, counters
// and error.
func reduce(f mr.Func, in string) (string, map[string]int64, error) {
	var out, stderr bytes.Buffer
	err := f(&mr.Task{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &stderr})
	c := map[string]int64{}
	for _, line := range strings.SplitAfter(stderr.String(), "\n") {
		if _, name, n, ok := mr.ParseCounterLine([]byte(line)); ok {
			c[name] += n
		}
	}
	return out.String(), c, err
}

func TestReduce(t *testing.T) {
	in := "a\tf@0000000000000000\tdedup.docs.written=1,dedup.chars=5\t{\"id\":\"a\"}\\n\n" +
		"a\tf@0000000000000009\t!f line 2 (id a): passage 3-9 ends past the text\t\n" +
		"b\\tc\tf@0000000000000001\tdedup.docs.unparsable=1\t\n" +
		"d\tf@0000000000000002\t\tl1\\tx\\nl2\\n\n"
	out, c, err := reduce(Docs, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"id\":\"a\"}\nl1\tx\nl2\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	want := map[string]int64{"dedup.docs.written": 1, "dedup.chars": 5, "dedup.docs.unparsable": 1, "dedup.docs.duplicate-id": 1}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("counter %s = %d, want %d (%v)", k, c[k], v, c)
		}
	}
	// The error of an id's first record fails the task, naming it.
	if _, _, err := reduce(Kept, "a\tf@0\t!f line 2 (id a): boom\t\n"); err == nil || !strings.Contains(err.Error(), "f line 2 (id a): boom") {
		t.Errorf("first record's error: %v", err)
	}
	for _, bad := range []string{"a\tf@0\tx\n", "a\tf@0\tdedup.x=y\t\n", "a\tf@0\t=1\t\n", "a\tf@0\t\tbad\\q\n"} {
		if _, _, err := reduce(Removed, bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzReduce: the reducer never panics on what it reads.
func FuzzReduce(f *testing.F) {
	f.Add("a\tf@0\tdedup.docs.written=1\t{}\\n\n")
	f.Add("a\tf@0\t!boom\t\n")
	f.Fuzz(func(t *testing.T, in string) {
		reduce(Docs, in)
	})
}
