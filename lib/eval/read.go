package eval

// File formats read and written here.
//
// Truth JSONL (ReadTruthJSONL, WriteTruthJSONL), one case per line:
//
//	{"susp":"d1","susp_offset":10,"susp_length":50,"src":"d2","src_offset":0,"src_length":48,"class":"verbatim","lang":"en"}
//
// "lang" (the documents' language) is optional.
//
// PAN text-alignment XML (ReadPANXML, WritePANXML), one file per suspicious
// document; offsets and lengths in code points:
//
//	<document reference="d1.txt">
//	<feature name="plagiarism" obfuscation="verbatim" this_offset="10" this_length="50"
//	         source_reference="d2.txt" source_offset="0" source_length="48"/>
//	</document>
//
// As in the PAN evaluator, a trailing ".txt" is stripped from references when
// reading and added when writing, so document ids round-trip.
//
// pdc spans (ReadSpans): spans TSV, as lib/span documents and parses it.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pdc-mr/pdc/lib/span"
)

// truthRecord is one line of truth JSONL.
type truthRecord struct {
	Susp       string `json:"susp"`
	SuspOffset int    `json:"susp_offset"`
	SuspLength int    `json:"susp_length"`
	Src        string `json:"src"`
	SrcOffset  int    `json:"src_offset"`
	SrcLength  int    `json:"src_length"`
	Class      string `json:"class"`
	Lang       string `json:"lang,omitempty"`
}

// ReadTruthJSONL reads cases from truth JSONL; blank lines are skipped.
func ReadTruthJSONL(r io.Reader) ([]Case, error) {
	var cases []Case
	err := eachLine(r, func(n int, line string) error {
		var t truthRecord
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			return fmt.Errorf("truth line %d: %w", n, err)
		}
		c := Case{Susp: t.Susp, Src: t.Src, SuspStart: t.SuspOffset, SuspLen: t.SuspLength,
			SrcStart: t.SrcOffset, SrcLen: t.SrcLength, Class: t.Class, Lang: t.Lang}
		if err := c.check(); err != nil {
			return fmt.Errorf("truth line %d: %w", n, err)
		}
		cases = append(cases, c)
		return nil
	})
	return cases, err
}

// WriteTruthJSONL writes cases as truth JSONL in the given order.
func WriteTruthJSONL(w io.Writer, cases []Case) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, c := range cases {
		t := truthRecord{Susp: c.Susp, SuspOffset: c.SuspStart, SuspLength: c.SuspLen,
			Src: c.Src, SrcOffset: c.SrcStart, SrcLength: c.SrcLen, Class: c.Class, Lang: c.Lang}
		if err := enc.Encode(t); err != nil {
			return fmt.Errorf("write truth: %w", err)
		}
	}
	return nil
}

func (c Case) check() error {
	if c.Susp == "" || c.Src == "" {
		return fmt.Errorf("empty document reference")
	}
	if c.SuspStart < 0 || c.SuspLen < 0 || c.SrcStart < 0 || c.SrcLen < 0 {
		return fmt.Errorf("negative offset or length")
	}
	return nil
}

// ReadSpans reads pdc output spans; blank lines are skipped. Each span becomes
// a Detection with Susp=docA over [charStartA, charEndA) and Src=docB over
// [charStartB, charEndB).
func ReadSpans(r io.Reader) ([]Detection, error) {
	var dets []Detection
	err := eachLine(r, func(n int, line string) error {
		d, err := parseSpan(line)
		if err != nil {
			return fmt.Errorf("span line %d: %w", n, err)
		}
		dets = append(dets, d)
		return nil
	})
	return dets, err
}

func parseSpan(line string) (Detection, error) {
	s, err := span.Parse(line)
	if err != nil {
		return Detection{}, err
	}
	return Detection{Susp: s.DocA, Src: s.DocB, SuspStart: s.CharStartA, SuspLen: s.CharEndA - s.CharStartA,
		SrcStart: s.CharStartB, SrcLen: s.CharEndB - s.CharStartB}, nil
}

// eachLine calls fn with each non-blank line (1-based numbers), without the
// line terminator. Lines may be arbitrarily long.
func eachLine(r io.Reader, fn func(n int, line string) error) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("read line %d: %w", n, err)
		}
		if s := strings.TrimRight(line, "\r\n"); strings.TrimSpace(s) != "" {
			if ferr := fn(n, s); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}
