package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadSpans(t *testing.T) {
	in := "a\tb\t0000001\t0000004\t3\t10\t60\t0\t55\t0.95\n" +
		"\n" +
		"x\\ty\tz\\\\w\t0\t0\t3\t0\t5\t7\t9\t1\r\n" +
		"p\tq\t0\t0\t3\t1\t2\t3\t4\t1" // no final newline
	got, err := ReadSpans(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Detection{
		{Susp: "a", Src: "b", SuspStart: 10, SuspLen: 50, SrcStart: 0, SrcLen: 55},
		{Susp: "x\ty", Src: `z\w`, SuspStart: 0, SuspLen: 5, SrcStart: 7, SrcLen: 2},
		{Susp: "p", Src: "q", SuspStart: 1, SuspLen: 1, SrcStart: 3, SrcLen: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ReadSpans:\n got %+v\nwant %+v", got, want)
	}
}

func TestReadSpansErrors(t *testing.T) {
	for _, in := range []string{
		"a\tb\t0\t0\t3\t10\t60\t0\t55\n",       // 9 fields
		"a\tb\t0\t0\t3\t10\tx\t0\t55\t1\n",     // bad number
		"a\tb\t0\t0\t3\t60\t10\t0\t55\t1\n",    // end before start
		"a\tb\t0\t0\t3\t10\t60\t0\t55\tzz\n",   // bad score
		"a\\q\tb\t0\t0\t3\t10\t60\t0\t55\t1\n", // bad escape
		"ok\tb\t0\t0\t3\t-1\t60\t0\t55\t1\n",   // negative
		"a\\\tb\t0\t0\t3\t10\t60\t0\t55\t1\n",  // dangling backslash
	} {
		if _, err := ReadSpans(strings.NewReader(in)); err == nil {
			t.Errorf("ReadSpans(%q): no error", in)
		}
	}
}

func TestTruthRoundTrip(t *testing.T) {
	cases := []Case{
		cs("d<1>", "d&2", 3, 50, 0, 48, "verbatim"),
		cs("中文", "b", 0, 1, 2, 3, "word-edits"),
	}
	cases[1].Lang = "zh"
	var buf bytes.Buffer
	if err := WriteTruthJSONL(&buf, cases); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"susp":"d<1>","susp_offset":3,"susp_length":47`) {
		t.Errorf("unexpected JSONL:\n%s", buf.String())
	}
	got, err := ReadTruthJSONL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, cases) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, cases)
	}
	if _, err := ReadTruthJSONL(strings.NewReader(`{"susp":"a","src":"b","susp_offset":-1}`)); err == nil {
		t.Error("negative offset accepted")
	}
	if _, err := ReadTruthJSONL(strings.NewReader("{")); err == nil {
		t.Error("bad JSON accepted")
	}
}

const panSample = `<?xml version="1.0" encoding="UTF-8"?>
<document reference="suspicious-document00042.txt">
<feature name="plagiarism" type="artificial" obfuscation="random" this_language="en"
  this_offset="1204" this_length="733" source_reference="source-document01234.txt"
  source_language="en" source_offset="10" source_length="690"/>
<feature name="artificial-plagiarism" type="artificial" this_offset="5" this_length="6"
  source_reference="source-document00007.txt" source_offset="7" source_length="8"/>
<feature name="plagiarism" type="intrinsic" this_offset="0" this_length="3"/>
<feature name="detected-plagiarism" this_offset="1" this_length="2"
  source_reference="x.txt" source_offset="3" source_length="4"/>
<feature name="about" authors="someone"/>
</document>
`

func TestReadPANXML(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suspicious-document00042.xml")
	if err := os.WriteFile(path, []byte(panSample), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []Case{
		{Susp: "suspicious-document00042", Src: "source-document01234", SuspStart: 1204, SuspLen: 733,
			SrcStart: 10, SrcLen: 690, Class: "random", Lang: "en"},
		{Susp: "suspicious-document00042", Src: "source-document00007", SuspStart: 5, SuspLen: 6,
			SrcStart: 7, SrcLen: 8, Class: "artificial"},
	}
	for _, p := range []string{path, dir} {
		got, err := ReadPANXML(p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("ReadPANXML(%s):\n got %+v\nwant %+v", p, got, want)
		}
	}
	if _, err := ReadPANXML(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing path accepted")
	}
}

func TestPANRoundTrip(t *testing.T) {
	cases := []Case{
		cs("sotu/1990", "sotu/1989", 300, 400, 5, 90, "light"),
		cs("sotu/1990", "sotu/1950", 10, 20, 30, 40, "verbatim"),
		cs("zh/页面\"1", "zh/b", 0, 7, 0, 7, "reordered"),
		cs("sotu_1990", "x", 1, 2, 3, 4, "word-edits"), // file name collides with sotu/1990
	}
	cases[0].Lang, cases[2].Lang = "en", "zh"
	dir := filepath.Join(t.TempDir(), "pan")
	if err := WritePANXML(dir, cases); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPANXML(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := func(c Case) string { return c.Susp + "|" + c.Src }
	slices.SortFunc(got, func(a, b Case) int { return strings.Compare(key(a), key(b)) })
	want := slices.Clone(cases)
	slices.SortFunc(want, func(a, b Case) int { return strings.Compare(key(a), key(b)) })
	if !slices.Equal(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("%d files, want 3 (one per suspicious document)", len(entries))
	}
}

func FuzzReadSpans(f *testing.F) {
	f.Add("a\tb\t0000001\t0000004\t3\t10\t60\t0\t55\t0.95\n")
	f.Add("x\\ty\tz\t0\t0\t3\t0\t5\t7\t9\t1")
	f.Fuzz(func(t *testing.T, in string) {
		dets, err := ReadSpans(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, d := range dets {
			if d.SuspLen < 0 || d.SrcLen < 0 || d.SuspStart < 0 || d.SrcStart < 0 {
				t.Fatalf("negative range accepted: %+v", d)
			}
		}
		Evaluate(nil, dets)
	})
}

func FuzzReadTruthJSONL(f *testing.F) {
	f.Add(`{"susp":"a","susp_offset":1,"susp_length":2,"src":"b","src_offset":3,"src_length":4,"class":"light"}`)
	f.Fuzz(func(t *testing.T, in string) {
		cases, err := ReadTruthJSONL(strings.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteTruthJSONL(&buf, cases); err != nil {
			t.Fatal(err)
		}
		again, err := ReadTruthJSONL(&buf)
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if !slices.Equal(cases, again) {
			t.Fatalf("round trip changed cases: %+v -> %+v", cases, again)
		}
	})
}

func FuzzDecodePAN(f *testing.F) {
	f.Add(panSample)
	f.Fuzz(func(t *testing.T, in string) {
		cases, err := decodePAN(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, c := range cases {
			if c.check() != nil {
				t.Fatalf("invalid case accepted: %+v", c)
			}
		}
	})
}
