package dedup

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// TestLoadPlanCutsAsKeep: a plan written to a side directory (the plan
// file, then the kept records of KeptOf) and loaded back, as the dedup
// jobs' tasks load it, cuts every document as the plan given the kept
// documents directly (Keep) does, including a cut inside a kept member
// (settle) and a kept member that is its document's whole text.
func TestLoadPlanCutsAsKeep(t *testing.T) {
	x := "Alpha beta gamma delta epsilon zeta. Eta theta iota kappa lambda mu. Nu xi omicron pi rho sigma."
	y := "Tau upsilon phi chi psi omega. One two three four five six. Seven eight nine ten eleven twelve."
	texts := map[string]string{
		"e":    "Own words of e come first here. " + x + " " + y,
		"d":    x + " " + y,
		"f":    "Some words of f before it all. " + y,
		"g\th": y,
	}
	analyses, at := analyzeTexts(t, texts)
	cs := []cluster.Cluster{
		{ID: "xy", Members: []cluster.Member{at("e", x+" "+y), at("d", x+" "+y)}},
		{ID: "y", Members: []cluster.Member{at("f", y), at("e", y), at("d", y), at("g\th", y)}},
		{ID: "none", Members: []cluster.Member{at("d", y), at("f", y)}},
	}
	kept := []int{0, 0, -1}
	want := NewPlan(cs, kept, 3)
	side := t.TempDir()
	var plan bytes.Buffer
	if err := WritePlan(&plan, PlanInput{Clusters: cs, Kept: kept, MinWords: 3, DropEmpty: true}); err != nil {
		t.Fatal(err)
	}
	writeSideFile(t, filepath.Join(side, PlanFile, "part-00000"), plan.String())
	// The kept job's view: the plan alone.
	l, err := LoadPlan(side)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Input.DropEmpty || l.Input.MinWords != 3 || !reflect.DeepEqual(l.Input.Kept, kept) {
		t.Errorf("plan file read back: %+v", l.Input)
	}
	var records []byte
	var tok sentence.Tokenizer
	for _, id := range []string{"d", "e", "f", "g\th"} {
		if l.Plan.HoldsKept(id) != want.HoldsKept(id) || l.Plan.HoldsRemoved(id) != want.HoldsRemoved(id) {
			t.Errorf("%q: holds kept %v removed %v, want %v %v", id, l.Plan.HoldsKept(id), l.Plan.HoldsRemoved(id), want.HoldsKept(id), want.HoldsRemoved(id))
		}
		if want.HoldsKept(id) {
			want.Keep(id, analyses[id])
			records = AppendKeptDoc(records, l.Plan.KeptOf(&tok, id, analyses[id]))
		}
	}
	// Two part files, the second empty, as a job may write.
	lines := strings.SplitAfter(string(records), "\n")
	writeSideFile(t, filepath.Join(side, KeptDir, "part-r-00000"), strings.Join(lines[:1], ""))
	writeSideFile(t, filepath.Join(side, KeptDir, "part-r-00001"), strings.Join(lines[1:], ""))
	writeSideFile(t, filepath.Join(side, KeptDir, "part-r-00002"), "")
	l2, err := LoadPlan(side)
	if err != nil {
		t.Fatal(err)
	}
	cuts := 0
	for _, id := range []string{"d", "e", "f", "g\th"} {
		o1, err1 := want.Cut(id, analyses[id])
		o2, err2 := l2.Plan.Cut(id, analyses[id])
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !reflect.DeepEqual(o1, o2) {
			t.Errorf("%q: loaded plan cuts %+v, want %+v", id, o2, o1)
		}
		cuts += len(o1.Removals)
	}
	if cuts < 3 {
		t.Errorf("%d cuts in all: the test cuts too little", cuts)
	}
	if l3, _ := LoadPlan(side); l3 != l2 {
		t.Error("LoadPlan of the same files read them again")
	}
}

func writeSideFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRemovalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		id string
		r  Removal
	}{
		{"d", Removal{Range: Range{Start: 3, End: 90}, Cluster: "c0123456789abcdef", Kept: Ref{"k", Range{Start: 0, End: 88}}, Held: 0.95, Reason: ReasonCopy}},
		{"a\tb\\c\nd", Removal{Range: Range{Start: 0, End: 1}, Cluster: "c1", Kept: Ref{"x\ty", Range{Start: 7, End: 9}}, Held: 1, Reason: ReasonCopy}},
	} {
		line := AppendRemoval(nil, tc.id, tc.r)
		if bytes.Count(line, []byte{'\n'}) != 1 || bytes.Count(line, []byte{'\t'}) != 8 {
			t.Errorf("AppendRemoval: %q, want one line of 9 fields", line)
		}
		id, r, err := ParseRemoval(bytes.TrimSuffix(line, []byte{'\n'}))
		if err != nil || id != tc.id || r != tc.r {
			t.Errorf("ParseRemoval(%q) = %q %+v %v, want %q %+v", line, id, r, err, tc.id, tc.r)
		}
	}
	for _, bad := range []string{"", "d\t1\t2", "d\tx\t2\tc\tk\t0\t1\t1.0000\tcopy", "d\t1\t2\tc\tk\t0\t1\tx\tcopy", `d\q` + "\t1\t2\tc\tk\t0\t1\t1\tcopy"} {
		if _, _, err := ParseRemoval([]byte(bad)); err == nil {
			t.Errorf("ParseRemoval(%q): no error", bad)
		}
	}
}

func TestReadPlanErrors(t *testing.T) {
	for _, bad := range []string{
		"",
		"#pdc-dedup-plan\t1\t3\t0\n", // an older pdc's
		"#pdc-dedup-plan\t3\t3\t0\n",
		"#pdc-dedup-plan\t2\tx\t0\n",
		"#pdc-dedup-plan\t2\t3\t0\nc1\t0\td\t1\n",
		"#pdc-dedup-plan\t2\t3\t0\nc1\t1\td\t1\t5\n",
		"#pdc-dedup-plan\t2\t3\t0\nc1\t0\td\t5\t1\n",
		"#pdc-dedup-plan\t2\t3\t0\n+\n",
		"#pdc-dedup-plan\t2\t3\t0\n+\ta\tb\n",
		"#pdc-dedup-plan\t2\t3\t0\n-\td\t5\n",
		"#pdc-dedup-plan\t2\t3\t0\n-\td\t5\t2\n",
		"#pdc-dedup-plan\t2\t3\t0\n-\td\t1\t5\t4\t8\n", // overlapping ranges
		"#pdc-dedup-plan\t2\t3\t0\n-\td\t1\t5\n-\td\t7\t8\n",
	} {
		if _, err := ReadPlan(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadPlan(%q): no error", bad)
		}
	}
}

// TestPlanRoundTrip: a batch run's plan (its documents, the stored
// documents' withdrawn ranges) is read back as written.
func TestPlanRoundTrip(t *testing.T) {
	in := PlanInput{
		Clusters: []cluster.Cluster{{ID: "c1", Size: 2, Members: []cluster.Member{{Doc: "s", CharStart: 0, CharEnd: 9, Length: 9}, {Doc: "b\tx", CharStart: 4, CharEnd: 13, Length: 9}}}},
		Kept:     []int{0}, MinWords: 3, DropEmpty: true,
		Batch:     []string{"b\tx", "c"},
		Withdrawn: map[string][]Range{"s": {{Start: 1, End: 3}, {Start: 5, End: 8}}, "t": {{Start: 0, End: 2}}},
		Replaced:  []string{"s"},
		Sources:   []Source{{0, "/data/w1/in"}, {1, "hdfs://nn:9000/data/w2-batch/input"}},
	}
	var b bytes.Buffer
	if err := WritePlan(&b, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPlan(&b)
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Errorf("ReadPlan(WritePlan(%+v)) = %+v, %v", in, got, err)
	}
}

// TestSourceBatch: a file's batch is that of the longest input holding
// it, a URI's scheme and host left aside.
func TestSourceBatch(t *testing.T) {
	in := PlanInput{Sources: []Source{{0, "/data/w1"}, {1, "/data/w1/new"}, {2, "hdfs://nn:9000/out/w2-batch/input/"}, {0, "/data/a.jsonl"}}}
	for _, tc := range []struct {
		file  string
		batch int
		ok    bool
	}{
		{"/data/w1/x.jsonl", 0, true},
		{"/data/w1/new/x.jsonl", 1, true},
		{"/data/w10/x.jsonl", 0, false},
		{"hdfs://other:8020/out/w2-batch/input/part-00000", 2, true},
		{"/out/w2-batch/input/part-00000", 2, true},
		{"/data/a.jsonl", 0, true},
		{"/data/a.jsonl.gz", 0, false},
	} {
		if n, ok := in.SourceBatch(tc.file); n != tc.batch || ok != tc.ok {
			t.Errorf("SourceBatch(%q) = %d, %v, want %d, %v", tc.file, n, ok, tc.batch, tc.ok)
		}
	}
	if in.Current() != 2 {
		t.Errorf("Current() = %d, want 2", in.Current())
	}
}

func TestFactsRoundTrip(t *testing.T) {
	side := t.TempDir()
	var b bytes.Buffer
	if err := WriteFacts(&b, []string{"a", "b\tc"}, "date\tx"); err != nil {
		t.Fatal(err)
	}
	writeSideFile(t, filepath.Join(side, FactsFile, "part-00000"), b.String())
	f, err := LoadFacts(side)
	if err != nil || f.DateField != "date\tx" || len(f.Need) != 2 || !f.Need["b\tc"] {
		t.Errorf("LoadFacts: %+v %v", f, err)
	}
	line := AppendFact(nil, "b\tc", 42, "2020\t01")
	id, n, date, err := ParseFact(bytes.TrimSuffix(line, []byte{'\n'}))
	if err != nil || id != "b\tc" || n != 42 || date != "2020\t01" {
		t.Errorf("ParseFact(%q) = %q %d %q %v", line, id, n, date, err)
	}
	for _, bad := range []string{"a\t1", "a\tx\t", `a\q` + "\t1\t"} {
		if _, _, _, err := ParseFact([]byte(bad)); err == nil {
			t.Errorf("ParseFact(%q): no error", bad)
		}
	}
}

// FuzzRecords: the parsers of the jobs' records never panic, and what
// they accept is written back as read.
func FuzzRecords(f *testing.F) {
	f.Add([]byte("d\t1\t2\tc1\tk\t0\t1\t1.0000\tcopy"))
	f.Add([]byte("#pdc-dedup-plan\t2\t3\t0\nc1\t0\td\t1\t5\te\t0\t4\n"))
	f.Add([]byte("#pdc-dedup-plan\t2\t3\t1\n+\te\n-\td\t0\t2\t4\t6\nc1\t0\td\t1\t5\te\t0\t4\n"))
	f.Add([]byte("d\tAQAA"))
	f.Add([]byte("a\t5\t2020"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if id, r, err := ParseRemoval(b); err == nil {
			if _, r2, err := ParseRemoval(bytes.TrimSuffix(AppendRemoval(nil, id, r), []byte{'\n'})); err != nil || r2.Range != r.Range || r2.Kept != r.Kept {
				t.Errorf("removal %q read back as %+v %v", b, r2, err)
			}
		}
		if in, err := ReadPlan(bytes.NewReader(b)); err == nil {
			var w bytes.Buffer
			if err := WritePlan(&w, in); err != nil {
				t.Fatal(err)
			}
			if in2, err := ReadPlan(&w); err != nil || len(in2.Clusters) != len(in.Clusters) || !slices.Equal(in2.Batch, in.Batch) || !reflect.DeepEqual(in2.Withdrawn, in.Withdrawn) {
				t.Errorf("plan %q read back: %v", b, err)
			}
		}
		if k, err := ParseKeptDoc(b); err == nil {
			if _, err := ParseKeptDoc(bytes.TrimSuffix(AppendKeptDoc(nil, k), []byte{'\n'})); err != nil && len(k.recs) > 0 {
				t.Errorf("kept record %q read back: %v", b, err)
			}
		}
		ParseFact(b)
	})
}

// TestDecodeRecordDamaged: a damaged record (sentence counts and bounds
// past its text) is an error, not a panic.
func TestDecodeRecordDamaged(t *testing.T) {
	var tok sentence.Tokenizer
	head := binary.AppendUvarint(nil, 1)
	for _, v := range []uint64{0, 2, 2} {
		head = binary.AppendUvarint(head, v)
	}
	head = append(head, "ab"...)
	for _, tail := range [][]uint64{
		{1 << 63},             // a count no record holds
		{1, 1 << 63, 2},       // a start past the text
		{1, 1, (1 << 63) | 1}, // a length past the text
		{1, 0, 6},             // a sentence ending past the text
	} {
		b := head
		for _, v := range tail {
			b = binary.AppendUvarint(b, v)
		}
		if _, err := decodeRecord(b, &tok); err == nil {
			t.Errorf("record with %v: no error", tail)
		}
	}
	ok := binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(head, 1), 0), 4), 0)
	ok = binary.AppendUvarint(ok, 0)
	if k, err := decodeRecord(ok, &tok); err != nil || len(k.sents) != 1 || k.sents[0].End != 2 {
		t.Errorf("a sound record: %+v %v", k, err)
	}
}
