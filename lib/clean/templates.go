package clean

import (
	"runtime"
	"strings"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/sitetemplate"
)

// Templates is what pdc dedup --templates cuts: the template sentences
// of each document's site (lib/sitetemplate), counted over every document
// of the run.
type Templates struct {
	counter   *sitetemplate.Counter
	layout    bool // a page's layout is its site (--site-from)
	minTokens int
}

// CountTemplates reads every document of in (the first of each id, as the
// run read them) and counts its sentences by site for cfg's
// --max-site-df.
func CountTemplates(in *input.Set, read input.Options, an *doc.Analyzer, cfg jobconf.Config) (*Templates, error) {
	t := &Templates{counter: sitetemplate.NewCounter(cfg.MaxSiteDF, cfg.MinTokens), layout: jobconf.LayoutSites(cfg.SiteFrom), minTokens: cfg.MinTokens}
	all := func(string) bool { return true }
	process := func(c *document, wk *worker) {
		if a, err := wk.an.Analyze(&c.d); err == nil {
			c.site, c.sents = t.site(&c.d, &a), cloneSentences(a.Sentences) // the analyzer reuses its own
		}
		c.d.HTML, c.d.Text = "", ""
	}
	_, _, err := ordered(in, read, runtime.GOMAXPROCS(0), an, all, false, process, func(c *document) error {
		t.counter.Add(c.d.ID, c.site, c.sents)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// site is the site of document d, analysed as a, as the run took it.
func (t *Templates) site(d *doc.Doc, a *doc.Analysis) string {
	v, _ := doc.URLField(d, a, t.layout)
	return sitetemplate.SiteOf(v)
}

// blocks returns the template blocks of document d, analysed as a.
func (t *Templates) blocks(d *doc.Doc, a *doc.Analysis) []dedup.Range {
	site := t.site(d, a)
	return sitetemplate.Blocks(a.Sentences, t.counter.Templates(site, a.Sentences), t.minTokens)
}

// cloneSentences copies ss and their tokens (into one slice).
func cloneSentences(ss []doc.Sentence) []doc.Sentence {
	n := 0
	for _, s := range ss {
		n += len(s.Tokens)
	}
	toks := make([]uint64, 0, n)
	out := make([]doc.Sentence, len(ss))
	for i, s := range ss {
		toks = append(toks, s.Tokens...)
		out[i] = doc.Sentence{Start: s.Start, End: s.End, Tokens: toks[len(toks)-len(s.Tokens):], NotContent: s.NotContent}
	}
	return out
}

// TextLengths returns the length in characters of the extracted text
// of the documents in need (the first of each id).
func TextLengths(in *input.Set, need map[string]bool, an *doc.Analyzer) (map[string]int, error) {
	lengths := map[string]int{}
	_, err := in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		if _, seen := lengths[d.ID]; seen || !need[d.ID] {
			return nil
		}
		a, err := an.Analyze(d)
		if err != nil {
			return nil // left out, as the run does; Write says so
		}
		lengths[strings.Clone(d.ID)] = len([]rune(a.Text))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return lengths, nil
}
