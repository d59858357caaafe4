package mr

import (
	"maps"
	"testing"
)

// TestCounterFile: a counters file is sorted by name and reads back as
// written; lines that are not name TAB integer are skipped.
func TestCounterFile(t *testing.T) {
	c := map[string]int64{"parse.docs.read": 31, "index.docs": 30, "a.zero": 0, "join.pairs": -2}
	s := FormatCounters(c)
	if want := "a.zero\t0\nindex.docs\t30\njoin.pairs\t-2\nparse.docs.read\t31\n"; s != want {
		t.Fatalf("FormatCounters = %q, want %q", s, want)
	}
	if got := ParseCounters(s + "no tab here\nx\tnot a number\n"); !maps.Equal(got, c) {
		t.Fatalf("ParseCounters = %v, want %v", got, c)
	}
	if got := ParseCounters(""); len(got) != 0 {
		t.Fatalf("ParseCounters of nothing = %v", got)
	}
}
