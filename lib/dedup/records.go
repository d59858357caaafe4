package dedup

// The records pdc dedup writes and its jobs read. lib/dedup owns them: each
// has its writer and its reader here.
//
// # removed.tsv (CLEAN/removed.tsv; as jobs, the part files of CLEAN/removed)
//
//	#doc TAB char_start TAB char_end TAB cluster TAB kept_doc TAB kept_char_start TAB kept_char_end TAB held TAB reason
//
// One line per cut range (a Removal), after the header line RemovedHeader
// (a part file has none): ids escaped as in lib/mr; offsets in Unicode
// code points of the document's extracted text, end exclusive. kept_* is
// the range of the kept copy that the cut range is aligned to, held the
// share of the cut range's words found there, each as often as it occurs
// (Held; 4 decimals, at least MinHeld), reason why the range was cut (ReasonCopy: the kept range
// holds it; ReasonTemplate, with pdc dedup --templates: the range is a
// template of its document's site, and has no kept range: cluster "-",
// kept_doc empty, kept offsets 0, held 0). Lines of one document may overlap (members of several
// clusters), but no two have one range; their union is what was cut.
//
// # The plan file (CLEAN/_plan, the dedup jobs' side input)
//
//	#pdc-dedup-plan TAB 2 TAB min_words TAB drop_empty
//	+ TAB doc
//	x TAB doc
//	= TAB batch TAB input
//	- TAB doc TAB char_start TAB char_end [TAB char_start TAB char_end ...]
//	cid TAB kept TAB doc TAB char_start TAB char_end [TAB doc TAB char_start TAB char_end ...]
//
// What NewPlan is given, so that every task builds the same Plan: the
// run's --min-tokens, whether documents left empty are dropped (0 or 1);
// for a batch run's dedup, a "+" line per document of the batch (parsed),
// an "x" line per id of the batch that is stored (the run kept the stored
// record), an "=" line per input with the batch number of its run (the
// records of an id are ordered as lib/doc AppendOrder orders them; the
// inputs of the largest number are the batch's, whose documents but the x
// ones are the only ones written), and a "-" line per stored document with
// text its own dedup cut (Plan.Stored, ranges sorted and merged); then one line per
// cluster in the order given, its kept member's index (-1: none,
// Coordinate) and its members in order (ids escaped as in lib/mr).
//
// # Kept records (CLEAN/_kept, the dedup-kept job's output)
//
//	doc TAB blob
//
// What one document gives its kept members (KeptDoc): blob is base64
// (standard alphabet, no padding) of the number of records, then per kept
// member of the document in plan order a whole flag (uvarint 0 or 1), the
// record's length and the record (appendRecord).

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/mr"
)

// RemovedHeader is the first line of removed.tsv.
const RemovedHeader = "#doc\tchar_start\tchar_end\tcluster\tkept_doc\tkept_char_start\tkept_char_end\theld\treason\n"

// AppendRemoval appends the removed.tsv line of c, a range cut from
// document id.
func AppendRemoval(b []byte, id string, c Removal) []byte {
	b = mr.AppendEscape(b, id)
	for _, n := range []int{c.Start, c.End} {
		b = strconv.AppendInt(append(b, '\t'), int64(n), 10)
	}
	b = append(append(b, '\t'), c.Cluster...)
	b = mr.AppendEscape(append(b, '\t'), c.Kept.Doc)
	for _, n := range []int{c.Kept.Start, c.Kept.End} {
		b = strconv.AppendInt(append(b, '\t'), int64(n), 10)
	}
	b = strconv.AppendFloat(append(b, '\t'), c.Held, 'f', 4, 64)
	b = append(append(b, '\t'), c.Reason...)
	return append(b, '\n')
}

// ParseRemoval parses a line of removed.tsv (without its line end; not the
// header) into the cut document's id and the removal.
func ParseRemoval(line []byte) (string, Removal, error) {
	f := bytes.Split(line, []byte{'\t'})
	if len(f) != 9 {
		return "", Removal{}, fmt.Errorf("malformed removed line %q: want 9 fields, got %d", line, len(f))
	}
	var n [4]int
	for i, j := range []int{1, 2, 5, 6} {
		v, ok := mr.Atoi(f[j])
		if !ok {
			return "", Removal{}, fmt.Errorf("malformed removed line %q: offset %q", line, f[j])
		}
		n[i] = v
	}
	held, err := strconv.ParseFloat(string(f[7]), 64)
	if err != nil {
		return "", Removal{}, fmt.Errorf("malformed removed line %q: held %q", line, f[7])
	}
	id, err1 := mr.Unescape(string(f[0]))
	kept, err2 := mr.Unescape(string(f[4]))
	if err1 != nil || err2 != nil {
		return "", Removal{}, fmt.Errorf("malformed removed line %q: bad escape in an id", line)
	}
	r := Removal{Range: Range{Start: n[0], End: n[1]}, Cluster: string(f[3]),
		Kept: Ref{kept, Range{Start: n[2], End: n[3]}}, Held: held, Reason: string(f[8])}
	return id, r, nil
}

// ReadCuts reads removed.tsv (its header line, if any, skipped; or the
// lines of removed/ part files) and calls f with every removal.
func ReadCuts(r io.Reader, f func(id string, rm Removal) error) error {
	lr := mr.NewReader(bufio.NewReaderSize(r, 1<<16))
	for lr.Next() {
		line := bytes.TrimSuffix(lr.Line(), []byte{'\t'}) // Hadoop's text output ends a key-only line with a TAB
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		id, rm, err := ParseRemoval(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", lr.LineNumber(), err)
		}
		if err := f(id, rm); err != nil {
			return fmt.Errorf("line %d: %w", lr.LineNumber(), err)
		}
	}
	return lr.Err()
}

// planMagic starts the plan file.
const planMagic = "#pdc-dedup-plan\t2"

// PlanInput is what NewPlan is given, as the plan file holds it.
type PlanInput struct {
	Clusters  []cluster.Cluster
	Kept      []int
	MinWords  int
	DropEmpty bool
	// Batch are the ids of a batch run's documents, the only ones its
	// dedup writes (nil: a run of its own, every document); Withdrawn
	// what the stored runs' dedup cut (Plan.Stored).
	Batch     []string
	Withdrawn map[string][]Range
	// Replaced are the ids of the batch that are stored; Sources the
	// inputs, each with the batch number of its run.
	Replaced []string
	Sources  []Source
}

// Source is an input of a batch run's dedup and the batch number of the
// run it is an input of.
type Source struct {
	Batch int
	Path  string
}

// SourceBatch returns the batch number of the input that holds file (the
// longest one that is file or a directory above it; a scheme and host of a
// URI are ignored), and whether one does.
func (in PlanInput) SourceBatch(file string) (int, bool) {
	file = stripHost(file)
	best, n, ok := -1, 0, false
	for _, s := range in.Sources {
		p := strings.TrimSuffix(stripHost(s.Path), "/")
		if (file == p || strings.HasPrefix(file, p+"/")) && len(p) > best {
			best, n, ok = len(p), s.Batch, true
		}
	}
	return n, ok
}

// Current is the batch number of the batch's own inputs: the largest.
func (in PlanInput) Current() int {
	n := 0
	for _, s := range in.Sources {
		n = max(n, s.Batch)
	}
	return n
}

// stripHost drops the scheme and host of a URI (hdfs://host:port/path).
func stripHost(p string) string {
	if _, rest, ok := strings.Cut(p, "://"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i:]
		}
		return "/"
	}
	return p
}

// WritePlan writes the plan file of in to w.
func WritePlan(w io.Writer, in PlanInput) error {
	bw := bufio.NewWriter(w)
	drop := 0
	if in.DropEmpty {
		drop = 1
	}
	fmt.Fprintf(bw, "%s\t%d\t%d\n", planMagic, in.MinWords, drop)
	var b []byte
	for _, id := range in.Batch {
		if _, err := bw.Write(append(mr.AppendEscape(append(b[:0], '+', '\t'), id), '\n')); err != nil {
			return err
		}
	}
	for _, id := range in.Replaced {
		if _, err := bw.Write(append(mr.AppendEscape(append(b[:0], 'x', '\t'), id), '\n')); err != nil {
			return err
		}
	}
	for _, s := range in.Sources {
		b = strconv.AppendInt(append(b[:0], '=', '\t'), int64(s.Batch), 10)
		if _, err := bw.Write(append(mr.AppendEscape(append(b, '\t'), s.Path), '\n')); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(in.Withdrawn)) {
		b = mr.AppendEscape(append(b[:0], '-', '\t'), id)
		for _, r := range in.Withdrawn[id] {
			b = strconv.AppendInt(append(b, '\t'), int64(r.Start), 10)
			b = strconv.AppendInt(append(b, '\t'), int64(r.End), 10)
		}
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	for i, c := range in.Clusters {
		b = append(append(b[:0], c.ID...), '\t')
		b = strconv.AppendInt(b, int64(in.Kept[i]), 10)
		for _, m := range c.Members {
			b = mr.AppendEscape(append(b, '\t'), m.Doc)
			b = strconv.AppendInt(append(b, '\t'), int64(m.CharStart), 10)
			b = strconv.AppendInt(append(b, '\t'), int64(m.CharEnd), 10)
		}
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadPlan reads a plan file written by WritePlan.
func ReadPlan(r io.Reader) (PlanInput, error) {
	var in PlanInput
	lr := mr.NewReader(r)
	if !lr.Next() {
		if err := lr.Err(); err != nil {
			return in, err
		}
		return in, fmt.Errorf("empty plan file")
	}
	head := lr.Line()
	rest, ok := bytes.CutPrefix(head, []byte(planMagic+"\t"))
	f := bytes.Split(rest, []byte{'\t'})
	if !ok || len(f) != 2 {
		return in, fmt.Errorf("not a plan file of this pdc (first line %q)", head)
	}
	in.MinWords, ok = mr.Atoi(f[0])
	if !ok {
		return in, fmt.Errorf("plan file: malformed min_words %q", f[0])
	}
	in.DropEmpty = string(f[1]) == "1"
	for lr.Next() {
		f := bytes.Split(lr.Line(), []byte{'\t'})
		if len(f[0]) == 1 && strings.IndexByte("+-x=", f[0][0]) >= 0 {
			if err := in.readBatchLine(f); err != nil {
				return in, fmt.Errorf("plan file line %d: %w", lr.LineNumber(), err)
			}
			continue
		}
		if len(f) < 2 || (len(f)-2)%3 != 0 {
			return in, fmt.Errorf("plan file line %d: malformed cluster", lr.LineNumber())
		}
		k, err := strconv.Atoi(string(f[1]))
		if err != nil || k < -1 || k >= (len(f)-2)/3 {
			return in, fmt.Errorf("plan file line %d: malformed kept member %q", lr.LineNumber(), f[1])
		}
		c := cluster.Cluster{ID: string(f[0]), Members: make([]cluster.Member, 0, (len(f)-2)/3)}
		for j := 2; j < len(f); j += 3 {
			s, ok1 := mr.Atoi(f[j+1])
			e, ok2 := mr.Atoi(f[j+2])
			if !ok1 || !ok2 || e < s {
				return in, fmt.Errorf("plan file line %d: malformed member range %s-%s", lr.LineNumber(), f[j+1], f[j+2])
			}
			d, err := mr.Unescape(string(f[j]))
			if err != nil {
				return in, fmt.Errorf("plan file line %d: malformed document id %q", lr.LineNumber(), f[j])
			}
			c.Members = append(c.Members, cluster.Member{Doc: d, CharStart: s, CharEnd: e, Length: e - s})
		}
		c.Size = len(c.Members)
		in.Clusters = append(in.Clusters, c)
		in.Kept = append(in.Kept, k)
	}
	return in, lr.Err()
}

// readBatchLine reads a "+" or "-" line of the plan file (fields f).
func (in *PlanInput) readBatchLine(f [][]byte) error {
	if len(f) < 2 {
		return fmt.Errorf("malformed %s line", f[0])
	}
	id, err := mr.Unescape(string(f[1]))
	if err != nil {
		return fmt.Errorf("malformed document id %q", f[1])
	}
	switch f[0][0] {
	case '+', 'x':
		if len(f) != 2 {
			return fmt.Errorf("malformed %s line", f[0])
		}
		if f[0][0] == '+' {
			in.Batch = append(in.Batch, id)
		} else {
			in.Replaced = append(in.Replaced, id)
		}
		return nil
	case '=':
		n, ok := mr.Atoi(f[1])
		if len(f) != 3 || !ok {
			return fmt.Errorf("malformed input line")
		}
		p, err := mr.Unescape(string(f[2]))
		if err != nil {
			return fmt.Errorf("malformed input path %q", f[2])
		}
		in.Sources = append(in.Sources, Source{Batch: n, Path: p})
		return nil
	}
	if len(f) < 4 || len(f)%2 != 0 {
		return fmt.Errorf("malformed withdrawn ranges of %q", id)
	}
	if in.Withdrawn == nil {
		in.Withdrawn = map[string][]Range{}
	}
	if _, ok := in.Withdrawn[id]; ok {
		return fmt.Errorf("a second line of withdrawn ranges of %q", id)
	}
	end := -1
	for j := 2; j < len(f); j += 2 {
		s, ok1 := mr.Atoi(f[j])
		e, ok2 := mr.Atoi(f[j+1])
		if !ok1 || !ok2 || e <= s || s <= end {
			return fmt.Errorf("malformed withdrawn range %s-%s of %q", f[j], f[j+1], id)
		}
		in.Withdrawn[id] = append(in.Withdrawn[id], Range{Start: s, End: e})
		end = e
	}
	return nil
}

// AppendKeptDoc appends the kept record line of k (one document's kept
// members, KeptOf); a document with none gives nothing.
func AppendKeptDoc(b []byte, k KeptDoc) []byte {
	if len(k.recs) == 0 {
		return b
	}
	var blob, rec []byte
	blob = binary.AppendUvarint(blob, uint64(len(k.recs)))
	for i, r := range k.recs {
		w := uint64(0)
		if k.whole[i] {
			w = 1
		}
		rec = appendEncoded(rec[:0], r)
		blob = binary.AppendUvarint(binary.AppendUvarint(blob, w), uint64(len(rec)))
		blob = append(blob, rec...)
	}
	b = mr.AppendEscape(b, k.doc)
	b = append(b, '\t')
	b = base64.RawStdEncoding.AppendEncode(b, blob)
	return append(b, '\n')
}

// ParseKeptDoc parses a kept record line (without its line end).
func ParseKeptDoc(line []byte) (KeptDoc, error) {
	id, enc, ok := bytes.Cut(line, []byte{'\t'})
	if !ok {
		return KeptDoc{}, fmt.Errorf("malformed kept record: no tab")
	}
	blob, err := base64.RawStdEncoding.AppendDecode(nil, enc)
	if err != nil {
		return KeptDoc{}, fmt.Errorf("malformed kept record: %w", err)
	}
	d, err := mr.Unescape(string(id))
	if err != nil {
		return KeptDoc{}, fmt.Errorf("malformed kept record: document id %q", id)
	}
	k := KeptDoc{doc: d}
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(blob)
		if n <= 0 {
			return 0, false
		}
		blob = blob[n:]
		return v, true
	}
	n, ok := next()
	if !ok || n > uint64(len(blob)) {
		return k, errRecord
	}
	for range n {
		w, ok1 := next()
		size, ok2 := next()
		if !ok1 || !ok2 || size > uint64(len(blob)) {
			return k, errRecord
		}
		r, err := decodeRecord(blob[:size], nil)
		if err != nil {
			return k, err
		}
		// decodeRecord without a tokenizer stops after the text: the
		// sentences are decoded again, with words, when a cut reads the
		// record from the store.
		r.raw = blob[:size:size]
		blob = blob[size:]
		k.recs = append(k.recs, r)
		k.whole = append(k.whole, w == 1)
	}
	if len(blob) > 0 {
		return k, errRecord
	}
	return k, nil
}
