package eval

import (
	"bytes"
	"testing"
)

func TestWriteReport(t *testing.T) {
	cases := []Case{cs("a", "b", 0, 100, 0, 100, "verbatim"), cs("c", "d", 0, 100, 0, 100, "light")}
	cases[0].Lang, cases[1].Lang = "en", "zh"
	dets := []Detection{det("a", "b", 0, 100, 0, 100), det("e", "f", 0, 10, 0, 10)}
	var buf bytes.Buffer
	if err := WriteReport(&buf, Summarize(cases, dets, nil)); err != nil {
		t.Fatal(err)
	}
	// all: prec = (1 + 0)/2, rec = (1 + 0)/2, plagdet = 0.5; without text
	// the unmatched e~f is a false positive, so "planted" is the same;
	// light: nothing detected; verbatim: perfect. e and f have no known
	// language: their detection is in the "(none)" row.
	want := `class          cases  dets  prec    rec     gran    plagdet  spanP   spanR   spanF1
all            2      2     0.5000  0.5000  1.0000  0.5000   0.5000  0.5000  0.5000
all (planted)  2      2     0.5000  0.5000  1.0000  0.5000   0.5000  0.5000  0.5000
light          1      0     0.0000  0.0000  1.0000  0.0000   0.0000  0.0000  0.0000
verbatim       1      1     1.0000  1.0000  1.0000  1.0000   1.0000  1.0000  1.0000
lang (none)    0      1     0.0000  0.0000  1.0000  0.0000   0.0000  0.0000  0.0000
lang en        1      1     1.0000  1.0000  1.0000  1.0000   1.0000  1.0000  1.0000
lang zh        1      0     0.0000  0.0000  1.0000  0.0000   0.0000  0.0000  0.0000
unmatched detections: 1 (natural reuse 0, false positives 1; passages unknown, natural reuse not confirmed)
precision 0.5000, precision (planted) 0.5000

plagdet   en      zh
light     –       0.0000
verbatim  1.0000  –
all       1.0000  0.0000
`
	if got := buf.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}
