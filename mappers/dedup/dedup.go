// Package dedup is the map side of pdc dedup's jobs (pdc dedup --jobs; by
// default for a run made on Hadoop): each reads the run's documents and
// sends the ones its job needs to the reducer of their id
// (reducers/dedup), which keeps the first of each id, as the run did.
//
// Input: the run's documents as JSON Lines, keyed by byte offset
// (mr.InputKeyed), as the parse job reads them. Side input (the directory
// PDC_SIDE; on Hadoop, -files links in the task's directory): the plan
// file _plan, and for the facts job the list of documents _facts (lib/dedup
// records.go). Output, one line per document the job needs:
//
//	docid TAB srcpos TAB record
//
// docid escaped as in lib/mr, srcpos as in lib/doc's parsed-document
// record (the first of an id in input order is the smallest), record the
// JSON Lines record escaped as in lib/mr. The jobs need:
//
//   - dedup-facts: the documents of _facts (their lengths and dates
//     decide the kept members);
//   - dedup-kept: the documents that hold a kept member;
//   - dedup-docs: every document; its mapper counts the records read and
//     skipped (dedup.docs.read, dedup.docs.skipped.REASON);
//   - dedup-removed: the documents that hold a removed member.
package dedup

import (
	"errors"
	"fmt"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// KeyFields and PartitionFields of the dedup jobs: sorted by document and
// input position, partitioned by document.
const KeyFields, PartitionFields = 2, 1

// Facts, Kept, Docs and Removed are the mappers of the four jobs.
func Facts(t *mr.Task) error   { return run(t, "facts") }
func Kept(t *mr.Task) error    { return run(t, "kept") }
func Docs(t *mr.Task) error    { return run(t, "docs") }
func Removed(t *mr.Task) error { return run(t, "removed") }

func run(t *mr.Task, job string) error {
	side := t.Env(jobconf.EnvSide)
	var err error
	var want func(id string) bool
	switch job {
	case "facts":
		f, err := dedup.LoadFacts(side)
		if err != nil {
			return fmt.Errorf("dedup-facts mapper: %w", err)
		}
		want = func(id string) bool { return f.Need[id] }
	case "kept", "removed":
		p, err := dedup.LoadPlan(side)
		if err != nil {
			return fmt.Errorf("dedup-%s mapper: %w", job, err)
		}
		want = p.Plan.HoldsKept
		if job == "removed" {
			want = p.Plan.HoldsRemoved
		}
	default:
		want = func(string) bool { return true }
	}
	count := job == "docs"
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	file := mr.InputFile(t.Getenv)
	fileEsc := mr.Escape(file)
	start, err := mr.InputStart(t.Getenv)
	if err != nil {
		return err
	}
	keyed := mr.InputKeyed(t.Getenv)
	off := start
	var b []byte
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
		if len(line) == 0 {
			continue
		}
		d, err := doc.ParseJSON(line)
		if err != nil {
			if count {
				c.Add("dedup.docs.skipped."+skipReason(err), 1)
			}
			continue
		}
		if count {
			c.Add("dedup.docs.read", 1)
		}
		if !want(d.ID) {
			continue
		}
		b = mr.AppendEscape(b[:0], d.ID)
		b = doc.AppendSrcpos(append(b, '\t'), fileEsc, d.Source, at)
		b = mr.AppendEscape(append(b, '\t'), string(line))
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

// skipReason names why a record is no document, as the parse job does.
func skipReason(err error) string {
	switch {
	case errors.Is(err, doc.ErrBadJSON):
		return "bad-json"
	case errors.Is(err, doc.ErrNoID):
		return "no-id"
	case errors.Is(err, doc.ErrNoBody):
		return "no-body"
	}
	return "bad-record"
}
