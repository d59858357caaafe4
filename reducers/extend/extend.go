// Package extend is the reduce side of the extend job: per document pair
// it extends the match job's seeds over the windows of the two documents
// (lib/extend) and writes the spans.
//
// Input: seed and window records (lib/extend), grouped by document pair,
// in any order within a pair. Output: spans TSV (lib/span, which documents
// the format), ordered by (docA, docB, startA, startB) within a part file.
// Of two windows of one side (documents with the same id), the one with
// the smallest srcpos (the record's place, lib/doc AppendOrder) is used,
// as the stats job keeps that document.
package extend

import (
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/extend"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/matcher"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/span"
)

// Reduce runs the extend reducer.
func Reduce(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	x := &reducer{out: mr.NewOutput(t.Stdout), c: mr.NewCounters(t.Stderr), p: matcher.ExtendParams(cfg)}
	var fields [][]byte
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		l := r.Line()
		fields = mr.Fields(fields[:0], l)
		if len(fields) < 3 {
			return fmt.Errorf("extend reducer: line %d: want a seed or a window record, got %d fields", r.LineNumber(), len(fields))
		}
		key := l[:len(fields[0])+1+len(fields[1])]
		if !bytes.Equal(key, x.key) {
			if err := x.flush(); err != nil {
				return err
			}
			x.key = append(x.key[:0], key...)
		}
		if string(fields[2]) == extend.KindWindow {
			if len(fields) != 6 || len(fields[3]) != 1 || fields[3][0] != 'a' && fields[3][0] != 'b' {
				return fmt.Errorf("extend reducer: line %d: bad window record", r.LineNumber())
			}
			i := int(fields[3][0] - 'a')
			if x.win[i] == nil || bytes.Compare(fields[4], x.srcpos[i]) < 0 {
				x.srcpos[i] = append(x.srcpos[i][:0], fields[4]...)
				x.win[i] = append(x.win[i][:0], fields[5]...)
			}
			continue
		}
		s, err := extend.ParseSeed(fields[2:])
		if err != nil {
			return fmt.Errorf("extend reducer: line %d: %w", r.LineNumber(), err)
		}
		x.seeds = append(x.seeds, s)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("extend reducer: read: %w", err)
	}
	if err := x.flush(); err != nil {
		return err
	}
	if err := x.out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	x.counts()
	return x.c.Flush()
}

type reducer struct {
	p      extend.Params
	out    mr.Output
	c      *mr.Counters
	key    []byte
	seeds  []extend.Seed
	win    [2][]byte
	srcpos [2][]byte
	line   []byte
	n      extend.Counts // n.Out: the spans written
	pairs  int64         // document pairs with spans
}

// flush extends and writes the current document pair's seeds.
func (x *reducer) flush() error {
	if len(x.key) == 0 {
		return nil
	}
	var sides [2]extend.Side
	for i := range sides {
		sides[i] = make(extend.Side, len(x.win[i])/40) // about 40 bytes of blob a sentence
		if x.p.Tau > 0 && x.win[i] != nil {
			if err := extend.DecodeWindow(sides[i], x.win[i]); err != nil {
				return fmt.Errorf("extend reducer: pair %q: %w", x.key, err)
			}
		}
	}
	seeds := extend.Spans(x.seeds, sides[0], sides[1], x.p, &x.n)
	for _, s := range seeds {
		b := append(x.line[:0], x.key...)
		b = span.AppendFields(b, s.StartA, s.StartB, s.Length, s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB, s.Score)
		b = append(b, '\n')
		x.line = b
		if _, err := x.out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if len(seeds) > 0 {
		x.pairs++
	}
	x.key, x.seeds = x.key[:0], x.seeds[:0]
	x.win = [2][]byte{}
	return nil
}

func (x *reducer) counts() {
	for _, c := range []struct {
		name string
		n    int
	}{
		{"extend.seeds.spans", x.n.Spans}, {"extend.seeds.candidates", x.n.Candidates}, {"extend.seeds.pairs", x.n.Pairs},
		{"extend.steps", x.n.Steps}, {"extend.steps.merge", x.n.Merges}, {"extend.steps.split", x.n.Splits},
		{"extend.spans.extended", x.n.Extended}, {"extend.spans.new", x.n.New},
		{"extend.seeds.joined", x.n.Joined}, {"extend.spans.covered-dropped", x.n.Covered},
		{"extend.spans.unanchored", x.n.Unanchored},
		{"extend.window-ends", x.n.Edge}, {"extend.spans", x.n.Out}, {"extend.doc-pairs.without-evidence", x.n.Weak},
		{"extend.doc-pairs.with-spans", int(x.pairs)},
	} {
		if c.n > 0 {
			x.c.Add(c.name, int64(c.n))
		}
	}
}
