package boilerplate

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestRoundTrip: rows written are read back; Dedupe keeps one row per kind
// and example sentence, the most frequent, most frequent first.
func TestRoundTrip(t *testing.T) {
	rows := []Row{
		{DF: 7, Kind: SiteTemplate, Signature: "0000beef", Doc: "a.html", Sentence: 3, CharStart: 10, CharEnd: 40},
		{DF: 9, Kind: SiteTemplate, Signature: "0000abcd", Doc: "a.html", Sentence: 3, CharStart: 10, CharEnd: 40}, // the same sentence through another token
		{DF: 200000, Kind: MaxDF, Signature: "00001234", Doc: `x\ty`, Sentence: 0, CharStart: 0, CharEnd: 12},
		{DF: 9, Kind: MaxDF, Signature: "0000abcd", Doc: "a.html", Sentence: 3, CharStart: 10, CharEnd: 40}, // another kind
	}
	got := Dedupe(rows)
	want := []Row{rows[2], rows[3], rows[1]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Dedupe = %+v\nwant %+v", got, want)
	}
	var b bytes.Buffer
	if err := Write(&b, got); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), Header+"\n200000\tmax-df\t00001234\tx\\ty\t0\t0\t12\n") {
		t.Errorf("written:\n%s", b.String())
	}
	back, err := Read(&b)
	if err != nil || !reflect.DeepEqual(back, got) {
		t.Errorf("read back %+v, %v", back, err)
	}
	for _, bad := range []string{"1\tmax-df\tsig\tdoc\t1\t2\n", "x\tmax-df\tsig\tdoc\t1\t2\t3\n", "1\tmax-df\tsig\tdoc\t1\t-2\t3\n"} {
		if _, err := Read(strings.NewReader(Header + "\n" + bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("Read(%q): %v", bad, err)
		}
	}
}
