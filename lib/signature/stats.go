package signature

// Stats file format (the output of the stats job, one record per line):
//
//	!N TAB <documents>          number of documents in the collection
//	#docid TAB srcpos           a duplicate: this occurrence of docid is dropped
//	<token16hex> TAB <df>       document frequency of a token, df >= 2
//	+<token16hex> TAB <df>      in a batch run, documents of the batch with
//	                            the token, df >= 1
//
// Tokens absent from the file occur in exactly one document. The file may
// be split in several part files; ReadStats reads one stream and can be
// called once per part.

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
)

// Stats is what the index job needs to know about the collection: the
// number of documents, the tokens whose normalized IDF falls on the other
// side of the I-Match range than a token seen once, and the SpotSigs
// antecedents. It keeps only those tokens, so it stays small however large
// the vocabulary.
type Stats struct {
	N int64
	// flip holds tokens whose in-range status differs from a df=1 token.
	flip map[uint64]struct{}
	// onceIn is the in-range status of a token with df = 1.
	onceIn      bool
	antecedents map[uint64]struct{}
	// rank numbers the tokens seen in at least two documents in the global
	// order of the words method: by document frequency, then by hash
	// (words method only).
	rank rankTable
	// batch has the bit of each rank whose token is in a document of a
	// batch run's own batch (nil in other runs).
	batch []uint64
}

// InBatch tells, in a batch run, whether the token of a words order key
// (Key) is in a document of the run's own batch: a posting list of no such
// token can make no pair of a batch document. Always true in other runs and
// for tokens seen in one document only.
func (s *Stats) InBatch(key uint64) bool {
	if s.batch == nil || key&Shared == 0 {
		return true
	}
	r := uint32(key)
	return s.batch[r/64]&(1<<(r%64)) != 0
}

// Key returns the order key of token t for the words method (see
// Generator.Ordered): Shared|rank for a token seen in at least two
// documents, else t>>1, which sorts before every shared token.
func (s *Stats) Key(t uint64) uint64 {
	if r, ok := s.rank.get(t); ok {
		return Shared | uint64(r)
	}
	return t >> 1
}

// Ranked returns the number of ranked tokens (those seen in at least two
// documents): their ranks, the low 32 bits of their order keys, are
// 0 <= rank < Ranked(). 0 unless the stats were built for the words method.
func (s *Stats) Ranked() int { return s.rank.n }

// Shared is the bit of a words order key that marks a token seen in at
// least two documents; the key's low 32 bits are then its rank.
const Shared = 1 << 63

// InIDFRange reports whether token t's normalized IDF lies in [lo, hi].
// The range must be the one given to StatsBuilder.
func (s *Stats) InIDFRange(t uint64, lo, hi float64) bool {
	_, f := s.flip[t]
	return s.onceIn != f
}

// IsAntecedent reports whether t is one of the SpotSigs antecedents.
func (s *Stats) IsAntecedent(t uint64) bool {
	_, ok := s.antecedents[t]
	return ok
}

// Antecedents returns the number of antecedents.
func (s *Stats) Antecedents() int { return len(s.antecedents) }

// StatsBuilder accumulates stats records. Tokens are classified once N is
// known, so records may arrive in any order (N is held until Build).
type StatsBuilder struct {
	cfg Config
	n   int64
	dfs map[uint64]int64 // only tokens that may flip for some N: all with df >= 2, pruned in Build
	// batch holds the tokens of a batch run's own documents (words only).
	batch []uint64
	top   tokenHeap
	dups  *Duplicates
}

// Duplicates is the set of document occurrences to drop because an earlier
// record had the same id.
type Duplicates struct{ set map[string]bool }

// IsDuplicate reports whether the record of docid at srcpos (both as in
// the parsed-document record) is a later occurrence of its id.
func (d *Duplicates) IsDuplicate(docid, srcpos []byte) bool {
	if d == nil || len(d.set) == 0 {
		return false
	}
	return d.set[string(docid)+"\t"+string(srcpos)]
}

// Duplicates returns the duplicate occurrences read.
func (b *StatsBuilder) Duplicates() *Duplicates { return b.dups }

// NewStatsBuilder returns a builder for the given configuration.
func NewStatsBuilder(cfg Config) *StatsBuilder {
	return &StatsBuilder{cfg: cfg, dfs: make(map[uint64]int64)}
}

// Read adds the records of one stats file. name is used in errors.
func (b *StatsBuilder) Read(r io.Reader, name string) error {
	br := bufio.NewReaderSize(r, 1<<16)
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			lineNo++
			if perr := b.add(bytes.TrimRight(line, "\n")); perr != nil {
				return fmt.Errorf("%s:%d: %w", name, lineNo, perr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
}

func (b *StatsBuilder) add(line []byte) error {
	if len(line) == 0 {
		return nil
	}
	k, v, ok := bytes.Cut(line, []byte{'\t'})
	if !ok {
		return fmt.Errorf("stats record without a tab")
	}
	if len(k) > 0 && k[0] == '=' {
		return nil // exact copies (reducers/stats), read by lib/copies
	}
	if len(k) == 17 && k[0] == '+' {
		t, err := strconv.ParseUint(string(k[1:]), 16, 64)
		if err != nil {
			return fmt.Errorf("bad token hash %q", k)
		}
		if b.cfg.Method == Words {
			b.batch = append(b.batch, t)
		}
		return nil
	}
	if len(k) > 0 && k[0] == '#' {
		if b.dups == nil {
			b.dups = &Duplicates{set: map[string]bool{}}
		}
		b.dups.set[string(k[1:])+"\t"+string(v)] = true
		return nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("bad count %q", v)
	}
	if string(k) == "!N" {
		b.n += n
		return nil
	}
	t, err := strconv.ParseUint(string(k), 16, 64)
	if err != nil || len(k) != 16 {
		return fmt.Errorf("bad token hash %q", k)
	}
	if b.cfg.Method == SpotSig {
		b.pushTop(t, n)
	}
	if b.cfg.Method == IMatch || b.cfg.Method == Words {
		b.dfs[t] = n
	}
	return nil
}

func (b *StatsBuilder) pushTop(t uint64, df int64) {
	e := tokenDF{t, df}
	if len(b.top) < b.cfg.Antecedents {
		heap.Push(&b.top, e)
		return
	}
	if e.less(b.top[0]) {
		return
	}
	b.top[0] = e
	heap.Fix(&b.top, 0)
}

// Build returns the Stats.
func (b *StatsBuilder) Build() *Stats {
	s := &Stats{N: b.n, flip: make(map[uint64]struct{}), antecedents: make(map[uint64]struct{})}
	in := func(df int64) bool {
		idf := NormalizedIDF(df, b.n)
		return idf >= b.cfg.IDFLow-1e-12 && idf <= b.cfg.IDFHigh+1e-12
	}
	s.onceIn = in(1)
	if b.cfg.Method == Words {
		s.rank = ranks(b.dfs)
		if b.batch != nil {
			s.batch = make([]uint64, (s.rank.n+63)/64)
			for _, t := range b.batch {
				if r, ok := s.rank.get(t); ok {
					s.batch[r/64] |= 1 << (r % 64)
				}
			}
		}
		return s
	}
	for t, df := range b.dfs {
		if in(df) != s.onceIn {
			s.flip[t] = struct{}{}
		}
	}
	for _, e := range b.top {
		s.antecedents[e.t] = struct{}{}
	}
	return s
}

// ranks numbers tokens by ascending document frequency, ties by hash:
// rarest first, the order in which PPJoin's prefixes are most selective.
func ranks(dfs map[uint64]int64) rankTable {
	all := make([]tokenDF, 0, len(dfs))
	for t, df := range dfs {
		all = append(all, tokenDF{t, df})
	}
	slices.SortFunc(all, func(a, b tokenDF) int {
		if c := cmp.Compare(a.df, b.df); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	r := newRankTable(len(all))
	for i, e := range all {
		r.put(e.t, uint32(i))
	}
	return r
}

// rankTable maps tokens to ranks: an open-addressing hash table with linear
// probing, indexed by the low bits of the token (itself a hash). The index
// job looks up every token of every sentence; a flat table of twice the
// entries takes a fraction of a Go map's time.
type rankTable struct {
	keys []uint64
	vals []uint32 // rank+1; 0 marks an empty slot
	mask uint64
	n    int // ranks given
}

func newRankTable(n int) rankTable {
	size := 1 << bits.Len(uint(2*n))
	return rankTable{keys: make([]uint64, size), vals: make([]uint32, size), mask: uint64(size - 1)}
}

func (r *rankTable) slot(t uint64) uint64 {
	i := (t ^ t>>32) & r.mask
	for r.vals[i] != 0 && r.keys[i] != t {
		i = (i + 1) & r.mask
	}
	return i
}

// put sets t's rank; the table must have room (newRankTable(n) holds n).
func (r *rankTable) put(t uint64, rank uint32) {
	i := r.slot(t)
	if r.vals[i] == 0 {
		r.n++
	}
	r.keys[i], r.vals[i] = t, rank+1
}

func (r *rankTable) get(t uint64) (uint32, bool) {
	if r.vals == nil {
		return 0, false
	}
	i := r.slot(t)
	return r.vals[i] - 1, r.vals[i] != 0
}

type tokenDF struct {
	t  uint64
	df int64
}

// less orders by df, ties broken by token so the top-K set is deterministic.
func (a tokenDF) less(b tokenDF) bool {
	if a.df != b.df {
		return a.df < b.df
	}
	return a.t > b.t
}

type tokenHeap []tokenDF

func (h tokenHeap) Len() int           { return len(h) }
func (h tokenHeap) Less(i, j int) bool { return h[i].less(h[j]) }
func (h tokenHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *tokenHeap) Push(x any)        { *h = append(*h, x.(tokenDF)) }
func (h *tokenHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
