// Package clean writes the output of pdc dedup through one process (CLEAN,
// its --output): the documents of a run with their duplicated passages cut
// out, and what was cut. Which passages are cut is lib/dedup's Plan; this
// package reads the documents, has the plan cut each, checks every cut
// (dedup.Verifier) and writes, each file atomically:
//
// DocsFile (docs.jsonl): every document of the input, in input order (of
// duplicate ids the first, as the run reads them; of a batch run, the
// batch's own documents but those whose id is stored, whose stored record
// the run kept), one JSON object per line, {"id", "url", "text", ...}
// (lib/doc AppendJSONKeeping: url left out when empty, so that pdc reads
// the file back as input; then the other fields of a JSON Lines record, as
// it has them). text is the document's extracted text, what the clusters'
// offsets refer to (the run's --extract and --max-doc-bytes), without its
// removed ranges. With Options.DropEmpty, a document left with no text but
// white space is not written.
//
// RemovedFile (removed.tsv): what was cut, after a header line, one line
// per cut range, in the order of DocsFile, then by position (the format is
// lib/dedup's, records.go).
//
// ManifestFile (_dedup.json, manifest.go, written last by the command, with
// or without --jobs): the run the output was made from, and for a batch
// the dedup output taken for each stored run.
package clean

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// The files Write writes in CLEAN.
const (
	DocsFile    = "docs.jsonl"
	RemovedFile = "removed.tsv"
)

// Options are how Write reads and writes the documents.
type Options struct {
	// Read is how the run read its documents.
	Read input.Options
	// DropEmpty leaves out of DocsFile the documents left with no text.
	DropEmpty bool
	// Batch holds the ids of a batch run's own documents (pdc run
	// --against), nil for a run of its own: only those are written, and a
	// stored document that holds a kept passage must be read.
	Batch map[string]bool
	// OwnInputs tells that out is the batch's own inputs: every document
	// read is written but those of Replaced, the batch's ids that are
	// stored (the run kept the stored records).
	OwnInputs bool
	Replaced  map[string]bool
	// Inputs name the inputs read, for errors.
	Inputs []string
	// Templates, when not nil, also cuts the site templates
	// (CountTemplates; pdc dedup --templates).
	Templates *Templates
}

// Stats are the counts of a dedup, for its summary.
type Stats struct {
	input.Counts
	Written, Dups, Unparsable, Emptied, Dropped, Truncated int64
	Passages, DocsCut, Chars, Removed                      int64
	Templates, TemplateChars, TemplatesLeft                int64 // Options.Templates: blocks cut, their characters, characters left in kept passages
	Members, Unaligned, NotHeld                            int64
	ClusterDocs                                            int
	Verified, Violations                                   int
	FirstViolation                                         string
	AgainstStored                                          int64 // of a batch run: ranges cut against a stored document
}

// Write writes CLEAN's files in dir of fsys, DocsFile and RemovedFile:
// every document of out (the first of its id; of a batch run, the batch's
// alone) without what p cuts from it, and the cuts. It reads the input twice: first the documents of in (out's and,
// of a batch run, the stored runs') that hold kept members, for their
// passages, kept in a temporary file (in $TMPDIR, about the size of the
// kept text) until every document is cut.
func Write(in, out *input.Set, an *doc.Analyzer, p *dedup.Plan, fsys hdfsfs.FS, dir string, o Options) (Stats, error) {
	w := &writer{an: an, p: p, tmpl: o.Templates, written: map[string]bool{}, dropEmpty: o.DropEmpty, batch: o.Batch}
	w.st.ClusterDocs = len(p.Need())
	workers := runtime.GOMAXPROCS(0)
	spill, err := os.CreateTemp("", "pdc-dedup-kept-*")
	if err != nil {
		return w.st, fmt.Errorf("the kept passages' file: %w", err)
	}
	defer os.Remove(spill.Name())
	defer spill.Close()
	p.Spill(spill)
	keep := func(c *document, wk *worker) {
		if a, err := wk.an.Analyze(&c.d); err == nil {
			c.kept = p.KeptOf(&wk.tok, c.d.ID, a)
		}
	}
	keptRead := map[string]bool{}
	if _, _, err := ordered(in, o.Read, workers, an, p.HoldsKept, false, keep, func(c *document) error {
		keptRead[c.d.ID] = true
		p.AddKept(c.kept)
		return nil
	}); err != nil {
		return w.st, err
	}
	if o.Batch != nil {
		// A stored document is not written, so the check of the written
		// ones below does not see it missing: its kept passages must be
		// read here.
		for _, id := range p.KeptDocs() {
			if !keptRead[id] && !o.Batch[id] {
				return w.st, fmt.Errorf("stored document %q, which holds a kept passage, is not in the inputs %s (give the stored runs' documents too)", id, strings.Join(o.Inputs, ","))
			}
		}
	}
	if err := p.Err(); err != nil {
		return w.st, fmt.Errorf("the kept passages' file %s: %w", spill.Name(), err)
	}
	w.verify = dedup.NewVerifier(p)
	if w.docs, err = hdfsfs.CreateAtomic(fsys, dir+"/"+DocsFile); err != nil {
		return w.st, err
	}
	defer w.docs.Abort()
	if w.removed, err = hdfsfs.CreateAtomic(fsys, dir+"/"+RemovedFile); err != nil {
		return w.st, err
	}
	defer w.removed.Abort()
	if _, err := io.WriteString(w.removed, dedup.RemovedHeader); err != nil {
		return w.st, fmt.Errorf("write %s: %w", w.removed.Name(), err)
	}
	written := func(string) bool { return true }
	switch {
	case o.Batch != nil && o.OwnInputs:
		// The batch's own documents, those the parse job skipped too,
		// but for the records of stored ids.
		written = func(id string) bool { return !o.Replaced[id] }
	case o.Batch != nil:
		written = func(id string) bool { return o.Batch[id] }
	}
	if w.st.Counts, w.st.Dups, err = ordered(out, o.Read, workers, an, written, true, w.process, w.write); err != nil {
		return w.st, err
	}
	if o.Batch != nil {
		// The batch's documents read, as the jobs count them: not the
		// records of stored ids the run left out.
		w.st.Docs = int64(len(w.written)) + w.st.Dups
	}
	if err := p.Err(); err != nil {
		return w.st, fmt.Errorf("the kept passages' file %s: %w", spill.Name(), err)
	}
	w.verify.Done()
	w.st.Verified, w.st.Violations, w.st.FirstViolation = w.verify.Ranges, w.verify.Violations, w.verify.First
	var missing []string
	for id := range p.Need() {
		if !w.written[id] && (o.Batch == nil || o.Batch[id]) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		id := slices.Min(missing)
		return w.st, fmt.Errorf("document %q of cluster %s is not in --input %s (give the run's documents)", id, p.Need()[id], strings.Join(o.Inputs, ","))
	}
	for _, f := range []*hdfsfs.AtomicFile{w.docs, w.removed} {
		if err := f.Close(); err != nil {
			return w.st, err
		}
	}
	return w.st, nil
}

// writer writes the documents and their cuts to CLEAN's files.
type writer struct {
	an            *doc.Analyzer
	p             *dedup.Plan
	tmpl          *Templates // Options.Templates
	docs, removed *hdfsfs.AtomicFile
	written       map[string]bool // every id read: whether it was analyzed
	dropEmpty     bool
	verify        *dedup.Verifier
	st            Stats
	batch         map[string]bool // Options.Batch
}

// document is one document on its way through Write: read in order,
// worked on by any worker (keep, process), recorded or written in order
// (AddKept, write).
type document struct {
	seq   int
	d     doc.Doc
	raw   []byte // its JSON Lines record, or nil
	where string

	analyzed  bool // else unparsable: the run leaves it out too
	truncated bool
	n         int    // characters before the cut
	text      string // after it
	cut       dedup.Outcome
	tmplLeft  int    // characters of template blocks left in kept passages
	site      string // CountTemplates: its site and sentences
	sents     []doc.Sentence
	bad       []string // what the Verifier's check found wrong
	line      []byte   // its line of docs.jsonl, nil when dropped
	removed   []byte   // its lines of removed.tsv
	kept      dedup.KeptDoc
	err       error
}

// worker is one goroutine's analyzer, tokenizer and checker.
type worker struct {
	an  doc.Analyzer
	tok sentence.Tokenizer
	chk dedup.Checker
}

// process analyses c's document, cuts it and renders its lines.
func (w *writer) process(c *document, wk *worker) {
	a, err := wk.an.Analyze(&c.d)
	if err != nil {
		return
	}
	c.analyzed, c.truncated = true, a.Truncated
	if c.cut, err = w.p.CutWith(&wk.tok, c.d.ID, a); err == nil {
		if w.tmpl != nil {
			c.tmplLeft = w.p.AddTemplates(&c.cut, c.d.ID, w.tmpl.blocks(&c.d, &a))
		}
		c.text, c.n, err = dedup.CutText(a.Text, dedup.Ranges(c.cut.Removals))
	}
	switch {
	case err != nil && w.p.Err() != nil: // the kept passages' file, not the document
		c.err = fmt.Errorf("document %q (%s): the kept passages' file: %w", c.d.ID, c.where, err)
		return
	case err != nil:
		c.err = fmt.Errorf("document %q (%s): %w: give the run's documents with --input", c.d.ID, c.where, err)
		return
	}
	c.bad = wk.chk.Check(w.p, c.d.ID, a.Text, c.cut)
	if !w.dropEmpty || strings.TrimSpace(c.text) != "" || len(c.cut.Removals) == 0 {
		c.line = append(doc.AppendJSONKeeping(nil, &doc.Doc{ID: c.d.ID, URL: c.d.URL, Text: c.text}, c.raw), '\n')
	}
	for _, r := range c.cut.Removals {
		c.removed = dedup.AppendRemoval(c.removed, c.d.ID, r)
	}
	c.raw = nil
}

// write counts c and writes its lines, in input order.
func (w *writer) write(c *document) error {
	w.written[c.d.ID] = c.analyzed
	if !c.analyzed {
		w.st.Unparsable++
		return nil
	}
	if c.err != nil {
		return c.err
	}
	w.st.add(c.truncated, c.text, c.n, c.cut)
	if w.batch != nil {
		for _, r := range c.cut.Removals {
			if r.Reason == dedup.ReasonCopy && !w.batch[r.Kept.Doc] {
				w.st.AgainstStored++
			}
		}
	}
	w.st.TemplatesLeft += int64(c.tmplLeft)
	w.verify.Record(c.d.ID, c.cut, c.bad)
	if c.line == nil {
		w.st.Dropped++
	} else {
		w.st.Written++
		if _, err := w.docs.Write(c.line); err != nil {
			return fmt.Errorf("write %s: %w", w.docs.Name(), err)
		}
	}
	if _, err := w.removed.Write(c.removed); err != nil {
		return fmt.Errorf("write %s: %w", w.removed.Name(), err)
	}
	return nil
}

// add counts a document read: whether it was truncated, its text after
// cutting (n characters before) and what was cut.
func (st *Stats) add(truncated bool, text string, n int, cut dedup.Outcome) {
	st.Chars += int64(n)
	if truncated {
		st.Truncated++
	}
	st.Members += int64(cut.Members)
	st.Unaligned += int64(cut.Unaligned)
	st.NotHeld += int64(cut.NotHeld)
	if len(cut.Removals) == 0 {
		return
	}
	st.DocsCut++
	st.Passages += int64(len(cut.Removals))
	for _, r := range cut.Removals {
		if r.Reason == dedup.ReasonTemplate {
			st.Templates++
			st.TemplateChars += int64(r.End - r.Start)
		}
	}
	st.Removed += int64(n - utf8.RuneCountInString(text))
	if strings.TrimSpace(text) == "" {
		st.Emptied++
	}
}
