// Package diagonal finds runs of consecutive duplicated sentence pairs
// between two documents: the sequence matching step of PDC-MR
// (Algorithm 2). Duplicated sentence pairs (a, b) are dots in the
// sentence-by-sentence matrix of documents A and B; a reused passage is a
// diagonal (a, b), (a+1, b+1), ..., (a+n-1, b+n-1).
//
// With a gap G > 0 a run may skip up to G sentences on either side between
// two of its pairs, so that one edited, inserted or dropped sentence does
// not split or hide a reused passage; and two runs are joined into one
// when the second starts after G sentences on one side and G+1 on the
// other: a sentence of one document that is two of the other (a full stop
// lost or added) matches neither of them. G = 0 is the paper's exact
// diagonals.
package diagonal

import (
	"cmp"
	"math"
	"slices"
)

// Pair is one duplicated sentence pair: sentence A of the first document,
// sentence B of the second, and their similarity.
type Pair struct {
	A, B  int
	Score float64
	// Evidence is the caller's measure of what the pair says of a
	// run (lib/signature Evidence); runs add up theirs.
	Evidence int
	// Tag is the caller's, carried through (e.g. an index into its own
	// per-pair data).
	Tag int
}

// Run is a span of duplicated sentence pairs: sentences StartA..EndA of the
// first document match StartB..EndB of the second (inclusive). Length is
// the number of pairs in the run; without gaps EndA = StartA+Length-1.
// First and Last are its first and last pairs; Score is the mean score of
// its pairs, Evidence the sum of theirs.
type Run struct {
	StartA, StartB, EndA, EndB int
	Length                     int
	Evidence                   int
	First, Last                Pair
	Score                      float64
}

// Counts says what Find did besides finding runs.
type Counts struct {
	// Joined counts the joins of two runs across a merged or split
	// sentence (joinMerged).
	Joined int
	// Covered counts the runs left out because longer runs hold all their
	// sentences on both sides (dropCovered).
	Covered int
}

// Find returns the runs of at least minLen pairs, or of at least 2 pairs
// that cover minLen sentences on one side by stepping over a gap (a run
// missing one sentence of a copied passage), ordered by (StartA, StartB).
// With a gap, runs whose sentences all lie in longer (or as long and better
// scored) runs on both sides are left out (dropCovered). Callers may
// want more evidence for runs shorter than minLen pairs (lib/matcher). A run continues from pair (a, b) to the unused pair (a', b')
// with a < a' <= a+1+gap and b < b' <= b+1+gap that is nearest (smallest
// a'-a + b'-b, then closest to the diagonal); with gap > 0, a run ending
// at (a, b) and one starting at (a+1+gap, b+2+gap) or (a+2+gap, b+1+gap)
// are then joined (joinMerged). Each pair belongs to at most
// one run. Duplicate pairs (same A and B) are merged, keeping the highest
// score. Find may reorder pairs (not when they come sorted by (A, B)
// without duplicates). If c is not nil, Find adds to its counts.
func Find(pairs []Pair, minLen, gap int, c *Counts) []Run {
	return new(Finder).Find(pairs, minLen, gap, c)
}

// FindAll returns Find's runs and the short runs: those of at least 2
// pairs made of the runs too short on their own (single pairs among them)
// joined as Find joins runs (joinMerged), but not with runs long enough on
// their own; ordered by (StartA, StartB), without those whose sentences
// all lie, on both sides, in longer runs (as Find drops them). A short run
// may meet one of Find's runs: the caller tells. The extension takes them
// as candidates (lib/extend).
func FindAll(pairs []Pair, minLen, gap int, c *Counts) (runs, short []Run) {
	return new(Finder).FindAll(pairs, minLen, gap, c)
}

// A Finder is Find and FindAll with their working memory kept for the next
// call, for a caller that matches one document pair after another (the
// match job: most calls are small, and allocating for each cost more than
// the matching). The runs a call returns are the Finder's until its next
// call. The zero Finder is ready.
type Finder struct {
	used, counts, joined, inA, inB  []bool
	runs, rest, short, merged, long []Run
	sorted                          []Run // longestFirst's copy
	keys                            []runKey
	restFirst                       []int
	restRun                         []int32
	startOf, next, row              []int32
	runFirst                        []int // the index of runs[i]'s first pair
}

// Find is the package's Find.
func (f *Finder) Find(pairs []Pair, minLen, gap int, c *Counts) []Run {
	runs, _ := f.find(pairs, minLen, gap, c, false)
	return runs
}

// FindAll is the package's FindAll.
func (f *Finder) FindAll(pairs []Pair, minLen, gap int, c *Counts) (runs, short []Run) {
	return f.find(pairs, minLen, gap, c, true)
}

func (f *Finder) find(pairs []Pair, minLen, gap int, c *Counts, withShort bool) ([]Run, []Run) {
	if !strictlySorted(pairs) { // the match job's pairs arrive sorted, without duplicates
		slices.SortFunc(pairs, func(x, y Pair) int {
			return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B), cmp.Compare(y.Score, x.Score))
		})
		pairs = slices.CompactFunc(pairs, func(x, y Pair) bool { return x.A == y.A && x.B == y.B })
	}
	at := newLocator(pairs, f.row[:0])
	if at.row != nil {
		f.row = at.row
	}
	steps := stepsFor(gap)
	used := falses(f.used, len(pairs))
	f.used = used
	// The runs too short on their own (with withShort) are rest: most are
	// single pairs, told by their first pair alone (restRuns).
	runs, multi := f.runs[:0], f.rest[:0]
	restFirst := f.restFirst[:0] // index of the first pair of each run of the rest
	restRun := f.restRun[:0]     // its index in multi, or -1 for a single pair
	counts := f.counts[:0]       // runs[i] counts on its own (without joinMerged)
	runFirst := f.runFirst[:0]   // the index of runs[i]'s first pair
	defer func() {
		f.runs, f.rest, f.restFirst, f.restRun, f.counts, f.runFirst = runs, multi, restFirst, restRun, counts, runFirst
	}()
	if withShort {
		// Grown once, not by append's steps (a large slice grows by a
		// quarter).
		restFirst, restRun = slices.Grow(restFirst, len(pairs)), slices.Grow(restRun, len(pairs))
	}
	for i := range pairs {
		if used[i] {
			continue
		}
		used[i] = true
		j, more := step(&at, pairs, used, steps, i)
		if !more && minLen > 1 {
			// A pair alone, no run (most pairs of a document pair
			// of repeated sentences).
			if withShort {
				restFirst, restRun = append(restFirst, i), append(restRun, -1)
			}
			continue
		}
		r := Run{StartA: pairs[i].A, StartB: pairs[i].B, First: pairs[i], Length: 1, Score: pairs[i].Score, Evidence: pairs[i].Evidence}
		cur := pairs[i]
		for ; more; j, more = step(&at, pairs, used, steps, j) {
			cur = pairs[j]
			r.Length++
			r.Score += cur.Score
			r.Evidence += cur.Evidence
		}
		covered := max(cur.A-r.StartA, cur.B-r.StartB) + 1
		ok := covered >= max(minLen, 1) && r.Length >= 2 || r.Length >= max(minLen, 1)
		r.EndA, r.EndB, r.Last = cur.A, cur.B, cur
		r.Score /= float64(r.Length)
		if ok || gap > 0 && r.Length >= 2 { // two pairs may count once joined
			runs, counts, runFirst = append(room(runs), r), append(room(counts), ok), append(room(runFirst), i)
		}
		if !ok && withShort {
			k := int32(-1)
			if r.Length > 1 {
				k, multi = int32(len(multi)), append(room(multi), r)
			}
			restFirst, restRun = append(restFirst, i), append(restRun, k)
		}
	}
	var short []Run
	if withShort && (len(restFirst) > 1 || len(restFirst) == 1 && restRun[0] >= 0) {
		if gap > 0 {
			short = f.joinShort(pairs, &at, restRuns{pairs, restFirst, restRun, multi}, gap)
			// As Find drops them, but kept when they meet Find's runs:
			// the caller tells.
			long := f.long[:0] // the runs that count on their own (rest has the others)
			for i, r := range runs {
				if counts[i] {
					long = append(room(long), r)
				}
			}
			f.long = long
			short = f.dropCoveredBy(short, long)
		} else {
			short = multi // the runs of 2 pairs or more of the rest, in order
		}
	}
	out := runs
	if gap > 0 { // gap 0 keeps the paper's exact diagonals
		var joined int
		out, joined = f.joinMerged(pairs, &at, runs, runFirst, counts, gap, minLen)
		n := len(out)
		out = f.dropCovered(out)
		if c != nil {
			c.Joined += joined
			c.Covered += n - len(out)
		}
	}
	slices.SortFunc(out, byStart)
	slices.SortFunc(short, byStart)
	return out, short
}

// step returns the unused pair that a run continues to from pair i, the
// first of steps that is one, and marks it used; false if there is none.
func step(at *locator, pairs []Pair, used []bool, steps [][2]int, i int) (int, bool) {
	a, b := pairs[i].A, pairs[i].B
	for _, s := range steps {
		if j, ok := at.find(i, a+s[0], b+s[1]); ok && !used[j] {
			used[j] = true
			return j, true
		}
	}
	return 0, false
}

// falses returns buf resized to n, all false.
func falses(buf []bool, n int) []bool {
	buf = slices.Grow(buf[:0], n)[:n]
	clear(buf)
	return buf
}

// restRuns are the runs too short on their own: run i starts at pair
// first[i], and is multi[run[i]], or the single pair when run[i] is -1.
type restRuns struct {
	pairs []Pair
	first []int
	run   []int32
	multi []Run
}

// at returns run i.
func (r restRuns) at(i int) Run {
	if k := r.run[i]; k >= 0 {
		return r.multi[k]
	}
	return Single(r.pairs[r.first[i]])
}

// Single is the run of pair p alone.
func Single(p Pair) Run {
	return Run{StartA: p.A, StartB: p.B, EndA: p.A, EndB: p.B, Length: 1, First: p, Last: p, Score: p.Score, Evidence: p.Evidence}
}

// end returns run i's last pair's sentences.
func (r restRuns) end(i int) (int, int) {
	if k := r.run[i]; k >= 0 {
		return r.multi[k].EndA, r.multi[k].EndB
	}
	p := r.pairs[r.first[i]]
	return p.A, p.B
}

// joinShort joins the runs of rest as joinMerged joins runs, and returns
// those of 2 pairs or more. It finds a run's successor through the pairs'
// locator, not a map: rest holds most of a document pair's pairs, as
// single pairs.
func (f *Finder) joinShort(pairs []Pair, at *locator, rest restRuns, gap int) []Run {
	n := len(rest.first)
	next, joined := f.chain(at, len(pairs), rest.first, rest.end, gap)
	out := f.short[:0]
	for i := range n {
		if joined[i] || next[i] == 0 && rest.run[i] < 0 { // joined to another, or a pair alone
			continue
		}
		r := rest.at(i)
		sum := r.Score * float64(r.Length)
		for j := next[i]; j != 0; j = next[j-1] {
			nr := rest.at(int(j - 1))
			r.EndA, r.EndB, r.Last = nr.EndA, nr.EndB, nr.Last
			r.Length += nr.Length
			r.Evidence += nr.Evidence
			sum += nr.Score * float64(nr.Length)
		}
		if r.Length >= 2 {
			r.Score = sum / float64(r.Length)
			out = append(room(out), r)
		}
	}
	f.short = out
	return out
}

// room returns s with room for one more element, doubled when full: a
// large slice grows by a quarter, and a document pair of repeated
// sentences makes hundreds of thousands of runs, copied again at each
// step.
func room[T any](s []T) []T {
	if len(s) == cap(s) {
		return slices.Grow(s, len(s)+16)
	}
	return s
}

// chain finds what joinMerged and joinShort join: for each run i of
// theirs, starting at pair first[i] (of npairs) and ending at end(i), the
// first not yet joined run that starts gap+1 sentences after its end on
// one side and gap+2 on the other, found through the pairs' locator.
// next[i] is that run's index + 1 (0: none), joined[j] whether run j
// follows another. Both are the Finder's until the next chain.
func (f *Finder) chain(at *locator, npairs int, first []int, end func(i int) (int, int), gap int) (next []int32, joined []bool) {
	startOf := zeros(f.startOf, npairs) // index + 1 of the run starting at a pair
	for i, k := range first {
		startOf[k] = int32(i + 1)
	}
	next, joined = zeros(f.next, len(first)), falses(f.joined, len(first))
	f.startOf, f.next, f.joined = startOf, next, joined
	for i := range first {
		endA, endB := end(i)
		for _, s := range [2][2]int{{gap + 1, gap + 2}, {gap + 2, gap + 1}} {
			if k, ok := at.find(-1, endA+s[0], endB+s[1]); ok {
				if j := startOf[k]; j != 0 && !joined[j-1] {
					next[i], joined[j-1] = j, true
					break
				}
			}
		}
	}
	return next, joined
}

// zeros returns buf resized to n, all 0.
func zeros(buf []int32, n int) []int32 {
	buf = slices.Grow(buf[:0], n)[:n]
	clear(buf)
	return buf
}

// dropCoveredBy leaves out the short runs whose sentences, on both sides,
// all lie in runs or in longer (or as long and better scored) short runs,
// as dropCovered does.
func (f *Finder) dropCoveredBy(short, runs []Run) []Run {
	if len(short) == 0 {
		return short
	}
	f.longestFirst(short)
	minA, maxA, minB, maxB := short[0].StartA, short[0].EndA, short[0].StartB, short[0].EndB
	for _, rs := range [2][]Run{runs, short} {
		for _, r := range rs {
			minA, maxA = min(minA, r.StartA), max(maxA, r.EndA)
			minB, maxB = min(minB, r.StartB), max(maxB, r.EndB)
		}
	}
	inA, inB := falses(f.inA, maxA-minA+1), falses(f.inB, maxB-minB+1)
	f.inA, f.inB = inA, inB
	mark := func(r Run) {
		for i := r.StartA; i <= r.EndA; i++ {
			inA[i-minA] = true
		}
		for i := r.StartB; i <= r.EndB; i++ {
			inB[i-minB] = true
		}
	}
	for _, r := range runs {
		mark(r)
	}
	kept := short[:0]
	for _, r := range short {
		if !slices.Contains(inA[r.StartA-minA:r.EndA-minA+1], false) && !slices.Contains(inB[r.StartB-minB:r.EndB-minB+1], false) {
			continue
		}
		mark(r)
		kept = append(kept, r)
	}
	return kept
}

// smallSteps holds stepsFor(gap) for the usual gaps: Find runs once per
// document pair.
var smallSteps = func() (t [4][][2]int) {
	for g := range t {
		t[g] = makeSteps(g)
	}
	return t
}()

// stepsFor lists the moves (da, db) a run may make, nearest first.
func stepsFor(gap int) [][2]int {
	if gap >= 0 && gap < len(smallSteps) {
		return smallSteps[gap]
	}
	return makeSteps(gap)
}

func makeSteps(gap int) [][2]int {
	var steps [][2]int
	for da := 1; da <= gap+1; da++ {
		for db := 1; db <= gap+1; db++ {
			steps = append(steps, [2]int{da, db})
		}
	}
	abs := func(x int) int { return max(x, -x) }
	slices.SortStableFunc(steps, func(x, y [2]int) int {
		return cmp.Or(cmp.Compare(x[0]+x[1], y[0]+y[1]), cmp.Compare(abs(x[0]-x[1]), abs(y[0]-y[1])), cmp.Compare(x[0], y[0]))
	})
	return steps
}

// strictlySorted reports whether pairs are ordered by (A, B) without
// duplicates.
func strictlySorted(pairs []Pair) bool {
	for i := 1; i < len(pairs); i++ {
		if p, q := pairs[i-1], pairs[i]; p.A > q.A || p.A == q.A && p.B >= q.B {
			return false
		}
	}
	return true
}

// locator finds a pair by its (A, B) in pairs sorted by (A, B), without
// duplicates. Rows (the pairs of one A) are found through a table indexed
// by A when there are 32 pairs or more and their A values are dense
// enough, then searched; otherwise the whole slice is binary searched.
// Runs visit each pair and look up a few neighbours per step, so the
// lookup is the matching's inner loop.
type locator struct {
	pairs []Pair
	minA  int
	row   []int32 // row[a-minA] is the index of row a's first pair; row[len-1] = len(pairs)
}

func newLocator(pairs []Pair, row []int32) locator {
	l := locator{pairs: pairs}
	if len(pairs) == 0 || len(pairs) >= math.MaxInt32 {
		return l
	}
	l.minA = pairs[0].A
	width := pairs[len(pairs)-1].A - l.minA + 1
	if len(pairs) < 32 || width > 4*len(pairs)+1024 {
		return l // few or sparse: binary search
	}
	l.row = slices.Grow(row[:0], width+1)[:width+1]
	a := 0
	for i, p := range pairs {
		for ; a <= p.A-l.minA; a++ {
			l.row[a] = int32(i)
		}
	}
	for ; a <= width; a++ {
		l.row[a] = int32(len(pairs))
	}
	return l
}

// find returns the index of pair (a, b) if it lies after index from.
func (l *locator) find(from, a, b int) (int, bool) {
	lo, hi := from+1, len(l.pairs)
	if l.row != nil {
		i := a - l.minA
		if i < 0 || i+1 >= len(l.row) {
			return 0, false
		}
		lo, hi = max(lo, int(l.row[i])), int(l.row[i+1])
		if hi-lo <= 8 {
			for k := lo; k < hi; k++ {
				if l.pairs[k].B >= b {
					return k, l.pairs[k].B == b
				}
			}
			return hi, false
		}
		// One row: the pairs' A is a, search by B alone.
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if l.pairs[m].B < b {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo, lo < len(l.pairs) && l.pairs[lo].A == a && l.pairs[lo].B == b
	}
	if lo >= hi {
		return hi, false
	}
	k, ok := slices.BinarySearchFunc(l.pairs[lo:hi], [2]int{a, b}, func(p Pair, t [2]int) int {
		return cmp.Or(cmp.Compare(p.A, t[0]), cmp.Compare(p.B, t[1]))
	})
	return lo + k, ok
}

// joinMerged joins runs that a merged or split sentence separates: a run
// starting gap+1 sentences after another's end on one side and gap+2 on the
// other (the sentences between are one sentence of one document that is
// two of the other, next to up to gap-1 edited ones, and match neither).
// It returns the runs that count: those that count on their own
// (counts[i]) and joined runs of at least minLen pairs (runs of two pairs
// each on both sides of a merged sentence, say), and the number of joins
// in them.
func (f *Finder) joinMerged(pairs []Pair, at *locator, runs []Run, first []int, counts []bool, gap, minLen int) ([]Run, int) {
	next, joined := f.chain(at, len(pairs), first, func(i int) (int, int) { return runs[i].EndA, runs[i].EndB }, gap)
	out, joins := f.merged[:0], 0
	defer func() { f.merged = out }()
	for i := range runs {
		if joined[i] {
			continue
		}
		r, ok, n := runs[i], counts[i], 0
		sum := r.Score * float64(r.Length)
		for j := next[i]; j != 0; j = next[j-1] {
			nr := runs[j-1]
			r.EndA, r.EndB, r.Last = nr.EndA, nr.EndB, nr.Last
			r.Length += nr.Length
			r.Evidence += nr.Evidence
			sum += nr.Score * float64(nr.Length)
			ok = ok || counts[j-1] || r.Length >= max(minLen, 1)
			n++
		}
		if ok {
			r.Score = sum / float64(r.Length)
			out = append(room(out), r)
			joins += n
		}
	}
	return out, joins
}

// byLengthScoreStart orders runs longest first, then best scored, then by
// start.
func byLengthScoreStart(x, y Run) int {
	return cmp.Or(cmp.Compare(y.Length, x.Length), cmp.Compare(y.Score, x.Score), cmp.Compare(x.StartA, y.StartA), cmp.Compare(x.StartB, y.StartB))
}

// longestFirst sorts runs stably by byLengthScoreStart, in place. A
// document pair of repeated sentences has tens of thousands of runs:
// when they come ordered by start, as Find makes them, it sorts their
// lengths, scores and indexes side by side (the index, ordered as the
// start, breaks ties), then moves each run once; otherwise it sorts the
// runs.
func (f *Finder) longestFirst(runs []Run) {
	if slices.IsSortedFunc(runs, byLengthScoreStart) {
		return
	}
	if !slices.IsSortedFunc(runs, byStart) {
		slices.SortStableFunc(runs, byLengthScoreStart)
		return
	}
	keys := slices.Grow(f.keys[:0], len(runs))
	for i, r := range runs {
		keys = append(keys, runKey{r.Score, int32(r.Length), int32(i)})
	}
	slices.SortFunc(keys, func(x, y runKey) int {
		return cmp.Or(cmp.Compare(y.length, x.length), cmp.Compare(y.score, x.score), cmp.Compare(x.i, y.i))
	})
	was := append(f.sorted[:0], runs...)
	for k, key := range keys {
		runs[k] = was[key.i]
	}
	f.keys, f.sorted = keys, was
}

// runKey is what longestFirst sorts a run by.
type runKey struct {
	score     float64
	length, i int32
}

// byStart orders runs by their first pair.
func byStart(x, y Run) int {
	return cmp.Or(cmp.Compare(x.StartA, y.StartA), cmp.Compare(x.StartB, y.StartB))
}

// dropCovered removes runs that report nothing new: runs whose sentences
// in A all lie in kept runs, and whose sentences in B all do too. Runs are
// taken longest first, then best scored: the off-diagonal echoes that
// sentences repeated within a reused passage create (and the shifted runs
// of documents made of many near-identical sentences, such as API indexes)
// would report the same passages again, aligned less well. A run inside a
// longer one is such an echo; a passage of A found twice in B is not (its
// second copy in B is new). Linear in the runs' lengths.
func (f *Finder) dropCovered(runs []Run) []Run {
	if len(runs) < 2 {
		return runs
	}
	f.longestFirst(runs)
	minA, maxA, minB, maxB := runs[0].StartA, runs[0].EndA, runs[0].StartB, runs[0].EndB
	for _, r := range runs {
		minA, maxA = min(minA, r.StartA), max(maxA, r.EndA)
		minB, maxB = min(minB, r.StartB), max(maxB, r.EndB)
	}
	inA := falses(f.inA, maxA-minA+1) // sentence minA+i of A lies in a kept run
	inB := falses(f.inB, maxB-minB+1)
	f.inA, f.inB = inA, inB
	kept := runs[:0]
	for _, r := range runs {
		a, b := inA[r.StartA-minA:r.EndA-minA+1], inB[r.StartB-minB:r.EndB-minB+1]
		if !slices.Contains(a, false) && !slices.Contains(b, false) {
			continue
		}
		for i := range a {
			a[i] = true
		}
		for i := range b {
			b[i] = true
		}
		kept = append(kept, r)
	}
	return kept
}
