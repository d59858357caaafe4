package jobs

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// eachDoc calls fn for every readable document of the inputs, in input
// order, with where naming it (file:line or path). Bad records are skipped:
// the parse job counts them.
func eachDoc(in *inputSet, fn func(d *doc.Doc, where string) error) error {
	for _, path := range in.jsonl {
		if err := eachJSONL(path, fn); err != nil {
			return err
		}
	}
	for _, f := range in.remote {
		if err := eachRemoteDoc(f, fn); err != nil {
			return err
		}
	}
	for _, p := range in.records {
		if err := eachRecordDoc(p, fn); err != nil {
			return err
		}
	}
	for _, f := range in.tree {
		d, err := readTreeDoc(f)
		if err != nil {
			return err
		}
		if err := fn(&d, f.rel); err != nil {
			return err
		}
	}
	return nil
}

func eachJSONL(path string, fn func(d *doc.Doc, where string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("input %s: %w", path, unwrapPathErr(err))
	}
	defer f.Close()
	return decodeJSONL(path, f, fn)
}

// decodeJSONL calls fn for every readable document of a JSON Lines stream
// (gzip when name ends in .gz).
func decodeJSONL(name string, r io.Reader, fn func(d *doc.Doc, where string) error) error {
	r = bufio.NewReaderSize(r, 1<<16)
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("input %s: %w", name, err)
		}
		defer zr.Close()
		r = zr
	}
	lr := mr.NewReader(r)
	for lr.Next() {
		d, err := doc.ParseJSON(lr.Line())
		if err != nil {
			continue
		}
		if err := fn(&d, fmt.Sprintf("%s:%d", name, lr.LineNumber())); err != nil {
			return err
		}
	}
	if err := lr.Err(); err != nil {
		return fmt.Errorf("input %s: %w", name, err)
	}
	return nil
}

// runeSlice returns s[start:end] in rune offsets, clamped to s.
func runeSlice(s string, start, end int) string {
	if start < 0 {
		start = 0
	}
	bs, be, i := len(s), len(s), 0
	for b := range s {
		if i == start {
			bs = b
		}
		if i == end {
			be = b
			break
		}
		i++
	}
	if bs > be {
		return ""
	}
	return s[bs:be]
}
