package mr

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

// TestBatch: values come out on one line per key, keys in order of first
// appearance, values in order; over the limit the batch is written out and
// a key starts a new line; nothing is lost.
func TestBatch(t *testing.T) {
	for _, tt := range []struct {
		limit int
		want  string
	}{
		{BatchBytes, "a\t1\t3\t6\nb\t2\t5\nc\t4\n"},
		{200, "a\t1\t3\nb\t2\nc\t4\n" + "b\t5\na\t6\n"}, // written out after the 4th value
		{1, "a\t1\nb\t2\na\t3\nc\t4\nb\t5\na\t6\n"},     // after every value
	} {
		for _, dense := range []bool{false, true} { // lines by key, or by number (LineAt)
			var out strings.Builder
			w := bufio.NewWriter(&out)
			b := NewBatch[string](w)
			b.limit = tt.limit
			if dense {
				b.Dense(8)
			}
			for i, k := range []string{"a", "b", "a", "c", "b", "a"} {
				var line []byte
				var j int
				if dense {
					line, j = b.LineAt(map[string]int{"a": 0, "b": 5, "c": 7}[k])
				} else {
					line, j = b.Line(k)
				}
				if len(line) == 0 {
					line = append(line, k...)
				}
				if err := b.Put(j, fmt.Appendf(line, "\t%d", i+1)); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Close(); err != nil { // writes the lines and flushes w
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("limit %d, dense %v: got\n%q\nwant\n%q", tt.limit, dense, out.String(), tt.want)
			}
		}
	}
}

// TestBatchMark: a line's mark is 0 when the line is new, including after
// the batch was written out, and what Mark last set otherwise.
func TestBatchMark(t *testing.T) {
	for _, tt := range []struct {
		limit int
		want  string
	}{
		{BatchBytes, "a\t1\t=\t=\nb\t2\t=\nc\t4\n"},
		{200, "a\t1\t=\nb\t2\nc\t4\n" + "b\t5\na\t6\n"},
		{1, "a\t1\nb\t2\na\t3\nc\t4\nb\t5\na\t6\n"},
	} {
		var out strings.Builder
		b := NewBatch[string](bufio.NewWriter(&out))
		b.limit = tt.limit
		for i, k := range []string{"a", "b", "a", "c", "b", "a"} {
			line, j := b.Line(k)
			if len(line) == 0 {
				line = append(line, k...)
			}
			if b.Mark(j, 7) == 7 {
				line = append(line, "\t="...) // as the value before
			} else {
				line = fmt.Appendf(line, "\t%d", i+1)
			}
			if err := b.Put(j, line); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("limit %d: got\n%q\nwant\n%q", tt.limit, out.String(), tt.want)
		}
	}
}
