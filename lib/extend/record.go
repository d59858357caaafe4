package extend

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Records between the match and extend jobs, one per line:
//
// Seed (the match job's output, OUT/matches):
//
//	docA TAB docB TAB kind TAB startA TAB startB TAB endA TAB endB TAB length TAB charStartA TAB charEndA TAB charStartB TAB charEndB TAB score TAB evidence
//
// docA < docB as in the spans TSV (lib/span), kind "s" for a run the match
// reports as a span and "c" for a candidate (Seed.Span), sentence indexes
// inclusive, evidence the sum of its pairs' (Seed.Evidence), the other
// fields as in the spans TSV.
//
// Window (the extend job's map output):
//
//	docA TAB docB TAB w TAB side TAB srcpos TAB blob
//
// side "a" or "b", srcpos the document's place (lib/doc AppendOrder: its
// parsed-record srcpos, in a batch run after its batch number; of records
// with one id, the smallest is kept), blob base64 (standard
// alphabet, no padding) of, for each sentence the pair's seeds need, in
// index order:
//
//	uvarint index     sentence index
//	uvarint start     rune offset
//	uvarint length    in runes
//	uvarint n         number of tokens times 2, plus 1 for content
//	n/2 x uint16      the token set, sorted, little endian: the low 16 bits
//	                  of the token hashes (lib/doc), enough for a similarity
//	                  (two of a sentence's 30 words share 16 bits once in
//	                  several thousand comparisons, which moves Jaccard by
//	                  one word), and half the bytes of 32
const (
	KindSpan      = "s"
	KindCandidate = "c"
	KindWindow    = "w"
)

// SeedFields is the number of fields of a seed record.
const SeedFields = 14

// AppendSeed appends a seed record (without line end) for the document
// pair key (`docA TAB docB`, escaped).
func AppendSeed(b, key []byte, s Seed) []byte {
	b = append(b, key...)
	b = append(b, '\t')
	if s.Span {
		b = append(b, KindSpan...)
	} else {
		b = append(b, KindCandidate...)
	}
	for _, x := range [...]int{s.StartA, s.StartB, s.EndA, s.EndB, s.Length, s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB} {
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(x), 10)
	}
	b = append(b, '\t')
	b = strconv.AppendFloat(b, s.Score, 'f', 4, 64)
	b = append(b, '\t')
	return strconv.AppendInt(b, int64(s.Evidence), 10)
}

// ParseSeed parses the fields of a seed record after the document pair.
func ParseSeed(f [][]byte) (Seed, error) {
	if len(f) != SeedFields-2 {
		return Seed{}, fmt.Errorf("seed: want %d fields, got %d", SeedFields, len(f)+2)
	}
	var s Seed
	switch string(f[0]) {
	case KindSpan:
		s.Span = true
	case KindCandidate:
	default:
		return Seed{}, fmt.Errorf("seed: bad kind %q", f[0])
	}
	var n [9]int
	for i := range n {
		v, ok := mr.Atoi(f[1+i])
		if !ok || v < 0 {
			return Seed{}, fmt.Errorf("seed: bad number %q", f[1+i])
		}
		n[i] = v
	}
	score, ok := mr.ParseDecimal(f[10])
	if !ok || score > 1 {
		return Seed{}, fmt.Errorf("seed: bad score %q", f[10])
	}
	evidence, ok := mr.Atoi(f[11])
	if !ok || evidence < 0 {
		return Seed{}, fmt.Errorf("seed: bad evidence %q", f[11])
	}
	s.Evidence = evidence
	s.StartA, s.StartB, s.EndA, s.EndB, s.Length = n[0], n[1], n[2], n[3], n[4]
	s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB, s.Score = n[5], n[6], n[7], n[8], score
	if s.EndA < s.StartA || s.EndB < s.StartB || s.CharEndA < s.CharStartA || s.CharEndB < s.CharStartB {
		return Seed{}, errors.New("seed: range ends before it starts")
	}
	return s, nil
}

// Range is an inclusive range of sentence indexes.
type Range struct{ From, To int }

// Needs appends to rs the sentences of side a (a = true) or b that
// extension may compare for s: its first and last sentences and Window
// sentences before and after them, and for a candidate those between
// them; none for a single pair.
func Needs(rs []Range, s Seed, a bool) []Range {
	if s.Single() {
		return rs
	}
	start, end := s.StartB, s.EndB
	if a {
		start, end = s.StartA, s.EndA
	}
	if !s.Span {
		return append(rs, Range{max(0, start-Window), end + Window})
	}
	return append(rs, Range{max(0, start-Window), start}, Range{end, end + Window})
}

// Normalize sorts ranges and merges those that overlap or touch.
func Normalize(rs []Range) []Range {
	slices.SortFunc(rs, func(x, y Range) int { return x.From - y.From })
	out := rs[:0]
	for _, r := range rs {
		if r.To < r.From {
			continue
		}
		if n := len(out); n > 0 && r.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}

// AppendWindow appends the blob of a window: the sentences of sents (a
// document's, as lib/doc decodes them) within ranges (Normalize order).
func AppendWindow(b []byte, sents []doc.Sentence, ranges []Range) []byte {
	var w Windows
	w.Reset(sents)
	return w.Append(b, ranges)
}

// Windows writes the windows of one document: each sentence's set is made
// once for all the windows it is in. Reset it for each document; it reuses
// its buffers.
type Windows struct {
	sents []doc.Sentence
	sets  [][]uint16 // by sentence; nil until made
	all   []uint16   // the sets' backing array
	raw   []byte
}

// Reset starts a document.
func (w *Windows) Reset(sents []doc.Sentence) {
	w.sents = sents
	w.sets = append(w.sets[:0], make([][]uint16, len(sents))...)
	w.all = w.all[:0]
}

// set returns sentence i's token set: the low 16 bits of its token
// hashes, sorted and distinct.
func (w *Windows) set(i int) []uint16 {
	if w.sets[i] == nil {
		off := len(w.all)
		for _, t := range w.sents[i].Tokens {
			w.all = append(w.all, uint16(t))
		}
		s := w.all[off:]
		slices.Sort(s)
		s = slices.Compact(s)
		w.all = w.all[:off+len(s)]
		w.sets[i] = s[:len(s):len(s)]
	}
	return w.sets[i]
}

// Append appends the blob of the document's sentences within ranges
// (Normalize order).
func (w *Windows) Append(b []byte, ranges []Range) []byte {
	raw := w.raw[:0]
	for _, r := range ranges {
		for i := r.From; i <= min(r.To, len(w.sents)-1); i++ {
			s := w.sents[i]
			set := w.set(i)
			flag := uint64(0)
			if len(s.Tokens) > 0 { // lib/doc: a sentence that is not content has no token
				flag = 1
			}
			raw = binary.AppendUvarint(raw, uint64(i))
			raw = binary.AppendUvarint(raw, uint64(s.Start))
			raw = binary.AppendUvarint(raw, uint64(s.End-s.Start))
			raw = binary.AppendUvarint(raw, uint64(len(set))<<1|flag)
			for _, t := range set {
				raw = binary.LittleEndian.AppendUint16(raw, t)
			}
		}
	}
	w.raw = raw
	return base64.RawStdEncoding.AppendEncode(b, raw)
}

// ErrBadWindow reports a corrupt window blob.
var ErrBadWindow = errors.New("corrupt window blob")

// DecodeWindow adds the sentences of a window blob to side.
func DecodeWindow(side Side, blob []byte) error {
	raw, err := base64.RawStdEncoding.AppendDecode(nil, blob)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadWindow, err)
	}
	tokens := make([]uint32, 0, len(raw)/2) // one array for all the sets
	for len(raw) > 0 {
		var v [4]uint64
		for i := range v {
			x, n := binary.Uvarint(raw)
			if n <= 0 || x > 1<<40 {
				return ErrBadWindow
			}
			v[i], raw = x, raw[n:]
		}
		nt := int(v[3] >> 1)
		if nt > len(raw)/2 {
			return ErrBadWindow
		}
		off := len(tokens)
		for i := range nt {
			tokens = append(tokens, uint32(binary.LittleEndian.Uint16(raw[2*i:])))
		}
		set := tokens[off:len(tokens):len(tokens)]
		raw = raw[2*nt:]
		side[int(v[0])] = Sentence{Start: int(v[1]), End: int(v[1] + v[2]), Tokens: set, Content: v[3]&1 == 1}
	}
	return nil
}
