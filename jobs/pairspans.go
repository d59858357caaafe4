package jobs

// pdc spans OUT --pair A B: the spans of two documents matched alone, with
// the run's parameters. Inside a passage cluster whose sentences were
// joined through hubs (--hub-df), two copies are linked to their hub, not
// to each other; this finds what a pairwise run would have found between
// them: every sentence pair of the two with Jaccard >= tau over their word
// sets (the words method; short and not-content sentences left out as the
// run leaves them), then the run's match (lib/matcher) and
// extension (lib/extend, over the windows the extend job sees). Document
// frequencies play no part: site templates and --max-df do not apply to
// two documents.

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/extend"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/matcher"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
	"github.com/pdc-mr/pdc/lib/span"
	"github.com/pdc-mr/pdc/lib/spanfile"
)

func (m *Main) printPairSpans(out, a, b string, o spanOptions) error {
	spans, docs, err := m.pairSpans(out, a, b, o.inputs)
	if err != nil {
		return err
	}
	sw, err := spanfile.NewWriter(m.Stdout, o.format, o.text)
	if err != nil {
		return err
	}
	if o.header {
		fmt.Fprintln(m.Stdout, span.TSVHeader(o.text))
	}
	for _, s := range spans {
		if o.text {
			ta := runeSlice(docs[s.DocA].Text, s.CharStartA, s.CharEndA)
			tb := runeSlice(docs[s.DocB].Text, s.CharStartB, s.CharEndB)
			s.TextA, s.TextB = &ta, &tb
		}
		if err := sw.Write(&s); err != nil {
			return err
		}
	}
	return sw.Close()
}

// pairSpans returns the spans of documents a and b of the run in out
// found by matching the two alone with the run's parameters, and the two
// documents' analyses.
func (m *Main) pairSpans(out, a, b string, inputs []string) ([]span.Span, map[string]doc.Analysis, error) {
	if a == b {
		return nil, nil, usagef("spans: --pair wants two different documents")
	}
	cfg, err := m.runConfig(out)
	if err != nil {
		return nil, nil, fmt.Errorf("spans --pair: the run's parameters: %w", err)
	}
	if cfg.Signature.Method != signature.Words {
		return nil, nil, fmt.Errorf("spans --pair: the run used --signature %s; --pair matches word sets (--signature words)", cfg.Signature.Method)
	}
	if mr.Escape(a) > mr.Escape(b) { // spans name the smaller id first
		a, b = b, a
	}
	an := cfg.Analyzer()
	docs, err := m.analyzeDocs(map[string]bool{a: true, b: true}, inputs, an)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range []string{a, b} {
		if _, ok := docs[id]; !ok {
			return nil, nil, fmt.Errorf("spans --pair: document %q is not in --input %s", id, strings.Join(inputs, ","))
		}
	}
	var buf bytes.Buffer
	w := mr.NewOutput(&buf)
	mt := matcher.NewMatcher(cfg, mr.NewCounters(&bytes.Buffer{}), w)
	key := []byte(mr.Escape(a) + "\t" + mr.Escape(b))
	for _, p := range sentencePairs(docs[a], docs[b], cfg.Tau, cfg.MinTokens) {
		if err := mt.Add(key, p); err != nil {
			return nil, nil, err
		}
	}
	if err := mt.Close(); err != nil {
		return nil, nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, nil, err
	}
	seeds, err := extendPair(cfg, buf.Bytes(), docs[a], docs[b])
	if err != nil {
		return nil, nil, err
	}
	spans := make([]span.Span, 0, len(seeds))
	for _, e := range seeds {
		spans = append(spans, span.Span{DocA: a, DocB: b, StartA: e.StartA, StartB: e.StartB, Length: e.Length,
			CharStartA: e.CharStartA, CharEndA: e.CharEndA, CharStartB: e.CharStartB, CharEndB: e.CharEndB, Score: e.Score})
	}
	return spans, docs, nil
}

// extendPair returns the spans of two documents from the match's seed
// records, extended as the extend job does (over the same windows).
func extendPair(cfg jobconf.Config, seedLines []byte, a, b doc.Analysis) ([]extend.Seed, error) {
	var seeds []extend.Seed
	var ra, rb []extend.Range
	var fields [][]byte
	for _, l := range bytes.Split(seedLines, []byte{'\n'}) {
		if len(l) == 0 {
			continue
		}
		fields = mr.Fields(fields[:0], l)
		if len(fields) < 2 {
			return nil, fmt.Errorf("spans --pair: bad seed %q", l)
		}
		s, err := extend.ParseSeed(fields[2:])
		if err != nil {
			return nil, fmt.Errorf("spans --pair: %w", err)
		}
		seeds = append(seeds, s)
		ra, rb = extend.Needs(ra, s, true), extend.Needs(rb, s, false)
	}
	side := func(an doc.Analysis, rs []extend.Range) (extend.Side, error) {
		sents := slices.Clone(an.Sentences)
		for i := range sents {
			if sents[i].NotContent != "" { // as the parsed record has them
				sents[i].Tokens = nil
			}
		}
		blob := extend.AppendWindow(nil, sents, extend.Normalize(rs))
		sd := extend.Side{}
		return sd, extend.DecodeWindow(sd, blob)
	}
	sa, err := side(a, ra)
	if err != nil {
		return nil, err
	}
	sb, err := side(b, rb)
	if err != nil {
		return nil, err
	}
	var c extend.Counts
	return extend.Spans(seeds, sa, sb, matcher.ExtendParams(cfg), &c), nil
}

// analyzeDocs analyzes the documents in need (the first of each id).
func (m *Main) analyzeDocs(need map[string]bool, inputs []string, an *doc.Analyzer) (map[string]doc.Analysis, error) {
	in, err := input.FindAny(inputs, m.isRemote, input.Filter{})
	if err != nil {
		return nil, err
	}
	out := map[string]doc.Analysis{}
	_, err = in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		if _, seen := out[d.ID]; !need[d.ID] || seen {
			return nil
		}
		a, err := an.Analyze(d)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		// The analyzer reuses its buffers: keep copies.
		a.Text = strings.Clone(a.Text)
		a.Sentences = slices.Clone(a.Sentences)
		for i := range a.Sentences {
			a.Sentences[i].Tokens = slices.Clone(a.Sentences[i].Tokens)
		}
		out[d.ID] = a
		return nil
	})
	return out, err
}

// sentencePairs returns the sentence pairs of a and b whose word sets have
// Jaccard >= tau, in (A, B) order, scored as the join writes them (4
// decimals). Sentences with fewer than minTokens tokens, and those that
// are not content, are left out.
func sentencePairs(a, b doc.Analysis, tau float64, minTokens int) []matcher.Pair {
	sets := func(an doc.Analysis) [][]uint64 {
		out := make([][]uint64, len(an.Sentences))
		for i, s := range an.Sentences {
			set := slices.Clone(s.Tokens)
			slices.Sort(set)
			set = slices.Compact(set)
			if s.NotContent == "" && len(s.Tokens) >= minTokens { // as the index job counts
				out[i] = set
			}
		}
		return out
	}
	sa, sb := sets(a), sets(b)
	var pairs []matcher.Pair
	for i, x := range sa {
		if x == nil {
			continue
		}
		for j, y := range sb {
			if y == nil || !signature.LengthOK(min(len(x), len(y)), max(len(x), len(y)), tau) {
				continue
			}
			shared := 0
			for p, q := 0, 0; p < len(x) && q < len(y); {
				switch {
				case x[p] < y[q]:
					p++
				case x[p] > y[q]:
					q++
				default:
					shared++
					p++
					q++
				}
			}
			jac := signature.Jaccard(shared, len(x), len(y))
			if !signature.AtLeast(jac, tau) {
				continue
			}
			pairs = append(pairs, matcher.Pair{A: i, B: j, Score: math.Round(jac*10000) / 10000,
				CSA: a.Sentences[i].Start, CEA: a.Sentences[i].End, CSB: b.Sentences[j].Start, CEB: b.Sentences[j].End})
		}
	}
	return pairs
}
