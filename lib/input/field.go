package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// FieldValues returns the value of the string field named field (non-empty)
// of the JSON Lines records of the documents in need (the first record of
// each id), read from the JSON Lines files of in, local or on HDFS. Other
// input formats have no such field.
func FieldValues(in *Set, need map[string]bool, field string) (map[string]string, error) {
	vals, seen := map[string]string{}, map[string]bool{}
	for _, p := range in.JSONL {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, hdfsfs.UnwrapPath(err))
		}
		if err := readField(p, f, field, need, seen, vals); err != nil {
			return nil, err
		}
	}
	for _, r := range in.Remote {
		f, err := r.FS.Open(r.Path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", r.Path, err)
		}
		if err := readField(r.Path, f, field, need, seen, vals); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// readField reads field from the records of one JSON Lines file (gzipped
// when its name ends in .gz) into vals, and closes it.
func readField(name string, rc io.ReadCloser, field string, need, seen map[string]bool, vals map[string]string) error {
	defer rc.Close()
	var r io.Reader = bufio.NewReaderSize(rc, 1<<16)
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
		line := lr.Line()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		d, err := doc.ParseJSON(line)
		if err != nil || !need[d.ID] || seen[d.ID] {
			continue // no document (the readers skip it too), or not the first of its id
		}
		seen[d.ID] = true
		if v := doc.JSONStringField(line, field); v != "" {
			vals[d.ID] = v
		}
	}
	if err := lr.Err(); err != nil {
		return fmt.Errorf("input %s: %w", name, err)
	}
	return nil
}
