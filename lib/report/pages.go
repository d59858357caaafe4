package report

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/sidebyside"
	"github.com/pdc-mr/pdc/lib/span"
)

// indexPage is the data of index.html.
type indexPage struct {
	Generated             string
	Out                   string
	Read, OK, SkippedAll  int64
	Skipped               []Param
	Spans, DocPairs       int64
	Jobs                  []Job
	Seconds               float64
	Params                []Param
	Inputs                []string
	Against               []string
	LengthHist, ScoreHist template.HTML
	Top                   []topRow
	LeftOut               int
	Boiler                []Boilerplate
	BoilerLeftOut         int
	NotContent            []Param
	HasClusters           bool
	Clusters              []clusterRow
	ClustersLeftOut       int
}

// clusterRow is a line of the passage clusters table.
type clusterRow struct {
	N, Size, Members int
	ID               string
	Earliest, URL    string
	Passage          string
}

// topRow is a line of the top pairs table.
type topRow struct {
	N                  int
	Page               string
	A, B, URLA, URLB   string
	Spans              int
	SharedA, SharedB   int
	ContainA, ContainB string // "" when a document's text is missing
	Passage            string
}

func (s *Site) index(run Run, t *Tally, top []Pair, docs map[string]Doc) indexPage {
	c := run.Counters
	p := indexPage{Generated: s.Generated.Format("2006-01-02 15:04 MST"), Out: run.Out,
		Read: c["parse.docs.read"], OK: c["parse.docs.ok"], Spans: finalCount(c, "spans"), DocPairs: finalCount(c, "doc-pairs.with-spans"),
		Jobs: run.Jobs, Params: run.Params, Inputs: run.Inputs, Against: run.Against, LeftOut: t.Pairs() - len(top)}
	for _, k := range slices.Sorted(maps.Keys(c)) {
		if r, ok := strings.CutPrefix(k, "parse.docs.skipped."); ok && c[k] > 0 {
			p.Skipped = append(p.Skipped, Param{r, fmt.Sprint(c[k])})
			p.SkippedAll += c[k]
		}
		if r, ok := strings.CutPrefix(k, "parse.sentences.not-content."); ok && c[k] > 0 {
			p.NotContent = append(p.NotContent, Param{r, fmt.Sprint(c[k])})
		}
	}
	for _, j := range run.Jobs {
		p.Seconds += max(j.Seconds, 0)
	}
	p.LengthHist = histogram("span length (duplicated sentence pairs)", t.lengths, lengthBounds, "%.0f")
	p.ScoreHist = histogram("span score (mean Jaccard)", t.scores, scoreBounds, "%.2f")
	for i, pr := range top {
		row := topRow{N: i + 1, Page: pairPage(i), A: pr.A, B: pr.B, Spans: len(pr.Spans), SharedA: pr.SharedA, SharedB: pr.SharedB,
			URLA: safeURL(docs[pr.A].URL), URLB: safeURL(docs[pr.B].URL)}
		if d, ok := docs[pr.A]; ok && len(pr.Spans) > 0 {
			row.Passage = clip(runeSlice(d.Text, pr.Spans[0].CharStartA, pr.Spans[0].CharEndA), 300)
		}
		da, oka := docs[pr.A]
		db, okb := docs[pr.B]
		if oka && okb {
			ms, _, _ := pr.MeasureContent(da.Content, db.Content, 0, false)
			row.ContainA, row.ContainB = fmt.Sprintf("%.0f%%", 100*ms.ContainA), fmt.Sprintf("%.0f%%", 100*ms.ContainB)
		}
		p.Top = append(p.Top, row)
	}
	p.HasClusters = run.Clusters != nil
	listed := s.Opts.ListedClusters(run.Clusters)
	p.ClustersLeftOut = max(run.ClusterCount, len(run.Clusters)) - len(listed)
	for i, c := range listed {
		e := c.Earliest()
		row := clusterRow{N: i + 1, Size: c.Size, Members: len(c.Members), ID: c.ID, Earliest: e.Doc, URL: safeURL(e.URL)}
		if d, ok := docs[e.Doc]; ok {
			row.Passage = clip(runeSlice(d.Text, e.CharStart, e.CharEnd), 300)
			if row.URL == "" {
				row.URL = safeURL(d.URL)
			}
		}
		p.Clusters = append(p.Clusters, row)
	}
	boiler, _ := s.Opts.ListedBoilerplate(run.Boilerplate)
	p.Boiler, p.BoilerLeftOut = slices.Clone(boiler), len(run.Boilerplate)-len(boiler)
	for i := range p.Boiler {
		b := &p.Boiler[i]
		if id, err := mr.Unescape(b.Doc); err == nil && b.Text == "" {
			if d, ok := docs[id]; ok {
				b.Text = runeSlice(d.Text, b.CharStart, b.CharEnd)
			}
		}
		b.Text = clip(b.Text, 300)
	}
	return p
}

// pairView is the data of a pair page: the two documents side by side
// (lib/sidebyside Layout), a table row per sentence pair, so that each
// span's two passages start on one row; the sentences between spans are
// folded (HTML details, no script), at most MaxText characters of each
// fold shown, and the rest said.
type pairView struct {
	Generated  string
	N          int
	A, B       string
	URLA, URLB string
	Spans      []spanRow
	Rows       []viewRow
	MissingA   bool
	MissingB   bool
	MaxText    int
}

// viewRow is a row of the side-by-side table.
type viewRow struct {
	Kind         string // fold, start, pair, context, end
	Num          int
	A, B         []sidebyside.Chunk
	Mark         string
	FoldA, FoldB foldCell
	Span         spanRow // start rows
}

// foldCell is one side of a folded stretch.
type foldCell struct {
	Desc string // "" when the side has nothing there
	Text string
	More int // characters of the stretch not shown
}

// spanRow is a line of a pair page's span table.
type spanRow struct {
	I                                          int
	StartA, StartB, Length                     int
	CharStartA, CharEndA, CharStartB, CharEndB int
	Score                                      string
}

func (s *Site) pairView(i int, p Pair, docs map[string]Doc) pairView {
	v := pairView{Generated: s.Generated.Format("2006-01-02 15:04 MST"), N: i + 1, A: p.A, B: p.B, MaxText: s.Opts.MaxText}
	da, oka := docs[p.A]
	db, okb := docs[p.B]
	v.MissingA, v.MissingB = !oka, !okb
	v.URLA, v.URLB = safeURL(da.URL), safeURL(db.URL)
	rows, err := sidebyside.Layout(sidebyside.Doc{ID: p.A, Text: da.Text, Sentences: da.Sentences},
		sidebyside.Doc{ID: p.B, Text: db.Text, Sentences: db.Sentences}, p.Spans, sidebyside.Options{})
	if err != nil { // spans of another pair: not from Pairs
		panic(err)
	}
	ra, rb := []rune(da.Text), []rune(db.Text)
	fold := func(r []rune, st sidebyside.Stretch) foldCell {
		if st.Sentences == 0 {
			return foldCell{}
		}
		from, to := clamp(st.Start, len(r)), clamp(st.End, len(r))
		shown := min(to, from+s.Opts.MaxText)
		return foldCell{Desc: st.Describe(), Text: string(r[from:shown]), More: to - shown}
	}
	for _, r := range rows {
		row := viewRow{Num: r.Num, A: r.A, B: r.B, Mark: string(r.Mark)}
		switch r.Kind {
		case sidebyside.Fold:
			row.Kind, row.FoldA, row.FoldB = "fold", fold(ra, r.FoldA), fold(rb, r.FoldB)
		case sidebyside.Start:
			row.Kind, row.Span = "start", spanRowOf(r.Num, r.Span)
			v.Spans = append(v.Spans, row.Span)
		case sidebyside.Pair:
			row.Kind = "pair"
		case sidebyside.Context:
			row.Kind = "context"
		case sidebyside.End:
			row.Kind = "end"
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// spanRowOf is span number i (1-based) of a pair page.
func spanRowOf(i int, sp span.Span) spanRow {
	return spanRow{I: i, StartA: sp.StartA, StartB: sp.StartB, Length: sp.Length,
		CharStartA: sp.CharStartA, CharEndA: sp.CharEndA, CharStartB: sp.CharStartB, CharEndB: sp.CharEndB,
		Score: fmt.Sprintf("%.4f", sp.Score)}
}

func clamp(x, n int) int { return min(max(x, 0), n) }

// runeSlice returns s[start:end] in rune offsets, clamped to s.
func runeSlice(s string, start, end int) string {
	r := []rune(s)
	start, end = clamp(start, len(r)), clamp(end, len(r))
	if start > end {
		return ""
	}
	return string(r[start:end])
}

// The bounds of the buckets of the span histograms.
var (
	lengthBounds = []float64{3, 4, 6, 10, 20, 50, 100}
	scoreBounds  = []float64{0.75, 0.8, 0.85, 0.9, 0.95, 0.99}
)

// bin returns the bucket of v among buckets cut at bounds: 0 below the
// first, len(bounds) at or above the last.
func bin(bounds []float64, v float64) int {
	i, _ := slices.BinarySearchFunc(bounds, v, func(b, v float64) int { return cmp.Compare(b, v+1e-12) })
	return i
}

// histogram draws the counts of the buckets cut at bounds (bin) as an
// inline SVG bar chart. Only numbers and the fixed title reach the markup.
func histogram(title string, counts []int, bounds []float64, format string) template.HTML {
	total := 0
	for _, c := range counts {
		total += c
	}
	labels := make([]string, len(counts))
	for i := range counts {
		switch {
		case i == 0:
			labels[i] = "< " + fmt.Sprintf(format, bounds[0])
		case i == len(bounds):
			labels[i] = "≥ " + fmt.Sprintf(format, bounds[i-1])
		default:
			labels[i] = fmt.Sprintf(format, bounds[i-1]) + "–" + fmt.Sprintf(format, bounds[i])
		}
	}
	top := slices.Max(counts)
	const w, h, bar = 480, 160, 52
	var b strings.Builder
	fmt.Fprintf(&b, `<figure><svg class="hist" role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>%s</title>`, w, h+40, w, h+40, template.HTMLEscapeString(title))
	for i, c := range counts {
		bh := 0
		if top > 0 {
			bh = c * h / top
		}
		x := 8 + i*(bar+8)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d"></rect>`, x, h-bh+14, bar, bh)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="n">%d</text>`, x+bar/2, h-bh+10, c)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, x+bar/2, h+30, template.HTMLEscapeString(labels[i]))
	}
	fmt.Fprintf(&b, "</svg><figcaption>%s, %d spans</figcaption></figure>", template.HTMLEscapeString(title), total)
	return template.HTML(b.String()) // numbers and fixed labels only
}

// finalCount returns the extend job's counter name (the spans as written),
// or for a run made before that job, the match job's.
func finalCount(c map[string]int64, name string) int64 {
	if v, ok := c["extend."+name]; ok {
		return v
	}
	return c["match."+name]
}
