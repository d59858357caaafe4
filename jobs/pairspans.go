package jobs

// pdc spans OUT --pair A B: the spans of two documents matched alone, with
// the run's parameters (lib/matcher PairSpans). Inside a passage cluster
// whose sentences were joined through hubs (--hub-df), two copies are
// linked to their hub, not to each other; this finds what a pairwise run
// would have found between them.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/matcher"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
	"github.com/pdc-mr/pdc/lib/span"
	"github.com/pdc-mr/pdc/lib/spanfile"
)

func (m *Main) printPairSpans(r *runOutput, a, b string, o spanOptions) error {
	spans, docs, err := m.pairSpans(r, a, b, o.inputs)
	if err != nil {
		return fmt.Errorf("spans --pair: %w", err)
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

// pairSpans returns the spans of documents a and b of run r found by
// matching the two alone with the run's parameters, and the two
// documents' analyses.
func (m *Main) pairSpans(r *runOutput, a, b string, inputs docRuns) ([]span.Span, map[string]doc.Analysis, error) {
	if a == b {
		return nil, nil, usagef("two different documents are needed")
	}
	cfg, err := r.Config()
	if err != nil {
		return nil, nil, fmt.Errorf("the run's parameters: %w", err)
	}
	if cfg.Signature.Method != signature.Words {
		return nil, nil, fmt.Errorf("the run used --signature %s; matching two documents alone needs word sets (--signature words)", cfg.Signature.Method)
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
			return nil, nil, fmt.Errorf("document %q is not among the documents read (%s): give an id of the run (pdc pairs OUT lists its pairs)", id, inputs)
		}
	}
	spans, err := matcher.PairSpans(cfg, a, b, docs[a], docs[b])
	if err != nil {
		return nil, nil, err
	}
	return spans, docs, nil
}

// analyzeDocs analyzes the documents in need (the first of each id).
func (m *Main) analyzeDocs(need map[string]bool, inputs docRuns, an *doc.Analyzer) (map[string]doc.Analysis, error) {
	in, err := m.findDocs(inputs)
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
