package mr

import "testing"

// The vectors below were derived by hand from Hadoop's
// KeyFieldBasedPartitioner.getPartition/hashCode and KeyFieldHelper
// getWordLengths/getStartOffset/getEndOffset for -k1,P: the hashed range is
// key[0 : end of field P] (whole key if it has fewer than P fields), hash =
// 31*hash + (signed byte) in int32, partition = (hash & 0x7fffffff) % R.
// Worked examples:
//
//	"a" R=7: h=97, 97%7=6.
//	"ab" R=10: h=31*97+98=3105, %10=5.
//	"a\tb" P=1: only "a" is hashed: 6 of 7.
//	"a\tb" P=2: h=31*(31*97+9)+98=93594, %7=4.
//	"\xc3\xa9" (é) R=7: h=31*(-61)+(-87)=-1978 = 0xFFFFF846;
//	  &0x7fffffff = 2147481670, %7=5.
//	"a\t" P=2: field 2 is empty, range "a\t": h=3016, %7=6.
//	"\tx" P=1: field 1 is empty, nothing hashed: 0.
//
// The longer ones were checked with a small independent script following the
// same Java rules.
func TestPartition(t *testing.T) {
	tests := []struct {
		key  string
		p, r int
		want int
	}{
		{"", 1, 7, 0},
		{"a", 1, 7, 6},
		{"ab", 1, 10, 5},
		{"a\tb", 1, 7, 6},
		{"a\tb", 2, 7, 4},
		{"a\tb", 3, 7, 4}, // fewer than P fields: whole key
		{"a\tb", 0, 7, 4}, // P<1: whole key (-k1)
		{"\xc3\xa9", 1, 7, 5},
		{"a\t", 2, 7, 6},
		{"\tx", 1, 5, 0},
		{"0123456789abcdef\t0000042", 1, 16, 8},
		{"0123456789abcdef\t0000042", 2, 16, 13},
		{"doc-17\tdoc-99\t0000001\t0000002", 2, 13, 5},
		{"\uFFFD", 1, 11, 8},
		{"\xff", 1, 11, 8},     // ill-formed byte -> U+FFFD
		{"\xe2\x82", 1, 11, 8}, // truncated sequence -> one U+FFFD
		{"hello world, a longer key that overflows int32", 1, 1000, 807},
		{"anything", 1, 1, 0},
	}
	for _, tt := range tests {
		if got := Partition([]byte(tt.key), tt.p, tt.r); got != tt.want {
			t.Errorf("Partition(%q, %d, %d) = %d, want %d", tt.key, tt.p, tt.r, got, tt.want)
		}
	}
}

func TestJavaUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "abc"},
		{"\xe2\x82A", "\uFFFDA"},               // maximal subpart E2 82
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate: ED then A0, 80
		{"\xf0\x9f\x98\x80x", "\U0001F600x"},
		{"\xf0\x9f\x98", "\uFFFD"},
		{"\xc0\xaf", "\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		if got := string(javaUTF8([]byte(tt.in))); got != tt.want {
			t.Errorf("javaUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzPartition(f *testing.F) {
	f.Add([]byte("a\tb\tc"), 2, 7)
	f.Add([]byte("\xe2\x82\tz"), 1, 3)
	f.Fuzz(func(t *testing.T, key []byte, p, r int) {
		if r < 1 || r > 1<<20 {
			return
		}
		got := Partition(key, p, r)
		if got < 0 || got >= r {
			t.Fatalf("Partition = %d out of [0,%d)", got, r)
		}
		var h int32 // Java's loop, a byte at a time
		for _, b := range key {
			h = 31*h + int32(int8(b))
		}
		if j := javaHash(key); j != h {
			t.Fatalf("javaHash(%q) = %d, want %d", key, j, h)
		}
	})
}

func BenchmarkPartition(b *testing.B) {
	key := []byte("0123456789abcdef\tdoc-000123\t0000042")
	b.SetBytes(int64(len(key)))
	for b.Loop() {
		Partition(key, 2, 97)
	}
}
