package warc

import (
	"bytes"
	"strings"
	"testing"
)

// ids returns the WARC-Record-IDs of recs.
func ids(recs []*Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Header.Get("WARC-Record-ID"))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func rid(n int) string {
	return "<urn:uuid:00000000-0000-4000-8000-0000000000" + string(rune('0'+n/10)) + string(rune('0'+n%10)) + ">"
}

func TestMalformed(t *testing.T) {
	plain := readFile(t, "pages.warc")
	rec3 := bytes.Index(plain, []byte("WARC/1.0\r\nWARC-Record-ID: "+rid(3)))
	rec4 := bytes.Index(plain, []byte("WARC/1.0\r\nWARC-Record-ID: "+rid(4)))
	if rec3 < 0 || rec4 < 0 {
		t.Fatal("fixture records not found")
	}
	cl3 := rec3 + bytes.Index(plain[rec3:], []byte("Content-Length: 1254"))
	replace := func(at int, old, new string) []byte {
		out := append([]byte{}, plain[:at]...)
		out = append(out, new...)
		return append(out, plain[at+len(old):]...)
	}
	tests := []struct {
		name    string
		in      []byte
		lost    []int  // record numbers that must be missing
		reason  string // a skip reason that must be counted
		wantAll int    // records expected
	}{
		{"cl not a number", replace(cl3, "Content-Length: 1254", "Content-Length: 12x4"), []int{3}, SkipContentLength, 9},
		{"cl missing", replace(cl3, "Content-Length: 1254", "Content-Lenxth: 1254"), []int{3}, SkipContentLength, 9},
		{"cl negative", replace(cl3, "Content-Length: 1254", "Content-Length: -125"), []int{3}, SkipContentLength, 9},
		{"cl too small", replace(cl3, "Content-Length: 1254", "Content-Length: 0100"), nil, SkipGarbage, 10},
		{"cl too large", replace(cl3, "Content-Length: 1254", "Content-Length: 1299"), []int{4}, SkipBadTrailer, 9},
		{"garbage between", replace(rec4, "", "junk\r\nmore junk WARC/1.0\r\n\x00\x01\r\n"), nil, SkipGarbage, 10},
		{"garbage first", append([]byte("<html>\n"), plain...), nil, SkipGarbage, 10},
		{"truncated in body", plain[:rec4-100], []int{4, 5, 6, 7, 8, 9, 10}, SkipTruncated, 2},
		{"truncated in header", plain[:rec4+40], []int{4, 5, 6, 7, 8, 9, 10}, SkipTruncated, 3},
		{"version line garbled", replace(rec3, "WARC/1.0", "WARX/1.0"), []int{3}, SkipGarbage, 9},
		{"lf line ends", []byte("WARC/1.0\nWARC-Type: resource\nContent-Length: 3\n\nabc\n\nWARC/1.1\nWARC-Type: x\n  folded\nContent-Length: 0\n\n"), nil, "", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, r := readAll(t, tc.in, Options{})
			if r.Err() != nil {
				t.Fatalf("err %v", r.Err())
			}
			got := ids(recs)
			for _, n := range tc.lost {
				if contains(got, rid(n)) {
					t.Errorf("record %d should be lost", n)
				}
			}
			if len(recs) != tc.wantAll {
				t.Errorf("got %d records, want %d (skipped %v)", len(recs), tc.wantAll, r.Skipped())
			}
			if tc.reason != "" && r.Skipped()[tc.reason] == 0 {
				t.Errorf("skipped %v, want a %q", r.Skipped(), tc.reason)
			}
		})
	}
}

// TestTruncateEverywhere cuts the files at every position: the records read
// must be a prefix of the full list, in order.
func TestTruncateEverywhere(t *testing.T) {
	for _, name := range fixtures {
		data := readFile(t, name)
		full, _ := readAll(t, data, Options{})
		want := summary(full)
		for n := 0; n < len(data); n += 7 {
			recs, r := readAll(t, data[:n], Options{})
			if r.Err() != nil && n > 200 {
				t.Fatalf("%s cut at %d: %v", name, n, r.Err())
			}
			if !strings.HasPrefix(want, summary(recs)) {
				t.Fatalf("%s cut at %d: records are not a prefix", name, n)
			}
		}
	}
}

// TestGzipDamage corrupts one member of the per-record gzip file.
func TestGzipDamage(t *testing.T) {
	gz := readFile(t, "pages.warc.gz")
	full, _ := readAll(t, gz, Options{})
	m4 := full[3].Offset // the chunked response
	m5 := full[4].Offset
	flip := func(at int) []byte {
		out := append([]byte{}, gz...)
		out[at] ^= 0x55
		return out
	}
	insert := func(at int64, s string) []byte {
		out := append([]byte{}, gz[:at]...)
		return append(append(out, s...), gz[at:]...)
	}
	tests := []struct {
		name string
		in   []byte
		min  int // at least this many records survive
	}{
		{"flipped data", flip(int(m4 + (m5-m4)/2)), 9},
		{"flipped header", flip(int(m4 + 3)), 9},
		{"flipped trailer crc", flip(int(m5 - 6)), 9},
		{"garbage between members", insert(m5, "garbage\x1f\x8b"), 10},
		{"cut member", append(append([]byte{}, gz[:m5-20]...), gz[m5:]...), 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, r := readAll(t, tc.in, Options{})
			if r.Err() != nil {
				t.Fatalf("err %v", r.Err())
			}
			if len(recs) < tc.min {
				t.Errorf("got %d records, want >= %d (skipped %v)", len(recs), tc.min, r.Skipped())
			}
			if len(recs) < 10 && len(r.Skipped()) == 0 {
				t.Errorf("records lost but nothing counted")
			}
			got := ids(recs)
			for _, n := range []int{1, 2, 3, 5, 6, 7, 8, 9, 10} {
				if !contains(got, rid(n)) {
					t.Errorf("record %d lost (skipped %v)", n, r.Skipped())
				}
			}
		})
	}
}
