package jobs

// pdc pairs OUT: the document pairs of a run with how much of each
// document they share. Output (tsv), one line per pair, sorted as spans
// are:
//
//	doc_a TAB doc_b TAB spans TAB shared_a TAB shared_b TAB len_a TAB len_b TAB contain_a TAB contain_b TAB resemblance TAB thin
//
// Everything is measured over the documents' content (lib/span Content:
// their content sentences, not navigation, markup templates or sentences
// under the run's --min-tokens, which no span can match): len_* are the
// characters of each document's content, shared_* those of it inside
// some span, contain_a = shared_a / len_a (how much of A is in B),
// resemblance = (shared_a + shared_b) / (len_a + len_b) (lib/span
// Measures), to 4 decimals. thin names the documents with fewer content
// sentences than the run's --lambda, too little to judge: a, b, ab, or -
// for none. Exact copies (OUT/copies.tsv, lib/copies: the same content
// sentences) are listed, each with its group's first document, and share
// their whole content: containment 1 both ways. With --groups, the
// documents that are near-copies of each other (contain_a and contain_b
// both >= --copy, 0.9 by default, neither thin) are printed instead, one
// group per line: `size TAB doc TAB doc ...`, largest first.

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/copies"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/span"
)

// pairRow is one line of pdc pairs (JSON names in --format jsonl).
type pairRow struct {
	DocA        string  `json:"doc_a"`
	DocB        string  `json:"doc_b"`
	Spans       int     `json:"spans"`
	SharedA     int     `json:"shared_a"`
	SharedB     int     `json:"shared_b"`
	LenA        int     `json:"len_a"`
	LenB        int     `json:"len_b"`
	ContainA    float64 `json:"contain_a"`
	ContainB    float64 `json:"contain_b"`
	Resemblance float64 `json:"resemblance"`
	Thin        string  `json:"thin,omitempty"`
}

func (m *Main) pairsCmd(ctx context.Context, args []string) error {
	var inputs, docs listFlag
	format, minContain, copyAt := "tsv", 0.0, 0.9
	var header, groups, expand bool
	fs := m.newFlagSet("pairs", "OUT [--doc ID] [--min-containment X] [--groups] [--expand] [--format tsv|jsonl] [--input DOCS]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.StringVar(&format, "format", format, "output format: tsv or jsonl")
	fs.BoolVar(&header, "header", false, "tsv: start with a line naming the columns")
	fs.Float64Var(&minContain, "min-containment", minContain, "only pairs where one document is contained in the other at least this much (0 to 1)")
	fs.BoolVar(&groups, "groups", false, "print groups of near-copies (contained in each other at least --copy both ways) instead of pairs")
	fs.Float64Var(&copyAt, "copy", copyAt, "with --groups: the containment, both ways, of near-copies")
	fs.BoolVar(&expand, "expand", false, "also list every pair of documents that share a passage cluster (a run with --clusters), not only those linked by spans: quadratic in a cluster's size")
	fs.Var(&inputs, "input", "the run's documents, for their lengths (default: the run's inputs); repeatable")
	fs.Var(&docs, "doc", "only the pairs of the document with this `id`; repeatable")
	sortBy := fs.String("sort", "pair", "order of the pairs: pair (by document ids, as spans), containment (the larger of contain_a and contain_b, highest first), resemblance or shared (shared_a + shared_b, most first); any but pair holds every row in memory")
	fs.notes = pairsColumns
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("pairs: want exactly one run output directory")
	case format != "tsv" && format != "jsonl":
		return usagef("pairs: unknown --format %q (want tsv or jsonl)", format)
	case minContain < 0 || minContain > 1 || copyAt < 0 || copyAt > 1:
		return usagef("pairs: --min-containment and --copy must be between 0 and 1")
	case header && format != "tsv":
		return usagef("pairs: --header is for --format tsv")
	case !slices.Contains([]string{"pair", "containment", "resemblance", "shared"}, *sortBy):
		return usagef("pairs: --sort must be pair, containment, resemblance or shared, got %q", *sortBy)
	case groups && *sortBy != "pair":
		return usagef("pairs: --groups are printed largest first; leave out --sort")
	}
	out := fs.Arg(0)
	fsys, dir, err := hdfsfs.Resolve(out, m.isRemote(out))
	if err != nil {
		return fmt.Errorf("pairs %s: %w", out, err)
	}
	r, err := m.openRunDir("pairs", out)
	if err != nil {
		return err
	}
	rfs, root := r.FS, r.Dir
	cps, err := copies.Read(rfs, root)
	if err != nil {
		return fmt.Errorf("pairs: %w", err)
	}
	var only map[string]bool
	if len(docs) > 0 {
		only = map[string]bool{}
		for _, d := range docs {
			only[d] = true
		}
	}
	need, err := neededDocs(fsys, dir, cps, only)
	if err != nil {
		return err
	}
	for d := range only {
		need[d] = true // read, so that an id that is no document of the run is an error
	}
	// With --expand, the clusters are read one at a time into an
	// Expander, which holds their members' documents and ranges only.
	var row func(span.DocPair) error // set below
	var ex *cluster.Expander
	if expand {
		ex = cluster.NewExpander(nil, only, func(p span.DocPair) error { return row(p) })
		err := cluster.Each(rfs, root+"/clusters", func(c cluster.Cluster) error {
			if only == nil || slices.ContainsFunc(c.Members, func(m cluster.Member) bool { return only[m.Doc] }) {
				for _, m := range c.Members {
					need[m.Doc] = true
				}
			}
			ex.AddCluster(c)
			return nil
		})
		if err != nil {
			return fmt.Errorf("pairs --expand: %w", err)
		}
	}
	contents, err := m.docContents(ctx, append([]string{"pairs"}, args...), r, need, inputs)
	if err != nil {
		return err
	}
	cfg := r.ConfigOrDefault()
	w := bufio.NewWriter(m.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var rows []pairRow // for --sort other than pair
	var near [][2]string
	if format == "tsv" && header && !groups {
		w.WriteString("#doc_a\tdoc_b\tspans\tshared_a\tshared_b\tlen_a\tlen_b\tcontain_a\tcontain_b\tresemblance\tthin\n")
	}
	var exact map[[2]string]bool // set below, before the first row
	paired := map[string]bool{}  // the --doc documents in a pair
	row = func(p span.DocPair) error {
		if only != nil {
			paired[p.A], paired[p.B] = paired[p.A] || only[p.A], paired[p.B] || only[p.B]
		}
		ms, sa, sb := p.MeasureContent(contents[p.A], contents[p.B], cfg.Lambda, exact[[2]string{p.A, p.B}])
		if max(ms.ContainA, ms.ContainB) < minContain {
			return nil
		}
		thin := ""
		if ms.ThinA {
			thin += "a"
		}
		if ms.ThinB {
			thin += "b"
		}
		r := pairRow{DocA: p.A, DocB: p.B, Spans: len(p.Spans), SharedA: sa, SharedB: sb,
			LenA: ms.LenA, LenB: ms.LenB, ContainA: round4(ms.ContainA), ContainB: round4(ms.ContainB), Resemblance: round4(ms.Resemblance), Thin: thin}
		switch {
		case groups:
			if r.ContainA >= copyAt && r.ContainB >= copyAt && r.Thin == "" {
				near = append(near, [2]string{r.DocA, r.DocB})
			}
			return nil
		case *sortBy != "pair":
			rows = append(rows, r)
			return nil
		}
		return writePair(w, enc, r, format)
	}
	// The pairs are streamed (span.StreamPairs) through the copies' pairs
	// (copies.Merger) and, with --expand, the clusters' (cluster.Expander):
	// none of them holds the pairs.
	sink, done := func(p span.DocPair) error {
		if only != nil && !only[p.A] && !only[p.B] {
			return nil
		}
		return row(p)
	}, func() error { return nil }
	if expand {
		sink, done = ex.Add, ex.Close
	}
	merger := copies.NewMerger(cps, sink)
	exact = merger.Exact()
	err = span.StreamPairs(fsys, dir, merger.Add)
	if err == nil {
		err = merger.Close()
	}
	if err == nil {
		err = done()
	}
	if err == nil {
		switch {
		case groups:
			err = writeGroups(w, near)
		case *sortBy != "pair":
			sortRows(rows, *sortBy)
			for _, r := range rows {
				if err = writePair(w, enc, r, format); err != nil {
					break
				}
			}
		}
	}
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write: %w", ferr)
	}
	if err == nil {
		for _, d := range docs {
			if !paired[d] {
				fmt.Fprintf(m.Stderr, "pdc pairs: document %s of the run has no pair: no span, exact copy%s\n",
					mr.Escape(d), map[bool]string{true: " or shared cluster", false: ""}[expand])
			}
		}
	}
	return err
}

// neededDocs returns the documents whose contents pdc pairs measures: those
// of the span pairs of the spans directory dir and of the exact copies cps;
// with only, just those of the pairs of a document in only.
func neededDocs(fsys hdfsfs.FS, dir string, cps []copies.Copy, only map[string]bool) (map[string]bool, error) {
	need := map[string]bool{}
	add := func(a, b string) {
		if only == nil || only[a] || only[b] {
			need[a], need[b] = true, true
		}
	}
	err := span.StreamPairs(fsys, dir, func(p span.DocPair) error {
		add(p.A, p.B)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range cps {
		add(c.Doc, c.Of)
	}
	return need, nil
}

// pairsColumns is what pdc pairs --help says of its output.
const pairsColumns = `Columns (tsv; the same names in jsonl; measured over the documents' content sentences):
  doc_a, doc_b        the documents (doc_a < doc_b, as spans name them)
  spans               spans between them (0: an exact copy or, with --expand, a shared cluster only)
  shared_a, shared_b  characters of each document's content inside some span (or shared member),
                      or in the same sentences next to a span on both sides, in order (a site
                      template the spans left out, which two copies share all the same)
  len_a, len_b        characters of each document's content
  contain_a           shared_a / len_a: how much of A is in B (contain_b likewise)
  resemblance         (shared_a + shared_b) / (len_a + len_b)
  thin                a, b, ab or -: documents with fewer than --lambda content sentences
--groups prints "size TAB doc TAB doc ..." per group of near-copies, largest first.
`

// sortRows orders rows by --sort: pair leaves them in span order; the
// others put the highest first, ties in span order.
func sortRows(rows []pairRow, by string) {
	key := func(r pairRow) float64 {
		switch by {
		case "containment":
			return max(r.ContainA, r.ContainB)
		case "resemblance":
			return r.Resemblance
		case "shared":
			return float64(r.SharedA + r.SharedB)
		}
		return 0
	}
	if by == "pair" {
		return
	}
	slices.SortStableFunc(rows, func(a, b pairRow) int { return cmp.Compare(key(b), key(a)) })
}

func round4(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

// docContents returns the content (lib/span Content) of every document of
// need, read from inputs (default: run r's) and analysed as the run did.
func (m *Main) docContents(ctx context.Context, cmdline []string, r *runOutput, need map[string]bool, given []string) (map[string]span.Content, error) {
	if len(need) == 0 {
		return nil, nil
	}
	inputs, err := m.docsOf(r, given, "pairs")
	if err != nil {
		return nil, fmt.Errorf("pairs: the documents' lengths need the run's documents: %w", err)
	}
	an, err := r.Analyzer(ctx, cmdline)
	if err != nil {
		return nil, err
	}
	minTokens := r.ConfigOrDefault().MinTokens
	contents := map[string]span.Content{}
	err = m.analyzeNeeded(need, inputs, an, func(d *doc.Doc, a doc.Analysis) {
		contents[strings.Clone(d.ID)] = span.ContentOf(a, minTokens)
	})
	if err != nil {
		return nil, fmt.Errorf("pairs: read the documents (give them with --input): %w", err)
	}
	for id := range need {
		if _, ok := contents[id]; !ok {
			return nil, fmt.Errorf("pairs: document %q is not in the run's documents %s (give them with --input)", id, inputs)
		}
	}
	return contents, nil
}

// writePair writes one row of pdc pairs in format (jsonl through enc, on
// w).
func writePair(w *bufio.Writer, enc *json.Encoder, r pairRow, format string) error {
	if format == "jsonl" {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	thin := r.Thin
	if thin == "" {
		thin = "-"
	}
	_, err := fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t%s\n", mr.Escape(r.DocA), mr.Escape(r.DocB), r.Spans,
		r.SharedA, r.SharedB, r.LenA, r.LenB, r.ContainA, r.ContainB, r.Resemblance, thin)
	return err
}

// writeGroups prints the connected components of near, the pairs of
// near-copies.
func writeGroups(w *bufio.Writer, near [][2]string) error {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	add := func(x string) {
		if _, ok := parent[x]; !ok {
			parent[x] = x
		}
	}
	for _, r := range near {
		add(r[0])
		add(r[1])
		ra, rb := find(r[0]), find(r[1])
		if ra != rb {
			parent[max(ra, rb)] = min(ra, rb)
		}
	}
	members := map[string][]string{}
	for x := range parent {
		root := find(x)
		members[root] = append(members[root], x)
	}
	var groups [][]string
	for _, g := range members {
		slices.Sort(g)
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b []string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a[0], b[0])) })
	for _, g := range groups {
		fmt.Fprintf(w, "%d", len(g))
		for _, d := range g {
			fmt.Fprintf(w, "\t%s", mr.Escape(d))
		}
		w.WriteByte('\n')
	}
	return nil
}
