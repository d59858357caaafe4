package jobs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// boilerplateCmd prints a run's boilerplate.tsv (lib/boilerplate): what the
// run left out of matching, one row per block, most frequent first. With
// --text, the rows the run left without text (past its budget,
// pipeline.MaxTextRunes) get theirs from the run's documents.
func (m *Main) boilerplateCmd(ctx context.Context, args []string) error {
	var inputs listFlag
	fs := m.newFlagSet("boilerplate", "OUT [--text] [--top N]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.Var(&inputs, "input", "the run's documents, for --text (default: the inputs the run recorded); repeatable")
	text := fs.Bool("text", false, "fill in every row's text from the documents (a run writes those of its most frequent rows)")
	top := fs.Int("top", 0, "print only the `N` most frequent rows (0: all)")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("boilerplate: want one run's output directory (pdc boilerplate OUT)")
	case *top < 0:
		return usagef("boilerplate: --top must be >= 0")
	}
	out := fs.Arg(0)
	r, err := m.openRunDir("boilerplate", out)
	if err != nil {
		return err
	}
	data, err := hdfsfs.ReadFile(r.FS, r.Dir+"/boilerplate.tsv")
	if err != nil {
		return fmt.Errorf("boilerplate: %s has no boilerplate.tsv (did its run finish?): %w", out, hdfsfs.UnwrapPath(err))
	}
	rows, err := boilerplate.Read(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("boilerplate: %s: %w", out, err)
	}
	if *top > 0 {
		rows = rows[:min(*top, len(rows))]
	}
	if *text {
		docs, err := m.docsOf(r, inputs, "boilerplate")
		if err != nil {
			return err
		}
		an, err := r.Analyzer(ctx, append([]string{"boilerplate"}, args...))
		if err != nil {
			return err
		}
		if err := m.fillBoilerplate(rows, docs, an); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(m.Stdout)
	if err := boilerplate.Write(w, rows); err != nil {
		return err
	}
	return w.Flush()
}

// fillBoilerplate sets the text of the rows without one from their
// documents, each read once; a row whose document is not among inputs, or
// reads otherwise than the run read it, is an error naming it.
func (m *Main) fillBoilerplate(rows []boilerplate.Row, inputs docRuns, an *doc.Analyzer) error {
	of := map[string][]int{} // unescaped id -> rows without text
	need := map[string]bool{}
	for i, row := range rows {
		if row.Text != "" {
			continue
		}
		id, err := mr.Unescape(row.Doc)
		if err != nil {
			return fmt.Errorf("boilerplate: row %d: document %q: %w", i+1, row.Doc, err)
		}
		of[id] = append(of[id], i)
		need[id] = true
	}
	if len(need) == 0 {
		return nil
	}
	err := m.analyzeNeeded(need, inputs, an, func(d *doc.Doc, a doc.Analysis) {
		for _, i := range of[d.ID] {
			rows[i].SetText(a)
		}
		delete(of, d.ID)
	})
	if err != nil {
		return fmt.Errorf("boilerplate --text: %w", err)
	}
	if len(of) > 0 {
		id := slices.Min(slices.Collect(maps.Keys(of)))
		return fmt.Errorf("boilerplate --text: document %q is not in --input %s (give the run's documents)", id, inputs)
	}
	for _, row := range rows {
		if row.Text == "" {
			return fmt.Errorf("boilerplate --text: document %s: sentence %d is not at characters %d-%d (its file changed since the run?)", row.Doc, row.Sentence, row.CharStart, row.CharEnd)
		}
	}
	return nil
}
