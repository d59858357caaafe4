package dedup

import (
	"fmt"
	"slices"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// Verifier checks what was cut against the texts, independently of how
// Cut decided (its sentences, alignment and protected ranges): every cut
// range's kept range must hold at least MinHeld of the cut range's words
// (the tokens of its text, every sentence counted, each as often as it
// occurs: a merge of the two sorted lists of token hashes) and every code
// name of its text (MissingName), and must be in the output, not cut from
// its own document. Template cuts
// (ReasonTemplate) have no kept range and are not checked. Give it every document's
// text and outcome (Doc; or Check, which goroutines may call at once, and
// Record, in document order), then call Done.
type Verifier struct {
	// Ranges counts the cut ranges checked; Violations those that fail,
	// First describes the first of them.
	Ranges, Violations int
	First              string

	p     *Plan
	c     Checker
	refs  []keptUse          // kept ranges of documents not recorded yet, checked in Done
	cutOf map[string][]Range // merged cuts of documents holding kept members
	done  map[string]bool    // documents holding kept members, recorded
}

type keptUse struct {
	by  string // the cut document
	cut Range
	Ref
}

// NewVerifier returns a Verifier of p's cuts; p must have been given the
// kept documents (Keep).
func NewVerifier(p *Plan) *Verifier {
	v := &Verifier{p: p, cutOf: map[string][]Range{}, done: map[string]bool{}}
	for d, w := range p.withdrawn {
		v.cutOf[d], v.done[d] = w, true
	}
	return v
}

// Doc checks the removals o of document d, whose extracted text is text.
func (v *Verifier) Doc(d, text string, o Outcome) { v.Record(d, o, v.c.Check(v.p, d, text, o)) }

// Checker checks one document's removals against the kept texts; one per
// goroutine.
type Checker struct {
	tok    sentence.Tokenizer
	h1, h2 []uint64
}

// Check returns what is wrong with the removals o of document d (text its
// extracted text), one description per failing removal.
func (c *Checker) Check(p *Plan, d, text string, o Outcome) []string {
	var bad []string
	var runes []rune
	rec := p.records(nil)
	for _, rm := range o.Removals {
		if rm.Reason == ReasonTemplate {
			continue // no kept copy
		}
		if runes == nil {
			runes = []rune(text)
		}
		kept, ok := p.keptText(rec, rm.Kept)
		if !ok || rm.End > len(runes) {
			bad = append(bad, fmt.Sprintf("%s %d-%d: kept range %s %d-%d is not inside a kept member", d, rm.Start, rm.End, rm.Kept.Doc, rm.Kept.Start, rm.Kept.End))
			continue
		}
		cut := string(runes[rm.Start:rm.End])
		if held := c.held(cut, kept); held < MinHeld {
			bad = append(bad, fmt.Sprintf("%s %d-%d: kept range %s %d-%d holds %.0f%% of its words", d, rm.Start, rm.End, rm.Kept.Doc, rm.Kept.Start, rm.Kept.End, 100*held))
		} else if name := missingName(cut, kept, c.h2); name != "" { // c.h2: kept's words, sorted by held
			bad = append(bad, fmt.Sprintf("%s %d-%d: kept range %s %d-%d lacks the name %s", d, rm.Start, rm.End, rm.Kept.Doc, rm.Kept.Start, rm.Kept.End, name))
		}
	}
	return bad
}

// Record adds the removals o of document d and what Check found wrong
// with them. A kept range of a document recorded before is checked now,
// the others in Done.
func (v *Verifier) Record(d string, o Outcome, bad []string) {
	if v.p.HoldsKept(d) {
		v.done[d] = true
		if len(o.Removals) > 0 {
			v.cutOf[d] = Ranges(o.Removals)
		}
	}
	for _, rm := range o.Removals {
		if rm.Reason == ReasonTemplate {
			continue
		}
		v.Ranges++
		u := keptUse{d, rm.Range, rm.Kept}
		if v.done[rm.Kept.Doc] {
			v.check(u)
		} else {
			v.refs = append(v.refs, u)
		}
	}
	for _, b := range bad {
		v.fail(b)
	}
}

// Done checks that no kept range was cut from its own document.
func (v *Verifier) Done() {
	for _, u := range v.refs {
		v.check(u)
	}
	v.refs = nil
}

// check checks that u's kept range is not cut from its document, once
// that document is recorded.
func (v *Verifier) check(u keptUse) {
	if Meets(v.cutOf[u.Doc], u.Range) {
		v.fail(fmt.Sprintf("%s %d-%d: its kept range %s %d-%d is cut from %s too", u.by, u.cut.Start, u.cut.End, u.Doc, u.Start, u.End, u.Doc))
	}
}

func (v *Verifier) fail(what string) {
	if v.Violations == 0 {
		v.First = what
	}
	v.Violations++
}

// held is the share of the tokens of cut found in kept, each token as
// often as it occurs in both; it leaves kept's tokens, sorted, in c.h2.
func (c *Checker) held(cut, kept string) float64 {
	c.h1 = c.tok.Hashes(c.h1[:0], cut)
	c.h2 = c.tok.Hashes(c.h2[:0], kept)
	slices.Sort(c.h2) // missingName reads it too
	if len(c.h1) == 0 {
		return 1
	}
	slices.Sort(c.h1)
	n, i, j := 0, 0, 0
	for i < len(c.h1) && j < len(c.h2) {
		switch {
		case c.h1[i] == c.h2[j]:
			n, i, j = n+1, i+1, j+1
		case c.h1[i] < c.h2[j]:
			i++
		default:
			j++
		}
	}
	return float64(n) / float64(len(c.h1))
}
