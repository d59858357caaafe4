package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// TestBoilerplateTexts: rows get the text of their example documents,
// found through the parsed records' positions and read alone, most
// frequent rows first up to the budget; a document in no parsed record,
// or one whose record holds another text now, leaves its rows without
// text, counted.
func TestBoilerplateTexts(t *testing.T) {
	dir := t.TempDir()
	var lines, parsed strings.Builder
	input := filepath.Join(dir, "docs.jsonl")
	an := jobconf.Default().Analyzer()
	var rows []boilerplate.Row
	for i, body := range []string{
		"<p>First page here.</p><footer>Copyright the site. All rights reserved.</footer>",
		"<p>Second page, longer than the first one.</p><footer>Copyright the site. All rights reserved.</footer>",
		"<p>Third page.</p><nav>Home. About us.</nav>",
		// 200 KB: its row, early, is read from a prefix of the page.
		"<p>Fourth page opens with its notice. Then it goes on.</p>" + strings.Repeat("<p>More words of the long page follow here.</p>", 4000),
	} {
		id := fmt.Sprintf("d%d", i)
		d := doc.Doc{ID: id, HTML: body, IsHTML: true}
		a, err := an.Analyze(&d)
		if err != nil || len(a.Sentences) < 2 {
			t.Fatalf("%s: %d sentences, %v", id, len(a.Sentences), err)
		}
		k := len(a.Sentences) - 1
		if i == 3 {
			k = 0
		}
		s := a.Sentences[k]
		rows = append(rows, boilerplate.Row{DF: int64(10 - i), Kind: boilerplate.SiteTemplate, Signature: "s", Doc: id,
			Sentence: k, CharStart: s.Start, CharEnd: s.End, Sentences: 1})
		fmt.Fprintf(&parsed, "%s\t%s\t\t2\tAA\n", id, doc.AppendSrcpos(nil, mr.Escape(input), "", int64(lines.Len())))
		fmt.Fprintf(&lines, `{"id":%q,"html":%q}`+"\n", id, body)
	}
	rows = append(rows, boilerplate.Row{DF: 1, Kind: boilerplate.SiteTemplate, Signature: "t", Doc: "gone", Sentence: 0, CharEnd: 3, Sentences: 1})
	if err := os.WriteFile(input, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "parsed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "parsed", "part-00000"), []byte(parsed.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fillScan := func(budget int, scan int64) ([]boilerplate.Row, TextsMissing) {
		t.Helper()
		got := append([]boilerplate.Row(nil), rows...)
		miss := boilerplateTexts(context.Background(), hdfsfs.Local(), []string{filepath.Join(dir, "parsed"), filepath.Join(dir, "no-such-run")}, jobconf.Default(), got, budget, scan)
		return got, miss
	}
	fill := func(budget int) ([]boilerplate.Row, TextsMissing) { return fillScan(budget, MaxScanBytes) }
	got, miss := fill(MaxTextRunes)
	for i, want := range []string{"All rights reserved.", "All rights reserved.", "About us.", "Fourth page opens with its notice.", ""} {
		if got[i].Text != want {
			t.Errorf("row %d (%s): text %q, want %q", i, got[i].Doc, got[i].Text, want)
		}
	}
	if miss.Rows != 1 || miss.Unread != 0 || !strings.Contains(fmt.Sprint(miss.First), "gone is in no parsed record") {
		t.Errorf("missing %+v", miss)
	}
	// A budget for the first document only.
	got, miss = fill(rows[0].CharEnd)
	if got[0].Text == "" || got[1].Text != "" || got[2].Text != "" || miss.Unread != 4 || miss.Rows != 0 {
		t.Errorf("budget of one document: texts %q %q %q, missing %+v", got[0].Text, got[1].Text, got[2].Text, miss)
	}
	// Parsed records larger than a run searches: no text, and why.
	got, miss = fillScan(MaxTextRunes, 10)
	if got[0].Text != "" || miss.Unread != len(rows) || !strings.Contains(miss.Skipped, "more than the 0 MB a run searches") {
		t.Errorf("records past the scan bound: text %q, missing %+v", got[0].Text, miss)
	}
	// The run ended (interrupted, or a later job failed): nothing more is
	// read.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got = append([]boilerplate.Row(nil), rows...)
	boilerplateTexts(ctx, hdfsfs.Local(), []string{filepath.Join(dir, "parsed")}, jobconf.Default(), got, MaxTextRunes, MaxScanBytes)
	for i := range got {
		if got[i].Text != "" {
			t.Errorf("cancelled: row %d has text %q", i, got[i].Text)
		}
	}
	// The file changed since the run: d1's record holds a longer text now
	// (its row's sentence moved), and d2's position is inside it.
	changed := strings.Replace(lines.String(), "Second page, longer", "Second page, much longer", 1)
	if err := os.WriteFile(input, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	got, miss = fill(MaxTextRunes)
	if got[0].Text == "" || got[1].Text != "" || got[2].Text != "" || got[3].Text != "" || miss.Rows != 4 {
		t.Errorf("a changed document: text %q, missing %+v", got[1].Text, miss)
	}
}
