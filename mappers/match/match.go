// Package match is the map side of the match job: it passes the join's
// duplicated sentence pairs through, so that the shuffle groups them by
// document pair (key docA TAB docB). It checks each line's shape so that a
// wrong input fails early with a line number.
package match

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Fields is the number of fields of a duplicated sentence pair.
const Fields = 9

// Map runs the match mapper.
func Map(t *mr.Task) error {
	out := bufio.NewWriterSize(t.Stdout, 1<<16)
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		line := r.Line()
		if n := bytes.Count(line, []byte{'\t'}) + 1; n != Fields {
			return fmt.Errorf("match mapper: line %d: want %d fields, got %d", r.LineNumber(), Fields, n)
		}
		if _, err := out.Write(line); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		if err := out.WriteByte('\n'); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("match mapper: read: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
