package dedup

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// Range is a range of a document's characters (Unicode code points of
// its extracted text), end exclusive.
type Range = ranges.Range

// Ref is a range of one document.
type Ref struct {
	Doc string
	Range
}

// member is a removed member: its range, its cluster and the kept member
// of the cluster.
type member struct {
	Range
	cluster string
	kept    Ref
}

// docMember is a removed member of a document (members of two documents
// may have the same range, cluster and kept member).
type docMember struct {
	doc string
	member
}

// Plan is what to keep and what to try to cut, from the clusters and the
// kept member of each. Its documents' texts are then given twice: first
// those holding kept members (Keep), then every document (Cut).
type Plan struct {
	// MinWords is the least number of words of a sentence that matches
	// (the run's --min-tokens).
	MinWords int

	cuts      map[string][]member // removed members, by document
	protected map[string][]Range  // kept members, by document, merged
	stored    map[Ref]keptLoc     // kept members' records in store, once read (AddKept)
	store     Store               // their texts and sentences (memory, or a file: Spill)
	size      int64               // bytes written to store
	buf       []byte
	guarded   map[string][]Range      // kept members with the sentences just outside them that go with a run (Edges), by document
	inner     map[docMember][]Removal // cuts inside kept members, by removed member (settle)
	innerAt   map[string][]Range      // their ranges, by document
	whole     map[Ref]bool            // kept members that hold their document's every matching sentence
	settled   sync.Once
	keptBy    map[string][]Ref   // kept members, by document
	withdrawn map[string][]Range // stored documents' text their own dedup cut (Stored)
	need      map[string]string  // every member's document: a cluster of it
	tok       sentence.Tokenizer
	errMu     sync.Mutex
	err       error // the store's first error (Err)
}

// NewPlan plans to keep member kept[i] of cs[i] and to cut from the
// others what is aligned to it; a cluster with kept[i] < 0 is left to the
// clusters that hold it (Coordinate).
func NewPlan(cs []cluster.Cluster, kept []int, minWords int) *Plan {
	p := &Plan{MinWords: minWords, cuts: map[string][]member{}, protected: map[string][]Range{},
		stored: map[Ref]keptLoc{}, store: &memStore{}, whole: map[Ref]bool{}, guarded: map[string][]Range{}, keptBy: map[string][]Ref{}, need: map[string]string{}}
	for i, c := range cs {
		if kept[i] < 0 {
			for _, m := range c.Members {
				if _, ok := p.need[m.Doc]; !ok {
					p.need[m.Doc] = c.ID
				}
			}
			continue
		}
		k := c.Members[kept[i]]
		ref := Ref{k.Doc, Range{Start: k.CharStart, End: k.CharEnd}}
		p.protected[k.Doc] = append(p.protected[k.Doc], ref.Range)
		if _, ok := p.stored[ref]; !ok {
			p.stored[ref] = keptLoc{n: -1}
			p.keptBy[k.Doc] = append(p.keptBy[k.Doc], ref)
		}
		for j, m := range c.Members {
			if _, ok := p.need[m.Doc]; !ok {
				p.need[m.Doc] = c.ID
			}
			if j != kept[i] && m.CharEnd > m.CharStart {
				p.cuts[m.Doc] = append(p.cuts[m.Doc], member{Range{Start: m.CharStart, End: m.CharEnd}, c.ID, ref})
			}
		}
	}
	for d, rs := range p.protected {
		p.protected[d] = ranges.Merge(rs)
	}
	for _, ms := range p.cuts {
		slices.SortFunc(ms, func(a, b member) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), strings.Compare(a.cluster, b.cluster))
		})
	}
	return p
}

// removal is the removal of run r of removed member m (its sentences ms,
// aligned to its kept member's ks).
func (m member) removal(ms, ks []Sentence, r Run) Removal {
	return Removal{
		Range:   Range{Start: ms[r.First].Start, End: ms[r.Last].End},
		Cluster: m.cluster,
		Kept:    Ref{m.kept.Doc, Range{Start: ks[r.KeptFirst].Start, End: ks[r.KeptLast].End}},
		Held:    Held(ms[r.First:r.Last+1], ks[r.KeptFirst:r.KeptLast+1]),
		Reason:  ReasonCopy,
	}
}

// Stored tells the plan, before Keep, which text of stored documents a
// stored collection's own dedup cut (pdc dedup of a batch run, given the
// stored runs' dedup outputs): withdrawn, by document, its ranges merged.
// That text is no kept text: no sentence there is aligned to, and the
// Verifier fails a kept range that meets it, as if it were cut from its
// document here. The documents are not given to Cut.
func (p *Plan) Stored(withdrawn map[string][]Range) { p.withdrawn = withdrawn }

// Need returns, for every document that holds a member, a cluster of it.
func (p *Plan) Need() map[string]string { return p.need }

// KeptDocs returns the documents that hold a kept member, sorted.
func (p *Plan) KeptDocs() []string { return slices.Sorted(maps.Keys(p.keptBy)) }

// HoldsKept reports whether document d holds a kept member.
func (p *Plan) HoldsKept(d string) bool { return len(p.protected[d]) > 0 }

// HoldsRemoved reports whether document d holds a removed member (a
// document that holds none has nothing cut).
func (p *Plan) HoldsRemoved(d string) bool { return len(p.cuts[d]) > 0 }

// Keep records the sentences of document d's kept members from a, its
// analysis.
func (p *Plan) Keep(d string, a doc.Analysis) { p.AddKept(p.KeptOf(&p.tok, d, a)) }

// KeptDoc is what a document gives its kept members (KeptOf), to be
// recorded by AddKept.
type KeptDoc struct {
	doc   string
	recs  []keptRecord
	whole []bool
}

// KeptOf computes, with tokenizer tok, the sentences and texts of document
// d's kept members from a, its analysis; goroutines may call it at once.
func (p *Plan) KeptOf(tok *sentence.Tokenizer, d string, a doc.Analysis) KeptDoc {
	k := KeptDoc{doc: d}
	refs := p.keptBy[d]
	if len(refs) == 0 {
		return k
	}
	all := Sentences(a, tok, p.MinWords)
	if w := p.withdrawn[d]; len(w) > 0 {
		for i := range all {
			if Meets(w, Range{Start: all[i].Start, End: all[i].End}) {
				all[i].Match, all[i].Words = false, nil
			}
		}
	}
	idx := newRuneIndex(a.Text)
	for _, ref := range refs {
		r := keptRecord{sents: Within(all, ref.Start, ref.End), edges: Edges(all, ref.Start, ref.End), ext: ref.Range}
		if n := len(r.edges[0]); n > 0 {
			r.ext.Start = r.edges[0][n-1].Start
		}
		if n := len(r.edges[1]); n > 0 {
			r.ext.End = r.edges[1][n-1].End
		}
		r.ok = r.ext.End <= idx.n
		r.text = idx.slice(min(r.ext.Start, idx.n), min(r.ext.End, idx.n))
		k.recs = append(k.recs, r)
		k.whole = append(k.whole, holdsAll(all, ref.Range))
	}
	return k
}

// AddKept records k. The sentences just outside a kept member that a cut
// may go with (Edges) are kept too. Goroutines may call HoldsKept while
// AddKept runs, not Cut.
func (p *Plan) AddKept(k KeptDoc) {
	for i, ref := range p.keptBy[k.doc] {
		if i >= len(k.recs) {
			return
		}
		r := k.recs[i]
		p.put(ref, r)
		if k.whole[i] {
			p.whole[ref] = true
		}
		if r.ok && r.ext != ref.Range {
			p.guarded[k.doc] = append(p.guarded[k.doc], r.ext)
		}
	}
}

// runeIndex is a text that is sliced by rune offsets: it holds the byte
// offset of every runeStep-th rune, not the runes (a fourth of the memory
// of []rune on ASCII).
type runeIndex struct {
	s  string
	n  int   // runes
	at []int // at[i]: the byte offset of rune i*runeStep
}

const runeStep = 64

func newRuneIndex(s string) runeIndex {
	x := runeIndex{s: s}
	for b := range s {
		if x.n%runeStep == 0 {
			x.at = append(x.at, b)
		}
		x.n++
	}
	return x
}

// byteAt returns the byte offset of rune i (0 <= i <= n).
func (x runeIndex) byteAt(i int) int {
	if i >= x.n {
		return len(x.s)
	}
	b := x.at[i/runeStep]
	for k := i % runeStep; k > 0; k-- {
		_, size := utf8.DecodeRuneInString(x.s[b:])
		b += size
	}
	return b
}

// slice returns the runes [start, end) of the text.
func (x runeIndex) slice(start, end int) string { return x.s[x.byteAt(start):x.byteAt(end)] }

// keptText returns the text of range r of a kept member (its edges
// included), if a kept member read by Keep holds it.
func (p *Plan) keptText(rec *records, r Ref) (string, bool) {
	for _, ref := range p.keptBy[r.Doc] {
		if !p.stored[ref].holds(r.Range) {
			continue
		}
		k, ok := rec.get(ref)
		if !ok {
			return "", false
		}
		return k.idx.slice(r.Start-k.ext.Start, r.End-k.ext.Start), true
	}
	return "", false
}

// Removal is a range cut from a document: a line of removed.tsv.
type Removal struct {
	Range
	Cluster string
	// Kept is the range of the kept member's document that the cut range
	// is aligned to.
	Kept Ref
	// Held is the share of the cut range's words that Kept holds.
	Held float64
	// Reason says why it was cut: ReasonCopy, or ReasonTemplate (then
	// Cluster is "-", Kept empty and Held 0).
	Reason string
}

// MinHeld is the least share of a cut range's words (each as often as it
// occurs, Held) that its kept range must hold: a run aligned sentence by
// sentence whose kept range holds less (sentences of a formula that differ
// in their names, a copy edited in most of its words) is left in place.
const MinHeld = 0.8

// ReasonCopy is the reason of a range cut because a kept copy holds it.
const ReasonCopy = "copy"

// protectedOf returns document d's kept members and the sentences just
// outside them that go with a run, merged: what no cut takes.
func (p *Plan) protectedOf(d string) []Range {
	prot := p.protected[d]
	if g := p.guarded[d]; len(g) > 0 {
		prot = ranges.Merge(slices.Concat(prot, g))
	}
	return prot
}

// sortRemovals sorts removals by position, then cluster.
func sortRemovals(rs []Removal) {
	slices.SortFunc(rs, func(a, b Removal) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), strings.Compare(a.Cluster, b.Cluster))
	})
}

// ReasonTemplate is the reason of a range cut as a template of its
// document's site (pdc dedup --templates, lib/sitetemplate): text that is
// on many pages of the site, cut from every one of them, with no kept
// copy.
const ReasonTemplate = "template"

// AddTemplates adds to o, what CutWith cut from document d, the cuts of
// the document's template blocks rs (sorted, disjoint: lib/sitetemplate
// Blocks) outside its kept members and the sentences that go with them,
// which stay whole so that what other documents cut against them stays in
// the output; it returns the characters of rs left in place for that.
func (p *Plan) AddTemplates(o *Outcome, d string, rs []Range) int {
	if len(rs) == 0 {
		return 0
	}
	prot := p.protectedOf(d)
	cut := ranges.Minus(rs, prot)
	for _, r := range cut {
		o.Removals = append(o.Removals, Removal{Range: r, Cluster: "-", Reason: ReasonTemplate})
	}
	sortRemovals(o.Removals)
	return ranges.Len(rs) - ranges.Len(cut)
}

// Outcome is what Cut did with one document.
type Outcome struct {
	// Removals are the ranges cut, by position; they may overlap (runs of
	// members of several clusters).
	Removals []Removal
	// Members counts the removed members of the document; Unaligned the
	// characters of them that stay, aligned to no kept sentence or
	// overlapping a kept member; NotHeld the runs not cut because their
	// kept range holds less than MinHeld of their words or lacks a code
	// name of theirs.
	Members, Unaligned, NotHeld int
}

// Cut returns what to cut from document d, whose analysis is a: of each
// removed member, the runs aligned to its kept member, outside every kept
// member of d. A member that ends past the text is an error: the document
// is not the one the run read.
func (p *Plan) Cut(d string, a doc.Analysis) (Outcome, error) { return p.CutWith(&p.tok, d, a) }

// CutWith is Cut with tokenizer tok: goroutines that cut documents at once
// each give their own (the plan is only read).
func (p *Plan) CutWith(tok *sentence.Tokenizer, d string, a doc.Analysis) (Outcome, error) {
	p.settled.Do(p.settle)
	var o Outcome
	prot := p.protectedOf(d)
	var all []Sentence // the document's, once a member needs them
	n := -1
	rec := p.records(tok)
	for _, mem := range p.cuts[d] {
		if n < 0 {
			n = utf8.RuneCountInString(a.Text)
			all = Sentences(a, tok, p.MinWords)
		}
		if mem.End > n {
			return o, fmt.Errorf("passage %d-%d of cluster %s ends past the text (%d characters)", mem.Start, mem.End, mem.cluster, n)
		}
		o.Members++
		ms := Within(all, mem.Start, mem.End)
		kr, _ := rec.get(mem.kept)
		ks := kr.sents
		match := Align(ms, ks)
		gone := p.innerAt[mem.kept.Doc] // kept text cut from its document
		foreign := foreignNames(ms, ks)
		stop := func(i int) bool {
			return Meets(prot, Range{Start: ms[i].Start, End: ms[i].End}) ||
				match[i] >= 0 && anyOverlap(gone, ks[match[i]].Range()) || foreign(i)
		}
		cut := 0
		for _, rm := range p.inner[docMember{d, mem}] {
			cut += rm.End - rm.Start
			o.Removals = append(o.Removals, rm)
		}
		withdrawn := p.withdrawn[mem.kept.Doc]
		for _, r := range SplitNames(SplitWithdrawn(Bridge(ms, ks, Runs(ms, match, stop), stop), match, ks, withdrawn), ms, ks, match) {
			rm := mem.removal(ms, ks, r)
			if rm.Held < MinHeld || !RunNamesHeld(ms[r.First:r.Last+1], ks[r.KeptFirst:r.KeptLast+1]) {
				o.NotHeld++
				continue
			}
			narrow := rm
			if p.widen(&rm, all, ms, ks, r, kr.edges, prot) {
				cut, kept := Within(all, rm.Start, rm.End), p.keptWithin(rec, rm.Kept)
				if Meets(withdrawn, rm.Kept.Range) || !RunNamesHeld(cut, kept) {
					rm = narrow
				} else {
					rm.Held = Held(cut, kept)
				}
			}
			if anyOverlap(gone, rm.Kept.Range) || Meets(withdrawn, rm.Kept.Range) {
				continue
			}
			cut += rm.End - rm.Start
			o.Removals = append(o.Removals, rm)
		}
		o.Unaligned += max(0, mem.End-mem.Start-cut)
	}
	sortRemovals(o.Removals)
	o.Removals = oncePerRange(o.Removals)
	return o, p.Err()
}

// foreignNames returns whether sentence i of a removed member (ms) has a
// name that its kept member (ks) lacks among its names and words: such a
// sentence, aligned or not, ends a run and is in none (Runs, Bridge), so
// it stays, and no name leaves the collection with a cut.
func foreignNames(ms, ks []Sentence) func(i int) bool {
	var names, words []uint64
	done := false
	return func(i int) bool {
		if len(ms[i].Names) == 0 {
			return false
		}
		if !done {
			names, words = namesOf(ks)
			done = true
		}
		return !NamesHeld(ms[i].Names, names, words)
	}
}

// oncePerRange keeps one of the removals (sorted) of each range: the one
// whose kept range holds the most of it, the first cluster of those. A
// range cut as a member of several clusters (a document that is an exact
// copy of another and holds its passages) is one cut.
func oncePerRange(rs []Removal) []Removal {
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Range == r.Range {
			if r.Held > out[n-1].Held {
				out[n-1] = r
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// settle decides, once every kept member is recorded (AddKept), what is
// cut inside kept members: a member of one cluster that lies inside the
// kept member of another (a text and a longer text that quotes it, both
// copied: each cluster keeps its own copy) is cut where it is aligned to
// its own cluster's kept member in another document, so that the text is
// kept once, when every document that relies on the kept member (holds a
// member cut against it) is a member of that cluster too. The removals
// whose kept range such a cut would take away are left out (CutWith stops
// their runs there: the removed member's own sentences of that text are
// cut against the other document, or stay). A kept member that is its
// document's whole text is not cut: of identical documents one stays
// whole. A
// cut is taken, in document and position order, only when its kept range
// is not itself cut this way and its range is no kept range of one taken
// before, so no text loses its last copy.
func (p *Plan) settle() {
	p.inner, p.innerAt = map[docMember][]Removal{}, map[string][]Range{}
	keptAt := map[string][]Range{} // kept ranges of the cuts taken, by document
	docs := make([]string, 0, len(p.cuts))
	for d := range p.cuts {
		docs = append(docs, d)
	}
	slices.Sort(docs)
	// The documents that rely on each kept member, and those of each
	// cluster's removed members.
	relyOn, inCluster := map[Ref][]string{}, map[string]map[string]bool{}
	for _, d := range docs {
		for _, mem := range p.cuts[d] {
			relyOn[mem.kept] = append(relyOn[mem.kept], d)
			if inCluster[mem.cluster] == nil {
				inCluster[mem.cluster] = map[string]bool{}
			}
			inCluster[mem.cluster][d] = true
		}
	}
	for _, d := range docs {
		rec := p.records(&p.tok)
		for _, mem := range p.cuts[d] {
			if mem.kept.Doc == d || !Meets(p.protected[d], mem.Range) {
				continue
			}
			var ms []Sentence
			for _, ref := range p.keptBy[d] {
				if ref.Start <= mem.Start && mem.End <= ref.End && !p.whole[ref] && p.alsoCopies(relyOn[ref], inCluster[mem.cluster], d) {
					k, _ := rec.get(ref)
					ms = Within(k.sents, mem.Start, mem.End)
					break
				}
			}
			var ks []Sentence
			if len(ms) > 0 {
				k, _ := rec.get(mem.kept)
				ks = k.sents
			}
			if len(ms) == 0 || len(ks) == 0 {
				continue
			}
			match := Align(ms, ks)
			foreign := foreignNames(ms, ks)
			for _, r := range SplitNames(SplitWithdrawn(Bridge(ms, ks, Runs(ms, match, foreign), foreign), match, ks, p.withdrawn[mem.kept.Doc]), ms, ks, match) {
				rm := mem.removal(ms, ks, r)
				if rm.Held < MinHeld || !RunNamesHeld(ms[r.First:r.Last+1], ks[r.KeptFirst:r.KeptLast+1]) || anyOverlap(p.innerAt[rm.Kept.Doc], rm.Kept.Range) || Meets(p.withdrawn[rm.Kept.Doc], rm.Kept.Range) || anyOverlap(keptAt[d], rm.Range) {
					continue
				}
				k := docMember{d, mem}
				p.inner[k] = append(p.inner[k], rm)
				p.innerAt[d] = append(p.innerAt[d], rm.Range)
				keptAt[rm.Kept.Doc] = append(keptAt[rm.Kept.Doc], rm.Kept.Range)
			}
		}
	}
}

// holdsAll reports whether r holds every matching sentence of ss.
func holdsAll(ss []Sentence, r Range) bool {
	for _, s := range ss {
		if s.Match && (s.Start < r.Start || s.End > r.End) {
			return false
		}
	}
	return true
}

// alsoCopies reports whether every document of rely other than d is in
// docs: each document that relies on a kept member of d holds a copy of
// the text cut from it, cut against the other kept copy.
func (p *Plan) alsoCopies(rely []string, docs map[string]bool, d string) bool {
	for _, r := range rely {
		if r != d && !docs[r] {
			return false
		}
	}
	return true
}

// anyOverlap reports whether r overlaps one of rs (in any order).
func anyOverlap(rs []Range, r Range) bool {
	for _, q := range rs {
		if q.Start < r.End && q.End > r.Start {
			return true
		}
	}
	return false
}

// MaxEdge is the most sentences just outside a removed member that go
// with a run of it (widen).
const MaxEdge = 2

// Edges returns the sentences of ss (a document's, in order) that do not
// match and lie just before the rune range [start, end) (nearest first)
// and just after it, at most MaxEdge each.
func Edges(ss []Sentence, start, end int) [2][]Sentence {
	var out [2][]Sentence
	i, _ := slices.BinarySearchFunc(ss, start, func(s Sentence, t int) int { return cmp.Compare(s.Start, t) })
	for j := i - 1; j >= 0 && i-j <= MaxEdge && !ss[j].Match; j-- {
		out[0] = append(out[0], ss[j])
	}
	j := i
	for j < len(ss) && ss[j].End <= end {
		j++
	}
	for k := j; k < len(ss) && k-j < MaxEdge && !ss[k].Match; k++ {
		out[1] = append(out[1], ss[k])
	}
	return out
}

// widen extends rm, a run r of a removed member (its sentences ms, those
// of the document all) aligned to a kept member (its sentences ks, and e
// the sentences just outside it: Edges),
// over the sentences too short to match just outside the member when the
// run reaches its edge, the kept run reaches the kept member's, and the
// kept member has a sentence with the very same words at the same place
// (a heading, a word the source broke off a sentence): they are copies
// too, and would otherwise stay in every copy.
func (p *Plan) widen(rm *Removal, all, ms, ks []Sentence, r Run, e [2][]Sentence, prot []Range) bool {
	if len(ms) == 0 || len(ks) == 0 {
		return false
	}
	was := rm.Range
	free := func(s Sentence) bool {
		return !s.Match && len(s.Words) > 0 && !Meets(prot, Range{Start: s.Start, End: s.End})
	}
	if r.First == 0 && r.KeptFirst == 0 {
		i, _ := slices.BinarySearchFunc(all, ms[0].Start, func(s Sentence, t int) int { return cmp.Compare(s.Start, t) })
		for n, k := range e[0] {
			j := i - 1 - n
			if j < 0 || !free(all[j]) || !slices.Equal(all[j].Words, k.Words) {
				break
			}
			rm.Start, rm.Kept.Start = all[j].Start, k.Start
		}
	}
	if r.Last == len(ms)-1 && r.KeptLast == len(ks)-1 {
		i, _ := slices.BinarySearchFunc(all, ms[len(ms)-1].Start, func(s Sentence, t int) int { return cmp.Compare(s.Start, t) })
		for n, k := range e[1] {
			j := i + 1 + n
			if j >= len(all) || !free(all[j]) || !slices.Equal(all[j].Words, k.Words) {
				break
			}
			rm.End, rm.Kept.End = all[j].End, k.End
		}
	}
	return rm.Range != was
}

// keptWithin returns the sentences of kept range r (inside a kept member
// and its edges).
func (p *Plan) keptWithin(rec *records, r Ref) []Sentence {
	for _, ref := range p.keptBy[r.Doc] {
		if !p.stored[ref].holds(r.Range) {
			continue
		}
		k, _ := rec.get(ref)
		ss := slices.Clone(k.edges[0])
		slices.Reverse(ss)
		ss = slices.Concat(ss, k.sents, k.edges[1])
		return Within(ss, r.Start, r.End)
	}
	return nil
}

// CutText returns text without the characters of rs (sorted ranges of
// rune offsets that neither overlap nor touch) and the length of text in
// characters; an error if a range ends past the text.
func CutText(text string, rs []Range) (string, int, error) {
	want := make([]int, 0, 2*len(rs)) // rune offsets, ascending
	for _, r := range rs {
		want = append(want, r.Start, r.End)
	}
	offs := make([]int, 0, len(want)) // their byte offsets
	n := 0
	for i := range text {
		for len(offs) < len(want) && want[len(offs)] == n {
			offs = append(offs, i)
		}
		n++
	}
	for len(offs) < len(want) && want[len(offs)] == n {
		offs = append(offs, len(text))
	}
	if len(offs) < len(want) {
		r := rs[len(offs)/2]
		return "", n, fmt.Errorf("passage %d-%d ends past the text (%d characters)", r.Start, r.End, n)
	}
	if len(rs) == 0 {
		return text, n, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for j := 0; j < len(offs); j += 2 {
		b.WriteString(text[prev:offs[j]])
		prev = offs[j+1]
	}
	b.WriteString(text[prev:])
	return b.String(), n, nil
}

// Ranges returns the ranges of rs, merged (what to cut from the text).
func Ranges(rs []Removal) []Range {
	out := make([]Range, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Range)
	}
	return ranges.Merge(out)
}

// Meets reports whether r overlaps one of the sorted, disjoint ranges rs.
func Meets(rs []Range, r Range) bool {
	i, _ := slices.BinarySearchFunc(rs, r.Start, func(q Range, t int) int { return cmp.Compare(q.End, t+1) })
	return i < len(rs) && rs[i].Start < r.End && rs[i].End > r.Start
}

// Coordinate adjusts the kept member of each cluster (kept[i] of cs[i],
// chosen by the --keep rule) so that overlapping clusters keep their text
// once. Clusters are taken longest passage first; a cluster with a member
// inside a range already kept keeps that member (the text is there
// already); a cluster whose every member lies inside a member that a
// cluster before it removes keeps none (-1): that cluster's kept member
// holds its text, and its members are cut with that cluster's. Otherwise
// the rule's choice stands. Inside means nine tenths of the member's
// characters. A member that meets withdrawn (text a stored collection's
// own dedup cut, by document, merged: Plan.Stored) is not taken for one
// inside a kept range: that text is kept elsewhere.
func Coordinate(cs []cluster.Cluster, kept []int, withdrawn map[string][]Range) []int {
	out := slices.Clone(kept)
	order := make([]int, len(cs))
	longest := make([]int, len(cs))
	for i, c := range cs {
		order[i] = i
		for _, m := range c.Members {
			longest[i] = max(longest[i], m.CharEnd-m.CharStart)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(longest[b], longest[a]), strings.Compare(cs[a].ID, cs[b].ID))
	})
	keptAt, cutAt := map[string][]Range{}, map[string][]Range{}
	inside := func(rs []Range, m cluster.Member) bool {
		n := m.CharEnd - m.CharStart
		for _, r := range rs {
			if 10*(min(r.End, m.CharEnd)-max(r.Start, m.CharStart)) >= 9*n {
				return true
			}
		}
		return false
	}
	for _, i := range order {
		c := cs[i]
		choice, allCut := -1, true
		for j, m := range c.Members {
			if choice < 0 && inside(keptAt[m.Doc], m) && !Meets(withdrawn[m.Doc], Range{Start: m.CharStart, End: m.CharEnd}) {
				choice = j
			}
			allCut = allCut && inside(cutAt[m.Doc], m)
		}
		switch {
		case choice >= 0:
			out[i] = choice
		case allCut:
			out[i] = -1
			continue
		}
		for j, m := range c.Members {
			r := Range{Start: m.CharStart, End: m.CharEnd}
			if j == out[i] {
				keptAt[m.Doc] = append(keptAt[m.Doc], r)
			} else {
				cutAt[m.Doc] = append(cutAt[m.Doc], r)
			}
		}
	}
	return out
}
