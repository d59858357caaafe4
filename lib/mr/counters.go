package mr

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CounterGroup is the Hadoop counter group of every pdc counter.
const CounterGroup = "pdc"

// counterInterval is how often Add writes pending increments.
const counterInterval = 5 * time.Second

// Counters aggregates counter increments in memory and writes them as
// Hadoop Streaming reporter lines
//
//	reporter:counter:pdc,NAME,AMOUNT
//
// to its writer (the task's stderr) at most every 5 seconds and on Flush.
// Each line carries the increment since the previous write, which is how
// Hadoop sums them. A Counters is for use by one goroutine.
type Counters struct {
	w       io.Writer
	pending map[string]int64
	last    time.Time
	now     func() time.Time
	buf     []byte
	err     error
	// calls counts Add calls; the clock is read every clockEvery of them.
	calls, clockEvery int
}

// NewCounters returns a Counters writing to w.
func NewCounters(w io.Writer) *Counters {
	c := &Counters{w: w, pending: make(map[string]int64), now: time.Now, clockEvery: 256}
	c.last = c.now()
	return c
}

// Add adds n to the counter name. A name that is empty or holds a comma, a
// newline or a CR is not counted; Flush then reports it. Add is cheap
// enough for per-record use: it reads the clock once every clockEvery calls.
func (c *Counters) Add(name string, n int64) {
	c.pending[name] += n
	c.calls++
	if c.clockEvery > 1 && c.calls%c.clockEvery != 0 {
		return
	}
	if now := c.now(); now.Sub(c.last) >= counterInterval {
		c.last = now
		c.write()
	}
}

// Flush writes the pending increments and returns the first error met: a bad
// counter name or a write error.
func (c *Counters) Flush() error {
	c.last = c.now()
	c.write()
	return c.err
}

// Status writes msg as a reporter:status line, with newlines replaced by
// spaces.
func (c *Counters) Status(msg string) {
	msg = strings.NewReplacer("\n", " ", "\r", " ").Replace(msg)
	c.buf = append(append(append(c.buf[:0], "reporter:status:"...), msg...), '\n')
	c.put()
}

func (c *Counters) write() {
	if len(c.pending) == 0 {
		return
	}
	names := make([]string, 0, len(c.pending))
	for name, n := range c.pending {
		if name == "" || strings.ContainsAny(name, ",\n\r") {
			if c.err == nil {
				c.err = fmt.Errorf("bad counter name %q", name)
			}
			continue
		}
		if n != 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	c.buf = c.buf[:0]
	for _, name := range names {
		c.buf = append(c.buf, "reporter:counter:"+CounterGroup+","...)
		c.buf = append(c.buf, name...)
		c.buf = append(c.buf, ',')
		c.buf = strconv.AppendInt(c.buf, c.pending[name], 10)
		c.buf = append(c.buf, '\n')
	}
	clear(c.pending)
	c.put()
}

func (c *Counters) put() {
	if len(c.buf) == 0 {
		return
	}
	if _, err := c.w.Write(c.buf); err != nil && c.err == nil {
		c.err = fmt.Errorf("write counters: %w", err)
	}
}

// Reporter line prefixes understood by Hadoop Streaming on a task's stderr.
const (
	counterPrefix = "reporter:counter:"
	statusPrefix  = "reporter:status:"
)

// ParseCounterLine parses a line `reporter:counter:GROUP,NAME,AMOUNT` (a
// trailing LF or CRLF allowed) the way Hadoop Streaming does: the text after
// the prefix is trimmed and must split at commas into exactly three parts,
// the last a decimal int64. ok is false for any other line.
func ParseCounterLine(line []byte) (group, name string, n int64, ok bool) {
	rest, found := bytes.CutPrefix(line, []byte(counterPrefix))
	if !found {
		return "", "", 0, false
	}
	parts := strings.Split(strings.TrimFunc(string(rest), isJavaSpace), ",")
	if len(parts) != 3 {
		return "", "", 0, false
	}
	n, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	return parts[0], parts[1], n, true
}

// isJavaSpace reports the runes Java's String.trim removes.
func isJavaSpace(r rune) bool { return r <= ' ' }

// IsStatusLine reports whether line is a `reporter:status:` line.
func IsStatusLine(line []byte) bool {
	return bytes.HasPrefix(line, []byte(statusPrefix))
}

// Counters file (OUT/counters.tsv, and each job directory's
// _counters.tsv): one `name TAB value` line per counter, sorted by name.

// FormatCounters renders c as a counters file.
func FormatCounters(c map[string]int64) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(c)) {
		fmt.Fprintf(&b, "%s\t%d\n", k, c[k])
	}
	return b.String()
}

// ParseCounters parses a counters file; lines that are not `name TAB
// integer` are skipped.
func ParseCounters(s string) map[string]int64 {
	c := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		k, v, ok := strings.Cut(line, "\t")
		if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
			c[k] = n
		}
	}
	return c
}
