// Package parse is the reduce side of the parse job: it keeps one record per
// document id, the first in input order, and counts the duplicates.
//
// Input: the parse mapper's records (mappers/parse), grouped by docid.
// Output: parsed-document records (lib/doc): docid TAB url TAB nsent TAB blob.
package parse

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/mr"
)

// MaxReports is how many duplicate ids a task describes on stderr.
const MaxReports = 5

// Reduce runs the parse reducer.
func Reduce(t *mr.Task) error {
	c := mr.NewCounters(t.Stderr)
	out := bufio.NewWriterSize(t.Stdout, 1<<16)
	r := mr.NewReader(t.Stdin)
	var key, best, bestPos []byte
	have, reported := false, 0
	flush := func() error {
		if !have {
			return nil
		}
		c.Add("parse.docs.out", 1)
		_, err := out.Write(best)
		return err
	}
	for r.Next() {
		line := r.Line()
		k, v := mr.SplitKey(line, 1)
		pos, rest, ok := bytes.Cut(v, []byte{'\t'})
		if !ok {
			return fmt.Errorf("parse reducer: line %d: malformed record", r.LineNumber())
		}
		if have && bytes.Equal(k, key) {
			c.Add("parse.docs.skipped.duplicate-id", 1)
			first, dup := bestPos, pos
			if bytes.Compare(pos, bestPos) < 0 {
				first, dup = pos, bestPos
				best = appendRecord(best[:0], k, rest)
				bestPos = append(bestPos[:0], pos...)
			}
			if reported < MaxReports {
				fmt.Fprintf(t.Stderr, "pdc: duplicate id %s at %s (kept the one at %s)\n", k, dup, first)
				reported++
			}
			continue
		}
		if err := flush(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		key = append(key[:0], k...)
		best = appendRecord(best[:0], k, rest)
		bestPos = append(bestPos[:0], pos...)
		have = true
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if err := flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

func appendRecord(dst, key, rest []byte) []byte {
	dst = append(dst, key...)
	dst = append(dst, '\t')
	dst = append(dst, rest...)
	return append(dst, '\n')
}
