package boilerplate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
)

func TestMap(t *testing.T) {
	in := "00ab\tP\t3\t1,2,0,9,-,d1\t2,2,0,9,-,d2\n" +
		"01cd\tB\t900\t0,4,10,20,s,d9\n" +
		"02ef\tT\t7\t3,4,0,30,nsite,d3\n" +
		"03\tTx\t1\n" +
		"04\n" +
		"\tB\t1\t0,1,0,1,-,d\n"
	var out bytes.Buffer
	if err := Map(&mr.Task{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	want := "01cd\tB\t900\t0,4,10,20,s,d9\n02ef\tT\t7\t3,4,0,30,nsite,d3\n\tB\t1\t0,1,0,1,-,d\n"
	if out.String() != want {
		t.Errorf("Map: %q, want %q", out.String(), want)
	}
}
