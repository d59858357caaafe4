// Package parse is the parse job, map only: it reads JSON Lines documents,
// extracts their text, splits sentences and tokenizes them, once per
// document, and writes parsed-document records (lib/doc/record.go). The job
// reads its input keyed (mr.InputKeyed: `offset TAB line`, on Hadoop with
// stream.map.input.ignoreKey=false), so that srcpos is each record's exact
// byte offset whatever the split; without keys, offsets are counted from the
// split's start, exact only in a split that starts the file.
//
//	docid TAB srcpos TAB url TAB nsent TAB blob
//
// Duplicate ids are resolved later without a shuffle of these records: the
// stats job lists the ids seen twice and the index job skips all but the
// first occurrence.
//
// Given a side output (mr.Task.Side: the local runner's RunFeeding), the
// mapper also writes there what the stats mapper would write for its
// records (lib/docstats Collector), so that the stats job need not read
// them again.
package parse

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/docstats"
	"github.com/pdc-mr/pdc/lib/htmltext"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// MaxReports is how many bad records a task describes on stderr; the rest
// are only counted.
const MaxReports = 5

// LongLineCounters are the counters of an input line the runner skipped
// unread, over jobconf.Config.MaxRecordBytes (lib/mr/local's
// Job.LongLineCounters): a record read, and skipped as too-large.
var LongLineCounters = []string{"parse.docs.read", "parse.docs.skipped.too-large"}

// Map runs the parse mapper.
func Map(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	if cfg.Extract == "main" && !htmltext.MainAvailable {
		// Never count every page as unparsable: fail the task instead.
		return fmt.Errorf("parse mapper: --extract main: %w", htmltext.ErrNoMainExtract)
	}
	start, err := mr.InputStart(t.Getenv)
	if err != nil {
		return err
	}
	m := &mapper{
		cfg:      cfg,
		counters: mr.NewCounters(t.Stderr),
		stderr:   t.Stderr,
		out:      mr.NewOutput(t.Stdout),
		file:     mr.InputFile(t.Getenv),
		start:    start,
		offset:   start,
		an:       doc.Analyzer{MaxBytes: cfg.MaxDocBytes, Main: cfg.Extract == "main"},
		json:     doc.Parser{SiteField: cfg.SiteField},
	}
	m.fileEsc = mr.Escape(m.file)
	var sideOut mr.Output
	if t.Side != nil {
		sideOut = mr.NewOutput(t.Side)
		m.stats = docstats.NewCollector(sideOut, cfg)
	}
	keyed := mr.InputKeyed(t.Getenv)
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		line := r.Line()
		if keyed {
			off, rest, err := mr.CutInputKey(line)
			if err != nil {
				m.counters.Flush()
				return fmt.Errorf("parse mapper: %s line %d: %w", m.file, r.LineNumber(), err)
			}
			m.offset, line = off, rest
		}
		if err := m.record(line, r.LineNumber()); err != nil {
			m.counters.Flush()
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("read %s: %w", m.file, err)
	}
	if err := m.out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if m.stats != nil {
		if err := m.stats.Close(); err != nil {
			return fmt.Errorf("side output: %w", err)
		}
		if err := sideOut.Flush(); err != nil {
			return fmt.Errorf("side output: %w", err)
		}
	}
	return m.counters.Flush()
}

type mapper struct {
	cfg      jobconf.Config
	counters *mr.Counters
	stderr   io.Writer
	out      mr.Output
	file     string
	fileEsc  string
	start    int64
	offset   int64
	reported int
	an       doc.Analyzer
	json     doc.Parser          // its SiteField is --site-field
	stats    *docstats.Collector // the stats job's map output, or nil
	line     []byte
	scratch  []byte
}

// where names a record for humans: file:line when the split starts the
// file (line numbers are known), else the split's start and the record's
// number in the split.
func (m *mapper) where(lineNo int64, off int64) string {
	if m.start == 0 {
		return fmt.Sprintf("%s:%d", m.file, lineNo)
	}
	return fmt.Sprintf("%s (split from byte %d, record %d)", m.file, m.start, lineNo)
}

// skip counts a skipped or damaged record, reports the first few, and in
// strict mode turns it into the task's error.
func (m *mapper) skip(reason, where string, detail error) error {
	m.counters.Add("parse.docs.skipped."+reason, 1)
	return m.bad(reason, where, detail)
}

// bad reports a bad record (the first few), or fails in strict mode.
func (m *mapper) bad(reason, where string, detail error) error {
	msg := fmt.Sprintf("pdc: %s: %s", where, reason)
	if detail != nil {
		msg += ": " + detail.Error()
	}
	if m.cfg.Strict {
		return fmt.Errorf("%s (strict mode)", msg[len("pdc: "):])
	}
	if m.reported < MaxReports {
		fmt.Fprintln(m.stderr, msg)
		m.reported++
		if m.reported == MaxReports {
			fmt.Fprintln(m.stderr, "pdc: further bad records are only counted")
		}
	}
	return nil
}

func (m *mapper) record(line []byte, lineNo int64) error {
	off := m.offset
	m.offset += int64(len(line)) + 1
	if len(line) == 0 {
		return nil
	}
	m.counters.Add("parse.docs.read", 1)
	where := m.where(lineNo, off)
	d, err := m.json.Parse(line)
	switch {
	case errors.Is(err, doc.ErrNoBody):
		return m.skip(doc.SkipReason(err), where+" (id "+d.ID+")", nil)
	case err != nil:
		return m.skip(doc.SkipReason(err), where, err)
	}
	return m.document(&d, where, off)
}

func (m *mapper) document(d *doc.Doc, where string, off int64) error {
	if d.Source != "" {
		where = d.Source // a page of a tree: its file, not the rendering's line
	}
	where += " (id " + d.ID + ")"
	body := d.Body()
	switch {
	case len(body) == 0:
		return m.skip("empty", where, nil)
	case isBinary(body):
		return m.skip("binary", where, nil)
	}
	a, err := m.an.Analyze(d)
	if err != nil {
		return m.skip("unparsable", where, err)
	}
	if a.Truncated {
		m.counters.Add("parse.docs.truncated", 1)
		if err := m.bad("truncated", where, fmt.Errorf("larger than --max-doc-bytes %d (or one sentence per %d bytes), the rest is ignored", m.cfg.MaxDocBytes, 64)); err != nil {
			return err
		}
	}
	if a.Fallback {
		m.counters.Add("parse.docs.extract-main-fallback", 1)
	}
	if a.InvalidUTF8 > 0 {
		m.counters.Add("parse.invalid-utf8", int64(a.InvalidUTF8))
	}
	if len(a.Sentences) == 0 {
		return m.skip("no-sentences", where, nil)
	}
	m.counters.Add("parse.docs.ok", 1)
	m.counters.Add("parse.sentences", int64(len(a.Sentences)))
	for why, n := range a.NotContent {
		m.counters.Add("parse.sentences.not-content."+why, int64(n))
	}
	b := mr.AppendEscape(m.line[:0], d.ID)
	idEnd := len(b)
	b = append(b, '\t')
	b = doc.AppendSrcpos(b, m.fileEsc, d.Source, off)
	posEnd := len(b)
	b = append(b, '\t')
	b = m.appendSite(b, d, &a)
	b = append(b, '\t')
	b = doc.AppendNSent(b, len(a.Sentences), m.cfg.Batch)
	b = append(b, '\t')
	b, m.scratch = doc.AppendBlob(b, m.scratch, a.Sentences)
	b = append(b, '\n')
	m.line = b
	if _, err := m.out.Write(b); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if m.stats != nil {
		if err := m.stats.Add(b[:idEnd], b[idEnd+1:posEnd], a.Sentences); err != nil {
			return fmt.Errorf("side output: %w", err)
		}
	}
	return nil
}

// appendSite appends the record's url field (lib/doc URLField; a page's
// layout is its site unless --site-from none), counting where it came from
// in parse.site.{url,page,input,layout,none}.
func (m *mapper) appendSite(b []byte, d *doc.Doc, a *doc.Analysis) []byte {
	v, from := doc.URLField(d, a, jobconf.LayoutSites(m.cfg.SiteFrom))
	m.counters.Add("parse.site."+from, 1)
	return mr.AppendEscape(b, v)
}

// isBinary reports content that is not text: a NUL byte in the first 8 KiB.
func isBinary(s string) bool {
	return strings.IndexByte(s[:min(len(s), 8192)], 0) >= 0
}
