// Package docstats is the stats job's map records and their writer, a
// Collector (the stats mapper, mappers/stats, and the parse mapper, which
// feeds the stats job directly, write them; reducers/stats reads them):
// token document frequencies for I-Match's IDF filter and the SpotSigs
// antecedents, document ids, and content hashes.
//
// Records, one per line:
//
//	token16hex TAB count    documents of this task containing the token
//	+token16hex TAB count   in a batch run (jobconf.Config.Batch), documents
//	                        of the batch containing the token
//	!N TAB count            documents of this task
//	#docid TAB srcpos       every document, to find duplicate ids
//	=content16hex TAB srcpos TAB docid TAB nsent [TAB s]
//	                        every document with a word, to find exact
//	                        copies: with at least --lambda content
//	                        sentences (not content: doc.Sentence.NotContent,
//	                        or under --min-tokens tokens), content is a
//	                        hash of those sentences' tokens, in order
//	                        (ContentHash); with fewer, a hash of all its
//	                        sentences' tokens (TextHash: such a document is
//	                        a copy of one with the very same words only);
//	                        nsent is the number of content sentences; the
//	                        field s (Stored) marks, in a batch run, a
//	                        stored document (lib/copies lists no copy of
//	                        two)
//
// (The number of documents is counted by the reducer, stats.docs.) Counts
// are aggregated in memory (an in-mapper combiner) and flushed
// whenever MaxTokens distinct tokens are held, so memory stays bounded.
package docstats

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Stored is the last field of a stored document's content record in a
// batch run.
const Stored = "s"

// MaxTokens bounds the in-mapper aggregation table.
const MaxTokens = 1 << 20

// A Collector writes the stats mapper's output for the documents it is
// given. The parse mapper uses one to feed the stats job directly when the
// runner offers a side output (mr.Task.Side), so the stats job need not
// read the parsed records again.
type Collector struct {
	out  mr.Output
	cfg  jobconf.Config // Lambda and MinTokens: which documents are hashed
	df   counts
	bdf  counts // of the batch's documents (AddBatch)
	docs int64
	set  tokenSet
	seen []uint64
	line []byte
}

// NewCollector returns a Collector writing to out, for a run of cfg.
func NewCollector(out mr.Output, cfg jobconf.Config) *Collector {
	return &Collector{out: out, cfg: cfg}
}

// Add counts a document: its escaped id and srcpos as in the parsed
// record, and its sentences.
func (c *Collector) Add(id, srcpos []byte, sents []doc.Sentence) error {
	return c.add(id, srcpos, sents, false)
}

// AddBatch is Add for a document of a batch run's own batch: its tokens
// are counted as the batch's too.
func (c *Collector) AddBatch(id, srcpos []byte, sents []doc.Sentence) error {
	return c.add(id, srcpos, sents, true)
}

func (c *Collector) add(id, srcpos []byte, sents []doc.Sentence, batch bool) error {
	b := append(c.line[:0], '#')
	b = append(b, id...)
	b = append(b, '\t')
	b = append(b, srcpos...)
	c.line = append(b, '\n')
	if _, err := c.out.Write(c.line); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	h, n := ContentHash(sents, c.cfg.MinTokens)
	words := n
	if n < max(c.cfg.Lambda, 1) {
		h, words = TextHash(sents)
	}
	if words > 0 {
		b := append(c.line[:0], '=')
		b = AppendHex(b, h)
		b = append(b, '\t')
		b = append(b, srcpos...)
		b = append(b, '\t')
		b = append(b, id...)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(n), 10)
		if c.cfg.Batch > 0 && !batch {
			b = append(append(b, '\t'), Stored...)
		}
		c.line = append(b, '\n')
		if _, err := c.out.Write(c.line); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	c.seen = c.seen[:0]
	c.set.start(sents)
	for _, s := range sents {
		c.seen = c.set.distinct(c.seen, s.Tokens)
	}
	for _, tok := range c.seen {
		c.df.inc(tok)
		if batch {
			c.bdf.inc(tok)
		}
	}
	c.docs++
	if c.df.len() >= MaxTokens {
		if err := flush(c.out, &c.df, ""); err != nil {
			return err
		}
	}
	if c.bdf.len() >= MaxTokens {
		return flush(c.out, &c.bdf, "+")
	}
	return nil
}

// ContentHash hashes a document's content sentences (those with no
// NotContent reason and at least minTokens tokens): their tokens in order,
// sentence by sentence. It returns the hash and the number of content
// sentences. Two documents with the same hash and number have the same
// content sentences (up to a 64-bit collision).
func ContentHash(sents []doc.Sentence, minTokens int) (uint64, int) {
	const (
		offset = 14695981039346656037 // FNV-1a, a word at a time
		prime  = 1099511628211
		end    = 0x9e3779b97f4a7c15 // closes a sentence
	)
	h, n := uint64(offset), 0
	for _, s := range sents {
		if s.NotContent != "" || len(s.Tokens) < max(minTokens, 1) {
			continue
		}
		for _, t := range s.Tokens {
			h = (h ^ t) * prime
		}
		h = (h ^ end) * prime
		n++
	}
	return h, n
}

// TextHash hashes all of a document's sentences, content or not: their
// tokens in order, sentence by sentence, in another domain than
// ContentHash's. It returns the hash and the number of tokens. Two
// documents with the same hash have the same words in the same order.
func TextHash(sents []doc.Sentence) (uint64, int) {
	const (
		offset = 0x6c62272e07bb0142 // not ContentHash's
		prime  = 1099511628211
		end    = 0x9e3779b97f4a7c15
	)
	h, n := uint64(offset), 0
	for _, s := range sents {
		for _, t := range s.Tokens {
			h = (h ^ t) * prime
		}
		h = (h ^ end) * prime
		n += len(s.Tokens)
	}
	return h, n
}

// Close writes the counts held and the number of documents.
func (c *Collector) Close() error {
	if err := flush(c.out, &c.df, ""); err != nil {
		return err
	}
	if err := flush(c.out, &c.bdf, "+"); err != nil {
		return err
	}
	b := append(c.line[:0], "!N\t"...)
	b = strconv.AppendInt(b, c.docs, 10)
	c.line = append(b, '\n')
	if _, err := c.out.Write(c.line); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

func flush(out mr.Output, df *counts, prefix string) error {
	var b []byte
	for _, e := range df.sorted() {
		b = AppendHex(append(b[:0], prefix...), e.key)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.n, 10)
		b = append(b, '\n')
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	df.reset()
	return nil
}

// counts counts tokens: an open-addressing table (see slot), several
// times faster than a map for the increments of every distinct token of
// every document. Key 0 marks an empty slot; the token 0 is counted apart.
type counts struct {
	keys []uint64
	vals []int64
	n    int   // keys held
	zero int64 // count of token 0
}

type tokenCount struct {
	key uint64
	n   int64
}

func (c *counts) inc(k uint64) {
	if k == 0 {
		c.zero++
		return
	}
	if 2*(c.n+1) > len(c.keys) {
		c.grow()
	}
	mask := uint64(len(c.keys) - 1)
	i := slot(k, mask)
	for c.keys[i] != 0 && c.keys[i] != k {
		i = (i + 1) & mask
	}
	if c.keys[i] == 0 {
		c.keys[i] = k
		c.n++
	}
	c.vals[i]++
}

func (c *counts) grow() {
	keys, vals := c.keys, c.vals
	size := max(2*len(keys), 1<<12)
	c.keys, c.vals, c.n = make([]uint64, size), make([]int64, size), 0
	mask := uint64(size - 1)
	for j, k := range keys {
		if k == 0 {
			continue
		}
		i := slot(k, mask)
		for c.keys[i] != 0 {
			i = (i + 1) & mask
		}
		c.keys[i], c.vals[i] = k, vals[j]
		c.n++
	}
}

// slot is where the tables of this file (counts, tokenSet) look for token
// t first: token values are hashes already, and their low bits, with the
// high ones folded in, index a table of mask+1 slots.
func slot(t, mask uint64) uint64 { return (t ^ t>>32) & mask }

// len returns the number of distinct tokens counted.
func (c *counts) len() int {
	if c.zero > 0 {
		return c.n + 1
	}
	return c.n
}

// sorted returns the tokens and their counts in token order.
func (c *counts) sorted() []tokenCount {
	out := make([]tokenCount, 0, c.len())
	if c.zero > 0 {
		out = append(out, tokenCount{0, c.zero})
	}
	for i, k := range c.keys {
		if k != 0 {
			out = append(out, tokenCount{k, c.vals[i]})
		}
	}
	slices.SortFunc(out, func(x, y tokenCount) int { return cmp.Compare(x.key, y.key) })
	return out
}

func (c *counts) reset() {
	clear(c.keys)
	clear(c.vals)
	c.n, c.zero = 0, 0
}

// AppendHex appends v as 16 lowercase hex digits.
func AppendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[(v>>uint(shift))&0xf])
	}
	return b
}

// tokenSet finds a document's distinct tokens: an open-addressing hash
// table whose slots are marked with the document's generation, so that it
// is emptied for the next document without clearing. Token values are
// hashes already; their low bits index the table.
type tokenSet struct {
	keys []uint64
	gen  []uint32
	cur  uint32
}

// start empties the set for a document of the given sentences.
func (s *tokenSet) start(sents []doc.Sentence) {
	n := 0
	for _, x := range sents {
		n += len(x.Tokens)
	}
	if size := 2 * n; len(s.keys) < size {
		size := 1 << bits.Len(uint(size))
		s.keys, s.gen, s.cur = make([]uint64, size), make([]uint32, size), 0
	}
	s.cur++
	if s.cur == 0 { // wrapped: stale marks could match
		clear(s.gen)
		s.cur = 1
	}
}

// distinct appends to dst the values of toks not yet in the set since
// start, in first-seen order, and adds them. The set must have room for
// them (start sizes it).
func (s *tokenSet) distinct(dst, toks []uint64) []uint64 {
	mask := uint64(len(s.keys) - 1)
	for _, t := range toks {
		i := slot(t, mask)
		for s.gen[i] == s.cur && s.keys[i] != t {
			i = (i + 1) & mask
		}
		if s.gen[i] != s.cur {
			s.gen[i], s.keys[i] = s.cur, t
			dst = append(dst, t)
		}
	}
	return dst
}
