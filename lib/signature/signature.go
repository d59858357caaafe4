// Package signature computes sentence signatures for the near-duplicate
// sentence join of PDC-MR: I-Match, n-shingles and SpotSigs, all over 64-bit
// token hashes (see lib/sentence), plus the Jaccard coefficient and the
// length filter that prunes candidate pairs.
//
// A signature is a uint64; between jobs it travels as 16 lowercase hex digits
// so that keys sort as raw bytes. A sentence's signature set is distinct and
// sorted, so its size is the |A| of the Jaccard coefficient.
package signature

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// Method names a signature scheme.
type Method string

// The signature schemes of the PDC-MR paper (Section 4.1).
const (
	IMatch  Method = "imatch"
	Shingle Method = "shingle"
	SpotSig Method = "spotsig"
	// Words is the sentence's set of distinct tokens, joined exactly by
	// token-set Jaccard with PPJoin's prefix, positional and size filters
	// (Xiao et al., WWW 2008): only a prefix of each set is indexed.
	Words Method = "words"
)

// ParseMethod parses a --signature flag value.
func ParseMethod(s string) (Method, error) {
	switch m := Method(strings.ToLower(s)); m {
	case IMatch, Shingle, SpotSig, Words:
		return m, nil
	}
	return "", fmt.Errorf("unknown signature method %q (want words, imatch, shingle or spotsig)", s)
}

// NeedsStats reports whether the method needs collection statistics
// (document frequencies) from the stats job.
func (m Method) NeedsStats() bool { return m != Shingle }

// Prefixed reports whether the method indexes a prefix of each set and
// verifies candidate pairs on their whole sets (PPJoin) rather than
// counting shared signatures.
func (m Method) Prefixed() bool { return m == Words }

// Config holds the signature parameters. The zero value is not useful; start
// from DefaultConfig.
type Config struct {
	Method Method
	// ShingleN is the shingle width in tokens (n-shingles). A sentence with
	// fewer than ShingleN tokens is one shingle.
	ShingleN int
	// IDFLow and IDFHigh bound the normalized IDF, log(N/df)/log(N), of the
	// tokens I-Match keeps.
	IDFLow, IDFHigh float64
	// Antecedents is the number of most frequent tokens SpotSigs uses as
	// antecedents (spots).
	Antecedents int
	// SpotChain is the number of tokens chained after each antecedent.
	SpotChain int
	// SpotDistance is the distance, in non-antecedent tokens, between chained
	// tokens.
	SpotDistance int
	// Tau is the join's Jaccard threshold, which sets the prefix length of
	// the words method.
	Tau float64
}

// DefaultConfig returns the paper's defaults: I-Match with IDF range
// [0.1, 1.0], 4-shingles, SpotSigs with 10000 antecedents, chains of 2
// tokens at distance 1.
func DefaultConfig() Config {
	return Config{
		Method:       IMatch,
		ShingleN:     4,
		IDFLow:       0.1,
		IDFHigh:      1.0,
		Antecedents:  10000,
		SpotChain:    2,
		SpotDistance: 1,
		Tau:          0.9,
	}
}

// Validate reports a parameter out of range.
func (c Config) Validate() error {
	if _, err := ParseMethod(string(c.Method)); err != nil {
		return err
	}
	switch {
	case c.ShingleN < 1:
		return fmt.Errorf("shingle-n must be >= 1, got %d", c.ShingleN)
	case c.IDFLow < 0 || c.IDFHigh > 1 || c.IDFLow > c.IDFHigh:
		return fmt.Errorf("idf-range must satisfy 0 <= low <= high <= 1, got %g,%g", c.IDFLow, c.IDFHigh)
	case c.Antecedents < 1:
		return fmt.Errorf("antecedents must be >= 1, got %d", c.Antecedents)
	case c.SpotChain < 1 || c.SpotDistance < 1:
		return fmt.Errorf("spot chain and distance must be >= 1, got %d,%d", c.SpotChain, c.SpotDistance)
	}
	return nil
}

// Generator computes signatures for one configuration and collection. It
// holds scratch buffers: use one per goroutine.
type Generator struct {
	cfg   Config
	stats *Stats
	buf   []uint64
	sha   []byte
}

// Ranked returns the number of ranked tokens of the words method's order
// (Stats.Ranked), 0 for other methods.
func (g *Generator) Ranked() int {
	if g.cfg.Method != Words || g.stats == nil {
		return 0
	}
	return g.stats.Ranked()
}

// NewGenerator returns a Generator. stats may be nil for shingles.
func NewGenerator(cfg Config, stats *Stats) (*Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Method.NeedsStats() && stats == nil {
		return nil, fmt.Errorf("signature %s needs collection statistics", cfg.Method)
	}
	return &Generator{cfg: cfg, stats: stats}, nil
}

// Append appends the distinct signatures of a sentence, given its token
// hashes in order, to dst and returns it sorted ascending. A sentence may
// have no signature (I-Match with every token filtered out, SpotSigs
// without an antecedent).
func (g *Generator) Append(dst []uint64, tokens []uint64) []uint64 {
	n := len(dst)
	switch g.cfg.Method {
	case IMatch:
		dst = g.imatch(dst, tokens)
	case Shingle:
		dst = shingles(dst, tokens, g.cfg.ShingleN)
	case SpotSig:
		dst = g.spotsigs(dst, tokens)
	case Words:
		dst = g.words(dst, tokens)
	}
	sig := dst[n:]
	slices.Sort(sig)
	return dst[:n+len(slices.Compact(sig))]
}

func (g *Generator) imatch(dst, tokens []uint64) []uint64 {
	g.buf = g.buf[:0]
	for _, t := range tokens {
		if g.stats.InIDFRange(t, g.cfg.IDFLow, g.cfg.IDFHigh) {
			g.buf = append(g.buf, t)
		}
	}
	if len(g.buf) == 0 {
		return dst
	}
	slices.Sort(g.buf)
	g.buf = slices.Compact(g.buf)
	g.sha = g.sha[:0]
	for _, t := range g.buf {
		g.sha = binary.LittleEndian.AppendUint64(g.sha, t)
	}
	sum := sha1.Sum(g.sha)
	return append(dst, binary.BigEndian.Uint64(sum[:8]))
}

func shingles(dst, tokens []uint64, n int) []uint64 {
	if len(tokens) == 0 {
		return dst
	}
	if len(tokens) < n {
		n = len(tokens)
	}
	for i := 0; i+n <= len(tokens); i++ {
		dst = append(dst, Combine(tokens[i:i+n]))
	}
	return dst
}

func (g *Generator) spotsigs(dst, tokens []uint64) []uint64 {
	chain := make([]uint64, 0, g.cfg.SpotChain+1)
	for i, t := range tokens {
		if !g.stats.IsAntecedent(t) {
			continue
		}
		chain = append(chain[:0], t)
		skip := 0
		for _, u := range tokens[i+1:] {
			if len(chain) > g.cfg.SpotChain {
				break
			}
			if g.stats.IsAntecedent(u) {
				continue
			}
			skip++
			if skip%g.cfg.SpotDistance == 0 {
				chain = append(chain, u)
			}
		}
		if len(chain) > 1 {
			dst = append(dst, Combine(chain))
		}
	}
	return dst
}

// Combine hashes a sequence of token hashes into one 64-bit value
// (order-sensitive).
func Combine(tokens []uint64) uint64 {
	h := uint64(len(tokens)) * 0x9e3779b97f4a7c15
	for _, t := range tokens {
		h = mix(h ^ t)
	}
	return h
}

// mix is the splitmix64 finalizer.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// LengthOK is the length filter: two sentences with na and nb distinct
// signatures can reach Jaccard >= tau only if min/max >= tau.
func LengthOK(na, nb int, tau float64) bool {
	lo, hi := min(na, nb), max(na, nb)
	if hi == 0 {
		return false
	}
	return float64(lo) >= tau*float64(hi)-1e-9
}

// Jaccard returns |A∩B| / |A∪B| given the intersection size and the set
// sizes.
func Jaccard(shared, na, nb int) float64 {
	union := na + nb - shared
	if union <= 0 {
		return 0
	}
	return float64(shared) / float64(union)
}

// AtLeast reports whether j >= tau, tolerating float rounding.
func AtLeast(j, tau float64) bool { return j >= tau-1e-9 }

// Evidence is what a sentence pair whose token sets of na and nb distinct
// words share shared says of the span it is in, in words: a span is a copy
// when its pairs' evidence adds up to need (jobconf Config.MinEvidence).
// A pair counts its shared words, twice when the sets are identical (a
// sentence kept whole), and need on its own (an anchor) when identical
// with need/4 words or more, or at a Jaccard of 0.8 or more sharing need/2;
// never more than need. With need 0 nothing is needed and it returns 0.
//
// Generated text repeats a line's form with another name in it ("impl
// Send for Sink" against "impl Send for Cursor", "Return the sine of x"
// against "Return the hyperbolic sine of x"): one word differing on a line
// of n words is a Jaccard of (n-1)/(n+1), over 0.7 from n = 6, and a run of
// such lines is no copy of the other page's text. A copy, even an edited
// one, keeps a sentence whole or a long one barely changed.
func Evidence(shared, na, nb, need int) int {
	if need <= 0 {
		return 0
	}
	identical := shared == na && shared == nb
	switch {
	case identical && 4*shared >= need,
		!identical && 2*shared >= need && 5*shared >= 4*(na+nb-shared):
		return need
	case identical:
		return min(2*shared, need)
	}
	return min(shared, need)
}

// NormalizedIDF returns log(N/df)/log(N), the I-Match normalized IDF, or 1
// when the collection has at most one document.
func NormalizedIDF(df, n int64) float64 {
	if n <= 1 || df <= 0 {
		return 1
	}
	return math.Log(float64(n)/float64(df)) / math.Log(float64(n))
}

// Ordered returns a sentence's distinct tokens as order keys sorted
// ascending, rarest token first: the set the words method joins. Tokens
// seen in one document only come first (they cannot be shared with another
// document), then shared tokens by rank, so sorting keys sorts tokens by
// the global frequency order PPJoin's prefix filter needs (see Stats.Key).
func (g *Generator) Ordered(dst []uint64, tokens []uint64) []uint64 {
	n := len(dst)
	dst = g.words(dst, tokens)
	return dst[:n+len(slices.Compact(dst[n:]))]
}

func (g *Generator) words(dst, tokens []uint64) []uint64 {
	n := len(dst)
	for _, t := range tokens {
		dst = append(dst, g.stats.Key(t))
	}
	slices.Sort(dst[n:])
	return dst
}

// PrefixLen is the number of leading elements of a set of size n that
// must be indexed so that any pair with Jaccard >= tau shares one of them:
// n - ceil(tau*n) + 1.
func PrefixLen(n int, tau float64) int {
	if n == 0 {
		return 0
	}
	return n - int(math.Ceil(tau*float64(n)-1e-9)) + 1
}

// IndexPrefixLen is the prefix of a set of size n that must hold the first
// token it shares with any set at least as large with Jaccard >= tau:
// n - ceil(2*tau/(1+tau)*n) + 1, since such a pair overlaps in at least
// 2*tau/(1+tau)*n tokens. It is never longer than PrefixLen (PPJoin's
// "index prefix" for self-joins).
func IndexPrefixLen(n int, tau float64) int {
	if n == 0 {
		return 0
	}
	return n - int(math.Ceil(2*tau/(1+tau)*float64(n)-1e-9)) + 1
}

// MinOverlap is the overlap two sets of sizes na and nb need for Jaccard
// >= tau: ceil(tau/(1+tau) * (na+nb)).
func MinOverlap(na, nb int, tau float64) int {
	return int(math.Ceil(tau/(1+tau)*float64(na+nb) - 1e-9))
}

// Overlap counts the common elements of two ascending sets.
func Overlap[E uint32 | uint64](a, b []E) int {
	n, _ := OverlapAtLeast(a, b, 0) // needing none, it never gives up
	return n
}

// OverlapAtLeast counts the common elements of two ascending sets, giving
// up (ok false) as soon as fewer than need can remain.
func OverlapAtLeast[E uint32 | uint64](a, b []E, need int) (n int, ok bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if n+min(len(a)-i, len(b)-j) < need {
			return n, false
		}
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n, n >= need
}

// FirstCommon returns the smallest element two ascending sets share, and
// false if they share none.
func FirstCommon[E uint32 | uint64](a, b []E) (E, bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			return a[i], true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 0, false
}

// Bitmap returns a 64-bit sketch of a set: bit h(e) for each element e.
// Two sets' sketches bound their overlap from above (OverlapBound), the
// bitmap filter of Sandes et al. (2016), a few instructions against a merge
// of the sets.
func Bitmap[E uint32 | uint64](set []E) uint64 {
	var m uint64
	for _, e := range set {
		m |= 1 << (uint64(e) * 0x9e3779b97f4a7c15 >> 58)
	}
	return m
}

// OverlapBound returns an upper bound on the overlap of sets of sizes na
// and nb with sketches ma and mb (Bitmap): a bit of one sketch that the
// other lacks stands for at least one element of the first set that the
// second does not hold.
func OverlapBound(na, nb int, ma, mb uint64) int {
	return min(na-bits.OnesCount64(ma&^mb), nb-bits.OnesCount64(mb&^ma))
}
