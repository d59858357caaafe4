package input

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
)

// Source iterates the documents of one input file (or batch of tree
// files): `for s.Next() { d := s.Doc() }; if err := s.Err(); ...`.
type Source interface {
	// Next advances to the next document; false at the end or on error.
	Next() bool
	// Doc is the current document, valid until the next call to Next.
	Doc() *doc.Doc
	// Where is the current document's position: "file:line" (JSON Lines),
	// "file@offset" (WARC), "file#n" (Avro, Parquet: the n-th record) or
	// the tree-relative path.
	Where() string
	// Err is the error that stopped Next, if any.
	Err() error
	// Counts are the records read so far, by outcome.
	Counts() Counts
	// Close releases the file.
	Close() error
}

// Options configure how sources read.
type Options struct {
	// Fields names the id, url, html and text fields of Avro and Parquet
	// records; empty names select the defaults (id, url, html, text).
	// Fields.Site names the field of a document's site in Avro and Parquet
	// records (none when empty) and in JSON Lines records (besides "site").
	Fields avroio.DocFields
	// Strict makes any damage, and any record that gives no document, an
	// error instead of a counted skip.
	Strict bool
	// OnRead, if set, is called with the number of input bytes read, as
	// they are read (for progress).
	OnRead func(n int64)
	// TreeSite is how pages of a directory tree get their site (Doc.Site):
	// -1 none, 0 the tree (its absolute root path), N the root and the
	// first N directories of the page's path (jobconf.ParseSiteFrom).
	TreeSite int
	// TreeRoot names a tree's root in its pages' sites (nil: its absolute
	// path, unique on this machine; pdc ingest gives names that do not
	// carry local paths into the records it writes).
	TreeRoot func(root string) string
}

// Counts are what reading sources found.
type Counts struct {
	Records   int64 // records read (JSON lines, WARC records, Avro and Parquet rows, tree files)
	Docs      int64 // documents produced
	Truncated int64 // WARC blocks cut at warc.DefaultMaxBodyBytes
	// Skipped counts records that gave no document, by reason.
	Skipped map[string]int64
	// Damaged counts damage the readers skipped over (truncated records,
	// garbage, corrupt gzip members or Avro blocks), by reason.
	Damaged map[string]int64
	// Decoded counts text files that were not UTF-8, by the charset they
	// were decoded from.
	Decoded map[string]int64
}

// Skip counts n records skipped for reason.
func (c *Counts) Skip(reason string, n int64) {
	if n == 0 {
		return
	}
	if c.Skipped == nil {
		c.Skipped = map[string]int64{}
	}
	c.Skipped[reason] += n
}

// Damage counts n damaged stretches skipped for reason.
func (c *Counts) Damage(reason string, n int64) {
	if n == 0 {
		return
	}
	if c.Damaged == nil {
		c.Damaged = map[string]int64{}
	}
	c.Damaged[reason] += n
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Records += o.Records
	c.Docs += o.Docs
	c.Truncated += o.Truncated
	for k, v := range o.Skipped {
		c.Skip(k, v)
	}
	for k, v := range o.Damaged {
		c.Damage(k, v)
	}
	for k, v := range o.Decoded {
		if c.Decoded == nil {
			c.Decoded = map[string]int64{}
		}
		c.Decoded[k] += v
	}
}

// ContainerCounters are the counters of counts c of the container files a
// run read (WARC, Avro, Parquet: what the parse job never sees), those not
// 0: input.containers.records, input.containers.docs,
// input.containers.truncated, input.containers.skipped.REASON and
// input.containers.damaged.REASON (spaces in reasons as '-').
func (c *Counts) ContainerCounters() map[string]int64 {
	out := map[string]int64{}
	add := func(k string, v int64) {
		if v != 0 {
			out["input.containers."+strings.ReplaceAll(k, " ", "-")] += v
		}
	}
	add("records", c.Records)
	add("docs", c.Docs)
	add("truncated", c.Truncated)
	for k, v := range c.Skipped {
		add("skipped."+k, v)
	}
	for k, v := range c.Damaged {
		add("damaged."+k, v)
	}
	return out
}

// SkippedTotal is the number of records skipped for any reason.
func (c *Counts) SkippedTotal() int64 {
	var n int64
	for _, v := range c.Skipped {
		n += v
	}
	return n
}

// Summary is e.g. "10 records, 5 documents, 5 skipped (not html 1, record
// type request 1, ...)".
func (c *Counts) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s", plural(c.Records, "record"), plural(c.Docs, "document"))
	if len(c.Skipped) > 0 {
		fmt.Fprintf(&b, ", %d skipped (%s)", c.SkippedTotal(), ReasonList(c.Skipped))
	}
	if len(c.Damaged) > 0 {
		fmt.Fprintf(&b, ", damage skipped (%s)", ReasonList(c.Damaged))
	}
	if c.Truncated > 0 {
		fmt.Fprintf(&b, ", %d truncated", c.Truncated)
	}
	if len(c.Decoded) > 0 {
		fmt.Fprintf(&b, ", decoded to UTF-8 from (%s)", ReasonList(c.Decoded))
	}
	return b.String()
}

// ReasonList lists counts by reason, sorted: "a 1, b 2".
func ReasonList(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func plural(n int64, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// byteCounter reports the bytes read through it.
type byteCounter struct {
	r      io.Reader
	onRead func(int64)
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.onRead(int64(n))
	return n, err
}

// counting wraps r to report its reads to onRead, if set.
func counting(r io.Reader, onRead func(int64)) io.Reader {
	if onRead == nil {
		return r
	}
	return &byteCounter{r: r, onRead: onRead}
}
