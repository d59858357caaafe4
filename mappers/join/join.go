// Package join is the map side of the join job (PDC-MR Algorithm 1): from
// each posting list it emits every pair of sentences of different documents
// that passes the length filter, once per shared signature.
//
// Input: the index job's posting lists (reducers/index); B (boilerplate)
// lines are skipped. Output, one line per document pair (docA < docB
// bytewise) and batch of its candidate sentence pairs:
//
//	docA TAB docB TAB pair TAB pair ...
//
// each pair `sentA,sentB,count,nA,nB,csA,ceA,csB,ceB`: sentence indexes,
// count 1 (one shared signature) or, with the words method, the exact
// overlap of the two token sets, verified here (PPJoin's size, index-prefix
// and positional filters and a bitmap filter prune the pair first, and a
// pair is verified only in the posting list of the first token its sets
// share, so it is emitted once); nA, nB the sentences' set sizes, cs/ce
// their rune offsets. The copies of sets, paired all with all (below),
// come as product items instead, one per two documents' copies:
//
//	*count,nA,nB,kA,sentA,csA,ceA,...,sentB,csB,ceB,...
//
// kA sentences of docA (index and rune offsets), then one or more of docB,
// every one of docA's paired with every one of docB's, all with one
// overlap count and set sizes nA, nB: a sentence repeated in both
// documents (a line of code, a heading of each of a type's methods) is
// k+m numbers, not k*m pairs. The key is the document pair. A mapper gathers the
// pairs of each document pair it meets (mr.Batch), so that a pair of long
// ids travels once per batch, not once per sentence pair; the reducer sorts
// and sums them (reducers/join).
//
// A list of more than PDC_HUB_DF documents (or MaxPairwise postings) is
// joined through hubs, so that a passage copied into N documents costs
// O(N) pairs, not O(N^2): in list order (by document), each posting is
// paired with the first hub it is similar to (same filters, exact
// verification for words), else becomes a hub itself while the pass has
// fewer than MaxHubs. While a pass pairs at least half of its postings
// with its hubs (the list is mostly copies) and more than MaxPairwise are
// left, the rest gets hubs of its own in another pass (up to MaxListHubs
// in all). What is left (sentences similar to no hub) is joined as a short
// list is, however many: nothing is left out.
//
// For words, the postings are first gathered by set (exact copies of one
// sentence), and the passes and the join of what is left work on sets.
// The copies of a set are paired in the list of the set's first shareable
// token only (every copy is in it; the set's other lists would emit the
// same pairs): every two of different documents when the set is in at
// most PDC_HUB_DF documents, else each with the first. A set matched to a
// hub pairs every copy with the hub. When the first pass matches fewer
// than half of the list's other sets, the list holds many sentences, not
// variants of a few (Javadoc's "Constructs a new X with the specified
// detail message" in a thousand classes): hub pairs would link each page
// to another page in every list, so no two pages keep their diagonal, and
// the list's sets are all joined pairwise instead (join.hub.varied). Two
// similar sets pair all their copies when they are in at most PDC_HUB_DF
// documents together and the list's budget (ExpandBudget pairs per
// posting) allows, else their first postings; a set is paired with at
// most MaxSetPartners similar sets as large or larger (a sentence edited
// into many versions; join.hub.leftover.set-partners-capped counts the
// sets that reached it). A hub pair may be found in several lists (the
// first-common-token rule cannot hold when other lists have other hubs):
// every copy carries the same exact overlap, and the reducer keeps one.
// The copies of a passage are then linked to their first copy, not to
// each other; clustering (reducers/clusters) recovers the groups, and
// `pdc spans --pair` any pair within.
//
// In a batch run (PDC_BATCH, pdc run --against) the lists hold the stored
// documents' postings and the batch's (marked by doc.BatchMark). Every list
// is joined as in a run over all of them, so that the same pairs are
// found; those of two stored documents, which the stored runs hold, are
// then left out (join.batch.stored-pairs-left-out). In a list joined
// pairwise, two stored postings are not even checked: no other pair
// depends on theirs.
package join

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
)

// Posting is one entry of a posting list.
type Posting struct {
	Doc, Sent, CS, CE, Site []byte
	NSig                    int
	// Pos, Unique and Set describe the whole ordered set (words method
	// only): Pos is the prefix position of the list's token, Unique the
	// number of tokens seen in one document only (first in the order), Set
	// the ranks of the others, ascending (lib/signature/set.go).
	Pos, Unique int
	Set         []uint32
	// Bitmap is Set's sketch (signature.Bitmap), for the bitmap filter.
	Bitmap uint64

	// New marks a posting of a batch's own document in a batch run (its
	// site field starts with doc.BatchMark, which Site leaves out).
	New bool

	docNo int // equal for the postings of one document within a list (numberDocs)
	gno   int // 1 + the document's number in the grouper (grouper.number), 0 until it has one
	grp   int // 1 + the posting's set in a hub list's leftover (joiner.group), else 0
}

// ParsePosting parses `sent,nsig,cs,ce,site,doc`, or with prefixed set
// `sent,nsig,cs,ce,site,pos,set,doc`. set is decoded into setBuf (reused).
// doc is empty when the posting before it in its list is of the same
// document (reducers/index): the caller fills it in.
func ParsePosting(b []byte, prefixed bool, setBuf []uint32) (Posting, []uint32, error) {
	var f [7][]byte
	nf := 5
	if prefixed {
		nf = 7
	}
	for i := range nf {
		j := bytes.IndexByte(b, ',')
		if j < 0 {
			return Posting{}, setBuf, fmt.Errorf("malformed posting %q", b)
		}
		f[i], b = b[:j], b[j+1:]
	}
	n, ok := mr.Atoi(f[1])
	if !ok || n < 1 {
		return Posting{}, setBuf, fmt.Errorf("malformed posting signature count %q", f[1])
	}
	p := Posting{Sent: f[0], NSig: n, CS: f[2], CE: f[3], Site: f[4], Doc: b}
	if len(p.Site) > 0 && p.Site[0] == doc.BatchMark {
		p.New, p.Site = true, p.Site[1:]
	}
	if !prefixed {
		return p, setBuf, nil
	}
	if p.Pos, ok = mr.Atoi(f[5]); !ok || p.Pos >= n {
		return p, setBuf, fmt.Errorf("malformed posting position %q", f[5])
	}
	start := len(setBuf)
	u, setBuf, err := signature.DecodeSet(f[6], setBuf)
	if err != nil || u+len(setBuf)-start != n || p.Pos < u {
		return p, setBuf[:start], fmt.Errorf("malformed posting set %q", f[6])
	}
	p.Unique = u
	p.Set = setBuf[start:len(setBuf):len(setBuf)]
	p.Bitmap = signature.Bitmap(p.Set)
	return p, setBuf, nil
}

// Map runs the join mapper.
func Map(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	c := mr.NewCounters(t.Stderr)
	g := newGrouper(mr.NewOutput(t.Stdout))
	var (
		fields [][]byte
		ps     []Posting
		sets   []uint32
		sorted []Posting
		docs   map[string]int
	)
	prefixed := cfg.Signature.Method.Prefixed()
	st := joiner{hubDF: cfg.HubDF, tau: cfg.Tau, crossSiteOnly: cfg.CrossSiteOnly, batch: cfg.Batch > 0, filter: !cfg.NoFilter, prefixed: prefixed}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		fields = mr.Fields(fields[:0], r.Line())
		if len(fields) < 4 || len(fields[1]) != 1 {
			return fmt.Errorf("join mapper: line %d: malformed posting list", r.LineNumber())
		}
		if fields[1][0] != 'P' {
			continue
		}
		if err := g.nextList(); err != nil {
			return err
		}
		ps, sets = ps[:0], sets[:0]
		for _, f := range fields[3:] {
			var p Posting
			var err error
			p, sets, err = ParsePosting(f, prefixed, sets)
			if err != nil {
				return fmt.Errorf("join mapper: line %d: %w", r.LineNumber(), err)
			}
			if len(p.Doc) == 0 { // the document of the posting before
				if len(ps) == 0 {
					return fmt.Errorf("join mapper: line %d: the first posting of the list has no document id", r.LineNumber())
				}
				p.Doc = ps[len(ps)-1].Doc
			}
			ps = append(ps, p)
		}
		var err error
		if ps, sorted, docs, err = st.list(ps, sorted, docs, g); err != nil {
			return err
		}
	}
	st.report(c, prefixed)
	if err := r.Err(); err != nil {
		return fmt.Errorf("join mapper: read: %w", err)
	}
	if err := g.Close(); err != nil {
		return err
	}
	return c.Flush()
}

// list joins one posting list, through hubs or pairwise; sorted and docs
// are reused from list to list (it returns them, and ps, for that).
func (s *joiner) list(ps, sorted []Posting, docs map[string]int, g *grouper) ([]Posting, []Posting, map[string]int, error) {
	var ndocs int
	ndocs, docs = numberDocs(ps, docs)
	if s.hubDF > 0 && (len(ps) > MaxPairwise || ndocs > s.hubDF) {
		return ps, sorted, docs, s.hubs(ps, g)
	}
	ps, sorted = sortBySize(ps, sorted[:0])
	return ps, sorted, docs, s.pairwise(ps, g)
}

// pairwise emits every pair of a list sorted by size that passes the
// filters.
func (s *joiner) pairwise(ps []Posting, g *grouper) error {
	// Most pairs fail a filter that needs a few numbers of each posting:
	// side by side in keys, a pair costs one cache line, not the two
	// that those numbers span in a Posting.
	keys := s.keys[:0]
	for i := range ps {
		p := &ps[i]
		keys = append(keys, postingKey{bitmap: p.Bitmap, nsig: int32(p.NSig), rest: int32(p.NSig - p.Pos - 1), setLen: int32(len(p.Set)), docNo: int32(p.docNo), new: p.New})
	}
	s.keys = keys
	fast := s.prefixed && !s.crossSiteOnly
	for i := range ps {
		a := &ps[i]
		// Sorted by size, a's partners in the length filter are the
		// postings after it up to the first too large for it.
		rest := ps[i+1:]
		n := sort.Search(len(rest), func(k int) bool { return !signature.LengthOK(a.NSig, rest[k].NSig, s.tau) })
		s.lengthFiltered += int64(len(rest) - n)
		if s.prefixed && s.filter && a.Pos >= signature.IndexPrefixLen(a.NSig, s.tau) {
			// a is the smaller set of its pairs here, and the token
			// is past a's index prefix: no pair of a can have it as
			// its first common token (lib/signature.IndexPrefixLen).
			s.indexPrefixFiltered += int64(n)
			continue
		}
		cut := n
		if s.prefixed && s.filter && !s.noCut {
			// Sorted by size, the pairs of a past the first whose overlap
			// a's tokens after the list's cannot reach fail the positional
			// filter (check) whatever b's: counted (unless a reaches its
			// partners first), not checked.
			cut = s.positionCut(a, rest[:n])
		}
		partners := 0
		capped := false
		aRest := a.NSig - a.Pos - 1
		for k := range rest[:cut] {
			b, kb := &rest[k], &keys[i+1+k]
			if a.docNo == int(kb.docNo) && a.grp == 0 {
				continue // sets of a leftover pair their copies (setPairs)
			}
			if s.batch && a.grp == 0 && !a.New && !kb.new {
				// Two stored postings: addPair would leave the pair out,
				// and nothing else depends on it (sets of a hub list's
				// leftover count their partners: those are checked).
				s.stored++
				continue
			}
			var count int
			var ok bool
			if fast {
				// check's filters, on the keys.
				s.candidates++
				need := s.minOverlap(a.NSig + int(kb.nsig))
				if s.filter && 1+min(aRest, int(kb.rest)) < need {
					s.positionFiltered++
					continue
				}
				if s.filter && signature.OverlapBound(len(a.Set), int(kb.setLen), a.Bitmap, kb.bitmap) < need {
					s.bitmapFiltered++
					continue
				}
				count, ok = s.verify(a, b, need, false)
			} else {
				count, ok = s.check(a, b, false)
			}
			if !ok {
				continue
			}
			if err := s.emit(a, b, count, g); err != nil {
				return err
			}
			if partners++; a.grp > 0 && partners >= MaxSetPartners {
				s.setPartnersCapped++
				capped = true
				break
			}
		}
		if !capped {
			s.countCut(a, rest[cut:n])
		}
	}
	return nil
}

// positionCut returns the number of postings of rest (sorted by size, a's
// partners in the length filter) before the first that the positional
// filter drops for a's part alone: 1 plus a's tokens after the list's is
// less than the overlap a pair with it needs, which grows with its size.
func (s *joiner) positionCut(a *Posting, rest []Posting) int {
	left := 1 + a.NSig - a.Pos - 1
	return sort.Search(len(rest), func(k int) bool { return left < s.minOverlap(a.NSig+rest[k].NSig) })
}

// countCut counts the pairs of a with rest that pairwise would have
// checked, as the positional filter's: check drops each of them.
func (s *joiner) countCut(a *Posting, rest []Posting) {
	var n int64
	for k := range rest {
		b := &rest[k]
		switch {
		case a.docNo == b.docNo && a.grp == 0:
		case s.batch && a.grp == 0 && !a.New && !b.New:
			s.stored++
		case s.crossSiteOnly && s.oneHost(a, b):
			s.sameSite++
			n++
		default:
			s.positionFiltered++
			n++
		}
	}
	s.candidates += n
}

// sortBySize orders postings by set size, keeping list order among equal
// sizes: a counting sort into buf, whose storage it swaps with ps's (both
// are reused for the next list). Postings are large structs, and a
// comparison sort moved them many times.
func sortBySize(ps, buf []Posting) (sorted, spare []Posting) {
	maxN := 0
	for i := range ps {
		maxN = max(maxN, ps[i].NSig)
	}
	if maxN > 4*len(ps)+64 { // sparse sizes: a comparison sort is cheaper
		slices.SortStableFunc(ps, func(x, y Posting) int { return cmp.Compare(x.NSig, y.NSig) })
		return ps, buf
	}
	start := make([]int, maxN+2)
	for i := range ps {
		start[ps[i].NSig+1]++
	}
	for n := 1; n < len(start); n++ {
		start[n] += start[n-1]
	}
	buf = slices.Grow(buf[:0], len(ps))[:len(ps)]
	for i := range ps {
		n := ps[i].NSig
		buf[start[n]] = ps[i]
		start[n]++
	}
	return buf, ps
}

// numberDocs sets the docNo of the postings of one list, equal for equal
// documents, and returns the number of documents and docs for reuse.
// Lists come sorted by document (the index reducer sorts them), so a
// document's postings are neighbours; a list that is not sorted is
// numbered through docs.
func numberDocs(ps []Posting, docs map[string]int) (int, map[string]int) {
	n := 0
	for i := range ps {
		if i > 0 {
			switch c := bytes.Compare(ps[i-1].Doc, ps[i].Doc); {
			case c > 0:
				if docs == nil {
					docs = make(map[string]int)
				}
				clear(docs)
				for i := range ps {
					no, ok := docs[string(ps[i].Doc)]
					if !ok {
						no = len(docs)
						docs[string(ps[i].Doc)] = no
					}
					ps[i].docNo = no
				}
				return len(docs), docs
			case c < 0:
				n++
			}
		}
		ps[i].docNo = n
	}
	if len(ps) == 0 {
		return 0, docs
	}
	return n + 1, docs
}

// MaxPairwise is the most postings of a list joined pairwise (the limit
// of --max-df before lists were joined through hubs): a longer list is
// joined through hubs whatever its documents.
const MaxPairwise = 1000

// MaxSetPartners is the most similar sets one set of a leftover is paired
// with (of those as large or larger): a sentence edited into many versions
// links them in O(versions) pairs, not O(versions^2).
const MaxSetPartners = 32

// ExpandBudget bounds the copies' pairs setPairs emits for a leftover:
// this many per posting.
const ExpandBudget = 8

// MaxHubs is the most hubs of one pass over a list joined through hubs,
// and MaxListHubs of all its passes.
const (
	MaxHubs     = 16
	MaxListHubs = 256
)

// hubs joins a list through hubs (see the package comment).
func (s *joiner) hubs(ps []Posting, g *grouper) error {
	s.hubLists++
	s.hubPostings += int64(len(ps))
	rest := ps
	if s.prefixed {
		var err error
		if rest, err = s.sets(ps, g); err != nil {
			return err
		}
	}
	total := 0
	for pass := 0; ; pass++ {
		left, n := s.hubPass(rest)
		if pass == 0 && s.prefixed && 2*len(s.matches) < len(rest)-n {
			// Most sets are similar to no hub: the list holds many
			// sentences, not variants of a few. Hub pairs would link
			// each set to another page per list; pairwise, they keep
			// two pages' diagonal whole.
			s.hubVaried++
			s.hubHubs -= int64(n)
			all := append(s.leftBuf[:0], rest...)
			return s.leftover(all, g)
		}
		if err := s.emitMatches(rest, g); err != nil {
			return err
		}
		total += n
		// Counted in postings (copies of a set count each).
		wRest, wLeft := s.weight(rest), s.weight(left)
		matched := wRest - wLeft - n
		if wLeft <= MaxPairwise || total >= MaxListHubs || 2*matched < wRest {
			return s.leftover(left, g)
		}
		s.hubPasses++
		rest = append(s.restBuf[:0], left...) // hubPass reuses leftBuf
		s.restBuf = rest
	}
}

// sets gathers the postings of a hub list by set (exact copies of one
// sentence, s.hub), pairs the copies of each set in the list of its first
// shareable token (copies), and returns the first posting of each set, its
// grp set, for the hub passes.
func (s *joiner) sets(ps []Posting, g *grouper) ([]Posting, error) {
	s.group(ps)
	h := &s.hub
	h.ps = ps
	reps := h.sets[:0]
	for gi, gr := range h.groups {
		if err := s.copies(ps, gr, g); err != nil {
			return nil, err
		}
		r := ps[gr.first]
		r.grp = gi + 1
		reps = append(reps, r)
	}
	h.sets = reps
	return reps, nil
}

// weight is the number of postings ps stands for: a posting with grp
// stands for its set's copies.
func (s *joiner) weight(ps []Posting) int {
	n := 0
	for i := range ps {
		if g := ps[i].grp; g > 0 {
			n += s.hub.groups[g-1].n
		} else {
			n++
		}
	}
	return n
}

// hubPass pairs each posting of ps with the first of the pass's hubs it is
// similar to, or makes it a hub while there are fewer than MaxHubs; it
// returns the postings left (in s.leftBuf) and the number of hubs. A
// posting that stands for a set (grp) pairs every copy of the set.
func (s *joiner) hubPass(ps []Posting) ([]Posting, int) {
	hubs, left := s.hubBuf[:0], s.leftBuf[:0]
	s.matches = s.matches[:0]
	for i := range ps {
		p := &ps[i]
		matched := false
		for _, h := range hubs {
			a, b := &ps[h], p
			if a.docNo == b.docNo && (b.grp == 0 || s.hub.groups[b.grp-1].docs < 2) {
				continue // a set with copies elsewhere pairs those (hubPair)
			}
			if b.NSig < a.NSig {
				a, b = b, a
			}
			if !signature.LengthOK(a.NSig, b.NSig, s.tau) {
				s.lengthFiltered++
				continue
			}
			count, ok := s.check(a, b, true)
			if !ok {
				continue
			}
			s.matches = append(s.matches, hubMatch{hub: h, p: i, count: count})
			matched = true
			break
		}
		switch {
		case matched:
		case len(hubs) < MaxHubs:
			hubs = append(hubs, i)
		default:
			left = append(left, *p)
		}
	}
	s.hubHubs += int64(len(hubs))
	s.hubBuf, s.leftBuf = hubs, left
	return left, len(hubs)
}

// hubMatch is a posting of a pass paired with its hub (indexes into the
// pass's postings) and their overlap.
type hubMatch struct{ hub, p, count int }

// emitMatches emits the pairs of the last hubPass over ps.
func (s *joiner) emitMatches(ps []Posting, g *grouper) error {
	for _, m := range s.matches {
		if err := s.hubPair(&ps[m.hub], &ps[m.p], m.count, g); err != nil {
			return err
		}
	}
	return nil
}

// hubPair pairs p with its hub: every copy of p's set with the hub's first
// posting when p stands for a set.
func (s *joiner) hubPair(hub, p *Posting, count int, g *grouper) error {
	if p.grp == 0 {
		return s.addPair(hub, p, count, g)
	}
	h := &s.hub
	for i := h.groups[p.grp-1].first; i >= 0; i = h.next[i] {
		x := &h.ps[i]
		if x.docNo == hub.docNo || (s.crossSiteOnly && s.oneHost(x, hub)) {
			continue
		}
		if err := s.addPair(hub, x, count, g); err != nil {
			return err
		}
	}
	return nil
}

// leftover joins the postings of a hub list similar to no hub, however
// many (they are not copies of one passage: those found their hub), as a
// short list is; for prefixed methods they are sets (hubs.sets), joined
// with their copies (setPairs).
func (s *joiner) leftover(left []Posting, g *grouper) error {
	if len(left) < 2 {
		return nil
	}
	sorted, spare := sortBySize(left, s.sortBuf[:0])
	if s.prefixed {
		h := &s.hub
		n := 0
		for i := range left {
			n += h.groups[left[i].grp-1].n
		}
		s.hubLeftover += int64(n)
		s.hubSets += int64(len(left))
		h.budget = ExpandBudget * n
	} else {
		s.hubLeftover += int64(len(left))
	}
	err := s.pairwise(sorted, g)
	s.leftBuf, s.sortBuf = sorted[:0], spare[:0]
	return err
}

// copies pairs the copies of one set: every two of different documents
// when the set is in at most hubDF documents and MaxPairwise postings, else
// each with the first. It does so in the list of the set's first shareable
// token only (every copy is in that list, since the token is first in each
// copy's prefix): the other lists of the set would emit the same pairs.
func (s *joiner) copies(ps []Posting, gr copyGroup, g *grouper) error {
	if gr.docs < 2 || ps[gr.first].Pos != ps[gr.first].Unique {
		return nil
	}
	h := &s.hub
	all := gr.docs <= s.hubDF && gr.n <= MaxPairwise
	if all {
		s.copiesAll++
	} else {
		s.copiesFirst++
	}
	if s.crossSiteOnly || s.noProducts {
		return s.copyPairs(ps, gr, all, g)
	}
	// The copies' overlap is the same for every two: checked once, on the
	// first two of different documents.
	j := h.next[gr.first]
	for j >= 0 && ps[j].docNo == ps[gr.first].docNo {
		j = h.next[j]
	}
	count, ok := s.check(&ps[gr.first], &ps[j], true)
	if !ok {
		return nil // not similar: words of one document only
	}
	runs := s.docRuns(gr.first, nil)
	first := docRun{0, 1, ps[gr.first].docNo} // s.runIdx[0] is gr.first
	for i, x := range runs {
		if !all {
			x = first
		}
		for _, y := range runs[i+1:] {
			if x.doc == y.doc {
				continue
			}
			if err := s.addProduct(x, y, count, g); err != nil {
				return err
			}
		}
		if !all {
			break
		}
	}
	return nil
}

// copyPairs is copies pair by pair: with --cross-site-only each pair is
// checked (and counted) for its hosts.
func (s *joiner) copyPairs(ps []Posting, gr copyGroup, all bool, g *grouper) error {
	h := &s.hub
	count := -1 // the overlap, the same for every two copies
	for i := gr.first; i >= 0; i = h.next[i] {
		for j := h.next[i]; j >= 0; j = h.next[j] {
			a, b := &ps[i], &ps[j]
			if !all {
				a = &ps[gr.first]
			}
			if a.docNo == b.docNo {
				continue
			}
			if count < 0 || s.crossSiteOnly {
				c, ok := s.check(a, b, true)
				if !ok && s.crossSiteOnly {
					continue // one host
				}
				if !ok {
					return nil // not similar: words of one document only
				}
				count = c
			}
			if err := s.addPair(a, b, count, g); err != nil {
				return err
			}
		}
		if !all {
			break
		}
	}
	return nil
}

// docRun is a run of a set's copies of one document, in its chain:
// s.runIdx[start:start+n] index the postings.
type docRun struct{ start, n, doc int }

// docRuns splits the chain of postings from first (s.hub.next) into runs
// of one document each, appending their indexes to s.runIdx (cleared when
// runs is nil) and the runs to runs. The lists come sorted by document, so
// a document's copies are one run; in a list that is not, a document may
// have several.
func (s *joiner) docRuns(first int, runs []docRun) []docRun {
	h := &s.hub
	if runs == nil {
		s.runIdx = s.runIdx[:0]
		runs = s.runBuf[:0]
	}
	base := len(runs) // a run of another chain is not continued
	for i := first; i >= 0; i = h.next[i] {
		d := h.ps[i].docNo
		if n := len(runs); n > base && runs[n-1].doc == d && runs[n-1].start+runs[n-1].n == len(s.runIdx) {
			runs[n-1].n++
		} else {
			runs = append(runs, docRun{len(s.runIdx), 1, d})
		}
		s.runIdx = append(s.runIdx, i)
	}
	s.runBuf = runs
	return runs
}

// addProduct emits every pair of a posting of run x with one of run y
// (documents of different numbers, of one overlap count) as one product
// item (see the package comment); in a batch run, none when both are
// stored documents.
func (s *joiner) addProduct(x, y docRun, count int, g *grouper) error {
	h := &s.hub
	a, b := &h.ps[s.runIdx[x.start]], &h.ps[s.runIdx[y.start]]
	if s.batch && !a.New && !b.New {
		s.stored += int64(x.n * y.n)
		return nil
	}
	if x.n == 1 && y.n == 1 {
		return s.addPair(a, b, count, g)
	}
	if bytes.Compare(a.Doc, b.Doc) > 0 {
		x, y, a, b = y, x, b, a
	}
	line, i := g.line(a, b)
	line = append(line, '\t', '*')
	line = strconv.AppendInt(line, int64(count), 10)
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(a.NSig), 10)
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(b.NSig), 10)
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(x.n), 10)
	for _, r := range [2]docRun{x, y} {
		for _, k := range s.runIdx[r.start : r.start+r.n] {
			p := &h.ps[k]
			line = append(line, ',')
			line = append(line, unpad(p.Sent)...)
			line = append(line, ',')
			line = append(line, p.CS...)
			line = append(line, ',')
			line = append(line, p.CE...)
		}
	}
	return g.Put(i, line)
}

// emit emits the pair of similar postings a and b with overlap count: with
// the copies of their sets when they are sets of a hub list (setPairs).
func (s *joiner) emit(a, b *Posting, count int, g *grouper) error {
	if a.grp > 0 && b.grp > 0 {
		return s.setPairs(a, b, count, g)
	}
	return s.addPair(a, b, count, g)
}

// setPairs emits the pairs of two similar sets of a hub list, a and b
// their first postings: every two copies of different documents when the
// sets are in at most hubDF documents together and the list's budget
// (ExpandBudget pairs per posting) allows, else a and b alone (their
// copies are linked to them).
func (s *joiner) setPairs(a, b *Posting, count int, g *grouper) error {
	h := &s.hub
	ga, gb := h.groups[a.grp-1], h.groups[b.grp-1]
	if ga.n == 1 && gb.n == 1 || ga.docs+gb.docs > s.hubDF || ga.n*gb.n > h.budget {
		if a.docNo == b.docNo {
			return nil
		}
		if ga.n > 1 || gb.n > 1 {
			s.setPairsFirst++
		}
		return s.addPair(a, b, count, g)
	}
	s.setPairsAll++
	h.budget -= ga.n * gb.n
	if s.noProducts {
		for i := ga.first; i >= 0; i = h.next[i] {
			for j := gb.first; j >= 0; j = h.next[j] {
				x, y := &h.ps[i], &h.ps[j]
				if x.docNo == y.docNo || (s.crossSiteOnly && s.oneHost(x, y)) {
					continue
				}
				if err := s.addPair(x, y, count, g); err != nil {
					return err
				}
			}
		}
		return nil
	}
	runs := s.docRuns(ga.first, nil)
	na := len(runs)
	runs = s.docRuns(gb.first, runs)
	for _, x := range runs[:na] {
		for _, y := range runs[na:] {
			if x.doc == y.doc || (s.crossSiteOnly && s.oneHost(&h.ps[s.runIdx[x.start]], &h.ps[s.runIdx[y.start]])) {
				continue
			}
			if err := s.addProduct(x, y, count, g); err != nil {
				return err
			}
		}
	}
	return nil
}

// addPair emits the pair of a and b in document order; in a batch run,
// only if one of them is of the batch (the pairs of two stored documents
// are the stored runs').
func (s *joiner) addPair(a, b *Posting, count int, g *grouper) error {
	if s.batch && !a.New && !b.New {
		s.stored++
		return nil
	}
	if bytes.Compare(a.Doc, b.Doc) > 0 {
		a, b = b, a
	}
	return g.add(a, b, count)
}

// group gathers the postings of ps with the same set (copies of one
// sentence) into s.hub.groups, each a chain through s.hub.next in list
// order.
func (s *joiner) group(ps []Posting) {
	h := &s.hub
	if h.firstOf == nil {
		h.firstOf = make(map[uint64]int)
	}
	clear(h.firstOf)
	groups := h.groups[:0]
	next := slices.Grow(h.next[:0], len(ps))[:len(ps)]
	last := h.last[:0]
	for i := range ps {
		p := &ps[i]
		next[i] = -1
		if gi, ok := h.firstOf[setHash(p)]; ok {
			gr := &groups[gi]
			f := &ps[gr.first]
			if f.NSig == p.NSig && slices.Equal(f.Set, p.Set) {
				next[last[gi]] = i
				if p.docNo != ps[last[gi]].docNo {
					gr.docs++
				}
				last[gi] = i
				gr.n++
				continue
			}
		} else {
			h.firstOf[setHash(p)] = len(groups)
		}
		groups = append(groups, copyGroup{first: i, n: 1, docs: 1})
		last = append(last, i)
	}
	h.groups, h.next, h.last = groups, next, last
}

// copyGroup is a set's postings: the first, how many, of how many
// documents.
type copyGroup struct{ first, n, docs int }

// hubState is what joining one list through hubs reuses for the next.
type hubState struct {
	ps         []Posting      // the list
	sets       []Posting      // the first posting of each set
	budget     int            // pairs setPairs may still emit
	firstOf    map[uint64]int // set hash -> group
	groups     []copyGroup
	next, last []int // postings chains of the groups
}

// setHash hashes a posting's set and size (FNV-1a over the ranks).
func setHash(p *Posting) uint64 {
	h := uint64(14695981039346656037) ^ uint64(p.NSig)
	for _, t := range p.Set {
		h = (h ^ uint64(t)) * 1099511628211
	}
	return h
}

// joiner applies the join's filters to the pairs of posting lists.
type joiner struct {
	tau           float64
	crossSiteOnly bool
	batch         bool     // a batch run: pairs of two stored documents are left out
	filter        bool     // PPJoin's prefix and positional filters (not --no-filter)
	noCut         bool     // check every pair pairwise (positionCut off: its model test)
	noProducts    bool     // emit the copies' pairs one by one (addProduct off: its model test)
	runIdx        []int    // docRuns' posting indexes
	runBuf        []docRun // docRuns' runs
	prefixed      bool
	need          []int // need[na+nb] is signature.MinOverlap(na, nb, tau)
	hubBuf        []int
	matches       []hubMatch
	hubDF         int
	hub           hubState
	leftBuf       []Posting // postings of a hub list similar to no hub
	restBuf       []Posting // those of the previous pass
	sortBuf       []Posting
	keys          []postingKey // pairwise's
	stats
}

// postingKey holds what check's filters read of a Posting (rest is the
// number of its set's tokens after the list's), and what pairwise reads
// before them: numbers of a sentence's tokens and of a list's documents,
// which fit in 32 bits.
type postingKey struct {
	bitmap                    uint64
	nsig, rest, setLen, docNo int32
	new                       bool
}

// stats counts what the filters did.
type stats struct {
	candidates, lengthFiltered, indexPrefixFiltered, sameSite, positionFiltered, bitmapFiltered, seenElsewhere, verifyFailed, emitted, stored         int64
	hubLists, hubPostings, hubHubs, hubPasses, hubLeftover, hubSets, setPartnersCapped, copiesAll, copiesFirst, setPairsAll, setPairsFirst, hubVaried int64
}

// check applies the filters to a cross-document pair and returns the count
// to emit: 1 (one shared signature) for counting methods, the exact set
// overlap for prefixed ones. For a pair of a hub list (hub), the positional
// filter and the first-common-token rule do not apply: they assume that the
// list's token is the pair's first common one, which a hub pair need not
// have.
func (s *joiner) check(a, b *Posting, hub bool) (int, bool) {
	s.candidates++
	// Named sites (trees, --site-field: "n...") have no URL host.
	if s.crossSiteOnly && s.oneHost(a, b) {
		s.sameSite++
		return 0, false
	}
	if !s.prefixed {
		s.emitted++
		return 1, true
	}
	need := s.minOverlap(a.NSig + b.NSig)
	if !hub && s.filter && 1+min(a.NSig-a.Pos-1, b.NSig-b.Pos-1) < need {
		s.positionFiltered++
		return 0, false
	}
	// Tokens of one document only are in neither Set; they cannot be
	// shared, so the overlap is that of the Sets.
	if s.filter && signature.OverlapBound(len(a.Set), len(b.Set), a.Bitmap, b.Bitmap) < need {
		s.bitmapFiltered++
		return 0, false
	}
	return s.verify(a, b, need, hub)
}

// verify is the end of check, for a pair of a prefixed method that passed
// its filters: the first-common-token rule (not for a hub pair) and the
// overlap, which must reach need.
func (s *joiner) verify(a, b *Posting, need int, hub bool) (int, bool) {
	if !hub {
		if first, _ := signature.FirstCommon(a.Set, b.Set); first != a.Set[a.Pos-a.Unique] {
			s.seenElsewhere++ // verified in the list of their first common token
			return 0, false
		}
	}
	o, ok := signature.OverlapAtLeast(a.Set, b.Set, need)
	if !ok {
		s.verifyFailed++
		return 0, false
	}
	s.emitted++
	return o, true
}

// oneHost reports whether a and b are of one URL host (named sites, of
// trees and --site-field, "n...", have none).
func (s *joiner) oneHost(a, b *Posting) bool {
	return bytes.Equal(a.Site, b.Site) && string(a.Site) != "-" && a.Site[0] != 'n'
}

// minOverlap is signature.MinOverlap for sets whose sizes add up to n,
// from a table (it depends on the sum alone).
func (s *joiner) minOverlap(n int) int {
	for len(s.need) <= n {
		s.need = append(s.need, signature.MinOverlap(len(s.need), 0, s.tau))
	}
	return s.need[n]
}

func (s *stats) report(c *mr.Counters, prefixed bool) {
	c.Add("join.candidates", s.candidates)
	c.Add("join.length-filtered", s.lengthFiltered)
	c.Add("join.emitted", s.emitted)
	if s.sameSite > 0 {
		c.Add("join.same-site-dropped", s.sameSite)
	}
	if s.stored > 0 {
		c.Add("join.batch.stored-pairs-left-out", s.stored)
	}
	if s.hubLists > 0 {
		c.Add("join.hub.lists", s.hubLists)
		c.Add("join.hub.postings", s.hubPostings)
		c.Add("join.hub.hubs", s.hubHubs)
		c.Add("join.hub.leftover", s.hubLeftover)
		c.Add("join.hub.leftover.sets", s.hubSets)
		c.Add("join.hub.copies.all-pairs", s.copiesAll)
		c.Add("join.hub.copies.first", s.copiesFirst)
		c.Add("join.hub.leftover.set-pairs.all-copies", s.setPairsAll)
		c.Add("join.hub.leftover.set-pairs.first-copies", s.setPairsFirst)
		c.Add("join.hub.leftover.set-partners-capped", s.setPartnersCapped)
		if s.hubVaried > 0 {
			c.Add("join.hub.varied", s.hubVaried)
		}
		if s.hubPasses > 0 {
			c.Add("join.hub.more-passes", s.hubPasses)
		}
	}
	if prefixed {
		c.Add("join.index-prefix-filtered", s.indexPrefixFiltered)
		c.Add("join.position-filtered", s.positionFiltered)
		c.Add("join.bitmap-filtered", s.bitmapFiltered)
		c.Add("join.verified-elsewhere", s.seenElsewhere)
		c.Add("join.verify-failed", s.verifyFailed)
	}
}

// grouper gathers a mapper's candidate pairs by document pair (see the
// package comment). Document pairs are found by the numbers it gives the
// documents (number), not by their ids: a pair's line is looked up for
// every sentence pair, a document's number once per list.
type grouper struct {
	*mr.Batch[uint64]                   // keyed by docA's number << 32 | docB's
	ids               map[string]uint32 // document id -> number
	idBytes           int               // the ids' length
	maxDocs           int               // MaxGroupedDocs; smaller in tests
}

// MaxGroupedDocs and MaxGroupedIDBytes are how many document numbers, and
// ids of how many bytes, a grouper holds before it writes its batch out
// and numbers afresh (the numbers cost about 64 bytes each besides).
const (
	MaxGroupedDocs    = 1 << 18
	MaxGroupedIDBytes = 16 << 20
)

func newGrouper(out mr.Output) *grouper {
	return &grouper{Batch: mr.NewBatch[uint64](out), ids: make(map[string]uint32), maxDocs: MaxGroupedDocs}
}

// nextList is called before each list: between lists, when it holds
// MaxGroupedDocs numbers, the grouper writes its batch out and forgets
// them (a list's postings keep theirs while the list is joined).
func (g *grouper) nextList() error {
	if len(g.ids) < g.maxDocs && g.idBytes < MaxGroupedIDBytes {
		return nil
	}
	clear(g.ids)
	g.idBytes = 0
	return g.Flush()
}

// number returns p's document number, giving it one if it has none.
func (g *grouper) number(p *Posting) uint64 {
	if p.gno == 0 {
		n, ok := g.ids[string(p.Doc)]
		if !ok {
			n = uint32(len(g.ids))
			g.ids[string(p.Doc)] = n
			g.idBytes += len(p.Doc)
		}
		p.gno = int(n) + 1
	}
	return uint64(p.gno - 1)
}

// add adds the pair of sentences a and b (a.Doc < b.Doc) sharing count
// signatures.
func (g *grouper) add(a, b *Posting, count int) error {
	line, i := g.line(a, b)
	return g.Put(i, appendPair(line, a, b, count))
}

// line returns the line of the document pair of a and b (a.Doc < b.Doc),
// begun with the ids if new, and its number for Put.
func (g *grouper) line(a, b *Posting) ([]byte, int) {
	line, i := g.Line(g.number(a)<<32 | g.number(b))
	if len(line) == 0 {
		line = append(append(append(line, a.Doc...), '\t'), b.Doc...)
	}
	return line, i
}

// appendPair appends `TAB sentA,sentB,count,nA,nB,csA,ceA,csB,ceB` for
// the pair of a and o (a.Doc < o.Doc); sentence indexes lose their zero
// padding.
func appendPair(b []byte, a, o *Posting, count int) []byte {
	b = append(b, '\t')
	b = append(b, unpad(a.Sent)...)
	b = append(b, ',')
	b = append(b, unpad(o.Sent)...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(count), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(a.NSig), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(o.NSig), 10)
	for _, f := range [][]byte{a.CS, a.CE, o.CS, o.CE} {
		b = append(b, ',')
		b = append(b, f...)
	}
	return b
}

// unpad drops a number's leading zeros but its last digit.
func unpad(n []byte) []byte {
	for len(n) > 1 && n[0] == '0' {
		n = n[1:]
	}
	return n
}
