// Package stats is the reduce side of the stats job: it sums the mappers'
// counts into document frequencies. Its output is the stats file format of
// lib/signature (tokens seen in one document only are left out: a token
// missing from the file has df 1).
//
// It also resolves duplicate document ids: of the occurrences of an id
// (#docid TAB srcpos from the mapper; srcpos the record's place, lib/doc
// AppendOrder) the smallest srcpos, the first in input order, is kept, and each other one is written out for the index
// job to skip.
//
// It also finds exact copies: the documents whose content hash
// (=content16hex TAB srcpos TAB docid TAB nsent from the mapper) is shared
// by another document are written out, every one of them, for
// lib/copies to group (after the duplicate ids are dropped).
//
// In a batch run, the +token16hex records (the batch's document frequency
// of a token, lib/docstats) are summed too and all written, df 1 included.
//
// Input: token16hex TAB count, +token16hex TAB count, !N TAB count, #docid TAB srcpos,
// =content16hex TAB srcpos TAB docid TAB nsent (lib/docstats).
// Output: token16hex TAB df (df >= 2), !N TAB documents,
// #docid TAB srcpos for each occurrence to drop, and the content records
// of hashes held by two documents or more, in srcpos order.
package stats

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Reduce runs the stats reducer.
func Reduce(t *mr.Task) error { return sum(t, false) }

// Combine sums counts without dropping df = 1 tokens and passes document
// positions through (a combiner sees only part of the data).
func Combine(t *mr.Task) error { return sum(t, true) }

// MaxReports is how many duplicate ids a task describes on stderr.
const MaxReports = 5

func sum(t *mr.Task, combining bool) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	g := &group{combining: combining, c: c, out: out, stderr: t.Stderr}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), 1)
		if !g.have || !bytes.Equal(k, g.key) {
			if err := g.emit(); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			g.start(k)
		}
		if err := g.add(v); err != nil {
			return fmt.Errorf("stats: line %d: %w", r.LineNumber(), err)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("stats: read: %w", err)
	}
	if err := g.emit(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// group is the records of one key: a count to sum, or the source positions
// of one document id.
type group struct {
	combining bool
	c         *mr.Counters
	out       mr.Output
	stderr    io.Writer
	have      bool
	key       []byte
	total     int64
	positions []string
	reported  int
	line      []byte
}

func (g *group) start(k []byte) {
	g.key, g.total, g.positions, g.have = append(g.key[:0], k...), 0, g.positions[:0], true
}

func (g *group) isDoc() bool { return len(g.key) > 0 && g.key[0] == '#' }

func (g *group) isBatch() bool { return len(g.key) > 0 && g.key[0] == '+' }

func (g *group) isContent() bool { return len(g.key) > 0 && g.key[0] == '=' }

func (g *group) add(v []byte) error {
	if g.isDoc() || g.isContent() {
		g.positions = append(g.positions, string(v))
		return nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return fmt.Errorf("bad count %q", v)
	}
	g.total += n
	return nil
}

func (g *group) emit() error {
	if !g.have {
		return nil
	}
	if g.isDoc() {
		return g.emitDoc()
	}
	if g.isContent() {
		return g.emitContent()
	}
	if g.total < 2 && !g.combining && string(g.key) != "!N" && !g.isBatch() {
		g.c.Add("stats.tokens.singleton", 1)
		return nil
	}
	switch {
	case g.combining:
	case string(g.key) == "!N":
		g.c.Add("stats.docs", g.total)
	case g.isBatch():
		g.c.Add("stats.tokens.batch", 1)
	default:
		g.c.Add("stats.tokens", 1)
	}
	b := append(g.line[:0], g.key...)
	b = append(b, '\t')
	b = strconv.AppendInt(b, g.total, 10)
	g.line = append(b, '\n')
	_, err := g.out.Write(g.line)
	return err
}

// emitContent passes a content hash's documents through when combining;
// reducing, it writes them when at least two distinct ids share it.
func (g *group) emitContent() error {
	if !g.combining {
		slices.Sort(g.positions) // srcpos first: input order
		ids := map[string]bool{}
		for _, p := range g.positions {
			if f := strings.SplitN(p, "\t", 3); len(f) == 3 {
				ids[f[1]] = true
			}
		}
		if len(ids) < 2 {
			return nil
		}
	}
	return g.writeValues()
}

// emitDoc passes positions through when combining; reducing, it writes
// every occurrence but the first.
func (g *group) emitDoc() error {
	if !g.combining {
		if len(g.positions) < 2 {
			return nil
		}
		slices.Sort(g.positions)
		g.c.Add("stats.duplicate-ids", 1)
		kept := []byte(g.positions[0])
		for _, p := range g.positions[1:] {
			stored := doc.OrderBatch([]byte(p)) > doc.OrderBatch(kept)
			if stored {
				g.c.Add("stats.duplicate-ids.stored", 1) // a batch's record of a stored id
			}
			if g.reported < MaxReports {
				which := "the one"
				if stored {
					which = "the stored record, which a batch does not replace,"
				}
				fmt.Fprintf(g.stderr, "pdc: duplicate id %s at %s (kept %s at %s)\n", g.key[1:], doc.OrderString([]byte(p)), which, doc.OrderString(kept))
				g.reported++
			}
		}
		g.positions = g.positions[1:]
	}
	return g.writeValues()
}

// writeValues writes a line `key TAB value` for each value of the group.
func (g *group) writeValues() error {
	for _, p := range g.positions {
		b := append(g.line[:0], g.key...)
		b = append(b, '\t')
		b = append(b, p...)
		g.line = append(b, '\n')
		if _, err := g.out.Write(g.line); err != nil {
			return err
		}
	}
	return nil
}
