package eval

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// WriteReport writes s as tables: the overall scores over all detections
// ("all") and without natural reuse ("all (planted)"), the scores per case
// class (sorted by class name) and per language ("lang en", ...), the
// unmatched detections by kind, both precisions, and plagdet per class and
// language:
//
//	class          cases  dets  prec    rec     gran    plagdet  spanP   spanR   spanF1
//	all            ...
//	all (planted)  ...
//	verbatim       ...
//	lang en        ...
//	unmatched detections: 3 (natural reuse 2, false positives 1)
//	precision 0.9000, precision (planted) 0.9500
//
//	plagdet   en      zh
//	verbatim  0.9900  0.9800
func WriteReport(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tcases\tdets\tprec\trec\tgran\tplagdet\tspanP\tspanR\tspanF1")
	row := func(name string, s Score) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", name, s.Cases, s.Detections,
			s.Precision, s.Recall, s.Granularity, s.Plagdet, s.SpanP, s.SpanR, s.SpanF1)
	}
	row("all", s.Overall)
	row("all (planted)", s.Planted)
	for _, c := range slices.Sorted(maps.Keys(s.Classes)) {
		row(orNone(c), s.Classes[c])
	}
	for _, l := range slices.Sorted(maps.Keys(s.Langs)) {
		row("lang "+orNone(l), s.Langs[l])
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	nat := len(s.Natural())
	kinds := fmt.Sprintf("natural reuse %d, false positives %d", nat, len(s.Unmatched)-nat)
	if !s.Classified && len(s.Unmatched) > 0 {
		kinds += "; passages unknown, natural reuse not confirmed"
	}
	fmt.Fprintf(w, "unmatched detections: %d (%s)\n", len(s.Unmatched), kinds)
	fmt.Fprintf(w, "precision %.4f, precision (planted) %.4f\n", s.Overall.Precision, s.Planted.Precision)
	return writeLangClasses(w, s)
}

// writeLangClasses writes the plagdet of each class (rows) per language
// (columns), with "–" where a language has no case of the class.
func writeLangClasses(w io.Writer, s Summary) error {
	if len(s.LangClasses) == 0 {
		return nil
	}
	langs := slices.Sorted(maps.Keys(s.LangClasses))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprint(tw, "\nplagdet")
	for _, l := range langs {
		fmt.Fprintf(tw, "\t%s", orNone(l))
	}
	fmt.Fprintln(tw)
	for _, c := range slices.Sorted(maps.Keys(s.Classes)) {
		fmt.Fprint(tw, orNone(c))
		for _, l := range langs {
			if sc, ok := s.LangClasses[l][c]; ok {
				fmt.Fprintf(tw, "\t%.4f", sc.Plagdet)
			} else {
				fmt.Fprint(tw, "\t–")
			}
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "all")
	for _, l := range langs {
		fmt.Fprintf(tw, "\t%.4f", s.Langs[l].Plagdet)
	}
	fmt.Fprintln(tw)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
