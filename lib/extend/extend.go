// Package extend grows the match job's runs of duplicated sentence pairs
// over the edited sentences next to them and inside their gaps: the
// extension step after the match (jobs "match" and "extend", see
// mappers/extend).
//
// The join pairs sentences whose token sets have a Jaccard similarity of
// at least tau (0.7 by default), and the match needs lambda such pairs on a
// diagonal. A copy whose sentences were edited has runs of such pairs
// broken by sentences that fall below tau (one substituted word in a short
// sentence, a few in a long one) and by sentences merged or split (a full
// stop removed or added), so its runs come out short, split in pieces, or
// not at all. Extension starts from the runs the match confirmed (seeds)
// and compares the sentences next to them with a looser measure, step by
// step:
//
//   - one sentence with one (a 1:1 step), Jaccard of their token sets;
//   - two consecutive sentences of one side with one of the other (2:1 and
//     1:2 steps, a merge or a split), Jaccard of the union of the two sets
//     with the third;
//   - after skipping up to gap sentences on either side (an inserted,
//     dropped or rewritten sentence).
//
// A step is taken when its similarity reaches Params.Tau (the extension
// threshold, 0.5 by default): the smallest skip first, then the most
// similar step. The sentences of a step must share at least
// Params.MinTokens tokens (two short sentences with two words in common
// are no copy), and a 1:1 step must be less similar than the join's threshold:
// the join pairs all sentences that similar but those it leaves out on
// purpose (site templates, boilerplate), which extension must not take
// back. Extension stops at the first position with no step.
//
// Seeds are of three kinds: spans (runs the match reports on its own),
// candidates (runs of at least 2 pairs, too short for a span) and single
// pairs of the join near them (Seed.Single: not extended, but steps may
// align them). A sentence belongs to one seed: a seed's sentences are its
// own, and a step takes only free ones. Extended seeds that follow each
// other within a gap on both sides (func follows) are joined into one span.
// A result with a span among its seeds is reported; one made of candidates
// only needs lambda pairs and steps in all (or 2 pairs grown over lambda
// sentences of one side) and MinChars characters on each side, so
// extension never makes a span without at least two pairs over tau
// (precision: chance single pairs do not grow into spans). Either needs
// Params.MinEvidence from its pairs (Seed.Evidence: lines of generated
// text that differ in a name share too few words). Results inside another
// on both sides are dropped.
package extend

import (
	"cmp"
	"slices"

	"github.com/pdc-mr/pdc/lib/signature"
)

// Sentence is one sentence of a window: its rune offsets in the document's
// extracted text and its token set (sorted, distinct; empty for a sentence
// that is not content, which extension steps over).
type Sentence struct {
	Start, End int
	Tokens     []uint32
	// Content is false for a sentence that is not content (lib/doc).
	Content bool
}

// Side holds the sentences of one document that a document pair's seeds
// need, by sentence index.
type Side map[int]Sentence

// Seed is a run of the match job (SeedRecord): sentences StartA..EndA of
// the first document and StartB..EndB of the second (inclusive), Length
// pairs of mean Score, and the rune offsets it covers.
type Seed struct {
	StartA, StartB, EndA, EndB int
	Length                     int
	CharStartA, CharEndA       int
	CharStartB, CharEndB       int
	Score                      float64
	// Span tells a run the match reports as a span; otherwise the seed is
	// a candidate.
	Span bool
	// Evidence is the sum of its pairs' evidence (lib/signature
	// Evidence): a span needs Params.MinEvidence.
	Evidence int
}

// Single reports a candidate of one pair: not extended by itself, it is a
// pair of the join that extension may step on (Params.JoinTau).
func (s Seed) Single() bool { return !s.Span && s.Length == 1 }

// Params are the extension's parameters.
type Params struct {
	// Tau is the least similarity of a step.
	Tau float64
	// JoinTau is the join's threshold (jobconf Config.Tau): a 1:1 step
	// must stay below it, since the join pairs every two sentences at
	// least that similar unless it leaves them out on purpose (a site's
	// template, boilerplate over --max-df, a pair of one site with
	// --cross-site-only); extension must not undo that.
	JoinTau float64
	// Gap is the number of sentences a step may skip on either side.
	Gap int
	// Lambda is the least number of pairs of a span made of candidates.
	Lambda int
	// MinTokens is the least number of tokens the two sides of a step
	// share.
	MinTokens int
	// MinChars is the least extent, in runes on each side, of a span made
	// of candidates.
	MinChars int
	// MinEvidence is the evidence (signature.Evidence) every span needs
	// from its seeds' pairs and the pairs of the join its steps align; a
	// step of other sentences counts only when it is an anchor (0: none
	// needed).
	MinEvidence int
}

// Counts says what Extend did.
type Counts struct {
	// Spans, Candidates and Pairs count the seeds given (Pairs: single
	// pairs, Seed.Single).
	Spans, Candidates, Pairs int
	// Steps counts the steps taken, Merges and Splits among them the 2:1
	// and 1:2 ones.
	Steps, Merges, Splits int
	// Extended counts the spans that grew; New the spans made of
	// candidates only; Joined the seeds merged into another; Covered the
	// results dropped inside another; Unanchored the results left out for
	// want of evidence (Params.MinEvidence); Out the spans returned.
	Extended, New, Joined, Covered, Unanchored, Out int
	// Edge counts extensions stopped by the end of a window (the window
	// sent was too short to tell whether the run goes on).
	Edge int
	// Weak counts the document pairs whose seeds' evidence adds up to
	// less than Params.MinEvidence (Spans).
	Weak int
}

// Window is the number of sentences before and after each seed that its
// documents send to the extension (Requests).
const Window = 6

// Spans returns a document pair's spans from its seeds: Extend's result,
// or with p.Tau 0 (no extension) the seeds that are spans, ordered by
// (StartA, StartB). A document pair whose seeds' evidence (the join's
// pairs among them) adds up to less than p.MinEvidence has none: a step
// may bring evidence of its own (a merge whose union is an anchor), but
// the pairs of the join must carry a copy first, and the match job sends
// no seeds of such a pair (lib/matcher).
func Spans(seeds []Seed, a, b Side, p Params, c *Counts) []Seed {
	total := 0
	for _, s := range seeds {
		total += s.Evidence
	}
	if len(seeds) > 0 && total < p.MinEvidence {
		c.Weak++
		return nil
	}
	if p.Tau > 0 {
		return Extend(seeds, a, b, p, c)
	}
	seeds = slices.DeleteFunc(slices.Clone(seeds), func(s Seed) bool {
		if s.Span && s.Evidence < p.MinEvidence {
			c.Unanchored++
			return true
		}
		return !s.Span
	})
	slices.SortFunc(seeds, func(u, v Seed) int {
		return cmp.Or(cmp.Compare(u.StartA, v.StartA), cmp.Compare(u.StartB, v.StartB))
	})
	c.Out += len(seeds)
	return seeds
}

// Extend extends seeds (a document pair's, in any order) over the
// sentences of a and b and returns the spans, ordered by (StartA, StartB).
func Extend(seeds []Seed, a, b Side, p Params, c *Counts) []Seed {
	x := extender{a: a, b: b, p: p, c: c, usedA: map[int]int{}, usedB: map[int]int{}}
	type grown struct {
		Seed
		sum    float64 // sum of the pairs' scores
		span   bool
		strong int  // pairs over tau the seeds brought
		grown  bool // by a step or an absorbed sentence
		id     int  // owner number in the extender's used maps
	}
	g := make([]grown, 0, len(seeds))
	for _, s := range seeds {
		if s.Single() {
			if x.pairs == nil {
				x.pairs = map[[2]int]int{}
			}
			x.pairs[[2]int{s.StartA, s.StartB}] = s.Evidence
			c.Pairs++
			continue
		}
		if s.Span {
			c.Spans++
		} else {
			c.Candidates++
		}
		g = append(g, grown{Seed: s, sum: s.Score * float64(s.Length), span: s.Span, strong: s.Length})
		// A seed's sentences are its own: no other seed's extension may
		// align them again.
		g[len(g)-1].id = len(g)
		x.owner = len(g)
		x.seeds = append(x.seeds, s)
		x.use(s.StartA, s.EndA, s.StartB, s.EndB)
	}
	byStart := func(u, v grown) int { // longest first among those starting together
		return cmp.Or(cmp.Compare(u.StartA, v.StartA), cmp.Compare(u.StartB, v.StartB), cmp.Compare(v.EndA, u.EndA), cmp.Compare(v.EndB, u.EndB))
	}
	slices.SortFunc(g, byStart)
	for i := range g {
		r := &g[i]
		x.owner = r.id
		before := x.absorbed
		steps := 0
		if !r.span && r.Length == 2 {
			steps = x.fill(&r.Seed, &r.sum)
		}
		steps += x.grow(&r.Seed, &r.sum, 1) + x.grow(&r.Seed, &r.sum, -1)
		r.grown = steps > 0 || x.absorbed > before
	}
	slices.SortFunc(g, byStart) // extension moved the starts
	// Join runs that follow each other within a gap on both sides.
	var out []grown
	used := make([]bool, len(g))
	for i := range g {
		if used[i] {
			continue
		}
		cur := g[i]
		for j := i + 1; j < len(g) && g[j].StartA <= cur.EndA+2+p.Gap; j++ {
			n := g[j]
			if used[j] || !follows(cur.Seed, n.Seed, p.Gap) {
				continue
			}
			used[j] = true
			c.Joined++
			cur.Length += n.Length
			cur.Evidence += n.Evidence
			cur.sum += n.sum
			cur.strong += n.strong
			cur.grown = cur.grown || n.grown
			cur.span = cur.span || n.span
			cur.EndA, cur.CharEndA = n.EndA, n.CharEndA
			cur.EndB, cur.CharEndB = n.EndB, n.CharEndB
		}
		out = append(out, cur)
	}
	// A result without evidence enough is no span, and covers no other
	// (lib/matcher hides no candidate inside such a span either).
	unanchored := func(r grown) bool { return r.Evidence < p.MinEvidence }
	var res []Seed
	for i, r := range out {
		// Lambda pairs, or 2 pairs grown over lambda sentences of one side
		// (a merge or split the match could not see).
		short := r.Length < p.Lambda && (r.Length < 2 || !r.grown || max(r.EndA-r.StartA, r.EndB-r.StartB)+1 < p.Lambda)
		if !r.span && (short || r.strong < 2 ||
			r.CharEndA-r.CharStartA < p.MinChars || r.CharEndB-r.CharStartB < p.MinChars) {
			continue
		}
		if unanchored(r) {
			c.Unanchored++
			continue
		}
		covered := false
		for j, o := range out {
			same := o.StartA == r.StartA && o.EndA == r.EndA && o.StartB == r.StartB && o.EndB == r.EndB
			if j != i && !unanchored(o) && o.StartA <= r.StartA && o.EndA >= r.EndA && o.StartB <= r.StartB && o.EndB >= r.EndB &&
				(!same || better(o.Seed, o.sum, j, r.Seed, r.sum, i)) && (o.span || !r.span) {
				covered = true
				break
			}
		}
		if covered {
			c.Covered++
			continue
		}
		if r.Length > 0 {
			r.Score = r.sum / float64(r.Length)
		}
		r.Span = true
		if !r.span {
			c.New++
		} else if r.grown {
			c.Extended++
		}
		res = append(res, r.Seed)
	}
	c.Out += len(res)
	return res
}

// better reports whether of two results with the same extent, o (number
// j) is kept rather than r (number i): more pairs, then a higher score sum,
// then the first.
func better(o Seed, osum float64, j int, r Seed, rsum float64, i int) bool {
	return cmp.Or(cmp.Compare(o.Length, r.Length), cmp.Compare(osum, rsum), cmp.Compare(i, j)) > 0
}

// follows reports whether run n continues run r: it starts after r's end
// on both sides, skipping at most gap sentences on each, or gap on one and
// gap+1 on the other (a sentence of one side that is two of the other, as
// lib/diagonal joins runs).
func follows(r, n Seed, gap int) bool {
	da, db := n.StartA-r.EndA-1, n.StartB-r.EndB-1
	return da >= 0 && db >= 0 && (da <= gap && db <= gap || gap > 0 && da+db == 2*gap+1 && min(da, db) == gap)
}

type extender struct {
	a, b         Side
	p            Params
	c            *Counts
	scratch      []uint32
	usedA, usedB map[int]int    // sentences aligned by a seed or a step: its number + 1
	owner        int            // the seed being extended, + 1
	seeds        []Seed         // by owner number - 1, as given
	pairs        map[[2]int]int // the join's pairs given as single seeds: their evidence
	absorbed     int            // sentences taken into a pair (absorb)
}

// use marks sentences from..to of A and of B used.
func (x *extender) use(fromA, toA, fromB, toB int) {
	for i := fromA; i <= toA; i++ {
		if x.usedA[i] == 0 {
			x.usedA[i] = x.owner
		}
	}
	for j := fromB; j <= toB; j++ {
		if x.usedB[j] == 0 {
			x.usedB[j] = x.owner
		}
	}
}

// free reports whether sentences i..i+dir*(n-1) of a side are not used.
func free(used map[int]int, i, n, dir int) bool {
	for k := 0; k < n; k++ {
		if used[i+dir*k] != 0 {
			return false
		}
	}
	return true
}

// step is one possible step: na sentences of A from ia, nb of B from ib.
type step struct {
	ia, ib, na, nb int
	score          float64
	evidence       int // of the step's sentences (signature.Evidence)
}

// grow extends s after its end (dir 1) or before its start (dir -1) and
// returns the number of steps taken.
func (x *extender) grow(s *Seed, sum *float64, dir int) int {
	n := 0
	for {
		ea, eb := s.EndA, s.EndB // the run's last sentences in direction dir
		if dir < 0 {
			ea, eb = s.StartA, s.StartB
		}
		st, edge := x.best(x.next(x.a, ea+dir, dir), x.next(x.b, eb+dir, dir), dir)
		if st.na == 0 {
			switch x.absorb(ea, eb, dir) {
			case 'a':
				x.use(ea+dir, ea+dir, 0, -1)
				x.moveEnd(s, ea+dir, eb, dir)
			case 'b':
				x.use(0, -1, eb+dir, eb+dir)
				x.moveEnd(s, ea, eb+dir, dir)
			default:
				if edge {
					x.c.Edge++
				}
				return n
			}
			x.absorbed++
			continue
		}
		ia, ib := st.ia+dir*(st.na-1), st.ib+dir*(st.nb-1) // the step's far sentences
		x.use(min(ea+dir, ia), max(ea+dir, ia), min(eb+dir, ib), max(eb+dir, ib))
		x.moveEnd(s, ia, ib, dir)
		s.Length++
		s.Evidence += st.evidence
		*sum += st.score
		n++
	}
}

// moveEnd makes sentences ia of A and ib of B the end of s in direction dir.
func (x *extender) moveEnd(s *Seed, ia, ib, dir int) {
	if dir > 0 {
		s.EndA, s.EndB = ia, ib
		s.CharEndA, s.CharEndB = x.a[ia].End, x.b[ib].End
		return
	}
	s.StartA, s.StartB = ia, ib
	s.CharStartA, s.CharStartB = x.a[ia].Start, x.b[ib].Start
}

// absorb returns the side ('a' or 'b', 0 for none) whose next sentence in
// direction dir after the pair of sentences e of A and f of B makes that
// pair more similar when joined to it: the rest of a sentence that the
// other side merged into one (a full stop removed at the run's end).
func (x *extender) absorb(e, f, dir int) byte {
	sa, okA := x.a[e]
	sb, okB := x.b[f]
	if !okA || !okB || !sa.Content || !sb.Content {
		return 0
	}
	base, baseIn := jaccard(sa.Tokens, sb.Tokens)
	takes := func(t1, t2, other []uint32) bool { // t1 joined to t2 is more like other
		x.scratch = union(x.scratch[:0], t1, t2)
		j, in := jaccard(x.scratch, other)
		return j >= x.p.Tau && j > base && in-baseIn >= x.p.MinTokens
	}
	if n, ok := x.a[e+dir]; ok && x.usable(n) && x.usedA[e+dir] == 0 && takes(sa.Tokens, n.Tokens, sb.Tokens) {
		return 'a'
	}
	if n, ok := x.b[f+dir]; ok && x.usable(n) && x.usedB[f+dir] == 0 && takes(sb.Tokens, n.Tokens, sa.Tokens) {
		return 'b'
	}
	return 0
}

// inSeed reports whether sentence i of A (a) or B lies in a seed other
// than the one being extended.
func (x *extender) inSeed(i int, a bool) bool {
	for k, s := range x.seeds {
		if k+1 == x.owner {
			continue
		}
		if a && s.StartA <= i && i <= s.EndA || !a && s.StartB <= i && i <= s.EndB {
			return true
		}
	}
	return false
}

// fill aligns the sentences between the two pairs of a candidate (a
// merge, a split or an edited sentence that the match stepped over) and
// returns the number of steps, which count as pairs, or 0 when the steps
// do not lead from the first pair to the second.
func (x *extender) fill(s *Seed, sum *float64) int {
	if s.EndA-s.StartA < 2 && s.EndB-s.StartB < 2 {
		return 0
	}
	// Free the candidate's own inside, not another seed's sentences.
	for i := s.StartA + 1; i < s.EndA; i++ {
		if x.usedA[i] == x.owner && !x.inSeed(i, true) {
			delete(x.usedA, i)
		}
	}
	for j := s.StartB + 1; j < s.EndB; j++ {
		if x.usedB[j] == x.owner && !x.inSeed(j, false) {
			delete(x.usedB, j)
		}
	}
	t := Seed{EndA: s.StartA, EndB: s.StartB}
	var add float64
	n := x.grow(&t, &add, 1)
	x.use(s.StartA, s.EndA, s.StartB, s.EndB)
	if n == 0 || t.EndA != s.EndA-1 || t.EndB != s.EndB-1 {
		return 0
	}
	s.Length += n
	s.Evidence += t.Evidence
	*sum += add
	return n
}

// next returns the first sentence from i in direction dir that is content
// or missing: sentences that are not content are stepped over.
func (x *extender) next(side Side, i, dir int) int {
	for {
		s, ok := side[i]
		if !ok || s.Content {
			return i
		}
		i += dir
	}
}

// best returns the best step from sentences i of A and j of B in
// direction dir (na = 0: none), and whether a missing sentence (the end of
// a window) stopped the search.
func (x *extender) best(i, j, dir int) (step, bool) {
	edge := false
	for skip := 0; skip <= 2*x.p.Gap; skip++ {
		var best step
		for da := max(0, skip-x.p.Gap); da <= min(skip, x.p.Gap); da++ {
			db := skip - da
			ia, ib := i+dir*da, j+dir*db
			sa, okA := x.a[ia]
			sb, okB := x.b[ib]
			if !okA || !okB {
				// A missing sentence ends the window (not the start
				// of a document).
				edge = edge || ia >= 0 && ib >= 0
				continue
			}
			if !x.usable(sa) || !x.usable(sb) {
				continue
			}
			try := func(na, nb int, score float64, shared, sizeA, sizeB int) {
				// The step and the sentences it skips must be free.
				if score >= x.p.Tau && score > best.score && shared >= x.p.MinTokens &&
					free(x.usedA, i, da+na, dir) && free(x.usedB, j, db+nb, dir) {
					ev := signature.Evidence(shared, sizeA, sizeB, x.p.MinEvidence)
					if ev < x.p.MinEvidence {
						ev = 0 // no anchor
					}
					if e, given := x.pairs[[2]int{ia, ib}]; given {
						ev = max(ev, e) // a pair of the join, as it was scored
					}
					best = step{ia, ib, na, nb, score, ev}
				}
			}
			// A pair at least as similar as the join's threshold that is
			// no seed's was left out by the join on purpose: no step may
			// align it, alone or within a merge or a split.
			// Sizes bound Jaccard (|a|/|b| for |a| <= |b|): most
			// neighbours are told apart without comparing their sets.
			j11, in11 := x.jaccard(sa.Tokens, sb.Tokens)
			if _, given := x.pairs[[2]int{ia, ib}]; x.joined(j11) && !given {
				continue
			}
			try(1, 1, j11, in11, len(sa.Tokens), len(sb.Tokens))
			if sa2, ok := x.a[ia+dir]; ok && x.usable(sa2) {
				if j, in, ok := x.merged(sa.Tokens, sa2.Tokens, sb.Tokens); ok {
					try(2, 1, j, in, len(x.scratch), len(sb.Tokens))
				}
			}
			if sb2, ok := x.b[ib+dir]; ok && x.usable(sb2) {
				if j, in, ok := x.merged(sb.Tokens, sb2.Tokens, sa.Tokens); ok {
					try(1, 2, j, in, len(sa.Tokens), len(x.scratch))
				}
			}
		}
		if best.na > 0 {
			x.c.Steps++
			switch {
			case best.na == 2:
				x.c.Merges++
			case best.nb == 2:
				x.c.Splits++
			}
			return best, false
		}
	}
	return step{}, edge
}

// merged returns the similarity of sentence t with two sentences of the
// other side, s1 and the next s2, joined (a merge or a split), and its
// shared tokens; ok is false when their sizes rule out Tau, or when s2
// and t are a pair the join left out (see best).
func (x *extender) merged(s1, s2, t []uint32) (sim float64, shared int, ok bool) {
	if unionBound(s1, s2, t) < x.p.Tau || x.joined(first(x.jaccard(s2, t))) {
		return 0, 0, false
	}
	x.scratch = union(x.scratch[:0], s1, s2)
	sim, shared = jaccard(x.scratch, t)
	return sim, shared, true
}

// joined reports whether a 1:1 similarity is one the join pairs.
func (x *extender) joined(sim float64) bool { return x.p.JoinTau > 0 && sim >= x.p.JoinTau }

func (x *extender) usable(s Sentence) bool { return s.Content && len(s.Tokens) >= x.p.MinTokens }

// jaccard is jaccard, or 0 when the sets' sizes show it is under both
// thresholds (Tau and JoinTau).
func (x *extender) jaccard(a, b []uint32) (float64, int) {
	lo := x.p.Tau
	if x.p.JoinTau > 0 {
		lo = min(lo, x.p.JoinTau)
	}
	if sizeBound(len(a), len(b)) < lo {
		return 0, 0
	}
	return jaccard(a, b)
}

// sizeBound is the greatest Jaccard similarity of sets of n and m elements.
func sizeBound(n, m int) float64 {
	if n == 0 || m == 0 {
		return 0
	}
	return float64(min(n, m)) / float64(max(n, m))
}

// unionBound bounds the Jaccard similarity of the union of sets a1 and a2
// with b from their sizes (the union has between max and the sum of theirs).
func unionBound(a1, a2, b []uint32) float64 {
	lo, hi, n := max(len(a1), len(a2)), len(a1)+len(a2), len(b)
	switch {
	case n >= hi:
		return sizeBound(hi, n)
	case n <= lo:
		return sizeBound(lo, n)
	}
	return 1
}

// first returns a similarity without its count.
func first(sim float64, _ int) float64 { return sim }

// jaccard returns the Jaccard similarity of two sorted sets and the size
// of their intersection.
func jaccard(a, b []uint32) (float64, int) {
	if len(a) == 0 || len(b) == 0 {
		return 0, 0
	}
	in := signature.Overlap(a, b)
	return float64(in) / float64(len(a)+len(b)-in), in
}

// union appends the union of two sorted sets to dst.
func union(dst, a, b []uint32) []uint32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			dst = append(dst, a[i])
			i++
		case a[i] > b[j]:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}
