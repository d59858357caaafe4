package jobs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPairs: containment and resemblance of hand-built documents: A is
// the shared passage and one sentence of its own, B the passage and two,
// C the passage alone (a near-copy of the passage's part of A and B).
// Lengths are of the documents' content: their sentences, not the spaces
// between them.
func TestPairs(t *testing.T) {
	t.Parallel()
	sharedS := []string{"The harbour board met on Monday to discuss the new quay.",
		"Members asked for a survey of the old wall along the river.",
		"The chair promised a full report to the board by the spring."}
	ownAS := []string{"Tourists came to see the boats in the summer months."}
	ownBS := []string{"Fishermen repaired their nets on the slipway each morning.", "The town band played on Sundays."}
	text := func(ss ...[]string) string {
		var all []string
		for _, s := range ss {
			all = append(all, s...)
		}
		return strings.Join(all, " ")
	}
	content := func(ss ...[]string) int {
		n := 0
		for _, s := range ss {
			for _, x := range s {
				n += len(x)
			}
		}
		return n
	}
	docs := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n{\"id\":\"c\",\"text\":%q}\n", text(sharedS, ownAS), text(sharedS, ownBS), text(sharedS))
	docs += `{"id":"d","text":"A lighthouse keeper wrote letters to his sister in the city. She kept every one of them in a tin box."}` + "\n"
	in := filepath.Join(t.TempDir(), "docs.jsonl")
	if err := os.WriteFile(in, []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := runPDC(t, "run", "--input", in, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	got, stderr, code := runPDC(t, "pairs", out)
	if code != 0 {
		t.Fatalf("pairs: exit %d %s", code, stderr)
	}
	s, la, lb, lc := content(sharedS), content(sharedS, ownAS), content(sharedS, ownBS), content(sharedS)
	row := func(a, b string, lenA, lenB int) string {
		return fmt.Sprintf("%s\t%s\t1\t%d\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t-", a, b, s, s, lenA, lenB,
			float64(s)/float64(lenA), float64(s)/float64(lenB), float64(2*s)/float64(lenA+lenB))
	}
	want := strings.Join([]string{row("a", "b", la, lb), row("a", "c", la, lc), row("b", "c", lb, lc)}, "\n") + "\n"
	if got != want {
		t.Errorf("pairs:\n%s\nwant\n%s", got, want)
	}
	if groups, _, _ := runPDC(t, "pairs", out, "--groups"); groups != "" {
		t.Errorf("groups at 0.9: %q, want none (A and B hold more than the passage)", groups)
	}
	// A is contained in C at s/la, B at s/lb < s/la: at s/la, only A and C
	// are near-copies; at s/lb all three are.
	atA, atB := fmt.Sprintf("%.4f", float64(s)/float64(la)-0.001), fmt.Sprintf("%.4f", float64(s)/float64(lb)-0.001)
	if groups, _, _ := runPDC(t, "pairs", out, "--groups", "--copy", atA); groups != "2\ta\tc\n" {
		t.Errorf("groups at %s: %q, want a and c", atA, groups)
	}
	if groups, _, _ := runPDC(t, "pairs", out, "--groups", "--copy", atB); groups != "3\ta\tb\tc\n" {
		t.Errorf("groups at %s: %q, want a, b and c", atB, groups)
	}
	if of, _, _ := runPDC(t, "pairs", out, "--doc", "c"); of != row("a", "c", la, lc)+"\n"+row("b", "c", lb, lc)+"\n" {
		t.Errorf("--doc c:\n%s", of)
	}
	// A document without a pair is said to have none; an id that is no
	// document of the run is an error.
	if of, stderr, code := runPDC(t, "pairs", out, "--doc", "d"); code != 0 || of != "" || !strings.Contains(stderr, "document d of the run has no pair") {
		t.Errorf("--doc d: exit %d, %q %q", code, of, stderr)
	}
	if _, stderr, code := runPDC(t, "pairs", out, "--doc", "nosuch"); code != 1 || !strings.Contains(stderr, `document "nosuch" is not in the run's documents`) {
		t.Errorf("--doc nosuch: exit %d %q", code, stderr)
	}
	few, _, _ := runPDC(t, "pairs", out, "--min-containment", "0.95", "--format", "jsonl")
	if strings.Count(few, "\n") != 2 || !strings.Contains(few, `"contain_b":1`) {
		t.Errorf("--min-containment 0.95 --format jsonl:\n%s", few)
	}
}

// TestPairsSort: --sort orders the pairs by the measure named, highest
// first, the same pairs as the default order; --help says what each
// column is.
func TestPairsSort(t *testing.T) {
	t.Parallel()
	out := sampleRun(t)
	byPair, _, code := runPDC(t, "pairs", out)
	if code != 0 {
		t.Fatal("pairs")
	}
	for _, tc := range []struct {
		by  string
		key func(f []string) float64
	}{
		{"containment", func(f []string) float64 { return max(atof(t, f[7]), atof(t, f[8])) }},
		{"resemblance", func(f []string) float64 { return atof(t, f[9]) }},
		{"shared", func(f []string) float64 { return atof(t, f[3]) + atof(t, f[4]) }},
	} {
		got, stderr, code := runPDC(t, "pairs", out, "--sort", tc.by)
		if code != 0 {
			t.Fatalf("--sort %s: exit %d %s", tc.by, code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		for i := 1; i < len(lines); i++ {
			if tc.key(strings.Split(lines[i], "\t")) > tc.key(strings.Split(lines[i-1], "\t")) {
				t.Errorf("--sort %s: line %d is above line %d:\n%s\n%s", tc.by, i+1, i, lines[i-1], lines[i])
			}
		}
		a, b := slices.Sorted(slices.Values(lines)), slices.Sorted(slices.Values(strings.Split(strings.TrimSuffix(byPair, "\n"), "\n")))
		if !slices.Equal(a, b) {
			t.Errorf("--sort %s gives other pairs than the default order", tc.by)
		}
	}
	if _, stderr, code := runPDC(t, "pairs", out, "--sort", "size"); code != 2 || !strings.Contains(stderr, "--sort must be") {
		t.Errorf("--sort size: exit %d %q", code, stderr)
	}
	help, _, _ := runPDC(t, "pairs", "--help")
	for _, col := range []string{"contain_a", "resemblance", "thin", "len_a"} {
		if !strings.Contains(help, "  "+col) {
			t.Errorf("pairs --help does not say what %s is", col)
		}
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
