// Package dedup is the map side of pdc dedup's jobs (pdc dedup --jobs; by
// default for a run made on Hadoop): each reads the run's documents,
// analyses the ones its job needs with the run's analyzer and makes what
// the job writes of them, so that only that (not the documents' HTML)
// goes through the shuffle; the reducer of a document id keeps what its
// first record made, as the run kept the first (reducers/dedup).
//
// Input: the run's documents as JSON Lines, keyed by byte offset
// (mr.InputKeyed), as the parse job reads them. Side input (the directory
// jobconf.EnvSide names; on Hadoop, -files links in the task's directory):
// the plan file _plan, the kept records _kept (the docs and removed jobs),
// and for the facts job the documents wanted, _facts (lib/dedup records.go
// and load.go). Output, one line per document the job needs:
//
//	docid TAB srcpos TAB counts TAB lines
//
// docid escaped as in lib/mr; srcpos as in lib/doc's parsed-document
// record (the first of an id in input order is the smallest; of a batch
// run's dedup, its place, lib/doc AppendOrder, by the batch of the plan's
// input that holds the file); lines what
// the job writes of the document (escaped as in lib/mr, line ends
// included; empty for a document the analyzer cannot read); counts the
// counters the document adds, `name=n` joined by commas, or `!` and the
// error that its cut met (escaped as in lib/mr), which fails the reducer if
// the record is its id's first (a later record of the id may have another
// text). The jobs:
//
//   - dedup-facts: the documents of _facts: their length and date (lib/dedup
//     AppendFact);
//   - dedup-kept: the documents that hold a kept member: their kept
//     members' records (lib/dedup AppendKeptDoc);
//   - dedup-docs: every document (of a batch run, every document of the
//     batch: the plan's "+" lines), without its removed ranges, a JSON Lines
//     record as pdc dedup writes docs.jsonl (with the plan's drop_empty, a
//     document left with no text is not written), with the counts of pdc
//     dedup's summary (dedup.*; dedup.docs.clustered: the documents of the
//     clusters among them); its mapper also counts the records read
//     and skipped (dedup.docs.read, dedup.docs.skipped.REASON). Each cut is
//     checked against its kept range's text (lib/dedup Checker): a failure
//     is counted (dedup.check.violations) and the first few are written to
//     the task's log;
//   - dedup-removed: the documents that hold a removed member (of a batch
//     run, of the batch): their lines of removed.tsv (lib/dedup AppendRemoval).
//
// A document the analyzer cannot read is counted (dedup.docs.unparsable)
// and left out, as the run left it out.
package dedup

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// KeyFields and PartitionFields of the dedup jobs: sorted by document and
// input position, partitioned by document.
const KeyFields, PartitionFields = 2, 1

// Facts, Kept, Docs and Removed are the mappers of the four jobs.
func Facts(t *mr.Task) error   { return run(t, "facts") }
func Kept(t *mr.Task) error    { return run(t, "kept") }
func Docs(t *mr.Task) error    { return run(t, "docs") }
func Removed(t *mr.Task) error { return run(t, "removed") }

// maxReports is the most check failures a task writes to its log.
const maxReports = 5

// mapper makes one job's output of a document.
type mapper struct {
	job      string
	an       *doc.Analyzer
	loaded   *dedup.Loaded // held while the task runs: tasks at once share it (LoadPlan)
	plan     *dedup.Plan
	facts    *dedup.Facts
	drop     bool
	tok      sentence.Tokenizer
	chk      dedup.Checker
	stderr   func(string)
	reported int
	counts   []string // the current document's counts, name=n
	out      []byte   // its lines
}

func run(t *mr.Task, job string) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	m := &mapper{job: job, an: cfg.Analyzer(), stderr: func(s string) { fmt.Fprintln(t.Stderr, s) }}
	side := t.Env(jobconf.EnvSide)
	var want func(id string) bool
	switch job {
	case "facts":
		if m.facts, err = dedup.LoadFacts(side); err != nil {
			return fmt.Errorf("dedup-facts mapper: %w", err)
		}
		want = func(id string) bool { return m.facts.Need[id] }
	default:
		l, err := dedup.LoadPlan(side)
		if err != nil {
			return fmt.Errorf("dedup-%s mapper: %w", job, err)
		}
		m.loaded, m.plan, m.drop = l, l.Plan, l.Input.DropEmpty
		want = map[string]func(string) bool{"kept": m.plan.HoldsKept, "removed": m.plan.HoldsRemoved,
			"docs": func(string) bool { return true }}[job]
	}
	count := job == "docs"
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	file := mr.InputFile(t.Getenv)
	fileEsc := mr.Escape(file)
	// A batch run's dedup: the records of an id ordered as the run orders
	// them (stored runs' first), the batch's documents alone written (but
	// for those of stored ids); the stored ones give their kept members.
	batch := -1
	if m.loaded != nil && m.loaded.Input.Sources != nil {
		n, ok := m.loaded.Input.SourceBatch(file)
		if !ok {
			return fmt.Errorf("dedup-%s mapper: input %s is in none of the plan's inputs", job, file)
		}
		batch = n
		if job == "docs" || job == "removed" {
			all, own, replaced := want, n == m.loaded.Input.Current(), m.loaded.Replaced
			want = func(id string) bool { return own && !replaced[id] && all(id) }
		}
	}
	start, err := mr.InputStart(t.Getenv)
	if err != nil {
		return err
	}
	keyed := mr.InputKeyed(t.Getenv)
	off := start
	var b, src []byte
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		line := r.Line()
		at := off
		if keyed {
			if at, line, err = mr.CutInputKey(line); err != nil {
				return fmt.Errorf("dedup-%s mapper: %s line %d: %w", job, file, r.LineNumber(), err)
			}
		}
		off = at + int64(len(line)) + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue // as lib/input reads JSON Lines
		}
		d, err := doc.ParseJSON(line)
		if err != nil {
			if count {
				c.Add("dedup.docs.skipped."+doc.SkipReason(err), 1)
			}
			continue
		}
		if !want(d.ID) {
			if count && batch < 0 {
				c.Add("dedup.docs.read", 1)
			}
			continue
		}
		if count {
			c.Add("dedup.docs.read", 1)
		}
		b = mr.AppendEscape(b[:0], d.ID)
		if batch < 0 {
			b = doc.AppendSrcpos(append(b, '\t'), fileEsc, d.Source, at)
		} else {
			src = doc.AppendSrcpos(src[:0], fileEsc, d.Source, at)
			b = doc.AppendOrder(append(b, '\t'), doc.Record{Srcpos: src, Batch: batch})
		}
		if err := m.doc(&d, line); err != nil {
			m.out = m.out[:0]
			b = mr.AppendEscape(append(b, '\t', '!'), fmt.Sprintf("%s line %d (id %s): %v", file, r.LineNumber(), d.ID, err))
		} else {
			b = append(append(b, '\t'), strings.Join(m.counts, ",")...)
		}
		b = mr.AppendEscape(append(b, '\t'), string(m.out))
		if _, err := out.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// add counts n for name against the current document.
func (m *mapper) add(name string, n int64) {
	if n != 0 {
		m.counts = append(m.counts, name+"="+strconv.FormatInt(n, 10))
	}
}

// doc makes the job's output of document d, whose record is raw, into
// m.out and m.counts.
func (m *mapper) doc(d *doc.Doc, raw []byte) error {
	m.counts, m.out = m.counts[:0], m.out[:0]
	a, err := m.an.Analyze(d)
	if err != nil {
		if m.job == "docs" {
			m.add("dedup.docs.unparsable", 1)
		}
		return nil
	}
	switch m.job {
	case "facts":
		date := ""
		if m.facts.DateField != "" {
			date = doc.JSONStringField(raw, m.facts.DateField)
		}
		m.out = dedup.AppendFact(m.out, d.ID, utf8.RuneCountInString(a.Text), date)
	case "kept":
		m.out = dedup.AppendKeptDoc(m.out, m.plan.KeptOf(&m.tok, d.ID, a))
	case "removed":
		o, err := m.plan.CutWith(&m.tok, d.ID, a)
		if err != nil {
			return m.cutErr(err)
		}
		for _, rm := range o.Removals {
			m.out = dedup.AppendRemoval(m.out, d.ID, rm)
		}
	case "docs":
		o, err := m.plan.CutWith(&m.tok, d.ID, a)
		if err != nil {
			return m.cutErr(err)
		}
		text, n, err := dedup.CutText(a.Text, dedup.Ranges(o.Removals))
		if err != nil {
			return fmt.Errorf("%w: give the run's documents", err)
		}
		m.count(a.Truncated, text, n, o)
		if _, ok := m.plan.Need()[d.ID]; ok {
			m.add("dedup.docs.clustered", 1) // pdc dedup checks that every one was read
		}
		bad := m.chk.Check(m.plan, d.ID, a.Text, o)
		m.add("dedup.check.violations", int64(len(bad)))
		for _, s := range bad {
			if m.reported < maxReports {
				m.stderr("pdc: dedup check: " + s)
				m.reported++
			}
		}
		if m.drop && strings.TrimSpace(text) == "" && len(o.Removals) > 0 {
			m.add("dedup.docs.dropped", 1)
			return nil
		}
		m.add("dedup.docs.written", 1)
		if d.Source != "" {
			raw = nil // a page of a tree: its rendering's fields (site) are pdc's, not the input's
		}
		m.out = append(doc.AppendJSONKeeping(m.out, &doc.Doc{ID: d.ID, URL: d.URL, Text: text}, raw), '\n')
	}
	return nil
}

// cutErr is the error of a cut that failed: the kept records' file, or a
// document that is not the one the run read.
func (m *mapper) cutErr(err error) error {
	if m.plan.Err() != nil {
		return fmt.Errorf("the kept records' file: %w", err)
	}
	return fmt.Errorf("%w: give the run's documents", err)
}

// count adds a document's counts to the summary's (as pdc dedup counts
// them): text after cutting, n characters before.
func (m *mapper) count(truncated bool, text string, n int, o dedup.Outcome) {
	m.add("dedup.chars", int64(n))
	if truncated {
		m.add("dedup.docs.truncated", 1)
	}
	m.add("dedup.members", int64(o.Members))
	m.add("dedup.unaligned", int64(o.Unaligned))
	m.add("dedup.not-held", int64(o.NotHeld))
	if len(o.Removals) == 0 {
		return
	}
	m.add("dedup.docs.cut", 1)
	m.add("dedup.ranges", int64(len(o.Removals)))
	m.add("dedup.chars.removed", int64(n-utf8.RuneCountInString(text)))
	if strings.TrimSpace(text) == "" {
		m.add("dedup.docs.emptied", 1)
	}
}
