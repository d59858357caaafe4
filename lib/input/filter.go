package input

import (
	"fmt"
	"path"
	"strings"
)

// Filter selects the files found under --input directories (never the
// files named explicitly): a file is read when it matches an Include
// pattern (or there are none) and no Exclude pattern. A pattern with a "/"
// matches the file's slash-separated path under its --input directory; one
// without matches its name (path.Match syntax: *, ?, [...]). So
// `--exclude '*.txt'` leaves out every .txt file, `--include 'html/*'`
// keeps the files directly under html/.
type Filter struct {
	Include, Exclude []string
}

// Check returns an error naming the first malformed pattern.
func (f Filter) Check() error {
	for _, p := range append(append([]string(nil), f.Include...), f.Exclude...) {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("pattern %q: %w", p, err)
		}
	}
	return nil
}

// Keep reports whether the file at rel (slash-separated, under its --input
// directory) is read.
func (f Filter) Keep(rel string) bool {
	if len(f.Include) > 0 && !matchAny(f.Include, rel) {
		return false
	}
	return !matchAny(f.Exclude, rel)
}

// IsZero reports whether the filter keeps every file.
func (f Filter) IsZero() bool { return len(f.Include) == 0 && len(f.Exclude) == 0 }

func matchAny(patterns []string, rel string) bool {
	for _, p := range patterns {
		name := rel
		if !strings.Contains(p, "/") {
			name = path.Base(rel)
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
