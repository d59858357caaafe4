// Package matcher is the match job's work (PDC-MR Algorithm 2): per
// document pair, the diagonal runs (lib/diagonal) of its duplicated
// sentence pairs, written as seed records (lib/extend, which documents the
// format): the runs that are spans and, with extension on (jobconf
// Config.ExtendTau), the runs of 2 or more pairs that are not
// (candidates) and the single pairs near them; nothing for a document pair
// whose pairs, or whose seeds, carry less evidence than a span needs
// (lib/extend Spans; counted as match.doc-pairs.without-evidence, document
// pairs of two or more sentence pairs). The match job's mapper
// (mappers/match), the join's reducer when the match is fused into it
// (reducers/join) and `pdc spans --pair` run it.
package matcher

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/pdc-mr/pdc/lib/diagonal"
	"github.com/pdc-mr/pdc/lib/extend"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
)

// MinShortSpan is the least extent, in characters on each side, of a span
// with fewer than lambda sentence pairs (one that reaches lambda sentences
// only by stepping over a dropped or rewritten one): two short headings
// with a line between them are not a reused passage.
const MinShortSpan = 50

// Pair is one duplicated sentence pair of a document pair: its sentences,
// score, rune offsets and evidence (Evidence).
type Pair struct {
	A, B               int
	Score              float64
	CSA, CEA, CSB, CEB int
	Evidence           int
}

// ParsePair parses the value fields of a join output line:
// sentA sentB jaccard csA ceA csB ceB evidence.
func ParsePair(f [][]byte) (Pair, error) {
	if len(f) != 8 {
		return Pair{}, fmt.Errorf("want 10 fields, got %d", len(f)+2)
	}
	var n [8]int
	for i, x := range f {
		if i == 2 {
			continue
		}
		v, ok := mr.Atoi(x)
		if !ok {
			return Pair{}, fmt.Errorf("bad number %q", x)
		}
		n[i] = v
	}
	score, ok := mr.ParseDecimal(f[2])
	if !ok {
		return Pair{}, fmt.Errorf("bad score %q", f[2])
	}
	if n[7] < 0 {
		return Pair{}, fmt.Errorf("bad evidence %q", f[7])
	}
	return Pair{A: n[0], B: n[1], Score: score, CSA: n[3], CEA: n[4], CSB: n[5], CEB: n[6], Evidence: n[7]}, nil
}

// offsets are a sentence pair's rune offsets.
type offsets struct{ csA, ceA, csB, ceB int }

// A Matcher finds the spans of document pairs whose sentence pairs it is
// given one by one, grouped by document pair.
type Matcher struct {
	cfg   jobconf.Config
	c     *mr.Counters
	out   mr.Output
	key   []byte
	pairs []diagonal.Pair
	offs  []offsets // by diagonal.Pair.Tag
	line  []byte
	// Counts, added to c by Close: per document pair they would cost more
	// than the matching of most pairs.
	docPairs, sentPairs, shortDropped, spans, withSpans, candidates, singles, weak int64
	found                                                                          diagonal.Counts
	finder                                                                         diagonal.Finder // its runs are valid until the next document pair
	sent                                                                           []sent          // the document pair's seeds (send)
}

// NewMatcher returns a Matcher writing spans to out and counting in c.
func NewMatcher(cfg jobconf.Config, c *mr.Counters, out mr.Output) *Matcher {
	return &Matcher{cfg: cfg, c: c, out: out}
}

// Add adds a sentence pair of the document pair docPair (docA TAB docB).
// Pairs come grouped by document pair; a new one ends the previous.
func (m *Matcher) Add(docPair []byte, p Pair) error {
	if err := m.begin(docPair); err != nil {
		return err
	}
	if len(m.pairs) == cap(m.pairs) { // doubled: a large slice grows by a quarter
		m.pairs, m.offs = slices.Grow(m.pairs, len(m.pairs)+64), slices.Grow(m.offs, len(m.offs)+64)
	}
	m.pairs = append(m.pairs, diagonal.Pair{A: p.A, B: p.B, Score: p.Score, Evidence: p.Evidence, Tag: len(m.offs)})
	m.offs = append(m.offs, offsets{p.CSA, p.CEA, p.CSB, p.CEB})
	return nil
}

// Grow tells that at most n pairs of docPair come next, as Add's: it ends
// the previous document pair and makes room for them (Add grows by
// doubling otherwise).
func (m *Matcher) Grow(docPair []byte, n int) error {
	if err := m.begin(docPair); err != nil {
		return err
	}
	m.pairs, m.offs = slices.Grow(m.pairs, n), slices.Grow(m.offs, n)
	return nil
}

// begin ends the previous document pair when docPair is another.
func (m *Matcher) begin(docPair []byte) error {
	if bytes.Equal(docPair, m.key) && len(m.pairs) > 0 {
		return nil
	}
	if err := m.emit(); err != nil {
		return err
	}
	m.key = append(m.key[:0], docPair...)
	return nil
}

// Close writes the spans of the last document pair and adds the counts.
func (m *Matcher) Close() error {
	err := m.emit()
	for _, c := range []struct {
		name string
		n    int64
	}{
		{"match.doc-pairs", m.docPairs}, {"match.sentence-pairs", m.sentPairs},
		{"match.short-spans-dropped", m.shortDropped}, {"match.spans", m.spans},
		{"match.doc-pairs.with-spans", m.withSpans}, {"match.doc-pairs.without-evidence", m.weak}, {"match.candidates", m.candidates}, {"match.singles", m.singles},
		{"match.runs.joined", int64(m.found.Joined)}, {"match.runs.covered-dropped", int64(m.found.Covered)},
	} {
		if c.n > 0 {
			m.c.Add(c.name, c.n)
		}
	}
	m.docPairs, m.sentPairs, m.shortDropped, m.spans, m.withSpans, m.candidates, m.singles, m.weak = 0, 0, 0, 0, 0, 0, 0, 0
	m.found = diagonal.Counts{}
	return err
}

// seeds adds to m.sent the candidates for the extend job to grow (lib/extend):
// the runs of 2 or more pairs that are no span, and, when the document
// pair has a span or a candidate, its pairs outside them as single pairs
// (extension may step on a pair of the join, not on two sentences as
// similar that the join left out; see lib/extend).
func (m *Matcher) seeds(spans, short []diagonal.Run) {
	if len(spans) == 0 && len(short) == 0 {
		return
	}
	in := newBoxes(spans)
	// A span without the evidence it needs yet (extension may add it)
	// hides no candidate: it may not be a span at the end.
	need := minEvidence(m.cfg)
	strong := newBoxes(slices.DeleteFunc(slices.Clone(spans), func(r diagonal.Run) bool { return r.Evidence < need }))
	var cands []diagonal.Run
	for _, run := range short {
		if !strong.hit(run.StartA, run.EndA, run.StartB, run.EndB, 0) {
			cands = append(cands, run)
		}
	}
	if len(spans) == 0 && len(cands) == 0 {
		return
	}
	for _, run := range cands {
		m.sent = append(m.sent, sent{run: run})
	}
	near := extend.Window + m.cfg.Gap
	byCand := newBoxes(cands)
	inNear, candNear, in0, cand0 := in.cursor(near), byCand.cursor(near), in.cursor(0), byCand.cursor(0)
	for _, p := range m.pairs {
		// Near no run (most pairs), or inside one: not a single. A pair
		// inside a run is near it, so nearness is asked first.
		if !inNear.hit(p.A, p.B) && !candNear.hit(p.A, p.B) || in0.hit(p.A, p.B) || cand0.hit(p.A, p.B) {
			continue
		}
		m.sent = append(m.sent, sent{run: diagonal.Single(p), single: true})
	}
}

// sent is a seed the document pair sends to extension: a run, a span or
// not.
type sent struct {
	run            diagonal.Run
	isSpan, single bool
}

// send writes the document pair's seeds (m.sent) when their evidence adds
// up to need: a span needs that much from the join's pairs of its
// document pair (lib/extend Spans), so extension would make none of less.
func (m *Matcher) send(need int) error {
	defer func() { m.sent = m.sent[:0] }()
	total := 0
	for _, s := range m.sent {
		total += s.run.Evidence
	}
	if len(m.sent) > 0 && total < need {
		m.weak++
		return nil
	}
	spans := 0
	for _, s := range m.sent {
		if err := m.write(s.run, s.isSpan); err != nil {
			return err
		}
		switch {
		case s.isSpan:
			spans++
		case s.single:
			m.singles++
		default:
			m.candidates++
		}
	}
	if spans > 0 {
		m.spans += int64(spans)
		m.withSpans++
	}
	return nil
}

// boxes answers whether sentence ranges meet the rectangles of runs
// (sentences StartA..EndA by StartB..EndB).
type boxes struct {
	box  []box // by StartA
	maxA int   // the longest run's EndA-StartA
}

// box is a run's rectangle.
type box struct{ startA, endA, startB, endB int }

func newBoxes(runs []diagonal.Run) boxes {
	var b boxes
	if len(runs) == 0 {
		return b
	}
	b.box = make([]box, len(runs))
	for i, r := range runs {
		b.box[i] = box{r.StartA, r.EndA, r.StartB, r.EndB}
		b.maxA = max(b.maxA, r.EndA-r.StartA)
	}
	slices.SortFunc(b.box, func(x, y box) int { return x.startA - y.startA })
	return b
}

// pointCursor asks boxes.hit(a, a, b, b, d) of points that mostly come
// in order of a (a document pair's pairs, sorted): the first box that can
// meet the point is found by stepping on from the last one, not by a
// search.
type pointCursor struct {
	b    boxes
	d, i int
	from int // the last point's a-d-maxA, where i stands
}

func (b boxes) cursor(d int) pointCursor { return pointCursor{b: b, d: d, from: math.MinInt} }

// hit is b.hit(a, a, sb, sb, d).
func (c *pointCursor) hit(a, sb int) bool {
	box := c.b.box
	if len(box) == 0 {
		return false
	}
	from := a - c.d - c.b.maxA
	if from < c.from {
		c.i = 0 // out of order: from the start
	}
	for c.i < len(box) && box[c.i].startA < from {
		c.i++
	}
	c.from = from
	return c.b.meets(c.i, a, a, sb, sb, c.d)
}

// hit reports whether sentences sa..ea of A and sb..eb of B meet a run's
// rectangle grown by d sentences on each side.
func (b boxes) hit(sa, ea, sb, eb, d int) bool {
	if len(b.box) == 0 {
		return false
	}
	i, _ := slices.BinarySearchFunc(b.box, sa-d-b.maxA, func(r box, t int) int { return r.startA - t })
	return b.meets(i, sa, ea, sb, eb, d)
}

// meets is hit from box i on, the first that can meet the ranges (its
// startA at least sa-d-maxA).
func (b boxes) meets(i, sa, ea, sb, eb, d int) bool {
	for ; i < len(b.box) && b.box[i].startA-d <= ea; i++ {
		r := b.box[i]
		if r.endA+d >= sa && r.startB-d <= eb && r.endB+d >= sb {
			return true
		}
	}
	return false
}

// write writes a run as a seed record (lib/extend), a span or a candidate.
func (m *Matcher) write(run diagonal.Run, isSpan bool) error {
	o1, o2 := m.offs[run.First.Tag], m.offs[run.Last.Tag]
	b := extend.AppendSeed(m.line[:0], m.key, extend.Seed{
		StartA: run.StartA, StartB: run.StartB, EndA: run.EndA, EndB: run.EndB, Length: run.Length,
		CharStartA: o1.csA, CharEndA: o2.ceA, CharStartB: o1.csB, CharEndB: o2.ceB, Score: run.Score, Span: isSpan,
		Evidence: run.Evidence,
	})
	b = append(b, '\n')
	m.line = b
	if _, err := m.out.Write(b); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

func (m *Matcher) emit() error {
	if len(m.pairs) == 0 {
		return nil
	}
	m.docPairs++
	m.sentPairs += int64(len(m.pairs))
	if len(m.pairs) == 1 && m.cfg.Lambda > 1 {
		// One pair is no run, no candidate, and no single pair of one
		// (diagonal.FindAll finds none): most document pairs.
		m.pairs, m.offs = m.pairs[:0], m.offs[:0]
		return nil
	}
	need := minEvidence(m.cfg)
	if need > 0 {
		total := 0
		for _, p := range m.pairs {
			total += p.Evidence
		}
		if total < need {
			// No span of this document pair can reach the evidence
			// it needs (lib/extend Spans): most document pairs of
			// generated text, which share a line or two of a formula.
			m.weak++
			m.pairs, m.offs = m.pairs[:0], m.offs[:0]
			return nil
		}
	}
	var runs, short []diagonal.Run
	if m.cfg.ExtendTau > 0 {
		runs, short = m.finder.FindAll(m.pairs, m.cfg.Lambda, m.cfg.Gap, &m.found)
	} else {
		runs = m.finder.Find(m.pairs, m.cfg.Lambda, m.cfg.Gap, &m.found)
	}
	kept := 0
	for _, run := range runs {
		o1, o2 := m.offs[run.First.Tag], m.offs[run.Last.Tag]
		if run.Length < m.cfg.Lambda && (o2.ceA-o1.csA < MinShortSpan || o2.ceB-o1.csB < MinShortSpan) {
			m.shortDropped++
			short = append(short, run) // a candidate
			continue
		}
		m.sent = append(m.sent, sent{run: run, isSpan: true})
		runs[kept] = run
		kept++
	}
	if m.cfg.ExtendTau > 0 {
		m.seeds(runs[:kept], short)
	}
	if err := m.send(need); err != nil {
		return err
	}
	m.pairs, m.offs = m.pairs[:0], m.offs[:0]
	return nil
}

// ExtendParams are the extension parameters of a run's configuration
// (lib/extend), with MinShortSpan.
func ExtendParams(cfg jobconf.Config) extend.Params {
	return extend.Params{Tau: cfg.ExtendTau, JoinTau: cfg.Tau, Gap: cfg.Gap, Lambda: cfg.Lambda, MinTokens: cfg.MinTokens, MinChars: MinShortSpan,
		MinEvidence: minEvidence(cfg)}
}

// minEvidence is the evidence a span needs under cfg: its MinEvidence for
// the words method, 0 (none) for the others, whose pairs do not count
// shared words.
func minEvidence(cfg jobconf.Config) int {
	if cfg.Signature.Method != signature.Words {
		return 0
	}
	return cfg.MinEvidence
}

// Evidence is the evidence under cfg (signature.Evidence) of a sentence
// pair of the join whose token sets of na and nb words share shared (with
// the words method; signatures otherwise, when none is needed: 0).
func Evidence(cfg jobconf.Config, shared, na, nb int) int {
	return signature.Evidence(shared, na, nb, minEvidence(cfg))
}

// Counters returns the counters a Matcher adds to (for a caller that
// flushes them).
func (m *Matcher) Counters() *mr.Counters { return m.c }

// Output returns the Matcher's output.
func (m *Matcher) Output() mr.Output { return m.out }
