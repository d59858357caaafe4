package doc

import "testing"

func TestSplitRecord(t *testing.T) {
	rec, err := SplitRecord([]byte("a\\tb\tf.jsonl@0000000000000012\tsite:x\t3\tAAEC"))
	if err != nil || string(rec.ID) != `a\tb` || string(rec.Srcpos) != "f.jsonl@0000000000000012" || string(rec.URL) != "site:x" ||
		string(rec.NSent) != "3" || string(rec.Blob) != "AAEC" {
		t.Errorf("SplitRecord = %q, %v", rec, err)
	}
	for line, want := range map[string]string{
		"a\tb\tc\td":          "want 5 fields, got 4",
		"a":                   "want 5 fields, got 1",
		"a\tb\tc\td\te\tf\tg": "want 5 fields, got 7",
	} {
		if _, err := SplitRecord([]byte(line)); err == nil || err.Error() != want {
			t.Errorf("SplitRecord(%q): %v, want %s", line, err, want)
		}
	}
}
