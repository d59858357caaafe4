package doc

import (
	"bytes"
	"testing"
)

func TestSplitRecord(t *testing.T) {
	rec, err := SplitRecord([]byte("a\\tb\tf.jsonl@0000000000000012\tsite:x\t3\tAAEC"))
	if err != nil || string(rec.ID) != `a\tb` || string(rec.Srcpos) != "f.jsonl@0000000000000012" || string(rec.URL) != "site:x" ||
		string(rec.NSent) != "3" || string(rec.Blob) != "AAEC" {
		t.Errorf("SplitRecord = %+v, %v", rec, err)
	}
	if rec.Batch != 0 {
		t.Errorf("SplitRecord without batch: batch %d, want 0", rec.Batch)
	}
	line := AppendNSent([]byte("a\tf@0000000000000000\t\t"), 1, 12)
	line = append(line, "\tAAEC"...)
	if rec, err = SplitRecord(line); err != nil || rec.Batch != 12 || string(rec.NSent) != "1" || string(rec.Blob) != "AAEC" {
		t.Errorf("SplitRecord(%q) = nsent %q, blob %q, batch %d, %v; want 1, AAEC, 12", line, rec.NSent, rec.Blob, rec.Batch, err)
	}
	if got := AppendNSent(nil, 3, 0); string(got) != "3" {
		t.Errorf("AppendNSent(3, 0) = %q, want 3", got)
	}
	for line, want := range map[string]string{
		"a\tb\tc\td":          "want 5 fields, got 4",
		"a":                   "want 5 fields, got 1",
		"a\tb\tc\td\te\tf\tg": "want 5 fields, got 7",
		"a\tb\tc\t3:x\te":     `want a batch number after the sentence count, got "3:x"`,
		"a\tb\tc\t3:0\te":     `want a batch number after the sentence count, got "3:0"`,
	} {
		if _, err := SplitRecord([]byte(line)); err == nil || err.Error() != want {
			t.Errorf("SplitRecord(%q): %v, want %s", line, err, want)
		}
	}
}

// TestAppendOrder: a batch run's merged collection orders the stored runs'
// own records first (whatever their file names, non-ASCII ones too), then
// batch by batch (10 after 9), each in srcpos order.
func TestAppendOrder(t *testing.T) {
	recs := []Record{
		{Srcpos: []byte("a.jsonl@0000000000000010")},
		{Srcpos: []byte("b.jsonl@0000000000000000")},
		{Srcpos: []byte("\u00e9t\u00e9.jsonl@0000000000000000")},
		{Srcpos: []byte("\U0001F600.jsonl@0000000000000000")},
		{Srcpos: []byte("a.jsonl@0000000000000000"), Batch: 1},
		{Srcpos: []byte("z.jsonl@0000000000000000"), Batch: 1},
		{Srcpos: []byte("a.jsonl@0000000000000000"), Batch: 9},
		{Srcpos: []byte("a.jsonl@0000000000000000"), Batch: 10},
	}
	for i := 1; i < len(recs); i++ {
		a, b := AppendOrder(nil, recs[i-1]), AppendOrder(nil, recs[i])
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("record %d (%q) does not come before record %d (%q)", i-1, a, i, b)
		}
	}
	if got := AppendOrder(nil, recs[0]); !bytes.Equal(got, recs[0].Srcpos) {
		t.Errorf("a record of batch 0: %q, want its srcpos %q", got, recs[0].Srcpos)
	}
}
