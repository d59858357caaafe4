package eval

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// WriteReport writes a table of the overall scores, the scores per case
// class (sorted by class name) and the number of unmatched detections:
//
//	class     cases  dets  prec    rec     gran    plagdet  spanP   spanR   spanF1
//	all       ...
//	verbatim  ...
//	unmatched detections: 3
func WriteReport(w io.Writer, cases []Case, dets []Detection) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tcases\tdets\tprec\trec\tgran\tplagdet\tspanP\tspanR\tspanF1")
	row := func(name string, s Score) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", name, s.Cases, s.Detections,
			s.Precision, s.Recall, s.Granularity, s.Plagdet, s.SpanP, s.SpanR, s.SpanF1)
	}
	row("all", Evaluate(cases, dets))
	byClass := EvaluateByClass(cases, dets)
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	for _, c := range classes {
		name := c
		if name == "" {
			name = "(none)"
		}
		row(name, byClass[c])
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if _, err := fmt.Fprintf(w, "unmatched detections: %d\n", len(Unmatched(cases, dets))); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
