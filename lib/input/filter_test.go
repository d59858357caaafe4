package input

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFilterKeep(t *testing.T) {
	for _, tt := range []struct {
		f    Filter
		rel  string
		keep bool
	}{
		{Filter{}, "a/b.html", true},
		{Filter{Exclude: []string{"*.txt"}}, "a/b.txt", false},
		{Filter{Exclude: []string{"*.txt"}}, "a/b.html", true},
		{Filter{Include: []string{"*.html"}}, "b.txt", false},
		{Filter{Include: []string{"*.html"}}, "x/y/b.html", true},
		{Filter{Include: []string{"html/*"}}, "html/b.html", true},
		{Filter{Include: []string{"html/*"}}, "html/sub/b.html", false}, // * does not cross /
		{Filter{Include: []string{"html/*"}}, "b.html", false},
		{Filter{Include: []string{"*.html"}, Exclude: []string{"genindex*"}}, "genindex-A.html", false},
		{Filter{Include: []string{"*.html", "*.txt"}}, "b.txt", true},
		{Filter{Exclude: []string{"_sources/*/*"}}, "_sources/library/os.rst.txt", false},
		{Filter{Exclude: []string{"[ab].html"}}, "c.html", true},
	} {
		if got := tt.f.Keep(tt.rel); got != tt.keep {
			t.Errorf("%+v Keep(%q) = %v, want %v", tt.f, tt.rel, got, tt.keep)
		}
	}
	if err := (Filter{Exclude: []string{"[a-"}}).Check(); err == nil || !strings.Contains(err.Error(), `"[a-"`) {
		t.Errorf("Check of a malformed pattern: %v", err)
	}
}

// TestFindFilter: --include/--exclude select the files found under input
// directories, never the files named explicitly; what they leave out is
// counted; a tree whose every file is left out is an error that says so;
// page sources beside their pages are counted.
func TestFindFilter(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a.html", "a.txt", "b.html", "sub/c.htm", "sub/c.txt", "notes.txt", "data.jsonl", "style.css"} { // style.css: never read, never counted
		writeFile(t, filepath.Join(root, name), "<p>x</p>")
	}
	ids := func(in *Set) []string {
		var out []string
		for _, f := range in.Tree {
			out = append(out, f.Rel)
		}
		for _, p := range in.JSONL {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	in, err := Find([]string{root}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if in.PageSources != 2 || in.FirstPageSource != "a.txt" || in.Excluded != 0 {
		t.Errorf("page sources %d (first %q), excluded %d", in.PageSources, in.FirstPageSource, in.Excluded)
	}
	in, err = Find([]string{root, filepath.Join(root, "notes.txt")}, Filter{Exclude: []string{"*.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(in), []string{"a.html", "b.html", "sub/c.htm", "notes.txt", "data.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	if in.Excluded != 3 || in.PageSources != 0 || in.Counters()["input.files.excluded"] != 3 {
		t.Errorf("excluded %d, page sources %d", in.Excluded, in.PageSources)
	}
	if _, err := Find([]string{root}, Filter{Include: []string{"*.xml"}}); err == nil || !strings.Contains(err.Error(), "--include/--exclude left out all 7 files") {
		t.Errorf("all left out: %v", err)
	}
	if _, err := Find([]string{root}, Filter{Include: []string{"["}}); err == nil {
		t.Error("a malformed pattern is no error")
	}
}
