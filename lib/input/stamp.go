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
type Stamps []Stamp

// Stamp is one file's: its path, size and modification time (a run's
// _pdc.json keeps them, so that the commands that read its documents
// again know when a file changed since).
type Stamp struct {
	Path string    `json:"path"`
	Size int64     `json:"size"`
	Mod  time.Time `json:"modified"`
}

// Stamp stats every local file of the set.
func (in *Set) Stamp() (Stamps, error) {
	var s Stamps
	add := func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("input %s: %w", p, err)
		}
		s = append(s, Stamp{p, fi.Size(), fi.ModTime()})
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
	n, first := s.changed("while pdc read it")
	if first == nil {
		return nil
	}
	return fmt.Errorf("%w%s: what was read is no one state of the input; run again once the files are complete, or on a copy", first, others(n))
}

// ChangedSince stats the files again, long after they were read (by a run
// whose offsets index them), and returns an error naming the first that
// changed, and how many did.
func (s Stamps) ChangedSince() error {
	n, first := s.changed("since the run")
	if first == nil {
		return nil
	}
	return fmt.Errorf("%w%s: the run's offsets no longer fit its text", first, others(n))
}

func others(n int) string {
	if n > 1 {
		return fmt.Sprintf(", and %d other input files changed", n-1)
	}
	return ""
}

// changed returns the number of files that changed and an error
// describing the first, with when (what it changed during).
func (s Stamps) changed(when string) (int, error) {
	var first error
	n := 0
	for _, st := range s {
		fi, err := os.Stat(st.Path)
		var what string
		switch {
		case errors.Is(err, fs.ErrNotExist):
			what = "was removed"
		case err != nil:
			what = err.Error()
		case fi.Size() != st.Size:
			what = fmt.Sprintf("went from %d to %d bytes", st.Size, fi.Size())
		case !fi.ModTime().Equal(st.Mod):
			what = fmt.Sprintf("was modified at %s", fi.ModTime().Format(time.RFC3339))
		default:
			continue
		}
		n++
		if first == nil {
			first = fmt.Errorf("input %s changed %s (it %s)", st.Path, when, what)
		}
	}
	return n, first
}
