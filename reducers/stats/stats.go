// Package stats is the reduce side of the stats job: it sums the mappers'
// counts into document frequencies. Its output is the stats file format of
// lib/signature (tokens seen in one document only are left out: a token
// missing from the file has df 1).
//
// Input: token16hex TAB count, and !N TAB count (mappers/stats).
// Output: token16hex TAB df (df >= 2), and !N TAB documents.
package stats

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Reduce runs the stats reducer. It also serves as the stats job's combiner
// when keepSingletons is set (see Combine).
func Reduce(t *mr.Task) error { return sum(t, false) }

// Combine sums counts without dropping df = 1 tokens (a combiner sees only
// part of the data).
func Combine(t *mr.Task) error { return sum(t, true) }

func sum(t *mr.Task, keepSingletons bool) error {
	c := mr.NewCounters(t.Stderr)
	out := bufio.NewWriterSize(t.Stdout, 1<<16)
	var key []byte
	var total int64
	have := false
	emit := func() error {
		if !have {
			return nil
		}
		if total < 2 && !keepSingletons && string(key) != "!N" {
			c.Add("stats.tokens.singleton", 1)
			return nil
		}
		if !keepSingletons {
			c.Add("stats.tokens", 1)
		}
		b := append(key, '\t')
		b = strconv.AppendInt(b, total, 10)
		_, err := out.Write(append(b, '\n'))
		key = b[:len(key)]
		return err
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), 1)
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return fmt.Errorf("stats reducer: line %d: bad count %q", r.LineNumber(), v)
		}
		if have && bytes.Equal(k, key) {
			total += n
			continue
		}
		if err := emit(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		key, total, have = append(key[:0], k...), n, true
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("stats reducer: read: %w", err)
	}
	if err := emit(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}
