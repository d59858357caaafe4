package doc

import (
	"bufio"
	"os"
	"testing"
)

// BenchmarkParseFast decodes the sample corpus's JSON records (real pages,
// their HTML full of escaped quotes and newlines).
func BenchmarkParseFast(b *testing.B) {
	f, err := os.Open("../../testdata/sample/pages.jsonl")
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	var lines [][]byte
	var n int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
		n += int64(len(sc.Bytes()))
	}
	b.SetBytes(n)
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			if _, ok := parseFast(l); !ok {
				b.Fatal("not parsed")
			}
		}
	}
}
