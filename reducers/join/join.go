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
	"bytes"
	"fmt"
	"strconv"

	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
	"github.com/pdc-mr/pdc/mappers/match"
)

// KeyFields is the number of key fields of a candidate pair.
const KeyFields = 4

// Reduce runs the join reducer.
func Reduce(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	return group(t, plain(func(out []byte, key []byte, first [][]byte, count int) ([]byte, string, error) {
		j, ok, err := jaccard(first, count, cfg.Tau)
		if err != nil || !ok {
			return out, belowTau(err), err
		}
		out = append(out, key...)
		out = append(out, '\t')
		out = strconv.AppendFloat(out, j, 'f', 4, 64)
		for _, x := range first[3:] {
			out = append(out, '\t')
			out = append(out, x...)
		}
		return append(out, '\n'), "join.pairs.verified", nil
	}))
}

// ReduceMatch is the join reducer and the match job in one program, for
// the local runner: the duplicated sentence pairs go straight to a
// match.Matcher instead of being written as lines and parsed back. Its
// output and counters are those of Reduce followed by the match job (each
// pair's score rounded to the 4 decimals Reduce writes); pdc run
// --keep-intermediate runs the two apart.
func ReduceMatch(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	return group(t, func(c *mr.Counters, out mr.Output) (emitFunc, func() error) {
		m := match.NewMatcher(cfg, c, out)
		var num [16]byte
		var fields [][]byte
		return func(_ []byte, key []byte, first [][]byte, count int) ([]byte, string, error) {
			j, ok, err := jaccard(first, count, cfg.Tau)
			if err != nil || !ok {
				return nil, belowTau(err), err
			}
			// The fields of the line Reduce would write, as the match
			// job parses them.
			docs, sents := mr.SplitKey(key, 2)
			a, b, _ := bytes.Cut(sents, []byte{'\t'})
			fields = append(append(fields[:0], a, b, strconv.AppendFloat(num[:0], j, 'f', 4, 64)), first[3:]...)
			p, err := match.ParsePair(fields)
			if err != nil {
				return nil, "", err
			}
			return nil, "join.pairs.verified", m.Add(docs, p)
		}, m.Close
	})
}

// jaccard returns the Jaccard similarity of a pair sharing count signatures
// (first holds count nA nB ...) and whether it reaches tau.
func jaccard(first [][]byte, count int, tau float64) (float64, bool, error) {
	na, ok1 := mr.Atoi(first[1])
	nb, ok2 := mr.Atoi(first[2])
	if !ok1 || !ok2 {
		return 0, false, fmt.Errorf("bad signature counts")
	}
	j := signature.Jaccard(count, na, nb)
	return j, signature.AtLeast(j, tau), nil
}

// belowTau is the counter of a pair that jaccard turned down.
func belowTau(err error) string {
	if err != nil {
		return ""
	}
	return "join.pairs.below-tau"
}

// Combine sums the counts of equal candidate pairs.
func Combine(t *mr.Task) error {
	return group(t, plain(func(out []byte, key []byte, first [][]byte, count int) ([]byte, string, error) {
		out = append(out, key...)
		out = append(out, '\t')
		out = strconv.AppendInt(out, int64(count), 10)
		for _, x := range first[1:] {
			out = append(out, '\t')
			out = append(out, x...)
		}
		return append(out, '\n'), "", nil
	}))
}

// emitFunc writes one pair to out: its key, the fields of its first value
// (count nA nB csA ceA csB ceB) and the summed count.
type emitFunc func(out []byte, key []byte, first [][]byte, count int) ([]byte, string, error)

// valueFields is the number of fields of a candidate pair's value.
const valueFields = 7

// plain is the setup of an emitFunc that needs no setup or closing.
func plain(emit emitFunc) func(*mr.Counters, mr.Output) (emitFunc, func() error) {
	return func(*mr.Counters, mr.Output) (emitFunc, func() error) { return emit, nil }
}

// group sums the count field (the value's first field) per key and hands
// each group to the emitFunc that setup returns for the task's counters
// and output, writing the line it returns, if any; then it calls the close
// function setup returned, if any.
func group(t *mr.Task, setup func(*mr.Counters, mr.Output) (emitFunc, func() error)) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	emit, closeEmit := setup(c, out)
	var key, first, line []byte
	var fields [][]byte
	var counts tally
	count, have := 0, false
	flush := func() error {
		if !have {
			return nil
		}
		var counter string
		var err error
		line, counter, err = emit(line[:0], key, mr.Fields(fields[:0], first), count)
		if err != nil {
			return fmt.Errorf("join: pair %q: %w", key, err)
		}
		if counter != "" {
			counts.add(counter)
		}
		if len(line) == 0 {
			return nil
		}
		if _, err := out.Write(line); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), KeyFields)
		fields = mr.Fields(fields[:0], v)
		n, ok := mr.Atoi(fields[0])
		if !ok || len(fields) != valueFields {
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
	counts.addTo(c)
	if closeEmit != nil {
		if err := closeEmit(); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// tally counts events of a few names, cheaper per event than mr.Counters.
type tally struct {
	names []string
	n     []int64
}

func (t *tally) add(name string) {
	for i, x := range t.names {
		if x == name {
			t.n[i]++
			return
		}
	}
	t.names, t.n = append(t.names, name), append(t.n, 1)
}

func (t *tally) addTo(c *mr.Counters) {
	for i, name := range t.names {
		c.Add(name, t.n[i])
	}
}
