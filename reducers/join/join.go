// Package join is the reduce side of the join job: it counts the signatures
// each candidate sentence pair shares and keeps pairs with Jaccard >= tau.
//
// Input: candidate pairs (mappers/join), grouped by the 4-field key
// docA TAB docB TAB sentA TAB sentB. Output, one line per duplicated
// sentence pair:
//
//	docA TAB docB TAB sentA TAB sentB TAB jaccard TAB csA TAB ceA TAB csB TAB ceB
//
// jaccard has 4 decimals.
package join

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"

	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
)

// KeyFields is the number of key fields of a candidate pair.
const KeyFields = 4

// Reduce runs the join reducer.
func Reduce(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	return group(t, func(out []byte, key, first []byte, count int) ([]byte, string, error) {
		f := bytes.Split(first, []byte{'\t'})
		na, err1 := strconv.Atoi(string(f[1]))
		nb, err2 := strconv.Atoi(string(f[2]))
		if err1 != nil || err2 != nil {
			return out, "", fmt.Errorf("bad signature counts")
		}
		j := signature.Jaccard(count, na, nb)
		if !signature.AtLeast(j, cfg.Tau) {
			return out, "join.pairs.below-tau", nil
		}
		out = append(out, key...)
		out = append(out, '\t')
		out = strconv.AppendFloat(out, j, 'f', 4, 64)
		for _, x := range f[3:] {
			out = append(out, '\t')
			out = append(out, x...)
		}
		return append(out, '\n'), "join.pairs.verified", nil
	})
}

// Combine sums the counts of equal candidate pairs.
func Combine(t *mr.Task) error {
	return group(t, func(out []byte, key, first []byte, count int) ([]byte, string, error) {
		_, rest, _ := bytes.Cut(first, []byte{'\t'})
		out = append(out, key...)
		out = append(out, '\t')
		out = strconv.AppendInt(out, int64(count), 10)
		out = append(out, '\t')
		out = append(out, rest...)
		return append(out, '\n'), "", nil
	})
}

type emitFunc func(out []byte, key, firstValue []byte, count int) ([]byte, string, error)

// group sums the count field (the value's first field) per key and hands
// each group to emit.
func group(t *mr.Task, emit emitFunc) error {
	c := mr.NewCounters(t.Stderr)
	out := bufio.NewWriterSize(t.Stdout, 1<<16)
	var key, first, line []byte
	count, have := 0, false
	flush := func() error {
		if !have {
			return nil
		}
		var counter string
		var err error
		line, counter, err = emit(line[:0], key, first, count)
		if err != nil {
			return fmt.Errorf("join: pair %q: %w", key, err)
		}
		if counter != "" {
			c.Add(counter, 1)
		}
		if _, err := out.Write(line); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), KeyFields)
		cnt, _, _ := bytes.Cut(v, []byte{'\t'})
		n, err := strconv.Atoi(string(cnt))
		if err != nil || bytes.Count(v, []byte{'\t'}) != 6 {
			return fmt.Errorf("join: line %d: malformed candidate pair", r.LineNumber())
		}
		if have && bytes.Equal(k, key) {
			count += n
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		key, first = append(key[:0], k...), append(first[:0], v...)
		count, have = n, true
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("join: read: %w", err)
	}
	if err := flush(); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}
