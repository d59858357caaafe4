package doc

import (
	"bufio"
	"os"
	"testing"
)

// BenchmarkParseFast decodes the sample corpus's JSON records (real pages,
// their HTML full of escaped quotes and newlines), copying each page as
// ParseJSON does ("copy") or into a reused buffer as the parse job's Parser
// does ("borrow").
func BenchmarkParseFast(b *testing.B) {
	lines, n := sampleLines(b)
	for _, borrow := range []bool{false, true} {
		name := "copy"
		if borrow {
			name = "borrow"
		}
		b.Run(name, func(b *testing.B) {
			var body []byte
			b.SetBytes(n)
			for b.Loop() {
				for _, l := range lines {
					var ok bool
					if borrow {
						body = body[:0]
						_, ok = parseFast(l, &body, "")
					} else {
						_, ok = parseFast(l, nil, "")
					}
					if !ok {
						b.Fatal("not parsed")
					}
				}
			}
		})
	}
}

func sampleLines(b *testing.B) ([][]byte, int64) {
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
	return lines, n
}
