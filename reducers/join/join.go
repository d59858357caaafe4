// Package join is the reduce side of the join job: it counts the signatures
// each candidate sentence pair shares and keeps pairs with Jaccard >= tau.
//
// Input: candidate pairs batched by document pair (mappers/join), grouped by
// the 2-field key docA TAB docB. A document pair's candidates are held in
// memory (product items expanded into the pairs they stand for), sorted
// by (sentA, sentB), and the counts of equal pairs summed.
// Output, one line per duplicated sentence pair, in (sentA, sentB) order
// within a document pair:
//
//	docA TAB docB TAB sentA TAB sentB TAB jaccard TAB csA TAB ceA TAB csB TAB ceB TAB evidence
//
// sentA and sentB are zero-padded to 7 digits, jaccard has 4 decimals,
// evidence is what the pair says of a span (lib/matcher Evidence, that is
// lib/signature Evidence under --min-evidence: its shared words, twice
// when the sets are identical, all of --min-evidence for an anchor; 0 for
// the signature methods other than words, and with --min-evidence 0).
// lib/matcher ParsePair reads it.
package join

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/matcher"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
)

// KeyFields is the number of key fields of the join's map output.
const KeyFields = 2

// SentWidth is the width of the zero-padded sentence indexes of the output.
const SentWidth = 7

// Reduce runs the join reducer.
func Reduce(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	return group(t, cfg.Signature.Method.Prefixed(), plain(func(out []byte, docs []byte, p *cand) ([]byte, string, error) {
		j, ok := jaccard(p, cfg.Tau)
		if !ok {
			return out, belowTau, nil
		}
		out = append(out, docs...)
		out = append(out, '\t')
		out = mr.AppendPadded(out, int64(p.a), SentWidth)
		out = append(out, '\t')
		out = mr.AppendPadded(out, int64(p.b), SentWidth)
		out = append(out, '\t')
		out = strconv.AppendFloat(out, j, 'f', 4, 64)
		for _, x := range [...]int32{p.csA, p.ceA, p.csB, p.ceB} {
			out = append(out, '\t')
			out = strconv.AppendInt(out, int64(x), 10)
		}
		out = append(out, '\t')
		out = strconv.AppendInt(out, int64(matcher.Evidence(cfg, int(p.count), int(p.nA), int(p.nB))), 10)
		return append(out, '\n'), verified, nil
	}))
}

// ReduceMatch is the join reducer and the match job in one program, for
// the local runner: the duplicated sentence pairs go straight to a
// lib/matcher instead of being written as lines and parsed back. Its
// output and counters are those of Reduce followed by the match job (each
// pair's score rounded to the 4 decimals Reduce writes); pdc run
// --keep-intermediate runs the two apart.
func ReduceMatch(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	return group(t, cfg.Signature.Method.Prefixed(), func(c *mr.Counters, out mr.Output) sink {
		m := matcher.NewMatcher(cfg, c, out)
		return sink{grow: m.Grow, close: m.Close, emit: func(_ []byte, docs []byte, p *cand) ([]byte, string, error) {
			j, ok := jaccard(p, cfg.Tau)
			if !ok {
				return nil, belowTau, nil
			}
			score := rounded(int64(p.count), int64(p.nA)+int64(p.nB)-int64(p.count), j)
			return nil, verified, m.Add(docs, matcher.Pair{A: int(p.a), B: int(p.b), Score: score,
				CSA: int(p.csA), CEA: int(p.ceA), CSB: int(p.csB), CEB: int(p.ceB),
				Evidence: matcher.Evidence(cfg, int(p.count), int(p.nA), int(p.nB))})
		}}
	})
}

// rounded is the Jaccard similarity j = c/u (c shared of u in the union)
// as Reduce writes it, 4 decimals, and the match job reads it back:
// float64(k)/10000 for k = c/u rounded to 4 decimals. Without a strconv
// round trip: the rational c/u is at least 1/(20000u) from the rounding
// boundary unless exactly on it, far more than the float64 j's error, so
// it rounds as j does. On a tie strconv decides, from j.
func rounded(c, u int64, j float64) float64 {
	if u > 0 && c >= 0 {
		q, r := c*10000/u, c*10000%u
		switch {
		case 2*r < u:
			return float64(q) / 10000
		case 2*r > u:
			return float64(q+1) / 10000
		}
	}
	var b [16]byte
	s, _ := mr.ParseDecimal(strconv.AppendFloat(b[:0], j, 'f', 4, 64))
	return s
}

// jaccard returns the Jaccard similarity of a candidate pair and whether it
// reaches tau.
func jaccard(p *cand, tau float64) (float64, bool) {
	j := signature.Jaccard(int(p.count), int(p.nA), int(p.nB))
	return j, signature.AtLeast(j, tau)
}

// Counters of Reduce's verdicts.
const (
	verified = "join.pairs.verified"
	belowTau = "join.pairs.below-tau"
)

// cand is a candidate sentence pair: `sentA,sentB,count,nA,nB,csA,ceA,csB,ceB`.
type cand struct {
	a, b, count, nA, nB, csA, ceA, csB, ceB int32
}

// sentences is the sentence pair as one number, in (a, b) order.
func (p *cand) sentences() uint64 { return uint64(uint32(p.a))<<32 | uint64(uint32(p.b)) }

// Packing of a candidate's sentence pair and position in cands into one
// uint64 (sortCands).
const (
	sentBits, posBits = 21, 22
	posMask           = 1<<posBits - 1
)

// sortCands orders cands by sentence pair, stably. When the sentence
// indexes fit in sentBits bits each and the positions in posBits, it sorts
// keys packing each candidate's sentence pair and position into a uint64,
// several times faster than sorting the structs, and returns them (packed:
// the low posBits of each, in order, index cands); else it sorts cands.
// keys is scratch space, returned for reuse.
func sortCands(cands []cand, keys []uint64) ([]uint64, bool) {
	fits := len(cands) <= posMask
	for i := 0; fits && i < len(cands); i++ {
		fits = cands[i].a < 1<<sentBits && cands[i].b < 1<<sentBits
	}
	if !fits {
		slices.SortStableFunc(cands, func(x, y cand) int { return cmp.Compare(x.sentences(), y.sentences()) })
		return keys, false
	}
	keys = keys[:0]
	for i := range cands {
		keys = append(keys, uint64(cands[i].a)<<(sentBits+posBits)|uint64(cands[i].b)<<posBits|uint64(i))
	}
	slices.Sort(keys)
	return keys, true
}

// parseCand parses a candidate pair of the map output.
func parseCand(f []byte) (cand, bool) {
	var buf [9]int32
	n, ok := parseNumbers(buf[:0], f, len(buf))
	if !ok || len(n) != len(buf) || n[3] < 1 || n[4] < 1 {
		return cand{}, false
	}
	return cand{n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8]}, true
}

// parseNumbers appends to dst the comma-separated numbers of f, each of 1
// to 10 digits and at most math.MaxInt32; false if one is not, or if f
// holds more than most.
func parseNumbers(dst []int32, f []byte, most int) ([]int32, bool) {
	var v int64
	digits := 0
	for i := 0; i <= len(f); i++ {
		if i == len(f) || f[i] == ',' {
			if digits == 0 || len(dst) == most {
				return dst, false
			}
			dst, v, digits = append(dst, int32(v)), 0, 0
			continue
		}
		c := f[i] - '0'
		if c > 9 || digits == 10 {
			return dst, false
		}
		if v = 10*v + int64(c); v > math.MaxInt32 {
			return dst, false
		}
		digits++
	}
	return dst, true
}

// appendProduct appends the candidate pairs of a product item (without its
// '*'), `count,nA,nB,kA,` then kA `sent,cs,ce` of document A and at least
// one of document B (mappers/join): every sentence of A's with every one of
// B's. nums is scratch space, returned for reuse.
func appendProduct(cands []cand, f []byte, nums []int32) ([]cand, []int32, bool) {
	nums, ok := parseNumbers(nums, f, math.MaxInt)
	if !ok || len(nums) < 4+6 || (len(nums)-4)%3 != 0 {
		return cands, nums, false
	}
	count, nA, nB, kA := nums[0], nums[1], nums[2], int(nums[3])
	as, bs := nums[4:], nums[4:]
	if nA < 1 || nB < 1 || kA < 1 || kA >= len(as)/3 { // len(as) is 3 per sentence
		return cands, nums, false
	}
	as, bs = as[:3*kA], bs[3*kA:]
	if need := len(cands) + kA*(len(bs)/3); need > cap(cands) { // doubled: a large slice grows by a quarter
		cands = slices.Grow(cands, max(need, 2*cap(cands))-len(cands))
	}
	for i := 0; i < len(as); i += 3 {
		for j := 0; j < len(bs); j += 3 {
			cands = append(cands, cand{as[i], bs[j], count, nA, nB, as[i+1], as[i+2], bs[j+1], bs[j+2]})
		}
	}
	return cands, nums, true
}

// emitFunc handles one distinct candidate pair of document pair docs
// (docA TAB docB), its count summed: it appends the line to write, if any,
// to out and returns it with the name of the counter to add one to.
type emitFunc func(out []byte, docs []byte, p *cand) ([]byte, string, error)

// A sink takes a task's distinct candidate pairs: emit each, grow (if
// not nil) before the at most n distinct pairs of document pair docs,
// close (if not nil) after the last.
type sink struct {
	emit  emitFunc
	grow  func(docs []byte, n int) error
	close func() error
}

// plain is the setup of a sink that needs no setup, growing or closing.
func plain(emit emitFunc) func(*mr.Counters, mr.Output) sink {
	return func(*mr.Counters, mr.Output) sink { return sink{emit: emit} }
}

// group gathers the candidate pairs of each document pair, sorts them by
// sentence pair, sums the counts of equal pairs (exact: the overlaps of
// prefixed sets, of which the mapper emits one per pair, or copies of it
// from lists joined through hubs: one is kept) and hands each pair to the
// sink that setup returns for the task's counters and output, writing
// the line it returns, if any; then it closes the sink.
func group(t *mr.Task, exact bool, setup func(*mr.Counters, mr.Output) sink) error {
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	to := setup(c, out)
	var key, line []byte
	var cands []cand
	var keys []uint64
	var nums []int32
	var counts tally
	var p cand // one for all pairs: emit takes its address
	flush := func() error {
		var packed bool
		keys, packed = sortCands(cands, keys)
		if to.grow != nil {
			if err := to.grow(key, len(cands)); err != nil {
				return err
			}
		}
		at := func(j int) *cand {
			if packed {
				return &cands[keys[j]&posMask]
			}
			return &cands[j]
		}
		for i := 0; i < len(cands); {
			p = *at(i)
			for i++; i < len(cands) && at(i).sentences() == p.sentences(); i++ {
				if exact {
					p.count = max(p.count, at(i).count)
				} else {
					p.count += at(i).count
				}
			}
			var counter string
			var err error
			if line, counter, err = to.emit(line[:0], key, &p); err != nil {
				return err
			}
			counts.add(counter)
			if len(line) == 0 {
				continue
			}
			if _, err := out.Write(line); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
		cands = cands[:0]
		return nil
	}
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		k, v := mr.SplitKey(r.Line(), KeyFields)
		if len(v) == 0 {
			return fmt.Errorf("join: line %d: malformed candidate pairs (want docA TAB docB TAB pair...)", r.LineNumber())
		}
		if !bytes.Equal(k, key) {
			if err := flush(); err != nil {
				return err
			}
			key = append(key[:0], k...)
		}
		for more := true; more; {
			var f []byte
			f, v, more = bytes.Cut(v, []byte{'\t'})
			var ok bool
			if len(f) > 0 && f[0] == '*' {
				cands, nums, ok = appendProduct(cands, f[1:], nums[:0])
			} else {
				var p cand
				p, ok = parseCand(f)
				cands = append(cands, p)
			}
			if !ok {
				if len(f) > 200 {
					f = append(f[:200:200], "..."...)
				}
				return fmt.Errorf("join: line %d: malformed candidate pair %q", r.LineNumber(), f)
			}
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("join: read: %w", err)
	}
	if err := flush(); err != nil {
		return err
	}
	counts.addTo(c)
	if to.close != nil {
		if err := to.close(); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return c.Flush()
}

// tally counts events of a few names, cheaper per event than mr.Counters.
type tally struct {
	names []string
	n     []int64
}

func (t *tally) add(name string) {
	for i, x := range t.names {
		if x == name {
			t.n[i]++
			return
		}
	}
	t.names, t.n = append(t.names, name), append(t.n, 1)
}

func (t *tally) addTo(c *mr.Counters) {
	for i, name := range t.names {
		c.Add(name, t.n[i])
	}
}
