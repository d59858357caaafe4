package dedup

import (
	"fmt"
	"slices"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// Verifier checks what was cut against the texts, independently of how
// Cut decided (its sentences, alignment and protected ranges): every cut
// range's kept range must hold at least MinHeld of the cut range's words
// (the distinct tokens of its text, every sentence counted), and must be
// in the output, not cut from its own document. Give it every document's
// text and outcome (Doc), then call Done.
type Verifier struct {
	// Ranges counts the cut ranges checked; Violations those that fail,
	// First describes the first of them.
	Ranges, Violations int
	First              string

	p      *Plan
	tok    sentence.Tokenizer
	h1, h2 []uint64
	refs   []keptUse          // kept ranges used, checked in Done
	cutOf  map[string][]Range // merged cuts of documents holding kept members
}

type keptUse struct {
	by  string // the cut document
	cut Range
	Ref
}

// NewVerifier returns a Verifier of p's cuts; p must have been given the
// kept documents (Keep).
func NewVerifier(p *Plan) *Verifier { return &Verifier{p: p, cutOf: map[string][]Range{}} }

// Doc checks the removals o of document d, whose extracted text is text.
func (v *Verifier) Doc(d, text string, o Outcome) {
	if len(o.Removals) == 0 {
		return
	}
	if v.p.HoldsKept(d) {
		v.cutOf[d] = Ranges(o.Removals)
	}
	runes := []rune(text)
	for _, rm := range o.Removals {
		v.Ranges++
		v.refs = append(v.refs, keptUse{d, rm.Range, rm.Kept})
		kept, ok := v.p.keptText(rm.Kept)
		if !ok || rm.End > len(runes) {
			v.fail(fmt.Sprintf("%s %d-%d: kept range %s %d-%d is not inside a kept member", d, rm.Start, rm.End, rm.Kept.Doc, rm.Kept.Start, rm.Kept.End))
			continue
		}
		if held := v.held(string(runes[rm.Start:rm.End]), kept); held < MinHeld {
			v.fail(fmt.Sprintf("%s %d-%d: kept range %s %d-%d holds %.0f%% of its words", d, rm.Start, rm.End, rm.Kept.Doc, rm.Kept.Start, rm.Kept.End, 100*held))
		}
	}
}

// Done checks that no kept range was cut from its own document.
func (v *Verifier) Done() {
	for _, u := range v.refs {
		if overlaps(v.cutOf[u.Doc], u.Range) {
			v.fail(fmt.Sprintf("%s %d-%d: its kept range %s %d-%d is cut from %s too", u.by, u.cut.Start, u.cut.End, u.Doc, u.Start, u.End, u.Doc))
		}
	}
	v.refs = nil
}

func (v *Verifier) fail(what string) {
	if v.Violations == 0 {
		v.First = what
	}
	v.Violations++
}

// held is the share of the distinct tokens of cut found in kept.
func (v *Verifier) held(cut, kept string) float64 {
	v.h1 = distinct(v.tok.Hashes(v.h1[:0], cut))
	if len(v.h1) == 0 {
		return 1
	}
	v.h2 = distinct(v.tok.Hashes(v.h2[:0], kept))
	n := 0
	for _, h := range v.h1 {
		if _, ok := slices.BinarySearch(v.h2, h); ok {
			n++
		}
	}
	return float64(n) / float64(len(v.h1))
}

func distinct(hs []uint64) []uint64 {
	slices.Sort(hs)
	return slices.Compact(hs)
}
