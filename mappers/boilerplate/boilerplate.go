// Package boilerplate is the boilerplate job, map only: from the index
// job's output it keeps the B and T records (signatures over --max-df and
// site templates, reducers/index), unchanged, so that pdc writes
// OUT/boilerplate.tsv (lib/boilerplate) from them without reading the
// posting lists, most of the index's bytes, through its own process: on
// Hadoop they stay on the cluster.
package boilerplate

import (
	"fmt"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Map runs the boilerplate mapper.
func Map(t *mr.Task) error {
	out := mr.NewOutput(t.Stdout)
	r := mr.NewReader(t.Stdin)
	var b []byte
	for r.Next() {
		if line := r.Line(); IsRow(line) {
			b = append(append(b[:0], line...), '\n')
			if _, err := out.Write(b); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("boilerplate mapper: read: %w", err)
	}
	return out.Flush()
}

// IsRow reports whether an index output line is a B or T record (its
// second field is B or T).
func IsRow(line []byte) bool {
	for i, c := range line {
		if c == '\t' {
			return i+2 < len(line) && (line[i+1] == 'B' || line[i+1] == 'T') && line[i+2] == '\t'
		}
	}
	return false
}
