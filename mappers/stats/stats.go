// Package stats is the map side of the stats job: the records of
// lib/docstats (token document counts, document ids, content hashes) for
// parsed-document records (lib/doc).
package stats

import (
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/docstats"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Map runs the stats mapper.
func Map(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return fmt.Errorf("stats mapper: %w", err)
	}
	out := mr.NewOutput(t.Stdout)
	col := docstats.NewCollector(out, cfg)
	var (
		sents   []doc.Sentence
		tokens  []uint64
		scratch []byte
	)
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		f := bytes.SplitN(r.Line(), []byte{'\t'}, 5)
		if len(f) != 5 {
			return fmt.Errorf("stats mapper: line %d: want 5 fields, got %d", r.LineNumber(), len(f))
		}
		sents, tokens, scratch, err = doc.DecodeBlob(f[4], sents, tokens, scratch)
		if err != nil {
			return fmt.Errorf("stats mapper: line %d (doc %s): %w", r.LineNumber(), f[0], err)
		}
		if err := col.Add(f[0], f[1], sents); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("stats mapper: read: %w", err)
	}
	if err := col.Close(); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
