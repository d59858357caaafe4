// Package span is pdc's result record: one partial-duplicate span between
// two documents. It owns the spans TSV format that the extend job writes
// (AppendFields) and everything that reads it back (Parse, Read, Stream),
// and the formats `pdc spans` converts it to (Writer: TSV, JSON Lines,
// Avro, Parquet).
//
// # Spans TSV
//
// One span per line, ordered by (docA, docB, startA, startB) within a part
// file (the extend job writes one part per reduce partition):
//
//	docA TAB docB TAB startA TAB startB TAB length TAB charStartA TAB charEndA TAB charStartB TAB charEndB TAB score
//
// docA < docB bytewise (ids escaped as in lib/mr); startA/startB are 0-based
// sentence indexes (the sentence table of `pdc text`), length the number of
// duplicated sentence pairs in the span (with --gap 0 the span covers
// sentences startA..startA+length-1; with gaps the char offsets give its
// exact extent on each side); char offsets are Unicode code points into
// each document's extracted text, end exclusive, from the first sentence's
// start to the last sentence's end; score is the mean Jaccard of the span's
// sentence pairs (4 decimals).
package span

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Span is one span, with the documents' URLs and the duplicated passages
// when they were looked up (pdc spans --text).
type Span struct {
	DocA       string  `json:"doc_a"`
	DocB       string  `json:"doc_b"`
	StartA     int     `json:"start_a"`
	StartB     int     `json:"start_b"`
	Length     int     `json:"length"`
	CharStartA int     `json:"char_start_a"`
	CharEndA   int     `json:"char_end_a"`
	CharStartB int     `json:"char_start_b"`
	CharEndB   int     `json:"char_end_b"`
	Score      float64 `json:"score"`
	URLA       string  `json:"url_a,omitempty"`
	URLB       string  `json:"url_b,omitempty"`
	TextA      *string `json:"text_a,omitempty"`
	TextB      *string `json:"text_b,omitempty"`

	// key is the line's `Escape(DocA) TAB Escape(DocB) TAB`: document pairs
	// compare as these bytes, the order of the join's shuffle, so every
	// spans part file is already in Compare order.
	key string
}

// Parse parses one spans TSV line (without its line end). Counts and
// offsets must be non-negative and no character range may end before it
// starts.
func Parse(line string) (Span, error) {
	f := strings.Split(line, "\t")
	if len(f) != 10 {
		return Span{}, fmt.Errorf("want 10 fields, got %d", len(f))
	}
	s := Span{key: line[:len(f[0])+len(f[1])+2]}
	var err error
	if s.DocA, err = mr.Unescape(f[0]); err != nil {
		return s, fmt.Errorf("field 1: %w", err)
	}
	if s.DocB, err = mr.Unescape(f[1]); err != nil {
		return s, fmt.Errorf("field 2: %w", err)
	}
	ints := []*int{&s.StartA, &s.StartB, &s.Length, &s.CharStartA, &s.CharEndA, &s.CharStartB, &s.CharEndB}
	for i, p := range ints {
		if *p, err = strconv.Atoi(f[2+i]); err != nil || *p < 0 {
			return s, fmt.Errorf("field %d: bad count %q", 3+i, f[2+i])
		}
	}
	if s.CharEndA < s.CharStartA || s.CharEndB < s.CharStartB {
		return s, fmt.Errorf("char range ends before it starts")
	}
	if s.Score, err = strconv.ParseFloat(f[9], 64); err != nil {
		return s, fmt.Errorf("field 10: bad score %q", f[9])
	}
	return s, nil
}

// AppendTSV appends s as a spans TSV line, without the line end.
func (s *Span) AppendTSV(b []byte) []byte {
	b = mr.AppendEscape(b, s.DocA)
	b = append(b, '\t')
	b = mr.AppendEscape(b, s.DocB)
	return AppendFields(b, s.StartA, s.StartB, s.Length, s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB, s.Score)
}

// AppendFields appends the fields that follow the two document ids of a
// spans TSV line, each after a TAB. The extend job writes its lines with it
// after the escaped ids it already has.
func AppendFields(b []byte, startA, startB, length, charStartA, charEndA, charStartB, charEndB int, score float64) []byte {
	for _, x := range [...]int{startA, startB, length, charStartA, charEndA, charStartB, charEndB} {
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(x), 10)
	}
	b = append(b, '\t')
	return strconv.AppendFloat(b, score, 'f', 4, 64)
}

// Compare orders spans read by Parse: by document pair as the join's
// shuffle sorts them (the escaped ids as bytes), then by start and length.
func Compare(a, b Span) int {
	return cmp.Or(strings.Compare(a.key, b.key),
		cmp.Compare(a.StartA, b.StartA), cmp.Compare(a.StartB, b.StartB), cmp.Compare(a.Length, b.Length))
}
