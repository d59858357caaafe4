// Package stats is the map side of the stats job: token document
// frequencies for I-Match's IDF filter and the SpotSigs antecedents.
//
// Input: parsed-document records (lib/doc). Output:
//
//	token16hex TAB count    documents of this task containing the token
//	!N TAB count            documents of this task
//	#docid TAB srcpos       every document, to find duplicate ids
//
// Counts are aggregated in memory (an in-mapper combiner) and flushed
// whenever MaxTokens distinct tokens are held, so memory stays bounded.
package stats

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// MaxTokens bounds the in-mapper aggregation table.
const MaxTokens = 1 << 20

// Map runs the stats mapper.
func Map(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	df := make(map[uint64]int64)
	var (
		docs    int64
		sents   []doc.Sentence
		tokens  []uint64
		scratch []byte
		seen    []uint64
		set     tokenSet
		err     error
	)
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		f := bytes.SplitN(r.Line(), []byte{'\t'}, 5)
		if len(f) != 5 {
			return fmt.Errorf("stats mapper: line %d: want 5 fields, got %d", r.LineNumber(), len(f))
		}
		if _, err := fmt.Fprintf(out, "#%s\t%s\n", f[0], f[1]); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		sents, tokens, scratch, err = doc.DecodeBlob(f[4], sents, tokens, scratch)
		if err != nil {
			return fmt.Errorf("stats mapper: line %d (doc %s): %w", r.LineNumber(), f[0], err)
		}
		seen = set.distinct(seen[:0], tokens)
		for _, tok := range seen {
			df[tok]++
		}
		docs++
		if len(df) >= MaxTokens {
			if err := flush(out, df); err != nil {
				return err
			}
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("stats mapper: read: %w", err)
	}
	if err := flush(out, df); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, "!N\t%d\n", docs); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	c.Add("stats.docs", docs)
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

func flush(out mr.Output, df map[uint64]int64) error {
	keys := make([]uint64, 0, len(df))
	for k := range df {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b []byte
	for _, k := range keys {
		b = AppendHex(b[:0], k)
		b = append(b, '\t')
		b = strconv.AppendInt(b, df[k], 10)
		b = append(b, '\n')
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	clear(df)
	return nil
}

// AppendHex appends v as 16 lowercase hex digits.
func AppendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[(v>>uint(shift))&0xf])
	}
	return b
}

// tokenSet finds a document's distinct tokens: an open-addressing hash
// table whose slots are marked with the document's generation, so that it
// is emptied for the next document without clearing. Token values are
// hashes already; their low bits index the table.
type tokenSet struct {
	keys []uint64
	gen  []uint32
	cur  uint32
}

// distinct appends the distinct values of toks to dst, in first-seen order.
func (s *tokenSet) distinct(dst, toks []uint64) []uint64 {
	if size := 2 * len(toks); len(s.keys) < size {
		n := 1 << bits.Len(uint(size))
		s.keys, s.gen, s.cur = make([]uint64, n), make([]uint32, n), 0
	}
	s.cur++
	if s.cur == 0 { // wrapped: stale marks could match
		clear(s.gen)
		s.cur = 1
	}
	mask := uint64(len(s.keys) - 1)
	for _, t := range toks {
		i := (t ^ t>>32) & mask
		for s.gen[i] == s.cur && s.keys[i] != t {
			i = (i + 1) & mask
		}
		if s.gen[i] != s.cur {
			s.gen[i], s.keys[i] = s.cur, t
			dst = append(dst, t)
		}
	}
	return dst
}
