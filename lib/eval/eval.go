// Package eval scores located text-reuse detections against annotated cases
// with the PAN text-alignment measures of Potthast, Stein, Barrón-Cedeño and
// Rosso, "An Evaluation Framework for Plagiarism Detection" (COLING 2010):
// character-level macro precision and recall, granularity and plagdet, plus a
// simpler span-level precision, recall and F1.
//
// A case s and a detection r are both pairs of character ranges, one in each
// of two documents. Their character sets are taken in both documents, so
// |s| = SuspLen + SrcLen. A detection r detects a case s when both refer to the
// same two documents (in either orientation, because pdc pairs are unordered)
// and r overlaps s in both documents. With s ⊓ r = s ∩ r if r detects s and ∅
// otherwise:
//
//	prec(S, R) = 1/|R| Σ_{r∈R} |∪_{s∈S} (s ⊓ r)| / |r|
//	rec(S, R)  = 1/|S| Σ_{s∈S} |∪_{r∈R} (s ⊓ r)| / |s|
//	gran(S, R) = 1/|S_R| Σ_{s∈S_R} |R_s|   (S_R: detected cases, R_s: detections of s)
//	plagdet    = F1(prec, rec) / log2(1 + gran)
//
// Edge cases follow the PAN reference evaluator: with no cases and no
// detections precision and recall are 1; with only one of them empty both are
// 0; granularity is 1 when no case is detected; plagdet is 0 when precision
// and recall are both 0. A case or detection of total length 0 contributes 0.
package eval

import (
	"github.com/pdc-mr/pdc/lib/ranges"
	"math"
	"slices"
)

// Case is one annotated reuse: the text of document Susp at
// [SuspStart, SuspStart+SuspLen) was copied from document Src at
// [SrcStart, SrcStart+SrcLen). Offsets and lengths count Unicode code points.
// Class names the edit applied ("verbatim", "light", "word-edits",
// "sentence-rewritten", "sentence-dropped", "reordered", ...). Lang is the
// language of the two documents ("en", "zh"), or empty when not known.
type Case struct {
	Susp, Src          string
	SuspStart, SuspLen int
	SrcStart, SrcLen   int
	Class              string
	Lang               string
}

// Detection is one detected span in the terms of Case. A pdc span
// `docA docB ...` maps to Susp=docA, Src=docB; it is matched against a case in
// either orientation.
type Detection struct {
	Susp, Src          string
	SuspStart, SuspLen int
	SrcStart, SrcLen   int
}

// Score holds the PAN character-level measures and the span-level ones.
//
// SpanP is the fraction of detections that match some case and SpanR the
// fraction of cases matched by some detection, where a detection matches a
// case when it refers to the same two documents and, in each of the two
// documents, the ranges overlap by at least half of the shorter of the two
// ranges (see SpanOverlap). SpanF1 is their harmonic mean.
//
// Boundary is the boundary error: the mean number of characters, over
// both documents, that a detection of at least one case covers outside
// the cases it detects (0 when no detection detects a case).
type Score struct {
	Precision, Recall, Granularity, Plagdet float64
	Cases, Detections                       int
	SpanP, SpanR, SpanF1                    float64
	Boundary                                float64
}

// SpanOverlap is the span-level match criterion: in each document the overlap
// must cover at least this fraction of the shorter of the two ranges.
const SpanOverlap = 0.5

// rng is a half-open range of code points.
type rng = ranges.Range

func (c Case) ranges() (susp, src rng) {
	return rng{Start: c.SuspStart, End: c.SuspStart + c.SuspLen}, rng{Start: c.SrcStart, End: c.SrcStart + c.SrcLen}
}

// orient returns the detection's ranges in the case's orientation (first in
// c.Susp, second in c.Src), whether the detection is swapped relative to the
// case, and whether the two refer to the same documents. When both
// orientations name the same documents (Susp == Src), the straight one is
// preferred if it overlaps in both documents.
func orient(c Case, d Detection) (susp, src rng, swapped, ok bool) {
	a := rng{Start: d.SuspStart, End: d.SuspStart + d.SuspLen}
	b := rng{Start: d.SrcStart, End: d.SrcStart + d.SrcLen}
	cs, cr := c.ranges()
	straight := d.Susp == c.Susp && d.Src == c.Src
	reversed := d.Susp == c.Src && d.Src == c.Susp
	switch {
	case straight && reversed:
		if a.Intersect(cs).Len() > 0 && b.Intersect(cr).Len() > 0 {
			return a, b, false, true
		}
		return b, a, true, true
	case straight:
		return a, b, false, true
	case reversed:
		return b, a, true, true
	}
	return rng{}, rng{}, false, false
}

// Detects reports whether d detects c in the PAN sense: same two documents,
// in either orientation, and a non-empty overlap in both documents.
func Detects(c Case, d Detection) bool {
	ds, dr, _, ok := orient(c, d)
	if !ok {
		return false
	}
	cs, cr := c.ranges()
	return ds.Intersect(cs).Len() > 0 && dr.Intersect(cr).Len() > 0
}

// SpanMatches reports whether d matches c under the span-level criterion:
// same two documents and, in each document, an overlap of at least
// SpanOverlap times the shorter of the two ranges.
func SpanMatches(c Case, d Detection) bool {
	ds, dr, _, ok := orient(c, d)
	if !ok {
		return false
	}
	cs, cr := c.ranges()
	return enough(ds, cs) && enough(dr, cr)
}

func enough(a, b rng) bool {
	ov := a.Intersect(b).Len()
	return ov > 0 && float64(ov) >= SpanOverlap*float64(min(a.Len(), b.Len()))
}

// pairKey identifies an unordered document pair.
type pairKey struct{ a, b string }

func keyOf(x, y string) pairKey {
	if y < x {
		x, y = y, x
	}
	return pairKey{x, y}
}

// index groups detection indexes by unordered document pair.
func index(dets []Detection) map[pairKey][]int {
	m := make(map[pairKey][]int)
	for i, d := range dets {
		k := keyOf(d.Susp, d.Src)
		m[k] = append(m[k], i)
	}
	return m
}

// Evaluate scores dets against cases with the PAN macro measures and the
// span-level measures. See the package comment for the definitions.
func Evaluate(cases []Case, dets []Detection) Score {
	byPair := index(dets)
	t := tally{
		detA:    make([][]rng, len(dets)),
		detB:    make([][]rng, len(dets)),
		spanHit: make([]bool, len(dets)),
	}
	for _, c := range cases {
		t.addCase(c, dets, byPair[keyOf(c.Susp, c.Src)])
	}
	var precSum float64
	spanDets, hits, outside := 0, 0, 0
	for i, d := range dets {
		in := ranges.Len(t.detA[i]) + ranges.Len(t.detB[i])
		if total := d.SuspLen + d.SrcLen; total > 0 {
			precSum += float64(in) / float64(total)
		}
		if len(t.detA[i]) > 0 {
			hits++
			outside += d.SuspLen + d.SrcLen - in
		}
		if t.spanHit[i] {
			spanDets++
		}
	}
	sc := Score{Cases: len(cases), Detections: len(dets), Granularity: 1}
	sc.Precision, sc.Recall = ratios(precSum, t.recSum, len(dets), len(cases))
	if t.detected > 0 {
		sc.Granularity = float64(t.perCase) / float64(t.detected)
	}
	sc.Plagdet = Plagdet(sc.Precision, sc.Recall, sc.Granularity)
	sc.SpanP, sc.SpanR = ratios(float64(spanDets), float64(t.spanCases), len(dets), len(cases))
	sc.SpanF1 = f1(sc.SpanP, sc.SpanR)
	if hits > 0 {
		sc.Boundary = float64(outside) / float64(hits)
	}
	return sc
}

// tally accumulates the per-case and per-detection quantities of Evaluate.
type tally struct {
	detA, detB [][]rng // per detection: detected case chars on its Susp / Src side
	spanHit    []bool  // per detection: span-matches some case
	recSum     float64 // sum of per-case recall
	detected   int     // cases detected at least once
	perCase    int     // sum over detected cases of their detection counts
	spanCases  int     // cases span-matched by some detection
}

// addCase scores one case against the detections idx of its document pair.
func (t *tally) addCase(c Case, dets []Detection, idx []int) {
	cs, cr := c.ranges()
	var covS, covR []rng
	n, spanned := 0, false
	for _, i := range idx {
		d := dets[i]
		if !Detects(c, d) {
			continue
		}
		n++
		ds, dr, swapped, _ := orient(c, d)
		is, ir := cs.Intersect(ds), cr.Intersect(dr)
		covS, covR = append(covS, is), append(covR, ir)
		if swapped {
			is, ir = ir, is
		}
		t.detA[i], t.detB[i] = append(t.detA[i], is), append(t.detB[i], ir)
		if SpanMatches(c, d) {
			t.spanHit[i], spanned = true, true
		}
	}
	if total := c.SuspLen + c.SrcLen; total > 0 {
		t.recSum += float64(ranges.Len(covS)+ranges.Len(covR)) / float64(total)
	}
	if n > 0 {
		t.detected++
		t.perCase += n
	}
	if spanned {
		t.spanCases++
	}
}

// ratios turns sums into macro averages with the PAN conventions for empty
// sets.
func ratios(precSum, recSum float64, nDets, nCases int) (prec, rec float64) {
	switch {
	case nDets == 0 && nCases == 0:
		return 1, 1
	case nDets == 0 || nCases == 0:
		return 0, 0
	}
	return precSum / float64(nDets), recSum / float64(nCases)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// Plagdet combines precision, recall and granularity as in PAN:
// F1 / log2(1 + gran); it is 0 when precision and recall are both 0 or any
// input is out of range (negative, or granularity below 1).
func Plagdet(prec, rec, gran float64) float64 {
	if (prec == 0 && rec == 0) || prec < 0 || rec < 0 || gran < 1 {
		return 0
	}
	return f1(prec, rec) / math.Log2(1+gran)
}

// EvaluateByClass scores each case class separately; the keys are the
// classes present in cases. For class c, recall, granularity and span recall
// are computed over the cases of class c; precision (and span precision) over
// the detections that detect at least one case of class c, measured against
// all cases (so a detection spanning two adjacent cases of different classes
// is not penalised for the other one). Detections that detect no case are
// counted by no class: read them with Unmatched.
func EvaluateByClass(cases []Case, dets []Detection) map[string]Score {
	groups := make(map[string][]Case)
	for _, c := range cases {
		groups[c.Class] = append(groups[c.Class], c)
	}
	out := make(map[string]Score, len(groups))
	for class, cs := range groups {
		var ds []Detection
		for _, d := range dets {
			if slices.ContainsFunc(cs, func(c Case) bool { return Detects(c, d) }) {
				ds = append(ds, d)
			}
		}
		rec := Evaluate(cs, dets)
		prec := Evaluate(cases, ds)
		sc := rec
		sc.Detections = len(ds)
		sc.Precision, sc.SpanP = prec.Precision, prec.SpanP
		sc.Plagdet = Plagdet(sc.Precision, sc.Recall, sc.Granularity)
		sc.SpanF1 = f1(sc.SpanP, sc.SpanR)
		out[class] = sc
	}
	return out
}

// Unmatched returns, in input order, the detections that detect no case:
// false positives, or reuse that really exists between the source documents.
func Unmatched(cases []Case, dets []Detection) []Detection {
	byPair := make(map[pairKey][]int)
	for i, c := range cases {
		k := keyOf(c.Susp, c.Src)
		byPair[k] = append(byPair[k], i)
	}
	var out []Detection
	for _, d := range dets {
		hit := false
		for _, i := range byPair[keyOf(d.Susp, d.Src)] {
			if Detects(cases[i], d) {
				hit = true
				break
			}
		}
		if !hit {
			out = append(out, d)
		}
	}
	return out
}
