// Package stats is the map side of the stats job: the records of
// lib/docstats (token document counts, document ids, content hashes) for
// parsed-document records (lib/doc).
package stats

import (
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
	var order []byte
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		rec, err := doc.SplitRecord(r.Line())
		if err != nil {
			return fmt.Errorf("stats mapper: line %d: %w", r.LineNumber(), err)
		}
		sents, tokens, scratch, err = doc.DecodeBlob(rec.Blob, sents, tokens, scratch)
		if err != nil {
			return fmt.Errorf("stats mapper: line %d (doc %s): %w", r.LineNumber(), rec.ID, err)
		}
		add := col.Add
		if cfg.Batch > 0 && rec.Batch == cfg.Batch {
			add = col.AddBatch
		}
		order = doc.AppendOrder(order[:0], rec)
		if err := add(rec.ID, order, sents); err != nil {
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
