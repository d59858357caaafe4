package boilerplate

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
)

// TestRoundTrip: rows written are read back; Dedupe keeps one row per kind
// and example sentence, the most frequent, most frequent first.
func TestRoundTrip(t *testing.T) {
	rows := []Row{
		{DF: 7, Kind: SiteTemplate, Signature: "0000beef", Doc: "a.html", Sentence: 3, CharStart: 10, CharEnd: 40, Sentences: 1},
		{DF: 9, Kind: SiteTemplate, Signature: "0000abcd", Doc: "a.html", Sentence: 3, CharStart: 10, CharEnd: 40, Sentences: 1}, // the same sentence through another token
		{DF: 200000, Kind: MaxDF, Signature: "00001234", Doc: `x\ty`, Sentence: 0, CharStart: 0, CharEnd: 12, Sentences: 1, Text: "Menu\tHome"},
		{DF: 9, Kind: MaxDF, Signature: "0000abcd", Doc: "a.html", Sentence: 3, CharStart: 10, CharEnd: 40, Sentences: 1}, // another kind
	}
	got := Dedupe(rows)
	want := []Row{rows[2], rows[3], rows[1]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Dedupe = %+v\nwant %+v", got, want)
	}
	var b bytes.Buffer
	if err := Write(&b, got); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), Header+"\n200000\tmax-df\t00001234\tx\\ty\t0\t0\t12\t1\tMenu\\tHome\n") {
		t.Errorf("written:\n%s", b.String())
	}
	back, err := Read(&b)
	if err != nil || !reflect.DeepEqual(back, got) {
		t.Errorf("read back %+v, %v", back, err)
	}
	old, err := Read(strings.NewReader("# df\tkind\tsignature\texample_doc\tsentence\tchar_start\tchar_end\n9\tmax-df\t0000abcd\ta.html\t3\t10\t40\n"))
	if err != nil || !reflect.DeepEqual(old, []Row{rows[3]}) {
		t.Errorf("a file without the sentences column: %+v, %v", old, err)
	}
	old, err = Read(strings.NewReader("9\tmax-df\t0000abcd\ta.html\t3\t10\t40\t1\n"))
	if err != nil || !reflect.DeepEqual(old, []Row{rows[3]}) {
		t.Errorf("a file without the text column: %+v, %v", old, err)
	}
	for _, bad := range []string{"1\tmax-df\tsig\tdoc\t1\t2\n", "x\tmax-df\tsig\tdoc\t1\t2\t3\t1\n", "1\tmax-df\tsig\tdoc\t1\t-2\t3\t1\n", "1\tmax-df\tsig\tdoc\t1\t2\t3\tx\n", "1\tmax-df\tsig\tdoc\t1\t2\t3\t1\tbad\\escape\n", "1\tmax-df\tsig\tdoc\t1\t2\t3\t1\tt\textra\n"} {
		if _, err := Read(strings.NewReader(Header + "\n" + bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("Read(%q): %v", bad, err)
		}
	}
}

// TestBlocks: rows of one kind and document whose sentences follow each
// other (at most MaxBlockGap between) are one row spanning them, with the
// df and signature of the most frequent; another kind, another document, a
// wider gap or an overlap start another block.
func TestBlocks(t *testing.T) {
	row := func(df int64, kind, sig, doc string, sentence, start, end int) Row {
		return Row{DF: df, Kind: kind, Signature: sig, Doc: doc, Sentence: sentence, CharStart: start, CharEnd: end, Sentences: 1}
	}
	for _, tc := range []struct {
		name string
		rows []Row
		want []Row
	}{
		{"one", []Row{row(9, SiteTemplate, "a", "d", 3, 10, 40)}, []Row{row(9, SiteTemplate, "a", "d", 3, 10, 40)}},
		{"a footer of three", []Row{row(9, SiteTemplate, "b", "d", 5, 60, 80), row(12, SiteTemplate, "c", "d", 4, 41, 59), row(9, SiteTemplate, "a", "d", 3, 10, 40)},
			[]Row{{DF: 12, Kind: SiteTemplate, Signature: "c", Doc: "d", Sentence: 3, CharStart: 10, CharEnd: 80, Sentences: 3}}},
		{"one sentence between", []Row{row(9, SiteTemplate, "a", "d", 3, 10, 40), row(9, SiteTemplate, "b", "d", 5, 60, 80)},
			[]Row{{DF: 9, Kind: SiteTemplate, Signature: "a", Doc: "d", Sentence: 3, CharStart: 10, CharEnd: 80, Sentences: 2}}},
		{"two sentences between", []Row{row(9, SiteTemplate, "a", "d", 3, 10, 40), row(8, SiteTemplate, "b", "d", 6, 60, 80)},
			[]Row{row(9, SiteTemplate, "a", "d", 3, 10, 40), row(8, SiteTemplate, "b", "d", 6, 60, 80)}},
		{"other kinds and documents", []Row{row(9, SiteTemplate, "a", "d", 3, 10, 40), row(9, MaxDF, "b", "d", 4, 41, 59), row(7, SiteTemplate, "c", "e", 4, 41, 59)},
			[]Row{row(9, MaxDF, "b", "d", 4, 41, 59), row(9, SiteTemplate, "a", "d", 3, 10, 40), row(7, SiteTemplate, "c", "e", 4, 41, 59)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Blocks(tc.rows); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Blocks =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// TestSetText: the text of a row is its range of the analysis's text,
// white space collapsed, cut at MaxText runes; an analysis whose sentences
// do not start and end where the row says (another version of the
// document) gives no text.
func TestSetText(t *testing.T) {
	text := "Home  |\nAbout ünïcode here. Body text follows.\tEnd."
	// Sentences as rune offsets: "Home  |", "About ünïcode here.", "Body text follows.", "End."
	a := doc.Analysis{Text: text, Sentences: []doc.Sentence{{Start: 0, End: 7}, {Start: 8, End: 27}, {Start: 28, End: 46}, {Start: 47, End: 51}}}
	long := strings.Repeat("wörd ", 100)
	b := doc.Analysis{Text: long, Sentences: []doc.Sentence{{Start: 0, End: 500}}}
	for _, tc := range []struct {
		name   string
		a      doc.Analysis
		row    Row
		want   string
		wantOK bool
	}{
		{"first sentence", a, Row{Sentence: 0, CharStart: 0, CharEnd: 7}, "Home |", true},
		{"a block of two", a, Row{Sentence: 1, CharStart: 8, CharEnd: 46}, "About ünïcode here. Body text follows.", true},
		{"to the end", a, Row{Sentence: 3, CharStart: 47, CharEnd: 51}, "End.", true},
		{"another start", a, Row{Sentence: 1, CharStart: 9, CharEnd: 27}, "", false},
		{"no sentence ends there", a, Row{Sentence: 1, CharStart: 8, CharEnd: 30}, "", false},
		{"no such sentence", a, Row{Sentence: 9, CharStart: 8, CharEnd: 27}, "", false},
		{"cut at MaxText", b, Row{Sentence: 0, CharStart: 0, CharEnd: 500}, strings.TrimSpace(strings.Repeat("wörd ", MaxText/5)) + " …", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.row
			r.Text = "stale"
			ok := r.SetText(tc.a)
			if ok != tc.wantOK || r.Text != tc.want {
				t.Errorf("SetText = %v, %q; want %v, %q", ok, r.Text, tc.wantOK, tc.want)
			}
		})
	}
}

// FuzzRead: Read never panics, and what it reads is written back as rows
// that read the same.
func FuzzRead(f *testing.F) {
	f.Add(Header + "\n9\tmax-df\t0000abcd\ta.html\t3\t10\t40\t1\tMenu\\tHome\n")
	f.Add("9\tsite-template\ts\td\t0\t0\t5\n")
	f.Add("9\tmax-df\ts\td\t0\t0\t5\t2\t\\\n")
	f.Fuzz(func(t *testing.T, data string) {
		rows, err := Read(strings.NewReader(data))
		if err != nil {
			return
		}
		for i := range rows {
			rows[i].Sentences = max(rows[i].Sentences, 1) // written as at least 1
		}
		var b bytes.Buffer
		if err := Write(&b, rows); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&b)
		if err != nil || len(back) != len(rows) {
			t.Fatalf("read back %d rows of %d: %v\n%s", len(back), len(rows), err, b.String())
		}
		for i := range rows {
			if back[i] != rows[i] {
				t.Fatalf("row %d: %+v read back as %+v", i, rows[i], back[i])
			}
		}
	})
}
