package eval

import (
	"bytes"
	"testing"
)

func TestWriteReport(t *testing.T) {
	cases := []Case{cs("a", "b", 0, 100, 0, 100, "verbatim"), cs("c", "d", 0, 100, 0, 100, "light")}
	dets := []Detection{det("a", "b", 0, 100, 0, 100), det("e", "f", 0, 10, 0, 10)}
	var buf bytes.Buffer
	if err := WriteReport(&buf, cases, dets); err != nil {
		t.Fatal(err)
	}
	// all: prec = (1 + 0)/2, rec = (1 + 0)/2, plagdet = 0.5; light: nothing
	// detected; verbatim: perfect.
	want := `class     cases  dets  prec    rec     gran    plagdet  spanP   spanR   spanF1
all       2      2     0.5000  0.5000  1.0000  0.5000   0.5000  0.5000  0.5000
light     1      0     0.0000  0.0000  1.0000  0.0000   0.0000  0.0000  0.0000
verbatim  1      1     1.0000  1.0000  1.0000  1.0000   1.0000  1.0000  1.0000
unmatched detections: 1
`
	if got := buf.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}
