package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
)

func reduce(t *testing.T, env map[string]string, in string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	task := &mr.Task{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	err := Reduce(task)
	return out.String(), err
}

// TestReduceBatches: however the mappers batched a signature's postings
// into lines (mr.Batch), and in whatever order the lines come, the posting
// lists, boilerplate and template records are the same.
func TestReduceBatches(t *testing.T) {
	env := map[string]string{"PDC_SIGNATURE": "words", "PDC_MAX_DF": "6", "PDC_MAX_SITE_DF": "2"}
	rng := rand.New(rand.NewPCG(7, 7))
	type posting struct{ key, value string }
	var ps []posting
	for k := range 30 {
		key := fmt.Sprintf("%08x", k*977)
		for range 1 + rng.IntN(9) { // some lists over max-df (6)
			doc := []int{1, 4, 7, rng.IntN(8)}[rng.IntN(4)] // 1, 4 and 7: one site
			site := []string{"-", "0000aaaa", "0000bbbb"}[doc%3]
			set := []string{"AAB", "AAB", "ABBAC"}[rng.IntN(3)] // repeated sets: site templates
			ps = append(ps, posting{key, fmt.Sprintf("d%d\t%07d\t5\t%d\t%d\t%s\t1\t%s", doc, rng.IntN(20), 10*doc, 10*doc+9, site, set)})
		}
	}
	var want string
	for round := range 20 {
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		slices.SortStableFunc(ps, func(x, y posting) int { return strings.Compare(x.key, y.key) })
		var in strings.Builder
		for i := 0; i < len(ps); {
			n := 1 + rng.IntN(6) // postings of one key per line
			if round == 0 {
				n = 1
			}
			key := ps[i].key
			in.WriteString(key)
			last := "" // the document of the line's posting before
			for end := i + n; i < len(ps) && i < end && ps[i].key == key; i++ {
				doc, rest, _ := strings.Cut(ps[i].value, "\t")
				if doc == last && rng.IntN(4) > 0 {
					doc = "" // as the mapper writes it: same document
				}
				in.WriteString("\t" + doc + "\t" + rest)
				last, _, _ = strings.Cut(ps[i].value, "\t")
			}
			in.WriteString("\n")
		}
		got, err := reduce(t, env, in.String())
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			want = got
			// ",\t": a posting of the same document as the one before.
			for _, kind := range []string{"\tP\t", "\tB\t", "\tT\t", ",\t"} {
				if !strings.Contains(got, kind) {
					t.Fatalf("no %q record: the test tests less than it should:\n%s", kind, got)
				}
			}
			continue
		}
		if got != want {
			t.Fatalf("round %d: output\n%s\nwant\n%s", round, got, want)
		}
	}
}

// TestReduceMalformed: a line whose postings do not have the method's
// number of fields is an error naming the line.
func TestReduceMalformed(t *testing.T) {
	for _, tt := range []struct{ method, in string }{
		{"words", "k\td\t0000001\t5\t0\t9\t-\t1\n"},            // 7 fields
		{"words", "k\td\t0000001\t5\t0\t9\t-\t1\tAB\tx\n"},     // 8 + 1
		{"words", "k\td\t0000001\t5\t0\t9\t-\t1\tAB\t\n"},      // trailing TAB
		{"shingle", "k\td\t0000001\t5\t0\t9\t-\td\t0000002\n"}, // 6 + 3
		{"shingle", "k\n"},
		{"shingle", "k\t\t0000001\t5\t0\t9\t-\n"}, // no id, no posting before
	} {
		_, err := reduce(t, map[string]string{"PDC_SIGNATURE": tt.method}, tt.in)
		if err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s %q: err %v, want one naming line 1", tt.method, tt.in, err)
		}
	}
}

func TestCutFields(t *testing.T) {
	for _, tt := range []struct {
		in          string
		n           int
		first, rest string
		more, ok    bool
	}{
		{"a\tb\tc", 3, "a\tb\tc", "", false, true},
		{"a\tb\tc\td", 3, "a\tb\tc", "d", true, true},
		{"a\tb\tc\t", 3, "a\tb\tc", "", true, true},
		{"a\tb", 3, "", "", false, false},
		{"", 1, "", "", false, true},
		{"a", 1, "a", "", false, true},
	} {
		first, rest, more, ok := cutFields([]byte(tt.in), tt.n)
		if ok != tt.ok || ok && (string(first) != tt.first || string(rest) != tt.rest || more != tt.more) {
			t.Errorf("cutFields(%q, %d) = %q, %q, %v, %v; want %q, %q, %v, %v", tt.in, tt.n, first, rest, more, ok, tt.first, tt.rest, tt.more, tt.ok)
		}
	}
}

func TestTemplateKey(t *testing.T) {
	const (
		a  = "d1\t0000001\t5\t0\t9\t0000aaaa\t1\tAABCDEFGHIJ"
		a2 = "d2\t0000007\t5\t70\t79\t0000aaaa\t2\tAABCDEFGHIJ" // same site and set
		b  = "d1\t0000001\t5\t0\t9\t0000aaaa\t1\tAABCDEFGHIK"   // another set
		c  = "d1\t0000001\t5\t0\t9\t0000bbbb\t1\tAABCDEFGHIJ"   // another site
	)
	key := func(v string, prefixed bool) uint64 {
		t.Helper()
		k, ok := templateKey([]byte(v), prefixed)
		if !ok || k == 0 {
			t.Fatalf("templateKey(%q) = %d, %v", v, k, ok)
		}
		return k
	}
	if key(a, true) != key(a2, true) {
		t.Error("same site and set, different keys")
	}
	if key(a, true) == key(b, true) || key(a, true) == key(c, true) {
		t.Error("different sets or sites, same key")
	}
	if key("d1\t0000001\t5\t0\t9\t0000aaaa", false) != key("d2\t0000002\t6\t1\t8\t0000aaaa", false) {
		t.Error("6-field postings of one site, different keys")
	}
	for _, tt := range []struct {
		v        string
		prefixed bool
	}{
		{"d1\t0000001\t5\t0\t9\t-\t1\tAAB", true},        // no site
		{"d1\t0000001\t5\t0\t9\t0000aaaa\t1\tBAB", true}, // a token of one document
		{"d1\t0000001\t5\t0\t9\t-", false},
	} {
		if k, ok := templateKey([]byte(tt.v), tt.prefixed); ok {
			t.Errorf("templateKey(%q) = %d, want none", tt.v, k)
		}
	}
}

// TestCutFieldsRandom checks cutFields against a plain scan on random
// lines of TABs and bytes that differ from a TAB by one bit (0x89, 0x08,
// 0x0b, 0x19, 0x49...), where a word-at-a-time test could go wrong.
func TestCutFieldsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	alphabet := []byte{'\t', '\t', 0x89, 0x08, 0x0b, 0x0d, 0x19, 0x29, 0x49, 0x01, 0x00, 0xff, 'a', '0'}
	for range 20000 {
		v := make([]byte, rng.IntN(40))
		for i := range v {
			v[i] = alphabet[rng.IntN(len(alphabet))]
		}
		n := 1 + rng.IntN(6)
		first, rest, more, ok := cutFields(v, n)
		// The plain scan.
		tabs, end := 0, -1
		for i, c := range v {
			if c == '\t' {
				if tabs++; tabs == n {
					end = i
					break
				}
			}
		}
		switch {
		case end >= 0:
			if !ok || !more || string(first) != string(v[:end]) || string(rest) != string(v[end+1:]) {
				t.Fatalf("cutFields(%q, %d) = %q, %q, %v, %v; want %q, %q", v, n, first, rest, more, ok, v[:end], v[end+1:])
			}
		case tabs == n-1:
			if !ok || more || string(first) != string(v) {
				t.Fatalf("cutFields(%q, %d) = %q, %q, %v, %v; want the whole line, last", v, n, first, rest, more, ok)
			}
		default:
			if ok {
				t.Fatalf("cutFields(%q, %d) ok with %d TABs", v, n, tabs)
			}
		}
	}
}

// TestTemplatePages: a sentence in more than PDC_MAX_SITE_DF documents of a
// site is its template when they are more than PDC_MAX_SITE_DF pages:
// documents whose copy keys share either half count once, documents
// without a key once per file name, and documents that all have one file
// name (a page's copies in a mirrored or versioned tree) once; the copy
// key never reaches the output.
func TestTemplatePages(t *testing.T) {
	env := map[string]string{"PDC_SIGNATURE": "words", "PDC_MAX_DF": "100", "PDC_MAX_SITE_DF": "2"}
	list := func(ids, keys []string) string {
		var b strings.Builder
		b.WriteString("0000abcd")
		for i, k := range keys {
			site := "0000aaaa"
			if k != "" {
				site += "~" + k
			}
			id := fmt.Sprintf("d%d", i)
			if ids != nil {
				id = ids[i]
			}
			fmt.Fprintf(&b, "\t%s\t0000003\t5\t0\t9\t%s\t1\tAAB", id, site)
		}
		return b.String() + "\n"
	}
	split := []string{"11112222", "33334444", "55556666"}
	for _, tt := range []struct {
		name     string
		ids      []string // nil: d0, d1, ...
		keys     []string
		template bool
	}{
		{"ten copies of one page", nil, []string{"11112222", "11112222", "11113333", "44442222", "11112222", "11112222"}, false},
		{"two pages in copies", nil, []string{"11112222", "11112222", "55556666", "55556666"}, false},
		{"three pages", nil, []string{"11112222", "55556666", "77778888"}, true},
		{"no keys", nil, []string{"", "", ""}, true},
		{"copies and keyless pages", nil, []string{"11112222", "11112222", "", ""}, true},
		{"keyless copies of one file", []string{"v1/a.html", "v2/a.html", "v3/a.html"}, []string{"", "", ""}, false},
		{"keyless files of two names", []string{"v1/a.html", "v2/a.html", "v1/b.html"}, []string{"", "", ""}, false},
		{"keyless files of three names", []string{"v1/a.html", "v1/b.html", "v1/c.html"}, []string{"", "", ""}, true},
		{"keys apart, one file name", []string{"v1/x.html", "v2/x.html", "v3/x.html"}, split, false},
		{"keys apart, three names", []string{"v1/x.html", "v1/y.html", "v1/z.html"}, split, true},
	} {
		got, err := reduce(t, env, list(tt.ids, tt.keys))
		if err != nil {
			t.Fatal(err)
		}
		if isT := strings.Contains(got, "\tT\t"); isT != tt.template || strings.Contains(got, "~") {
			t.Errorf("%s: template %v, want %v; output\n%s", tt.name, isT, tt.template, got)
		}
		if !tt.template && strings.Count(got, "\tP\t") != 1 {
			t.Errorf("%s: no posting list:\n%s", tt.name, got)
		}
	}
}

// TestReduceBatchRun: in a batch run (PDC_BATCH), a list without a posting
// of the batch (site field marked "+", mappers/index) is left out, and a
// list with one is written whole, the mark kept for the join; the mark
// does not make a site of its own for the site templates.
func TestReduceBatchRun(t *testing.T) {
	env := map[string]string{"PDC_SIGNATURE": "words", "PDC_MAX_SITE_DF": "2", "PDC_BATCH": "1"}
	p := func(doc, site string) string { return "\t" + doc + "\t0000001\t5\t0\t9\t" + site + "\t1\tAAB" }
	in := "00000001" + p("d1", "0000aaaa") + p("d2", "0000aaaa") + "\n" + // stored only
		"00000002" + p("d1", "0000aaaa") + p("d3", "+0000bbbb") + "\n" + // one of the batch
		// in three pages of one site, one of them the batch's: a template
		"00000003" + p("d1", "0000aaaa") + p("d2", "0000aaaa") + p("d4", "+0000aaaa") + p("d5", "-") + "\n"
	var out, errb bytes.Buffer
	task := &mr.Task{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	if err := Reduce(task); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.HasPrefix(got, "00000001\t") || strings.Contains(got, "\n00000001\t") {
		t.Errorf("a list of stored postings only was written:\n%s", got)
	}
	if !strings.Contains(got, "00000002\tP\t2\t0000001,5,0,9,0000aaaa,1,AAB,d1\t0000001,5,0,9,+0000bbbb,1,AAB,d3\n") {
		t.Errorf("the list with a posting of the batch is not written whole with its mark:\n%s", got)
	}
	if !strings.Contains(got, "00000003\tT\t3\t") || strings.Contains(got, "00000003\tP") {
		t.Errorf("a sentence in three pages of a site, one of the batch, is not that site's template:\n%s", got)
	}
	stored := int64(0)
	for _, line := range strings.Split(errb.String(), "\n") {
		if _, name, n, ok := mr.ParseCounterLine([]byte(line)); ok && name == "index.lists.stored-only" {
			stored += n
		}
	}
	if stored != 1 {
		t.Errorf("index.lists.stored-only = %d, want 1\n%s", stored, errb.String())
	}
}
