package span

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// ErrNotFinished reports a spans directory without _SUCCESS.
var ErrNotFinished = errors.New("no _SUCCESS: the run did not finish (rerun pdc run to resume)")

// ErrOrder reports a part file whose spans are not in order.
var ErrOrder = errors.New("spans out of order (pdc writes each part file sorted; sort the spans of a file written otherwise)")

// Parts lists the part files of a finished spans directory, in name order:
// dir itself, or dir/spans when dir is a run's output directory. A
// directory without _SUCCESS is an error.
func Parts(fsys hdfsfs.FS, dir string) ([]string, error) {
	if fi, err := fsys.Stat(path.Join(dir, "spans")); err == nil && fi.IsDir() {
		dir = path.Join(dir, "spans")
	}
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("spans %s: %w", dir, hdfsfs.UnwrapPath(err))
	}
	var parts []string
	done := false
	for _, e := range ents {
		switch {
		case e.Name() == "_SUCCESS":
			done = true
		case strings.HasPrefix(e.Name(), "part-"):
			parts = append(parts, path.Join(dir, e.Name()))
		}
	}
	if !done {
		return nil, fmt.Errorf("spans %s: %w", dir, ErrNotFinished)
	}
	return parts, nil
}

// Read reads every part file of a spans directory (Parts) and returns the
// spans sorted by Compare.
func Read(fsys hdfsfs.FS, dir string) ([]Span, error) {
	var spans []Span
	err := eachPart(fsys, dir, func(r *partReader) error {
		for r.next() {
			spans = append(spans, r.span)
		}
		return r.err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(spans, Compare)
	return spans, nil
}

// Stream calls f with every span of a spans directory in Read's order,
// holding one span per part file in memory: the extend job writes each part
// in that order, and the parts are merged. A part out of order is an error
// wrapping ErrOrder (the directory is not a pdc run's output).
func Stream(fsys hdfsfs.FS, dir string, f func(*Span) error) error {
	var h partHeap
	err := eachPart(fsys, dir, func(r *partReader) error {
		if r.next() {
			h = append(h, r)
			r.keep = true
		}
		return r.err
	})
	defer func() {
		for _, r := range h {
			r.rc.Close()
		}
	}()
	if err != nil {
		return err
	}
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := f(&r.span); err != nil {
			return err
		}
		prev := r.span
		if !r.next() {
			if r.err != nil {
				return r.err
			}
			r.rc.Close()
			heap.Pop(&h)
			continue
		}
		if Compare(prev, r.span) > 0 {
			return fmt.Errorf("%s:%d: %w", r.name, r.lines.LineNumber(), ErrOrder)
		}
		heap.Fix(&h, 0)
	}
	return nil
}

// partReader reads the spans of one part file.
type partReader struct {
	name  string
	rc    io.ReadCloser
	lines *mr.Reader
	span  Span
	err   error
	keep  bool // still open after eachPart's callback
}

func (r *partReader) next() bool {
	if r.err != nil || !r.lines.Next() {
		if r.err == nil {
			if err := r.lines.Err(); err != nil {
				r.err = fmt.Errorf("read %s: %w", r.name, err)
			}
		}
		return false
	}
	s, err := Parse(string(r.lines.Line()))
	if err != nil {
		r.err = fmt.Errorf("%s:%d: %w", r.name, r.lines.LineNumber(), err)
		return false
	}
	r.span = s
	return true
}

// eachPart opens every part file of dir in turn and hands it to f; a part
// is closed after f unless f sets keep.
func eachPart(fsys hdfsfs.FS, dir string, f func(*partReader) error) error {
	parts, err := Parts(fsys, dir)
	if err != nil {
		return err
	}
	for _, p := range parts {
		rc, err := fsys.Open(p)
		if err != nil {
			return err
		}
		r := &partReader{name: p, rc: rc, lines: mr.NewReader(bufio.NewReaderSize(rc, 1<<16))}
		err = f(r)
		if !r.keep || err != nil {
			rc.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type partHeap []*partReader

func (h partHeap) Len() int           { return len(h) }
func (h partHeap) Less(i, j int) bool { return Compare(h[i].span, h[j].span) < 0 }
func (h partHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *partHeap) Push(x any)        { *h = append(*h, x.(*partReader)) }
func (h *partHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ReadFile reads a spans TSV file (`pdc spans OUT > FILE`), in file order;
// blank lines are skipped.
func ReadFile(fsys hdfsfs.FS, name string) ([]Span, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("spans %s: %w", name, hdfsfs.UnwrapPath(err))
	}
	defer f.Close()
	var spans []Span
	r := mr.NewReader(bufio.NewReaderSize(f, 1<<16))
	for r.Next() {
		line := string(r.Line())
		if strings.TrimSpace(line) == "" {
			continue
		}
		s, err := Parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, r.LineNumber(), err)
		}
		spans = append(spans, s)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return spans, nil
}
