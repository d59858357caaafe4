package eval

import (
	"fmt"
	"io"
	"math"
)

// Target is one quality target checked against a Summary.
type Target struct {
	// Name says what is measured, Value is the measurement and Bound the
	// limit: Value must be at least Bound, or at most Bound when AtMost.
	Name   string
	Value  float64
	Bound  float64
	AtMost bool
	// Missing reports that the measurement is not available (no cases of
	// the class or language); the target then fails.
	Missing bool
}

// Pass reports whether the target is met.
func (t Target) Pass() bool {
	switch {
	case t.Missing || math.IsNaN(t.Value):
		return false
	case t.AtMost:
		return t.Value <= t.Bound
	}
	return t.Value >= t.Bound
}

// String formats the target as "PASS name value >= bound".
func (t Target) String() string {
	verdict, op := "FAIL", ">="
	if t.Pass() {
		verdict = "PASS"
	}
	if t.AtMost {
		op = "<="
	}
	if t.Missing {
		return fmt.Sprintf("%s %s: not measured (no cases)", verdict, t.Name)
	}
	return fmt.Sprintf("%s %s %.4f %s %.4f", verdict, t.Name, t.Value, op, t.Bound)
}

// Quality targets of the planted corpus with pdc's default settings.
const (
	// TargetCopy is the least plagdet of the verbatim and light classes.
	TargetCopy = 0.97
	// TargetWordEdits is the least plagdet of the word-edits class.
	TargetWordEdits = 0.90
	// TargetSentenceRecall is the least recall of the sentence-rewritten
	// and sentence-dropped classes, TargetSentenceGran their greatest
	// granularity.
	TargetSentenceRecall = 0.90
	TargetSentenceGran   = 1.05
	// TargetPrecision is the least overall precision without natural
	// reuse ("precision (planted)").
	TargetPrecision = 0.97
	// TargetLangGap is how much lower Chinese overall plagdet may be than
	// English.
	TargetLangGap = 0.02
)

// Targets returns the quality targets, in a fixed order, measured on s.
func (s Summary) Targets() []Target {
	var ts []Target
	class := func(name string, value func(Score) float64, what string, bound float64, atMost bool) {
		sc, ok := s.Classes[name]
		t := Target{Name: name + " " + what, Bound: bound, AtMost: atMost, Missing: !ok || sc.Cases == 0}
		if !t.Missing {
			t.Value = value(sc)
		}
		ts = append(ts, t)
	}
	plagdet := func(sc Score) float64 { return sc.Plagdet }
	recall := func(sc Score) float64 { return sc.Recall }
	gran := func(sc Score) float64 { return sc.Granularity }
	class("verbatim", plagdet, "plagdet", TargetCopy, false)
	class("light", plagdet, "plagdet", TargetCopy, false)
	class("word-edits", plagdet, "plagdet", TargetWordEdits, false)
	for _, c := range []string{"sentence-rewritten", "sentence-dropped"} {
		class(c, recall, "recall", TargetSentenceRecall, false)
		class(c, gran, "granularity", TargetSentenceGran, true)
	}
	ts = append(ts, Target{Name: "precision (planted)", Value: s.Planted.Precision, Bound: TargetPrecision,
		Missing: s.Planted.Detections == 0})
	en, okEN := s.Langs["en"]
	zh, okZH := s.Langs["zh"]
	okEN, okZH = okEN && en.Cases > 0, okZH && zh.Cases > 0
	ts = append(ts, Target{Name: fmt.Sprintf("zh plagdet vs en plagdet - %.2f", TargetLangGap),
		Value: zh.Plagdet, Bound: en.Plagdet - TargetLangGap, Missing: !okEN || !okZH})
	return ts
}

// Quality targets of the hard tier (scripts/plant HardClasses) with pdc's
// default settings, in each language.
const (
	// TargetHardRecall is the least recall of edits-10, edits-20 and
	// merge-split, TargetHard30 that of edits-30.
	TargetHardRecall = 0.97
	TargetHard30     = 0.94
	// TargetHardPrecision is the least precision (planted), and
	// TargetHardGran the greatest granularity of each class.
	TargetHardPrecision = 0.99
	TargetHardGran      = 1.02
)

// HardTargets returns the hard tier's quality targets, in a fixed order,
// measured on s.
func (s Summary) HardTargets() []Target {
	var ts []Target
	for _, c := range []string{"edits-10", "edits-20", "edits-30", "merge-split"} {
		bound := TargetHardRecall
		if c == "edits-30" {
			bound = TargetHard30
		}
		for _, l := range []string{"en", "zh"} {
			sc, ok := s.LangClasses[l][c]
			t := Target{Name: l + " " + c + " recall", Bound: bound, Missing: !ok || sc.Cases == 0}
			if !t.Missing {
				t.Value = sc.Recall
			}
			ts = append(ts, t)
		}
		sc, ok := s.Classes[c]
		ts = append(ts, Target{Name: c + " granularity", Value: sc.Granularity, Bound: TargetHardGran, AtMost: true,
			Missing: !ok || sc.Cases == 0})
	}
	return append(ts, Target{Name: "precision (planted)", Value: s.Planted.Precision, Bound: TargetHardPrecision,
		Missing: s.Planted.Detections == 0})
}

// WriteTargets writes one line per target (see Target.String) and returns
// the number of failed targets.
func WriteTargets(w io.Writer, ts []Target) (failed int, err error) {
	for _, t := range ts {
		if !t.Pass() {
			failed++
		}
		if _, err := fmt.Fprintln(w, t); err != nil {
			return failed, fmt.Errorf("write targets: %w", err)
		}
	}
	return failed, nil
}
