// Package dedup is the reduce side of pdc dedup's jobs (mappers/dedup): of
// the records of one document id, sorted by input position, it keeps the
// first (the one the run read; the others are repeated ids, counted by the
// docs job as dedup.docs.duplicate-id), adds its counts to the task's
// counters and writes its lines; the error its mapper met, if any, fails
// the task.
package dedup

import (
	"bytes"
	"fmt"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Facts, Kept, Docs and Removed are the reducers of the four jobs.
func Facts(t *mr.Task) error   { return run(t, false) }
func Kept(t *mr.Task) error    { return run(t, false) }
func Docs(t *mr.Task) error    { return run(t, true) }
func Removed(t *mr.Task) error { return run(t, false) }

// run keeps the first record of each id; countDups counts the others.
func run(t *mr.Task, countDups bool) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var id []byte
	first := true
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		f := bytes.SplitN(r.Line(), []byte{'\t'}, 4)
		if len(f) != 4 {
			return fmt.Errorf("dedup reducer: line %d: malformed record (want 4 fields, got %d)", r.LineNumber(), len(f))
		}
		if !first && bytes.Equal(f[0], id) {
			if countDups {
				c.Add("dedup.docs.duplicate-id", 1)
			}
			continue
		}
		first = false
		id = append(id[:0], f[0]...)
		if msg, failed := bytes.CutPrefix(f[2], []byte{'!'}); failed {
			s, _ := mr.Unescape(string(msg))
			return fmt.Errorf("dedup reducer: %s", s)
		}
		if err := addCounts(c, f[2]); err != nil {
			return fmt.Errorf("dedup reducer: line %d: %w", r.LineNumber(), err)
		}
		lines, err := mr.Unescape(string(f[3]))
		if err != nil {
			return fmt.Errorf("dedup reducer: line %d: malformed lines: %w", r.LineNumber(), err)
		}
		if _, err := out.Write([]byte(lines)); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("dedup reducer: read: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// addCounts adds a record's counts, `name=n` joined by commas.
func addCounts(c *mr.Counters, b []byte) error {
	for len(b) > 0 {
		kv := b
		if i := bytes.IndexByte(b, ','); i >= 0 {
			kv, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		name, n, ok := bytes.Cut(kv, []byte{'='})
		v, ok2 := mr.Atoi(n)
		if !ok || !ok2 || len(name) == 0 {
			return fmt.Errorf("malformed counts %q", kv)
		}
		c.Add(string(name), int64(v))
	}
	return nil
}
