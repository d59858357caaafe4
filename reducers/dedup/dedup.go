// Package dedup is the reduce side of pdc dedup's jobs (mappers/dedup):
// of the records of one document id, sorted by input position, it reads
// the first (the one the run read; the others are repeated ids) with the
// run's analyzer and writes what its job makes of it:
//
//   - dedup-facts: the document's length and date (lib/dedup load.go);
//   - dedup-kept: its kept members' records (lib/dedup records.go), for
//     the plan of the next two jobs;
//   - dedup-docs: the document without its removed ranges, one JSON Lines
//     record as pdc dedup writes docs.jsonl, and the counts of pdc dedup's
//     summary (dedup.*); with the plan's drop_empty, a document left with
//     no text is not written;
//   - dedup-removed: the document's lines of removed.tsv (lib/dedup).
//
// A document the analyzer cannot read is left out, as the run left it
// out (dedup.docs.unparsable). Each task checks every range it cuts
// against its kept range's text (lib/dedup Checker); a failure is counted
// (dedup.check.violations) and the first few are written to the task's
// log.
package dedup

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// Facts, Kept, Docs and Removed are the reducers of the four jobs.
func Facts(t *mr.Task) error   { return run(t, "facts") }
func Kept(t *mr.Task) error    { return run(t, "kept") }
func Docs(t *mr.Task) error    { return run(t, "docs") }
func Removed(t *mr.Task) error { return run(t, "removed") }

// maxReports is the most check failures a task writes to its log.
const maxReports = 5

type reducer struct {
	job      string
	an       *doc.Analyzer
	plan     *dedup.Plan
	facts    *dedup.Facts
	drop     bool
	tok      sentence.Tokenizer
	chk      dedup.Checker
	c        *mr.Counters
	out      mr.Output
	stderr   func(string)
	reported int
	b        []byte
}

func run(t *mr.Task, job string) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	r := &reducer{job: job, an: cfg.Analyzer(), c: mr.NewCounters(t.Stderr), out: mr.NewOutput(t.Stdout),
		stderr: func(s string) { fmt.Fprintln(t.Stderr, s) }}
	side := t.Env(jobconf.EnvSide)
	switch job {
	case "facts":
		if r.facts, err = dedup.LoadFacts(side); err != nil {
			return fmt.Errorf("dedup-facts reducer: %w", err)
		}
	default:
		l, err := dedup.LoadPlan(side)
		if err != nil {
			return fmt.Errorf("dedup-%s reducer: %w", job, err)
		}
		r.plan, r.drop = l.Plan, l.Input.DropEmpty
	}
	var id []byte
	first := true
	lr := mr.NewReader(t.Stdin)
	for lr.Next() {
		line := lr.Line()
		key, rest, ok1 := bytes.Cut(line, []byte{'\t'})
		_, rec, ok2 := bytes.Cut(rest, []byte{'\t'})
		if !ok1 || !ok2 {
			return fmt.Errorf("dedup-%s reducer: line %d: malformed record", job, lr.LineNumber())
		}
		if !first && bytes.Equal(key, id) {
			if job == "docs" {
				r.c.Add("dedup.docs.duplicate-id", 1)
			}
			continue
		}
		first = false
		id = append(id[:0], key...)
		if err := r.doc(key, rec); err != nil {
			return fmt.Errorf("dedup-%s reducer: document %s: %w", job, key, err)
		}
	}
	if err := lr.Err(); err != nil {
		return fmt.Errorf("dedup-%s reducer: read: %w", job, err)
	}
	if err := r.out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return r.c.Flush()
}

// doc handles the first record of a document (its escaped id and
// escaped JSON Lines record).
func (r *reducer) doc(key, rec []byte) error {
	raw, err := mr.Unescape(string(rec))
	if err != nil {
		return fmt.Errorf("malformed record: %w", err)
	}
	d, err := doc.ParseJSON([]byte(raw))
	if err != nil {
		return fmt.Errorf("record: %w", err) // the mapper parsed it
	}
	a, err := r.an.Analyze(&d)
	if err != nil {
		if r.job == "docs" {
			r.c.Add("dedup.docs.unparsable", 1)
		}
		return nil
	}
	b := r.b[:0]
	switch r.job {
	case "facts":
		date := ""
		if r.facts.DateField != "" {
			date = doc.JSONStringField([]byte(raw), r.facts.DateField)
		}
		b = dedup.AppendFact(b, d.ID, utf8.RuneCountInString(a.Text), date)
	case "kept":
		b = dedup.AppendKeptDoc(b, r.plan.KeptOf(&r.tok, d.ID, a))
	case "removed":
		o, err := r.plan.CutWith(&r.tok, d.ID, a)
		if err != nil {
			return r.cutErr(err)
		}
		for _, rm := range o.Removals {
			b = dedup.AppendRemoval(b, d.ID, rm)
		}
	case "docs":
		o, err := r.plan.CutWith(&r.tok, d.ID, a)
		if err != nil {
			return r.cutErr(err)
		}
		text, n, err := dedup.CutText(a.Text, dedup.Ranges(o.Removals))
		if err != nil {
			return fmt.Errorf("%w: give the run's documents", err)
		}
		r.count(a.Truncated, text, n, o)
		bad := r.chk.Check(r.plan, d.ID, a.Text, o)
		r.c.Add("dedup.check.ranges", int64(len(o.Removals)))
		if len(bad) > 0 {
			r.c.Add("dedup.check.violations", int64(len(bad)))
			for _, s := range bad {
				if r.reported < maxReports {
					r.stderr("pdc: dedup check: " + s)
					r.reported++
				}
			}
		}
		if r.drop && strings.TrimSpace(text) == "" && len(o.Removals) > 0 {
			r.c.Add("dedup.docs.dropped", 1)
			break
		}
		r.c.Add("dedup.docs.written", 1)
		b = append(doc.AppendJSONKeeping(b, &doc.Doc{ID: d.ID, URL: d.URL, Text: text}, []byte(raw)), '\n')
	}
	r.b = b
	if len(b) == 0 {
		return nil
	}
	if _, err := r.out.Write(b); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// cutErr is the error of a cut that failed: the kept records' file, or a
// document that is not the one the run read.
func (r *reducer) cutErr(err error) error {
	if r.plan.Err() != nil {
		return fmt.Errorf("the kept records' file: %w", err)
	}
	return fmt.Errorf("%w: give the run's documents", err)
}

// count adds a document's counts to the summary's (as pdc dedup counts
// them): text after cutting, n characters before.
func (r *reducer) count(truncated bool, text string, n int, o dedup.Outcome) {
	c := r.c
	c.Add("dedup.chars", int64(n))
	if truncated {
		c.Add("dedup.docs.truncated", 1)
	}
	c.Add("dedup.members", int64(o.Members))
	c.Add("dedup.unaligned", int64(o.Unaligned))
	c.Add("dedup.not-held", int64(o.NotHeld))
	if len(o.Removals) == 0 {
		return
	}
	c.Add("dedup.docs.cut", 1)
	c.Add("dedup.ranges", int64(len(o.Removals)))
	c.Add("dedup.chars.removed", int64(n-utf8.RuneCountInString(text)))
	if strings.TrimSpace(text) == "" {
		c.Add("dedup.docs.emptied", 1)
	}
}
