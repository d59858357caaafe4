package extend

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
)

// FuzzParseSeed checks that ParseSeed never panics, that what it accepts
// has ranges in order and no negative number, and that AppendSeed writes
// it back as a record ParseSeed reads again to the same seed (the score
// rounded to 4 decimals once).
func FuzzParseSeed(f *testing.F) {
	for _, s := range []string{
		"s\t1\t2\t3\t4\t3\t10\t20\t30\t40\t0.9123\t20",
		"c\t7\t0\t9\t1\t2\t500\t612\t0\t98\t0.7500\t7",
		"c\t4\t4\t4\t4\t1\t1\t2\t3\t4\t1\t0",
		"s\t0\t0\t0\t0\t0\t0\t0\t0\t0\tNaN\t0",
		"s\t-1\t2\t3\t4\t3\t10\t20\t30\t40\t0.9\t1",
		"s\t1\t2\t3\t4\t3\t10\t20\t30\t40\t0.9\t-3",
		"x\t1\t2",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s, err := ParseSeed(bytes.Split([]byte(line), []byte{'\t'}))
		if err != nil {
			if s != (Seed{}) {
				t.Fatalf("ParseSeed(%q) = %+v with error %v", line, s, err)
			}
			return
		}
		if s.StartA < 0 || s.StartB < 0 || s.Length < 0 || s.CharStartA < 0 || s.CharStartB < 0 || s.Evidence < 0 ||
			s.EndA < s.StartA || s.EndB < s.StartB || s.CharEndA < s.CharStartA || s.CharEndB < s.CharStartB {
			t.Fatalf("ParseSeed(%q) = %+v", line, s)
		}
		rec := AppendSeed(nil, []byte("a\tb"), s)
		f := bytes.Split(rec, []byte{'\t'})
		s2, err := ParseSeed(f[2:])
		if err != nil {
			t.Fatalf("ParseSeed(AppendSeed(%+v) = %q): %v", s, rec, err)
		}
		s.Score, s2.Score = 0, 0
		if s2 != s {
			t.Fatalf("ParseSeed(AppendSeed(%+v)) = %+v", s, s2)
		}
		s3, _ := ParseSeed(f[2:])
		if rec2 := AppendSeed(nil, []byte("a\tb"), s3); !bytes.Equal(rec, rec2) {
			t.Fatalf("AppendSeed not stable: %q then %q", rec, rec2)
		}
	})
}

// FuzzDecodeWindow checks that DecodeWindow never panics and either
// reports ErrBadWindow or gives sentences of no negative index nor offset
// that end at or after their start.
func FuzzDecodeWindow(f *testing.F) {
	sents := []doc.Sentence{
		{Start: 0, End: 10, Tokens: []uint64{3, 1, 1<<32 | 3, 2}},
		{Start: 11, End: 20, NotContent: doc.NotContentLinks},
		{Start: 21, End: 300, Tokens: []uint64{7, 1 << 63}},
	}
	for _, rs := range [][]Range{{{0, 2}}, {{1, 1}}, {{0, 0}, {2, 2}}} {
		blob := AppendWindow(nil, sents, rs)
		f.Add(blob)
	}
	f.Add([]byte(""))
	f.Add([]byte("gA"))
	f.Add([]byte("!!!!"))
	f.Fuzz(func(t *testing.T, blob []byte) {
		side := Side{}
		if err := DecodeWindow(side, blob); err != nil {
			if !errors.Is(err, ErrBadWindow) {
				t.Fatalf("DecodeWindow(%q) = %v, not ErrBadWindow", blob, err)
			}
			return
		}
		for i, s := range side {
			if i < 0 || s.Start < 0 || s.End < s.Start {
				t.Fatalf("DecodeWindow(%q): sentence %d %+v", blob, i, s)
			}
		}
	})
}
