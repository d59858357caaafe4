package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Stamps are the sizes and modification times of a Set's local files,
// taken before they are read: a file that a crawler or a download is still
// writing, or that is replaced while pdc reads it, would give documents of
// no one state of the file (a JSON Lines file is read in splits at offsets
// of its first size, and lines appended later are never read).
type Stamps []stamp

type stamp struct {
	path string
	size int64
	mod  time.Time
}

// Stamp stats every local file of the set.
func (in *Set) Stamp() (Stamps, error) {
	var s Stamps
	add := func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("input %s: %w", p, err)
		}
		s = append(s, stamp{p, fi.Size(), fi.ModTime()})
		return nil
	}
	for _, p := range in.JSONL {
		if err := add(p); err != nil {
			return nil, err
		}
	}
	for _, p := range in.Containers {
		if err := add(p); err != nil {
			return nil, err
		}
	}
	for _, f := range in.Tree {
		if err := add(f.Path()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Changed stats the files again, once they have been read, and returns an
// error naming the first one whose size or modification time differs
// (or that is gone) and how many changed.
func (s Stamps) Changed() error {
	var first error
	n := 0
	for _, st := range s {
		fi, err := os.Stat(st.path)
		var what string
		switch {
		case errors.Is(err, fs.ErrNotExist):
			what = "was removed"
		case err != nil:
			what = err.Error()
		case fi.Size() != st.size:
			what = fmt.Sprintf("went from %d to %d bytes", st.size, fi.Size())
		case !fi.ModTime().Equal(st.mod):
			what = fmt.Sprintf("was modified at %s", fi.ModTime().Format(time.RFC3339))
		default:
			continue
		}
		n++
		if first == nil {
			first = fmt.Errorf("input %s changed while pdc read it (it %s)", st.path, what)
		}
	}
	if first == nil {
		return nil
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(", and %d other input files changed", n-1)
	}
	return fmt.Errorf("%w%s: what was read is no one state of the input; run again once the files are complete, or on a copy", first, more)
}
