// Package match is the match job (PDC-MR Algorithm 2), map only: per
// document pair it finds the diagonals of duplicated sentence pairs and
// writes them as seeds for the extend job (mappers/extend), which writes
// pdc's final output, the spans. The work is lib/matcher's.
//
// The paper notes that this reducer "can also be merged into the mapper to
// trim the intermediate data": the join job partitions its output by
// document pair, so each join part file holds every pair of its document
// pairs, sorted. The match job reads each part file whole (one split per
// file) and needs no shuffle. The mapper checks that its input is sorted.
//
// Input: duplicated sentence pairs (reducers/join), sorted by docA TAB docB
// (as bytes), then by sentence pair.
// Output: seed records (lib/extend, which documents the format): the runs
// that are spans, and with extension on (jobconf Config.ExtendTau) the
// runs of 2 or more pairs that are not (candidates), ordered by document
// pair within a part file (one part per join part).
package match

import (
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/matcher"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Map runs the match mapper.
func Map(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	m := matcher.NewMatcher(cfg, mr.NewCounters(t.Stderr), mr.NewOutput(t.Stdout))
	var last []byte // previous document pair, for the order check
	var lastA, lastB int
	var fields [][]byte
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), 2)
		fields = mr.Fields(fields[:0], v)
		p, err := matcher.ParsePair(fields)
		if err != nil {
			return fmt.Errorf("match: line %d: %w", r.LineNumber(), err)
		}
		// The join sorted its output by document pair (the 2-field key's
		// bytes), then sentence pair; check that order.
		c := bytes.Compare(k, last)
		if c < 0 || c == 0 && r.LineNumber() > 1 && (p.A < lastA || p.A == lastA && p.B < lastB) {
			return fmt.Errorf("match: line %d: input not sorted (each join part file must be read whole)", r.LineNumber())
		}
		last, lastA, lastB = append(last[:0], k...), p.A, p.B
		if err := m.Add(k, p); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("match: read: %w", err)
	}
	if err := m.Close(); err != nil {
		return err
	}
	if err := m.Output().Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return m.Counters().Flush()
}
