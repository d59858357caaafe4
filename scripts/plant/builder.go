package plant

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"github.com/pdc-mr/pdc/lib/eval"
)

// document is a source document with its sentences and, once planted, the
// runs inserted into it.
type document struct {
	id      string
	zh      bool
	text    []rune
	sents   []sent
	goodRun []int  // goodRun[k]: consecutive usable sentences starting at k (see findRuns)
	taken   []bool // taken[k]: sentence k was copied already
	inserts []insert
	used    bool   // text was copied from it
	final   string // the text written out
}

// insert is planted text placed after rune offset pos of the original text:
// sep, then parts joined by "\n\n"; cases[i] covers parts[i].
type insert struct {
	pos   int
	sep   string
	parts []string
	cases []*eval.Case
}

// pool holds one language's documents by role.
type pool struct {
	lang    string
	sources []*document // may be copied from; never modified
	targets []*document // may receive planted runs
	others  []*document // neither; rewritten sentences come from here
}

type builder struct {
	cfg   Config
	rng   *rand.Rand
	ed    *editor
	docs  []*document
	pools []*pool // viable languages, sorted by name
	cases []*eval.Case
	runs  int
	count map[string]int // occurrences of each normalized sentence
}

func newDocument(s Source) *document {
	d := &document{id: s.ID, text: []rune(s.Text)}
	d.zh = isZh(s.Lang, d.text)
	d.sents = split(d.text)
	return d
}

// findRuns fills goodRun: sentences are usable when clean, unique in the
// collection (count holds the occurrences of normalized sentences) and not copied before,
// so that a planted copy never also matches text that other documents share
// with the source, and no two targets share a copied sentence.
func (d *document) findRuns(count map[string]int) {
	if d.taken == nil {
		d.taken = make([]bool, len(d.sents))
	}
	d.goodRun = make([]int, len(d.sents)+1)
	for k := len(d.sents) - 1; k >= 0; k-- {
		if s := d.sents[k]; !d.taken[k] && clean(d.text[s.lo:s.hi]) && count[normSentence(d.sentence(k))] == 1 {
			d.goodRun[k] = d.goodRun[k+1] + 1
		}
	}
}

// normSentence folds case and white space for the uniqueness test.
func normSentence(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// clean reports whether a sentence may be copied: it ends with
// sentence-final punctuation and has at least two letters (so "2." or
// "11.2.2." left over from numbered headings is not a sentence).
func clean(s []rune) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2 && terminated(s)
}

func (d *document) maxRun() int { return slices.Max(d.goodRun) }

func (d *document) sentence(k int) string {
	return string(d.text[d.sents[k].lo:d.sents[k].hi])
}

func newBuilder(cfg Config, sources []Source) (*builder, error) {
	b := &builder{cfg: cfg, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x70646370))}
	seen := make(map[string]bool)
	byLang := make(map[string][]*document)
	for _, s := range sources {
		if s.ID == "" || seen[s.ID] {
			return nil, fmt.Errorf("empty or duplicate document id %q", s.ID)
		}
		seen[s.ID] = true
		d := newDocument(s)
		b.docs = append(b.docs, d)
		lang := "en"
		if d.zh {
			lang = "zh"
		}
		byLang[lang] = append(byLang[lang], d)
	}
	b.count = make(map[string]int)
	for _, d := range b.docs {
		for k := range d.sents {
			b.count[normSentence(d.sentence(k))]++
		}
	}
	for _, d := range b.docs {
		d.findRuns(b.count)
	}
	b.ed = newEditor(b.rng, b.docs)
	for _, lang := range []string{"en", "zh"} {
		if p := b.newPool(lang, byLang[lang]); p != nil {
			b.pools = append(b.pools, p)
		}
	}
	if cfg.Pairs > 0 && len(b.pools) == 0 {
		return nil, fmt.Errorf("no language has both a source with %d clean consecutive sentences and a target", cfg.MinRun)
	}
	return b, nil
}

// newPool splits a language's documents, in random order, into sources (a
// third of them, among those with a long enough run of clean sentences),
// targets (a third) and others. It returns nil if sources or targets are
// missing.
func (b *builder) newPool(lang string, docs []*document) *pool {
	p := &pool{lang: lang}
	third := (len(docs) + 2) / 3
	for _, d := range shuffled(b.rng, docs) {
		switch {
		case len(p.sources) < third && d.maxRun() >= b.cfg.MinRun:
			p.sources = append(p.sources, d)
		case len(p.targets) < third && len(d.sents) > 0:
			p.targets = append(p.targets, d)
		default:
			p.others = append(p.others, d)
		}
	}
	if len(p.sources) == 0 || len(p.targets) == 0 {
		return nil
	}
	return p
}

// pickPool chooses a language with probability proportional to its number
// of documents, among those whose sources still hold a run of need unused
// clean sentences.
func (b *builder) pickPool(need int) (*pool, error) {
	var live []*pool
	total := 0
	for _, p := range b.pools {
		if slices.ContainsFunc(p.sources, func(d *document) bool { return d.maxRun() >= need }) {
			live = append(live, p)
			total += len(p.sources) + len(p.targets) + len(p.others)
		}
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("sources exhausted: no run of %d unused clean sentences left (fewer pairs or more sources)", need)
	}
	n := b.rng.IntN(total)
	for _, p := range live {
		n -= len(p.sources) + len(p.targets) + len(p.others)
		if n < 0 {
			return p, nil
		}
	}
	return live[len(live)-1], nil
}

// pickRun chooses a source document and a run of n clean sentences in it,
// shortening n to the longest run available (but not below need) if no
// source has one that long.
func (b *builder) pickRun(p *pool, n, need int) (src *document, start, length int, err error) {
	var fit []*document
	longest := 0
	for _, d := range p.sources {
		longest = max(longest, d.maxRun())
		if d.maxRun() >= n {
			fit = append(fit, d)
		}
	}
	if len(fit) == 0 {
		if longest < need {
			return nil, 0, 0, fmt.Errorf("no %s source with %d clean sentences", p.lang, need)
		}
		return b.pickRun(p, longest, need)
	}
	src = fit[b.rng.IntN(len(fit))]
	starts := indexes(src.goodRun, func(k int) bool { return src.goodRun[k] >= n })
	return src, starts[b.rng.IntN(len(starts))], n, nil
}

// plant plants run i.
func (b *builder) plant(i int) error {
	class := b.cfg.Classes[i%len(b.cfg.Classes)]
	need := max(minRun[class], b.cfg.MinRun)
	p, err := b.pickPool(need)
	if err != nil {
		return err
	}
	n := b.cfg.MinRun + b.rng.IntN(b.cfg.MaxRun-b.cfg.MinRun+1)
	n = max(n, minRun[class])
	if class == Reordered {
		n = max(n, 2*b.cfg.MinRun) // each part is a case of its own
	}
	src, start, n, err := b.pickRun(p, n, need)
	if err != nil {
		return err
	}
	targets := []int{b.rng.IntN(len(p.targets))}
	if copies := min(b.cfg.Copies, len(p.targets)); copies > 1 {
		targets = b.rng.Perm(len(p.targets))[:copies]
	}
	for _, t := range targets {
		tgt := p.targets[t]
		parts, ranges := b.edit(class, src, start, n, p) // each copy edited on its own
		ins := insert{parts: parts}
		for _, r := range ranges {
			lo, hi := src.sents[r[0]].lo, src.sents[r[1]-1].hi
			c := &eval.Case{Susp: tgt.id, Src: src.id, SrcStart: lo, SrcLen: hi - lo, Class: class, Lang: p.lang}
			ins.cases = append(ins.cases, c)
			b.cases = append(b.cases, c)
		}
		k := 1 + b.rng.IntN(len(tgt.sents)) // plant after sentence k-1
		ins.pos = tgt.sents[k-1].hi
		ins.sep = joiner(tgt, k-1, parts[0])
		tgt.inserts = append(tgt.inserts, ins)
	}
	src.used = true
	for k := start; k < start+n; k++ {
		src.taken[k] = true
	}
	src.findRuns(b.count)
	b.runs++
	return nil
}

// joiner returns the separator put between target sentence k and a run
// planted after it: "\n\n" after an unterminated sentence (a heading), at
// the end of a line, or, in Chinese, before planted text that opens with a
// quote or bracket (which would otherwise read as closing sentence k); else
// the language's sentence separator.
func joiner(d *document, k int, planted string) string {
	s := d.sents[k]
	switch {
	case !terminated(d.text[s.lo:s.hi]) || s.hi < len(d.text) && d.text[s.hi] == '\n':
		return "\n\n"
	case d.zh && isCloser([]rune(planted)[0]):
		return "\n\n"
	case d.zh:
		return ""
	}
	return " "
}

// finish assembles the final texts, chooses the distractors and returns the
// documents to write, sorted by id, the cases, sorted, and the statistics.
func (b *builder) finish() ([]*document, []eval.Case, Stats) {
	st := Stats{Runs: b.runs, ByClass: make(map[string]int), ByLang: make(map[string]int)}
	var out, rest []*document
	for _, d := range b.docs {
		d.final = d.assemble()
		switch {
		case len(d.inserts) > 0:
			st.Targets++
			out = append(out, d)
		case d.used:
			st.Sources++
			out = append(out, d)
		default:
			rest = append(rest, d)
		}
	}
	rest = shuffled(b.rng, rest)
	if b.cfg.Distractors >= 0 && b.cfg.Distractors < len(rest) {
		rest = rest[:b.cfg.Distractors]
	}
	st.Distractors = len(rest)
	out = append(out, rest...)
	slices.SortFunc(out, func(x, y *document) int { return strings.Compare(x.id, y.id) })
	st.Docs = len(out)
	lang := make(map[string]string)
	for _, d := range b.docs {
		lang[d.id] = map[bool]string{false: "en", true: "zh"}[d.zh]
	}
	cases := make([]eval.Case, len(b.cases))
	for i, c := range b.cases {
		cases[i] = *c
		st.ByClass[c.Class]++
		st.ByLang[lang[c.Susp]]++
	}
	slices.SortStableFunc(cases, func(x, y eval.Case) int {
		return cmp.Or(strings.Compare(x.Susp, y.Susp), cmp.Compare(x.SuspStart, y.SuspStart))
	})
	st.Cases = len(cases)
	return out, cases, st
}

// assemble builds the final text with the inserts in place and fills in the
// cases' target offsets.
func (d *document) assemble() string {
	if len(d.inserts) == 0 {
		return string(d.text)
	}
	slices.SortStableFunc(d.inserts, func(x, y insert) int { return cmp.Compare(x.pos, y.pos) })
	var out []rune
	cur := 0
	for _, ins := range d.inserts {
		out = append(out, d.text[cur:ins.pos]...)
		out = append(out, []rune(ins.sep)...)
		for j, part := range ins.parts {
			if j > 0 {
				out = append(out, '\n', '\n')
			}
			ins.cases[j].SuspStart = len(out)
			out = append(out, []rune(part)...)
			ins.cases[j].SuspLen = len(out) - ins.cases[j].SuspStart
		}
		cur = ins.pos
	}
	out = append(out, d.text[cur:]...)
	return string(out)
}
