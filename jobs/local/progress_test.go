package local

import (
	"strings"
	"testing"
)

// TestProgressLines: off a terminal, a phase gets a line when it starts
// and when it is complete, and none in between within progressEvery.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, false)
	for done := int64(1); done <= 3; done++ {
		p.update("parse", "map", done, 3)
	}
	p.update("stats", "reduce", 4, 4)
	want := "job parse: map 33.3% (1/3)\njob parse: map 100.0% (3/3)\njob stats: reduce 100.0% (4/4)\n"
	if b.String() != want {
		t.Errorf("progress:\n%s\nwant\n%s", b.String(), want)
	}
	var q strings.Builder
	newProgress(&q, true).update("parse", "map", 3, 3)
	if q.Len() != 0 {
		t.Errorf("quiet progress printed %q", q.String())
	}
}
