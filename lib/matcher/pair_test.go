package matcher

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/jobconf"
)

// TestPairSpans: two documents matched alone give one span over the
// passage they share, at its character offsets in each, and none when
// they share nothing.
func TestPairSpans(t *testing.T) {
	shared := "The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall. " +
		"The chair said the work would start in spring. A public meeting will be held next month."
	a := "Local news from the coast today. " + shared + " Weather: rain later."
	b := "Other words open this page here. Short one. " + shared + " Nothing else follows it here."
	c := "A page about cooking pasta at home. Boil the water first and add salt. Short one."
	cfg := jobconf.Default()
	var an doc.Analyzer
	analyse := func(text string) doc.Analysis {
		x, err := an.Analyze(&doc.Doc{ID: "x", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		x.Text = strings.Clone(x.Text)
		x.Sentences = append([]doc.Sentence(nil), x.Sentences...)
		for i := range x.Sentences {
			x.Sentences[i].Tokens = append([]uint64(nil), x.Sentences[i].Tokens...)
		}
		return x
	}
	da, db, dc := analyse(a), analyse(b), analyse(c)
	spans, err := PairSpans(cfg, "a", "b", da, db)
	if err != nil {
		t.Fatal(err)
	}
	at := func(text string) (int, int) {
		i := utf8.RuneCountInString(text[:strings.Index(text, shared)])
		return i, i + utf8.RuneCountInString(shared)
	}
	sa, ea := at(a)
	sb, eb := at(b)
	if len(spans) != 1 || spans[0].DocA != "a" || spans[0].DocB != "b" || spans[0].Length != 4 ||
		spans[0].CharStartA != sa || spans[0].CharEndA != ea || spans[0].CharStartB != sb || spans[0].CharEndB != eb || spans[0].Score != 1 {
		t.Fatalf("spans %+v, want one of 4 pairs over A %d-%d, B %d-%d, score 1", spans, sa, ea, sb, eb)
	}
	if spans, err := PairSpans(cfg, "a", "c", da, dc); err != nil || len(spans) != 0 {
		t.Fatalf("unrelated documents: %+v, %v", spans, err)
	}
}
