package matcher

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/extend"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
	"github.com/pdc-mr/pdc/lib/span"
)

// PairSpans returns the spans of documents a and b (a before b as spans
// name them; da and db their analyses) matched alone with the run's
// parameters cfg (pdc spans --pair): every sentence pair of the two with
// Jaccard >= tau over their word sets (the words method; short and
// not-content sentences left out as the run leaves them), then the match
// job's runs (Matcher) and the extend job's extension over the windows it
// sees. Document frequencies play no part: site templates and --max-df do
// not apply to two documents.
func PairSpans(cfg jobconf.Config, a, b string, da, db doc.Analysis) ([]span.Span, error) {
	var buf bytes.Buffer
	w := mr.NewOutput(&buf)
	mt := NewMatcher(cfg, mr.NewCounters(&bytes.Buffer{}), w)
	key := []byte(mr.Escape(a) + "\t" + mr.Escape(b))
	for _, p := range sentencePairs(da, db, cfg) {
		if err := mt.Add(key, p); err != nil {
			return nil, err
		}
	}
	if err := mt.Close(); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	seeds, err := extendPair(cfg, buf.Bytes(), da, db)
	if err != nil {
		return nil, err
	}
	spans := make([]span.Span, 0, len(seeds))
	for _, e := range seeds {
		spans = append(spans, span.Span{DocA: a, DocB: b, StartA: e.StartA, StartB: e.StartB, Length: e.Length,
			CharStartA: e.CharStartA, CharEndA: e.CharEndA, CharStartB: e.CharStartB, CharEndB: e.CharEndB, Score: e.Score})
	}
	return spans, nil
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
			return nil, fmt.Errorf("bad seed %q", l)
		}
		s, err := extend.ParseSeed(fields[2:])
		if err != nil {
			return nil, fmt.Errorf("%w", err)
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
	return extend.Spans(seeds, sa, sb, ExtendParams(cfg), &c), nil
}

// sentencePairs returns the sentence pairs of a and b whose word sets have
// Jaccard >= cfg.Tau, in (A, B) order, scored as the join writes them (4
// decimals), with their evidence. Sentences with fewer than cfg.MinTokens
// tokens, and those that are not content, are left out.
func sentencePairs(a, b doc.Analysis, cfg jobconf.Config) []Pair {
	tau, minTokens := cfg.Tau, cfg.MinTokens
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
	var pairs []Pair
	for i, x := range sa {
		if x == nil {
			continue
		}
		for j, y := range sb {
			if y == nil || !signature.LengthOK(min(len(x), len(y)), max(len(x), len(y)), tau) {
				continue
			}
			shared := signature.Overlap(x, y)
			jac := signature.Jaccard(shared, len(x), len(y))
			if !signature.AtLeast(jac, tau) {
				continue
			}
			pairs = append(pairs, Pair{A: i, B: j, Score: math.Round(jac*10000) / 10000,
				CSA: a.Sentences[i].Start, CEA: a.Sentences[i].End, CSB: b.Sentences[j].Start, CEB: b.Sentences[j].End,
				Evidence: Evidence(cfg, shared, len(x), len(y))})
		}
	}
	return pairs
}
