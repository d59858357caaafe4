// Package report writes the HTML report of a pdc run: a static site that
// opens from disk (no server, no network, no script):
//
//	DIR/index.html         the run: documents read and skipped by reason,
//	                       spans and pairs, time per job, parameters;
//	                       histograms of span length and score; the top
//	                       document pairs (those with the most characters
//	                       in spans), by their shared characters and
//	                       containment as pdc pairs measures them (over
//	                       the documents' content, span.MeasureContent),
//	                       each with its first passage; the top
//	                       boilerplate signatures
//	DIR/pair-NNNN.html     one top pair side by side (lib/sidebyside): a
//	                       row per matched sentence pair, so that a span's
//	                       two passages start on one row; the text between
//	                       spans folded, expandable without script
//	DIR/style.css          the style sheet
//
// Every string from the documents (ids, URLs, text) goes through
// html/template, escaped for where it appears; links to documents are
// kept only for http and https URLs; each page forbids scripts, plugins
// and remote content with a Content-Security-Policy. Sizes are bounded:
// Options.TopPairs pair pages, Options.MaxText characters of each folded
// stretch in a pair view, and the number of what is left out is shown.
package report

import (
	"cmp"
	"container/heap"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/span"
)

// Generator is the generator named by every page (<meta name=generator>):
// pdc report replaces only a directory whose index.html names it.
const Generator = "pdc report"

// Options bound the report.
type Options struct {
	// TopPairs is the number of document pairs listed and given a page.
	TopPairs int
	// TopBoilerplate is the number of boilerplate signatures listed.
	TopBoilerplate int
	// MaxText is the number of characters of each stretch between spans
	// shown in a pair view (the spans are always shown whole).
	MaxText int
	// TopClusters is the number of passage clusters listed (runs with
	// --clusters).
	TopClusters int
}

// DefaultOptions are the defaults of pdc report.
func DefaultOptions() Options {
	return Options{TopPairs: 100, TopBoilerplate: 50, MaxText: 20_000, TopClusters: 50}
}

// Run is what the report shows of a run.
type Run struct {
	Out      string           // the run's output directory, as named
	Counters map[string]int64 // OUT/counters.tsv
	Jobs     []Job            // OUT/jobs.tsv
	Params   []Param          // the run's parameters (OUT/_pdc.json)
	Inputs   []string
	// Against are the stored runs a batch run ran against (pdc run
	// --against), oldest first; nil for a run of its own.
	Against []string
	// Boilerplate are OUT/boilerplate.tsv's rows, most frequent first.
	Boilerplate []Boilerplate
	// Clusters are the run's largest passage clusters, largest first, at
	// least those listed (nil: the run has none, made without --clusters),
	// and ClusterCount the number of all of them.
	Clusters     []cluster.Cluster
	ClusterCount int
}

// ListedClusters returns the clusters the report lists: the first
// TopClusters.
func (o Options) ListedClusters(cs []cluster.Cluster) []cluster.Cluster {
	return cs[:min(o.TopClusters, len(cs))]
}

// ListedBoilerplate returns the boilerplate rows the report lists: the
// first TopBoilerplate, and the ids of the example documents (unescaped)
// of those without text, whose texts the report reads.
func (o Options) ListedBoilerplate(rows []Boilerplate) ([]Boilerplate, []string) {
	rows = rows[:min(o.TopBoilerplate, len(rows))]
	var ids []string
	for _, r := range rows {
		if id, err := mr.Unescape(r.Doc); err == nil && r.Text == "" {
			ids = append(ids, id)
		}
	}
	return rows, ids
}

// Job is one job of the run.
type Job struct {
	Name    string
	Seconds float64 // < 0: finished in an earlier run
	ID      string
}

// Param is one parameter of the run.
type Param struct{ Name, Value string }

// Boilerplate is a row of OUT/boilerplate.tsv (lib/boilerplate); its Text
// is the file's, or, for a file without texts, read from its document
// ("" when that was not read).
type Boilerplate struct {
	boilerplate.Row
}

// Pair is a document pair with its spans (span.Pairs).
type Pair = span.DocPair

// Pairs groups spans (in span.Compare order) by document pair.
func Pairs(spans []span.Span) []Pair { return span.Pairs(spans) }

// Doc is the text and URL of a document shown in a pair view.
type Doc struct {
	Text string
	URL  string
	// Content is what containment is measured over (lib/span Content).
	Content span.Content
	// Sentences are the document's sentences (lib/dedup Sentences), which
	// the pair view lines up.
	Sentences []dedup.Sentence
}

// Top returns the n pairs that share the most characters (ties by ids).
func Top(pairs []Pair, n int) []Pair {
	t := NewTally(n)
	for _, p := range pairs {
		t.Add(p)
	}
	return t.Top()
}

// A Tally gathers, one document pair at a time, what the index page says
// of all of a run's pairs: their number, the histograms of their spans'
// lengths and scores, and the n pairs that share the most characters
// (Top). It holds those n pairs, never the others.
type Tally struct {
	n, pairs        int
	top             topHeap
	lengths, scores []int // histogram counts over lengthBounds, scoreBounds
}

// NewTally returns a Tally that keeps the top n pairs.
func NewTally(n int) *Tally {
	return &Tally{n: n, lengths: make([]int, len(lengthBounds)+1), scores: make([]int, len(scoreBounds)+1)}
}

// Add counts p.
func (t *Tally) Add(p Pair) {
	t.pairs++
	for _, s := range p.Spans {
		t.lengths[bin(lengthBounds, float64(s.Length))]++
		t.scores[bin(scoreBounds, s.Score)]++
	}
	switch {
	case t.n == 0:
	case len(t.top) < t.n:
		heap.Push(&t.top, p)
	case rank(p, t.top[0]) < 0:
		t.top[0] = p
		heap.Fix(&t.top, 0)
	}
}

// Pairs returns the number of pairs added.
func (t *Tally) Pairs() int { return t.pairs }

// Top returns the n pairs added that share the most characters (ties by
// ids), best first.
func (t *Tally) Top() []Pair {
	top := slices.Clone([]Pair(t.top))
	slices.SortFunc(top, rank)
	return top
}

// rank orders pairs by the characters they share, most first (ties: by
// ids).
func rank(x, y Pair) int {
	return cmp.Or(cmp.Compare(y.SharedA+y.SharedB, x.SharedA+x.SharedB), strings.Compare(x.A, y.A), strings.Compare(x.B, y.B))
}

// topHeap holds the best pairs, the worst of them first.
type topHeap []Pair

func (h topHeap) Len() int           { return len(h) }
func (h topHeap) Less(i, j int) bool { return rank(h[j], h[i]) < 0 }
func (h topHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)        { *h = append(*h, x.(Pair)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Site is a report being written: files are created with Create.
type Site struct {
	Create func(name string) (io.WriteCloser, error)
	Opts   Options
	// Generated is the time shown on the pages.
	Generated time.Time
}

// Write writes the report of run: index.html, style.css, and one page per
// pair of t's top (with the documents' texts from docs, by id; a document
// missing there is shown without text); t has every document pair of the
// run.
func (s *Site) Write(run Run, t *Tally, docs map[string]Doc) error {
	top := t.Top()
	// The characters shared as pdc pairs counts them, with the containment
	// the index shows: over the documents' content, not the spans alone.
	for i, p := range top {
		da, oka := docs[p.A]
		db, okb := docs[p.B]
		if oka && okb {
			_, top[i].SharedA, top[i].SharedB = p.MeasureContent(da.Content, db.Content, 0, false)
		}
	}
	slices.SortFunc(top, rank)
	if err := s.file("style.css", func(w io.Writer) error { _, err := io.WriteString(w, styleCSS); return err }); err != nil {
		return err
	}
	idx := s.index(run, t, top, docs)
	if err := s.file("index.html", func(w io.Writer) error { return pages.ExecuteTemplate(w, "index", idx) }); err != nil {
		return err
	}
	for i, p := range top {
		view := s.pairView(i, p, docs)
		if err := s.file(pairPage(i), func(w io.Writer) error { return pages.ExecuteTemplate(w, "pair", view) }); err != nil {
			return err
		}
	}
	return nil
}

func (s *Site) file(name string, write func(io.Writer) error) error {
	w, err := s.Create(name)
	if err != nil {
		return fmt.Errorf("report %s: %w", name, err)
	}
	err = write(w)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("report %s: %w", name, err)
	}
	return nil
}

func pairPage(i int) string { return fmt.Sprintf("pair-%04d.html", i+1) }

// safeURL returns u when it is an absolute http or https URL, else "".
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return u
}

// clip returns s cut to at most n runes, with "…" when cut.
func clip(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
