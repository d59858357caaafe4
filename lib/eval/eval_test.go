package eval

import (
	"math"
	"slices"
	"testing"

	"github.com/pdc-mr/pdc/lib/cluster"
)

// cs and det build cases and detections tersely: document ids and
// [start, end) ranges.
func cs(susp, src string, s0, s1, r0, r1 int, class string) Case {
	return Case{Susp: susp, Src: src, SuspStart: s0, SuspLen: s1 - s0, SrcStart: r0, SrcLen: r1 - r0, Class: class}
}

func det(a, b string, a0, a1, b0, b1 int) Detection {
	return Detection{Susp: a, Src: b, SuspStart: a0, SuspLen: a1 - a0, SrcStart: b0, SrcLen: b1 - b0}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEvaluate(t *testing.T) {
	log3 := math.Log2(3)
	tests := []struct {
		name  string
		cases []Case
		dets  []Detection
		want  Score
	}{
		{
			// One case, one identical detection: everything is 1.
			name:  "perfect",
			cases: []Case{cs("a", "b", 0, 100, 0, 100, "verbatim")},
			dets:  []Detection{det("a", "b", 0, 100, 0, 100)},
			want:  Score{1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
		},
		{
			// Case a[0,100) b[0,100); detection a[50,150) b[50,150).
			// s ⊓ r = a[50,100) + b[50,100) = 100 chars.
			// rec = 100/200 = 0.5; prec = 100/200 = 0.5; gran = 1;
			// plagdet = F1 = 0.5. Span: overlap 50 >= 0.5*min(100,100) in
			// both documents, so SpanP = SpanR = 1.
			name:  "half overlap",
			cases: []Case{cs("a", "b", 0, 100, 0, 100, "light")},
			dets:  []Detection{det("a", "b", 50, 150, 50, 150)},
			want:  Score{0.5, 0.5, 1, 0.5, 1, 1, 1, 1, 1, 100},
		},
		{
			// Overlap of 10 chars per document: rec = prec = 20/200 = 0.1,
			// plagdet = 0.1; span criterion fails (10 < 50): SpanP = SpanR = 0.
			name:  "sliver below span criterion",
			cases: []Case{cs("a", "b", 0, 100, 0, 100, "light")},
			dets:  []Detection{det("a", "b", 90, 190, 90, 190)},
			want:  Score{0.1, 0.1, 1, 0.1, 1, 1, 0, 0, 0, 180},
		},
		{
			// Case a[0,100) b[0,100) found as two halves a[0,50) b[0,50) and
			// a[50,100) b[50,100). rec = (50+50+50+50)/200 = 1; each detection
			// lies inside the case: prec = (100/100 + 100/100)/2 = 1;
			// gran = 2 detections / 1 case = 2; plagdet = 1/log2(3) = 0.6309.
			name:  "granularity two",
			cases: []Case{cs("a", "b", 0, 100, 0, 100, "verbatim")},
			dets:  []Detection{det("a", "b", 0, 50, 0, 50), det("a", "b", 50, 100, 50, 100)},
			want:  Score{1, 1, 2, 1 / log3, 1, 2, 1, 1, 1, 0},
		},
		{
			// Perfect detection plus one on the pair (a,c) that has no case.
			// prec = (200/200 + 0/200)/2 = 0.5; rec = 1; gran = 1;
			// plagdet = 2*0.5*1/1.5 = 2/3. SpanP = 1/2, SpanR = 1, SpanF1 = 2/3.
			name:  "false positive",
			cases: []Case{cs("a", "b", 0, 100, 0, 100, "verbatim")},
			dets:  []Detection{det("a", "b", 0, 100, 0, 100), det("a", "c", 0, 100, 0, 100)},
			want:  Score{0.5, 1, 1, 2.0 / 3, 1, 2, 0.5, 1, 2.0 / 3, 0},
		},
		{
			// Case susp b[200,300) src a[10,110); pdc reports the pair as
			// (a, b): a[10,110) b[200,300). Same character sets: perfect.
			name:  "reversed orientation",
			cases: []Case{cs("b", "a", 200, 300, 10, 110, "verbatim")},
			dets:  []Detection{det("a", "b", 10, 110, 200, 300)},
			want:  Score{1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
		},
		{
			// Reversed and partial: detection a[10,60) b[200,300).
			// s ⊓ r = b[200,300) (100) + a[10,60) (50) = 150.
			// rec = 150/200 = 0.75; prec = 150/150 = 1;
			// plagdet = 2*0.75/1.75 = 6/7. Span: a overlap 50 >= 0.5*min(50,100).
			name:  "reversed partial",
			cases: []Case{cs("b", "a", 200, 300, 10, 110, "verbatim")},
			dets:  []Detection{det("a", "b", 10, 60, 200, 300)},
			want:  Score{1, 0.75, 1, 6.0 / 7, 1, 1, 1, 1, 1, 0},
		},
		{
			// Offsets given in the wrong orientation: a[200,300) does not
			// overlap the case's a[10,110), so nothing is detected.
			// prec = rec = 0, gran = 1 (no detected case), plagdet = 0.
			name:  "orientation mixed up",
			cases: []Case{cs("b", "a", 200, 300, 10, 110, "verbatim")},
			dets:  []Detection{det("a", "b", 200, 300, 10, 110)},
			want:  Score{0, 0, 1, 0, 1, 1, 0, 0, 0, 0},
		},
		{
			// Two cases on one pair: c1 a[0,100) b[0,100), c2 a[300,400)
			// b[500,600). d1 = c1 exactly; d2 = a[300,350) b[500,550).
			// rec = (200/200 + 100/200)/2 = 0.75; prec = (1 + 100/100)/2 = 1;
			// gran = 1; plagdet = 2*0.75/1.75 = 6/7.
			name: "two cases one pair",
			cases: []Case{
				cs("a", "b", 0, 100, 0, 100, "verbatim"),
				cs("a", "b", 300, 400, 500, 600, "light"),
			},
			dets: []Detection{det("a", "b", 0, 100, 0, 100), det("a", "b", 300, 350, 500, 550)},
			want: Score{1, 0.75, 1, 6.0 / 7, 2, 2, 1, 1, 1, 0},
		},
		{
			// The same two cases, one detection a[0,400) b[0,600) covering
			// both. Its detected chars: a[0,100)+a[300,400) = 200 and
			// b[0,100)+b[500,600) = 200, so prec = 400/1000 = 0.4; rec = 1;
			// each case has one detection: gran = 1; plagdet = 0.8/1.4 = 4/7.
			// Span: in each document overlap 100 >= 0.5*min(400 or 600, 100).
			name: "one detection over two cases",
			cases: []Case{
				cs("a", "b", 0, 100, 0, 100, "verbatim"),
				cs("a", "b", 300, 400, 500, 600, "light"),
			},
			dets: []Detection{det("a", "b", 0, 400, 0, 600)},
			want: Score{0.4, 1, 1, 4.0 / 7, 2, 1, 1, 1, 1, 600},
		},
		{
			// From the PAN reference evaluator's tests: case t[0,100)
			// s[0,100); detections t[100,200) s[100,200) (adjacent, no
			// overlap: 0) and t[0,200) s[0,200) (200/400 = 0.5).
			// prec = (0 + 0.5)/2 = 0.25; rec = 1; gran = 1;
			// plagdet = 2*0.25/1.25 = 0.4. Span: the first detection misses,
			// the second overlaps 100 >= 0.5*min(200,100): SpanP = 0.5.
			name:  "pan reference",
			cases: []Case{cs("t", "s", 0, 100, 0, 100, "")},
			dets:  []Detection{det("t", "s", 100, 200, 100, 200), det("t", "s", 0, 200, 0, 200)},
			want:  Score{0.25, 1, 1, 0.4, 1, 2, 0.5, 1, 2.0 / 3, 200},
		},
		{
			name: "nothing at all",
			want: Score{1, 1, 1, 1, 0, 0, 1, 1, 1, 0},
		},
		{
			name:  "no detections",
			cases: []Case{cs("a", "b", 0, 100, 0, 100, "verbatim")},
			want:  Score{0, 0, 1, 0, 1, 0, 0, 0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Evaluate(tt.cases, tt.dets)
			if !scoreNear(got, tt.want) {
				t.Errorf("Evaluate:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func scoreNear(a, b Score) bool {
	return near(a.Precision, b.Precision) && near(a.Recall, b.Recall) &&
		near(a.Granularity, b.Granularity) && near(a.Plagdet, b.Plagdet) &&
		a.Cases == b.Cases && a.Detections == b.Detections &&
		near(a.SpanP, b.SpanP) && near(a.SpanR, b.SpanR) && near(a.SpanF1, b.SpanF1) && near(a.Boundary, b.Boundary)
}

func TestPlagdet(t *testing.T) {
	// Values from the PAN reference evaluator's tests.
	tests := []struct{ p, r, g, want float64 }{
		{0, 0, 1, 0}, {1, 0, 1, 0}, {1, 1, 1, 1}, {1, 0.5, 1, 2.0 / 3},
		{1, 1, 2, 0.63092975}, {0.75, 0.25, 2, 0.23659865}, {1, 1, 0.5, 0}, {-1, 1, 1, 0},
	}
	for _, tt := range tests {
		if got := Plagdet(tt.p, tt.r, tt.g); math.Abs(got-tt.want) > 1e-8 {
			t.Errorf("Plagdet(%v, %v, %v) = %v, want %v", tt.p, tt.r, tt.g, got, tt.want)
		}
	}
}

func TestEvaluateByClass(t *testing.T) {
	cases := []Case{
		cs("a", "b", 0, 100, 0, 100, "verbatim"),
		cs("c", "d", 0, 100, 0, 100, "light"),
		cs("c", "d", 200, 300, 200, 300, "light"),
	}
	dets := []Detection{
		det("b", "a", 0, 100, 0, 100),     // verbatim case, perfect (reversed)
		det("c", "d", 150, 250, 150, 250), // half of the second light case
		det("e", "f", 0, 10, 0, 10),       // no case
	}
	got := EvaluateByClass(cases, dets)
	want := map[string]Score{
		// One case, one perfect detection.
		"verbatim": {1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
		// light: rec = (0 + 100/200)/2 = 0.25; the one detection touching a
		// light case has prec = 100/200 = 0.5; gran = 1;
		// plagdet = 2*0.5*0.25/0.75 = 1/3. Span: the detection overlaps the
		// second case by 50 >= 0.5*100 per document: SpanP = 1, SpanR = 1/2.
		// Boundary: c[150,200) and d[150,200) lie outside: 100 characters.
		"light": {0.5, 0.25, 1, 1.0 / 3, 2, 1, 1, 0.5, 2.0 / 3, 100},
	}
	if len(got) != len(want) {
		t.Fatalf("classes = %v, want %v", got, want)
	}
	for class, w := range want {
		if !scoreNear(got[class], w) {
			t.Errorf("class %s:\n got %+v\nwant %+v", class, got[class], w)
		}
	}
	un := Unmatched(cases, dets)
	if !slices.Equal(un, dets[2:]) {
		t.Errorf("Unmatched = %v, want %v", un, dets[2:])
	}
}

// TestClusters: a passage planted into two targets is whole when one
// cluster holds the source and both copies, exact when nothing else.
func TestClusters(t *testing.T) {
	cases := []Case{
		{Susp: "t1", Src: "s", SuspStart: 100, SuspLen: 50, SrcStart: 10, SrcLen: 50},
		{Susp: "t2", Src: "s", SuspStart: 0, SuspLen: 50, SrcStart: 10, SrcLen: 50},
		{Susp: "t3", Src: "s", SuspStart: 0, SuspLen: 50, SrcStart: 500, SrcLen: 50},
	}
	m := func(doc string, start, end int) cluster.Member {
		return cluster.Member{Doc: doc, CharStart: start, CharEnd: end}
	}
	cs := []cluster.Cluster{
		{ID: "a", Size: 3, Members: []cluster.Member{m("s", 0, 60), m("t1", 90, 160), m("t2", 0, 45)}},
		{ID: "b", Size: 3, Members: []cluster.Member{m("s", 500, 550), m("t3", 49, 90), m("x", 0, 10)}},
	}
	got := Clusters(cases, cs)
	want := ClusterStats{Cases: 3, CasesClustered: 3, Passages: 2, PassagesWhole: 2, PassagesExact: 1}
	if got != want {
		t.Errorf("Clusters = %+v, want %+v", got, want)
	}
	cs[0].Members[2] = m("t2", 50, 60) // t2's member misses its planted passage
	if got := Clusters(cases, cs); got.CasesClustered != 2 || got.PassagesWhole != 1 {
		t.Errorf("with t2 missed: %+v", got)
	}
}
