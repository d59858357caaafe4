package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// Pair kinds. Sources are input documents only in a run with -sources.
const (
	pagePage     = "page-page"     // two pages
	ownSource    = "own-source"    // a page and its own source: expected
	sourceSource = "source-source" // two sources
	pageSource   = "page-source"   // a page and another page's source
)

// Classes of page pairs.
const (
	silverClass   = "silver"        // a silver pair
	templateClass = "template-only" // no passage of any span lies in its page's source
	contentClass  = "content"       // content reuse, not silver
)

// result is one reported document pair.
type result struct {
	pair
	kind, class string // class for page pairs only
	spans       []*scored
}

// report is the outcome of a score run.
type report struct {
	pages, withSource, unresolved int // pages, those with a source, sources with unresolved includes
	srcs                          map[string]*source
	silver                        map[pair]string
	results                       []*result // in spans order
}

// evaluate builds the silver standard and classifies the reported pairs.
func evaluate(c config) (*report, error) {
	ps, err := pages(c.root)
	if err != nil {
		return nil, fmt.Errorf("list pages: %w", err)
	}
	srcs, err := loadSources(c.root, ps, c.includes)
	if err != nil {
		return nil, err
	}
	if c.others != "" {
		n, err := loadOthers(srcs, c.others)
		if err != nil {
			return nil, err
		}
		ps = append(ps, n...)
	}
	r := &report{pages: len(ps), withSource: len(srcs), srcs: srcs, silver: silverPairs(srcs, c.run, c.minTokens)}
	for _, s := range srcs {
		if s.unresolved > 0 {
			r.unresolved++
		}
	}
	spans, err := readSpans(c.spans)
	if err != nil {
		return nil, err
	}
	classifyPassages(spans, srcs, c)
	byPair := map[pair]*result{}
	for _, s := range spans {
		p := newPair(s.DocA, s.DocB)
		if byPair[p] == nil {
			byPair[p] = &result{pair: p, kind: pairKind(p.a, p.b)}
			r.results = append(r.results, byPair[p])
		}
		byPair[p].spans = append(byPair[p].spans, s)
	}
	for _, res := range r.results {
		if res.kind == pagePage {
			res.class = r.classify(res)
		}
	}
	return r, nil
}

// pairKind is the kind of the pair of documents a and b.
func pairKind(a, b string) string {
	pa, pb := pageOf(a), pageOf(b)
	switch {
	case pa == "" && pb == "":
		return pagePage
	case pa != "" && pb != "":
		return sourceSource
	case pa == b || pb == a:
		return ownSource
	}
	return pageSource
}

// classify is the class of a page pair.
func (r *report) classify(res *result) string {
	if _, ok := r.silver[res.pair]; ok {
		return silverClass
	}
	for _, s := range res.spans {
		if s.content() {
			return contentClass
		}
	}
	return templateClass
}

// counts are the report's numbers.
type counts struct {
	silverFound, silverContent    int            // silver pairs reported; with a content span
	byKind, byClass               map[string]int // reported pairs
	spans, templateSpans          int            // spans of page pairs
	templateNoSource, templateInc int            // template-only pairs with a page without source / with unresolved includes
	sourceSilver                  int            // source pairs that are silver pairs
	contentBySource               int            // content page pairs whose sources are reported too
	unpaired                      []string       // pages with a source not reported with it
	missed                        []pair         // silver pairs not reported
	otherSilver, otherFound       int            // silver pairs with another site's page (prepare -others); reported
	otherPairs, otherTemplate     int            // reported page pairs with another site's page; template-only
}

// count computes the numbers.
func (r *report) count() counts {
	c := counts{byKind: map[string]int{}, byClass: map[string]int{}}
	reported := map[pair]bool{}
	for _, res := range r.results {
		reported[res.pair] = true
	}
	for _, res := range r.results {
		c.byKind[res.kind]++
		if res.class == contentClass && reported[newPair(sourceID(res.a), sourceID(res.b))] {
			c.contentBySource++
		}
		if res.kind == sourceSource {
			if _, ok := r.silver[newPair(pageOf(res.a), pageOf(res.b))]; ok {
				c.sourceSilver++
			}
		}
		if res.kind != pagePage {
			continue
		}
		c.byClass[res.class]++
		r.countPair(&c, res)
		if isOther(res.a) || isOther(res.b) {
			c.otherPairs++
			if res.class == templateClass {
				c.otherTemplate++
			}
		}
	}
	for _, p := range slices.SortedFunc(mapKeys(r.silver), comparePairs) {
		if !reported[p] {
			c.missed = append(c.missed, p)
		}
		if isOther(p.a) || isOther(p.b) {
			c.otherSilver++
			if reported[p] {
				c.otherFound++
			}
		}
	}
	for _, p := range sortedPages(r.srcs) {
		if !reported[newPair(p, sourceID(p))] {
			c.unpaired = append(c.unpaired, p)
		}
	}
	return c
}

// countPair adds one page pair's numbers to c.
func (r *report) countPair(c *counts, res *result) {
	content := false
	for _, s := range res.spans {
		c.spans++
		if s.content() {
			content = true
		} else {
			c.templateSpans++
		}
	}
	switch res.class {
	case silverClass:
		c.silverFound++
		if content {
			c.silverContent++
		}
	case templateClass:
		sa, sb := r.srcs[res.a], r.srcs[res.b]
		if sa == nil || sb == nil {
			c.templateNoSource++
		} else if sa.unresolved > 0 || sb.unresolved > 0 {
			c.templateInc++
		}
	}
}

// ratio is n/d, 0 when d is 0.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// print writes the report.
func (r *report) print(w io.Writer) error {
	c := r.count()
	var b strings.Builder
	f := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	f("pages                          %d (%d with a source, %d of them with unresolved includes)", r.pages, r.withSource, r.unresolved)
	f("silver pairs                   %d", len(r.silver))
	f("silver pairs found             %d  recall %.4f", c.silverFound, ratio(c.silverFound, len(r.silver)))
	f("  with a content span          %d  recall %.4f", c.silverContent, ratio(c.silverContent, len(r.silver)))
	pp := c.byKind[pagePage]
	f("reported page pairs            %d", pp)
	f("  silver                       %d", c.byClass[silverClass])
	f("  content, not silver          %d", c.byClass[contentClass])
	f("  template-only                %d  share %.4f", c.byClass[templateClass], ratio(c.byClass[templateClass], pp))
	f("    with a page without source %d", c.templateNoSource)
	f("    with unresolved includes   %d", c.templateInc)
	if c.otherSilver+c.otherPairs > 0 {
		f("other sites' pages (-others)")
		f("  silver pairs                 %d, found %d", c.otherSilver, c.otherFound)
		f("  reported pairs               %d, template-only %d", c.otherPairs, c.otherTemplate)
	}
	f("spans of page pairs            %d", c.spans)
	f("  template-only spans          %d  share %.4f", c.templateSpans, ratio(c.templateSpans, c.spans))
	if n := c.byKind[ownSource] + c.byKind[sourceSource] + c.byKind[pageSource]; n > 0 {
		f("page <-> own source pairs      %d of %d pages with a source", c.byKind[ownSource], r.withSource)
		f("source <-> source pairs        %d (%d silver: %.4f of silver pairs)", c.byKind[sourceSource], c.sourceSilver, ratio(c.sourceSilver, len(r.silver)))
		f("page <-> other source pairs    %d", c.byKind[pageSource])
		f("content page pairs whose sources are paired too %d of %d", c.contentBySource, c.byClass[contentClass])
		f("pages not paired with their source: %s", strings.Join(c.unpaired[:min(len(c.unpaired), 20)], " "))
	}
	f("\ntop template-only passages (spans of page pairs; first 80 characters of text_a):")
	for _, t := range r.topTemplates(20) {
		f("%6d  %s", t.n, t.text)
	}
	f("\npages in the most template-only pairs:")
	for _, t := range r.templatePages(10) {
		f("%6d  %s", t.n, t.text)
	}
	f("\nmost frequent silver runs (first run of each pair, first 100 characters):")
	for _, t := range r.topSilver(10) {
		f("%6d  %s", t.n, t.text)
	}
	f("\nsilver pairs missed: %d", len(c.missed))
	for _, p := range c.missed[:min(len(c.missed), 10)] {
		f("  %s  %s  run: %s", p.a, p.b, clip(r.silver[p], 160))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// counted is a passage and its count.
type counted struct {
	text string
	n    int
}

// topTemplates returns the n most frequent template-only span passages.
func (r *report) topTemplates(n int) []counted {
	freq := map[string]int{}
	for _, res := range r.results {
		if res.kind != pagePage {
			continue
		}
		for _, s := range res.spans {
			if !s.content() {
				freq[clip(*s.TextA, 80)]++
			}
		}
	}
	return top(freq, n)
}

// templatePages returns the n pages in the most template-only pairs.
func (r *report) templatePages(n int) []counted {
	freq := map[string]int{}
	for _, res := range r.results {
		if res.class == templateClass {
			freq[res.a]++
			freq[res.b]++
		}
	}
	return top(freq, n)
}

// topSilver returns the n most frequent silver runs (each pair's first).
func (r *report) topSilver(n int) []counted {
	freq := map[string]int{}
	for _, run := range r.silver {
		freq[clip(run, 100)]++
	}
	return top(freq, n)
}

// top returns the n most frequent entries of freq, ties in text order.
func top(freq map[string]int, n int) []counted {
	var out []counted
	for t, k := range freq {
		out = append(out, counted{t, k})
	}
	slices.SortFunc(out, func(x, y counted) int { return cmp.Or(y.n-x.n, strings.Compare(x.text, y.text)) })
	return out[:min(len(out), n)]
}

// check returns an error unless the targets hold.
func (r *report) check(c config) error {
	k := r.count()
	recall := ratio(k.silverFound, len(r.silver))
	share := ratio(k.byClass[templateClass], k.byKind[pagePage])
	if recall < c.minRecall || share > c.maxShare {
		return fmt.Errorf("targets not met: recall %.4f (want >= %.2f), template-only share %.4f (want <= %.2f)",
			recall, c.minRecall, share, c.maxShare)
	}
	return nil
}

// clip collapses whitespace and keeps the first n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// sentences is text with its sentences (lib/sentence) separated by " | ".
func sentences(text string) string {
	var parts []string
	for _, sp := range sentence.Split(nil, text) {
		parts = append(parts, text[sp.ByteStart:sp.ByteEnd])
	}
	return strings.Join(parts, " | ")
}

// comparePairs orders pairs.
func comparePairs(x, y pair) int { return cmp.Or(strings.Compare(x.a, y.a), strings.Compare(x.b, y.b)) }

// mapKeys iterates over the keys of m.
func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// writeSample writes up to n page pairs for hand-checking: about as many
// of each class, evenly spaced in spans order, each with up to 3 spans.
func (r *report) writeSample(name string, n int) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	sample := r.sample(n)
	for i, res := range sample {
		fmt.Fprintf(w, "== %d/%d %s: %s  %s  (%d spans)\n", i+1, len(sample), res.class, res.a, res.b, len(res.spans))
		if run, ok := r.silver[res.pair]; ok {
			fmt.Fprintf(w, "silver run: %s\n", clip(run, 300))
		}
		for _, s := range res.spans[:min(len(res.spans), 3)] {
			fmt.Fprintf(w, "-- sentences %d / %d, %d pairs, score %.4f, content share A %.2f B %.2f\n",
				s.StartA, s.StartB, s.Length, s.Score, s.shareA, s.shareB)
			fmt.Fprintf(w, "A: %s\nB: %s\n", clip(sentences(*s.TextA), 600), clip(sentences(*s.TextB), 600))
		}
		fmt.Fprintln(w)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}

// sample picks up to n page pairs, the classes sharing n as evenly as
// their sizes allow (smallest class first).
func (r *report) sample(n int) []*result {
	by := map[string][]*result{}
	for _, res := range r.results {
		if res.kind == pagePage {
			by[res.class] = append(by[res.class], res)
		}
	}
	classes := []string{templateClass, contentClass, silverClass}
	slices.SortStableFunc(classes, func(x, y string) int { return len(by[x]) - len(by[y]) })
	var out []*result
	left := n
	for i, cl := range classes {
		q := min(len(by[cl]), left/(len(classes)-i))
		for j := range q {
			out = append(out, by[cl][j*len(by[cl])/q])
		}
		left -= q
	}
	return out
}

// isOther reports whether id is another site's page (prepare -others).
func isOther(id string) bool { return strings.HasPrefix(id, "others/") }
