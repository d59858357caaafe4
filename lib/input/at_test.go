package input

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// noSeek hides a file's Seek, as a reader that cannot seek (a pipe) has none.
type noSeek struct{ io.ReadCloser }

// atAll reads every position with At and returns "id" or "missing: why" per
// position, in positions' order.
func atAll(t *testing.T, ps []Position, open func(string) (io.ReadCloser, error)) []string {
	t.Helper()
	got := map[Position]string{}
	err := At(ps, Options{}, open, func(p Position, d *doc.Doc) error {
		got[p] = d.ID + " " + d.HTML + d.Text
		return nil
	}, func(p Position, why error) {
		got[p] = "missing: " + why.Error()
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, got[p])
	}
	return out
}

// TestAt: At reads the record at each position of a JSON Lines file, plain
// (seeking, and without Seek), gzipped, and rendered from a container, as
// reading the file from the start finds it (the model); a long record
// spans bufio's buffer; positions inside a record or past the end are
// missing, with a reason, and so are those of a file that is not there.
func TestAt(t *testing.T) {
	dir := t.TempDir()
	var lines bytes.Buffer
	var ps []Position
	var want []string
	for i := range 50 {
		body := fmt.Sprintf("<p>page %d</p>", i)
		if i == 7 {
			body = "<p>" + strings.Repeat("long ", 40000) + "</p>" // 200 KB: more than one buffer
		}
		ps = append(ps, Position{Offset: int64(lines.Len())})
		want = append(want, fmt.Sprintf("d%d %s", i, body))
		fmt.Fprintf(&lines, `{"id":"d%d","html":"%s"}`+"\n", i, body)
	}
	plain := filepath.Join(dir, "docs.jsonl")
	if err := os.WriteFile(plain, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(lines.Bytes())
	zw.Close()
	gz := filepath.Join(dir, "docs.jsonl.gz")
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every third position, in reverse order: At sorts them.
	var sub []Position
	var subWant []string
	for i := len(ps) - 1; i >= 0; i -= 3 {
		sub = append(sub, ps[i])
		subWant = append(subWant, want[i])
	}
	opens := map[string]func(string) (io.ReadCloser, error){
		"seek":    func(n string) (io.ReadCloser, error) { return os.Open(n) },
		"no seek": func(n string) (io.ReadCloser, error) { f, err := os.Open(n); return noSeek{f}, err },
	}
	for name, open := range opens {
		for _, file := range []string{plain, gz} {
			at := func(ps []Position) []Position {
				var out []Position
				for _, p := range ps {
					out = append(out, Position{File: file, Offset: p.Offset})
				}
				return out
			}
			for _, c := range []struct {
				ps   []Position
				want []string
			}{{ps, want}, {sub, subWant}} {
				got := atAll(t, at(c.ps), open)
				for i := range c.want {
					if got[i] != c.want[i] {
						t.Errorf("%s %s: position %d: got %.60q, want %.60q", name, filepath.Base(file), c.ps[i].Offset, got[i], c.want[i])
					}
				}
			}
			bad := at([]Position{{Offset: ps[3].Offset + 2}, {Offset: int64(lines.Len()) + 10}})
			for i, g := range atAll(t, bad, open) {
				if !strings.HasPrefix(g, "missing: ") {
					t.Errorf("%s %s: bad position %d read as %q", name, filepath.Base(file), bad[i].Offset, g)
				}
			}
		}
	}
	gone := atAll(t, []Position{{File: filepath.Join(dir, "gone.jsonl")}}, opens["seek"])
	if !strings.Contains(gone[0], "gone.jsonl") {
		t.Errorf("a missing file: %q", gone[0])
	}
}

// TestAtContainerAndTree: positions in a container's JSON Lines rendering
// (as the parse job reads it) and a page of a tree.
func TestAtContainerAndTree(t *testing.T) {
	path := warcFixture("pages.warc.gz")
	_, raw, _ := readSplit(t, path)
	r := mr.NewReader(bytes.NewReader(raw))
	var ps []Position
	var want []string
	var off int64
	for r.Next() {
		d, err := doc.ParseJSON(r.Line())
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, Position{File: path, Offset: off})
		want = append(want, d.ID+" "+d.HTML+d.Text)
		off += int64(len(r.Line())) + 1
	}
	if len(ps) < 3 {
		t.Fatalf("fixture has %d documents", len(ps))
	}
	page := filepath.Join(t.TempDir(), "a.html")
	if err := os.WriteFile(page, []byte("<p>a page</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ps = append(ps, Position{File: page}, Position{File: path, Offset: 1})
	got := atAll(t, ps, func(n string) (io.ReadCloser, error) { return os.Open(n) })
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: got %.60q, want %.60q", i, got[i], want[i])
		}
	}
	if g := got[len(want)]; !strings.HasSuffix(g, " <p>a page</p>") {
		t.Errorf("tree page: %q", g)
	}
	if g := got[len(want)+1]; !strings.HasPrefix(g, "missing: ") {
		t.Errorf("a position inside a container record: %q", g)
	}
}

// TestParsePosition: srcpos fields as the parse job writes them.
func TestParsePosition(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Position
		ok   bool
	}{
		{"a/b.jsonl@0000000000001234", Position{"a/b.jsonl", 1234}, true},
		{`x\ty@0000000000000000`, Position{"x\ty", 0}, true},
		{"hdfs://nn:8020/in/part-00000@0000000000000007", Position{"hdfs://nn:8020/in/part-00000", 7}, true},
		{"no-offset", Position{}, false},
		{"f@-1", Position{}, false},
		{"f@x", Position{}, false},
	} {
		got, err := ParsePosition(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParsePosition(%q) = %+v, %v", c.in, got, err)
		}
	}
}

func FuzzParsePosition(f *testing.F) {
	f.Add("a/b.jsonl@0000000000001234")
	f.Add(`x\ty@0000000000000000`)
	f.Add("@")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePosition(s)
		if err != nil {
			return
		}
		back := string(doc.AppendSrcpos(nil, mr.Escape(p.File), "", p.Offset))
		q, err := ParsePosition(back)
		if err != nil || q != p {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, p, back, q, err)
		}
	})
}
