package jobs

// pdc dedup OUT --output CLEAN: the documents of a run with their
// duplicated passages cut out, for building corpora. Of each passage
// cluster (pdc run --clusters, lib/cluster) one member is kept (--keep:
// the earliest in input order, the one of the longest document, or the one
// of the document with the smallest --date-field) and the others are
// removed. CLEAN gets two files, each written atomically:
//
// docs.jsonl: every document of the input, in input order (of duplicate
// ids the first, as the run reads them), one JSON object per line,
// {"id", "url", "text"} (lib/doc AppendJSON: url left out when empty, so
// that pdc reads the file back as input). text is the document's extracted
// text, what the clusters' offsets refer to (the run's --extract and
// --max-doc-bytes), without its removed passages. Characters of a kept
// member are never cut: a removed passage that overlaps a kept member of
// another cluster (a conflict) loses only its characters outside it.
//
// removed.tsv: what was cut, after a header line, one line per removed
// passage (the part of a removed member outside kept members), in the
// order of docs.jsonl, then by position:
//
//	#doc TAB char_start TAB char_end TAB cluster TAB kept_doc TAB kept_char_start TAB kept_char_end
//
// ids escaped as in lib/mr; offsets in Unicode code points of the
// document's extracted text, end exclusive. Lines of one document may
// overlap (members of several clusters); their union is what was cut.

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/mr"
)

// The files pdc dedup writes in CLEAN.
const (
	dedupDocs    = "docs.jsonl"
	dedupRemoved = "removed.tsv"
)

type dedupOptions struct {
	out, clean string
	keep       string // first, longest or earliest
	dateField  string
	inputs     []string
	overwrite  bool
}

func (m *Main) dedupCmd(ctx context.Context, args []string) error {
	o, err := m.dedupFlags(args)
	if err != nil {
		return err
	}
	cs, err := m.dedupClusters(o.out)
	if err != nil {
		return err
	}
	if len(o.inputs) == 0 {
		if o.inputs, err = m.dedupInputs(o.out); err != nil {
			return err
		}
	}
	extract, maxBytes := m.runAnalyzer(o.out)
	if extract == "main" {
		if err := m.needMain(ctx, append([]string{"dedup"}, args...)); err != nil {
			return err
		}
	}
	an := &doc.Analyzer{MaxBytes: maxBytes, Main: extract == "main"}
	cfs, cdir, err := m.prepareClean(o.clean, o.overwrite)
	if err != nil {
		return err
	}
	in, err := input.FindAny(o.inputs, m.isRemote)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	kept, undated, err := keptMembers(cs, o, in, an)
	if err != nil {
		return err
	}
	st, err := writeClean(in, an, planCuts(cs, kept), cfs, cdir, o.inputs)
	if err != nil {
		return err
	}
	m.dedupSummary(st, o, undated)
	return nil
}

// dedupFlags parses the command line of pdc dedup.
func (m *Main) dedupFlags(args []string) (dedupOptions, error) {
	o := dedupOptions{keep: "first"}
	var inputs listFlag
	fs := m.newFlagSet("dedup", "OUT --output CLEAN [--keep first|longest|earliest] [--date-field NAME] [--input DOCS] [--overwrite]")
	fs.kerberosFlags()
	fs.StringVar(&o.clean, "output", "", "`directory` to write (created): docs.jsonl, the documents without their removed passages, and removed.tsv, what was removed")
	fs.StringVar(&o.keep, "keep", o.keep, "the member of each cluster to keep (a `rule`): first (earliest in input order), longest (of the longest document) or earliest (of the document with the smallest --date-field)")
	fs.StringVar(&o.dateField, "date-field", "", "for --keep earliest: the `field` of a document's date in JSON Lines records, a string compared as text (ISO 8601); documents without it, and documents of other input formats, come last")
	fs.Var(&inputs, "input", "the run's documents (a `path`; default: the run's inputs); repeatable")
	fs.BoolVar(&o.overwrite, "overwrite", false, "replace the files of a previous pdc dedup in CLEAN")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return o, err
	}
	o.out, o.inputs = fs.Arg(0), inputs
	switch {
	case fs.NArg() != 1:
		return o, usagef("dedup: want exactly one run output directory")
	case o.clean == "":
		return o, usagef("dedup: --output CLEAN is required")
	case !slices.Contains([]string{"first", "longest", "earliest"}, o.keep):
		return o, usagef("dedup: unknown --keep %q (want first, longest or earliest)", o.keep)
	case o.keep == "earliest" && o.dateField == "":
		return o, usagef("dedup: --keep earliest needs --date-field NAME, the input field of the documents' dates")
	case o.dateField != "" && o.keep != "earliest":
		return o, usagef("dedup: --date-field is for --keep earliest")
	}
	return o, nil
}

// dedupClusters reads the passage clusters of the run in out.
func (m *Main) dedupClusters(out string) ([]cluster.Cluster, error) {
	fsys, dir, err := m.runDir(out)
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	if _, err := fsys.Stat(dir); err != nil {
		return nil, fmt.Errorf("dedup: run output %s: %w", out, hdfsfs.UnwrapPath(err))
	}
	cs, err := cluster.Read(fsys, dir+"/clusters")
	if errors.Is(err, cluster.ErrNotFinished) {
		return nil, fmt.Errorf("dedup: %s has no passage clusters: run it with them (pdc run --input DOCS --output %s --clusters --overwrite)", out, out)
	}
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	return cs, nil
}

// dedupInputs returns the documents of the run in out (manifestInputs).
func (m *Main) dedupInputs(out string) ([]string, error) {
	in, err := m.manifestInputs(out)
	var u *UsageError
	if errors.As(err, &u) {
		return nil, usagef("dedup: give the run's documents with --input DOCS (%s has no readable %s)", out, pipeline.ManifestFile)
	}
	return in, err
}

// prepareClean checks CLEAN (new, empty, or with overwrite a previous
// dedup's) and creates it; it returns its file system and path there.
func (m *Main) prepareClean(clean string, overwrite bool) (hdfsfs.FS, string, error) {
	fsys, dir, err := hdfsfs.Resolve(clean, m.isRemote(clean))
	if err != nil {
		return nil, "", fmt.Errorf("dedup: output %s: %w", clean, err)
	}
	fi, err := fsys.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, "", fmt.Errorf("dedup: output %s: %w", clean, hdfsfs.UnwrapPath(err))
	case !fi.IsDir():
		return nil, "", fmt.Errorf("dedup: output %s is a file: give a directory (it gets %s and %s)", clean, dedupDocs, dedupRemoved)
	default:
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			return nil, "", fmt.Errorf("dedup: output %s: %w", clean, hdfsfs.UnwrapPath(err))
		}
		switch {
		case len(ents) == 0:
		case !overwrite:
			return nil, "", fmt.Errorf("dedup: output %s already exists and is not empty (use --overwrite to replace a previous pdc dedup there)", clean)
		case !isDedupDir(ents):
			return nil, "", fmt.Errorf("dedup: output %s holds other files than a pdc dedup (%s, %s): choose a new or empty directory", clean, dedupDocs, dedupRemoved)
		}
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("dedup: output %s: %w", clean, hdfsfs.UnwrapPath(err))
	}
	return fsys, dir, nil
}

// isDedupDir reports whether a directory holds only what pdc dedup writes:
// its two files and the hidden temporary files of an interrupted one.
func isDedupDir(ents []fs.FileInfo) bool {
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.IsDir():
			return false
		case name == dedupDocs, name == dedupRemoved:
		case strings.HasPrefix(name, "."+dedupDocs+".") || strings.HasPrefix(name, "."+dedupRemoved+"."):
		default:
			return false
		}
	}
	return true
}

// keptMembers returns the index of the kept member of each cluster by
// o.keep (ties: the first), and for earliest the number of the clusters'
// documents without a date.
func keptMembers(cs []cluster.Cluster, o dedupOptions, in *input.Set, an *doc.Analyzer) ([]int, int, error) {
	kept := make([]int, len(cs))
	if o.keep == "first" {
		return kept, 0, nil
	}
	need := map[string]bool{}
	for _, c := range cs {
		for _, mem := range c.Members {
			need[mem.Doc] = true
		}
	}
	var better func(a, b string) bool // document a's member beats b's
	undated := 0
	switch o.keep {
	case "longest":
		lengths, err := docRuneLengths(in, need, an)
		if err != nil {
			return nil, 0, err
		}
		better = func(a, b string) bool { return lengths[a] > lengths[b] }
	case "earliest":
		dates, err := jsonlField(in, need, o.dateField)
		if err != nil {
			return nil, 0, err
		}
		undated = len(need) - len(dates)
		better = func(a, b string) bool {
			da, oka := dates[a]
			db, okb := dates[b]
			return oka && (!okb || da < db)
		}
	}
	for i, c := range cs {
		for j := 1; j < len(c.Members); j++ {
			if better(c.Members[j].Doc, c.Members[kept[i]].Doc) {
				kept[i] = j
			}
		}
	}
	return kept, undated, nil
}

// docRuneLengths returns the length in characters of the extracted text
// of the documents in need (the first of each id).
func docRuneLengths(in *input.Set, need map[string]bool, an *doc.Analyzer) (map[string]int, error) {
	lengths := map[string]int{}
	_, err := in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		if _, seen := lengths[d.ID]; seen || !need[d.ID] {
			return nil
		}
		a, err := an.Analyze(d)
		if err != nil {
			return nil // left out, as the run does; writeClean says so
		}
		lengths[strings.Clone(d.ID)] = len([]rune(a.Text))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	return lengths, nil
}

// jsonlField returns the value of the string field named field (non-empty)
// of the JSON Lines records of the documents in need (the first record of
// each id), read from the JSON Lines files of in, local or on HDFS. Other
// input formats have no such field.
func jsonlField(in *input.Set, need map[string]bool, field string) (map[string]string, error) {
	vals, seen := map[string]string{}, map[string]bool{}
	for _, p := range in.JSONL {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, hdfsfs.UnwrapPath(err))
		}
		if err := readField(p, f, field, need, seen, vals); err != nil {
			return nil, err
		}
	}
	for _, r := range in.Remote {
		f, err := r.FS.Open(r.Path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", r.Path, err)
		}
		if err := readField(r.Path, f, field, need, seen, vals); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// readField reads field from the records of one JSON Lines file (gzipped
// when its name ends in .gz) into vals, and closes it.
func readField(name string, rc io.ReadCloser, field string, need, seen map[string]bool, vals map[string]string) error {
	defer rc.Close()
	var r io.Reader = bufio.NewReaderSize(rc, 1<<16)
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("input %s: %w", name, err)
		}
		defer zr.Close()
		r = zr
	}
	lr := mr.NewReader(r)
	for lr.Next() {
		line := lr.Line()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		d, err := doc.ParseJSON(line)
		if err != nil || !need[d.ID] || seen[d.ID] {
			continue // no document (the readers skip it too), or not the first of its id
		}
		seen[d.ID] = true
		var rec map[string]json.RawMessage
		var v string
		if json.Unmarshal(line, &rec) == nil && json.Unmarshal(rec[field], &v) == nil && v != "" {
			vals[d.ID] = v
		}
	}
	if err := lr.Err(); err != nil {
		return fmt.Errorf("input %s: %w", name, err)
	}
	return nil
}

// charRange is a range of a document's characters, end exclusive.
type charRange struct{ start, end int }

// removal is a removed passage: a removed member, or its part outside the
// kept members of its document.
type removal struct {
	charRange
	cluster string
	kept    *cluster.Member
}

// dedupPlan is what to cut from each document.
type dedupPlan struct {
	cuts      map[string][]removal // by document, sorted by position
	need      map[string]string    // every member's document: a cluster of it
	conflicts int                  // removed members that overlap kept ones
}

// planCuts removes every member but the kept one (kept[i] of cs[i]), less
// the characters of kept members.
func planCuts(cs []cluster.Cluster, kept []int) dedupPlan {
	p := dedupPlan{cuts: map[string][]removal{}, need: map[string]string{}}
	protected := map[string][]charRange{}
	for i, c := range cs {
		k := c.Members[kept[i]]
		protected[k.Doc] = append(protected[k.Doc], charRange{k.CharStart, k.CharEnd})
	}
	for d, rs := range protected {
		protected[d] = mergeRanges(rs)
	}
	for i := range cs {
		c := &cs[i]
		for j, mem := range c.Members {
			if _, ok := p.need[mem.Doc]; !ok {
				p.need[mem.Doc] = c.ID
			}
			if j == kept[i] || mem.CharEnd <= mem.CharStart {
				continue
			}
			pieces := subtractRanges(charRange{mem.CharStart, mem.CharEnd}, protected[mem.Doc])
			if len(pieces) != 1 || pieces[0] != (charRange{mem.CharStart, mem.CharEnd}) {
				p.conflicts++
			}
			for _, r := range pieces {
				p.cuts[mem.Doc] = append(p.cuts[mem.Doc], removal{charRange: r, cluster: c.ID, kept: &c.Members[kept[i]]})
			}
		}
	}
	for _, rs := range p.cuts {
		slices.SortFunc(rs, func(a, b removal) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), strings.Compare(a.cluster, b.cluster))
		})
	}
	return p
}

// mergeRanges sorts rs and joins the ranges that overlap or touch.
func mergeRanges(rs []charRange) []charRange {
	slices.SortFunc(rs, func(a, b charRange) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	var out []charRange
	for _, r := range rs {
		if n := len(out); n > 0 && r.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, r.end)
			continue
		}
		out = append(out, r)
	}
	return out
}

// subtractRanges returns the parts of r outside the sorted, disjoint
// ranges of prot.
func subtractRanges(r charRange, prot []charRange) []charRange {
	var out []charRange
	for _, q := range prot {
		if q.end <= r.start || q.start >= r.end {
			continue
		}
		if q.start > r.start {
			out = append(out, charRange{r.start, q.start})
		}
		r.start = q.end
		if r.start >= r.end {
			return out
		}
	}
	return append(out, r)
}

// cutText returns text without the characters of rs (sorted ranges of
// rune offsets that neither overlap nor touch) and the length of text in
// characters; an error if a range ends past the text.
func cutText(text string, rs []charRange) (string, int, error) {
	want := make([]int, 0, 2*len(rs)) // rune offsets, ascending
	for _, r := range rs {
		want = append(want, r.start, r.end)
	}
	offs := make([]int, 0, len(want)) // their byte offsets
	n := 0
	for i := range text {
		for len(offs) < len(want) && want[len(offs)] == n {
			offs = append(offs, i)
		}
		n++
	}
	for len(offs) < len(want) && want[len(offs)] == n {
		offs = append(offs, len(text))
	}
	if len(offs) < len(want) {
		r := rs[len(offs)/2]
		return "", n, fmt.Errorf("passage %d-%d ends past the text (%d characters)", r.start, r.end, n)
	}
	if len(rs) == 0 {
		return text, n, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for j := 0; j < len(offs); j += 2 {
		b.WriteString(text[prev:offs[j]])
		prev = offs[j+1]
	}
	b.WriteString(text[prev:])
	return b.String(), n, nil
}

// dedupStats are the counts of pdc dedup's summary.
type dedupStats struct {
	input.Counts
	written, dups, unparsable, emptied, truncated int64
	passages, docsCut, chars, removed             int64
	conflicts, clusterDocs                        int
}

// writeClean writes CLEAN's files: every document of in (the first of its
// id) without the cuts of p, and the cuts.
func writeClean(in *input.Set, an *doc.Analyzer, p dedupPlan, fsys hdfsfs.FS, dir string, inputs []string) (dedupStats, error) {
	w := &cleanWriter{an: an, p: p, written: map[string]bool{}}
	w.st.conflicts, w.st.clusterDocs = p.conflicts, len(p.need)
	var err error
	if w.docs, err = hdfsfs.CreateAtomic(fsys, dir+"/"+dedupDocs); err != nil {
		return w.st, fmt.Errorf("dedup: %w", err)
	}
	defer w.docs.Abort()
	if w.removed, err = hdfsfs.CreateAtomic(fsys, dir+"/"+dedupRemoved); err != nil {
		return w.st, fmt.Errorf("dedup: %w", err)
	}
	defer w.removed.Abort()
	header := "#doc\tchar_start\tchar_end\tcluster\tkept_doc\tkept_char_start\tkept_char_end\n"
	if _, err := io.WriteString(w.removed, header); err != nil {
		return w.st, fmt.Errorf("dedup: write %s: %w", w.removed.Name(), err)
	}
	if w.st.Counts, err = in.Each(input.Options{}, w.add); err != nil {
		return w.st, fmt.Errorf("dedup: %w", err)
	}
	var missing []string
	for id := range p.need {
		if !w.written[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		id := slices.Min(missing)
		return w.st, fmt.Errorf("dedup: document %q of cluster %s is not in --input %s (give the run's documents)", id, p.need[id], strings.Join(inputs, ","))
	}
	for _, f := range []*hdfsfs.AtomicFile{w.docs, w.removed} {
		if err := f.Close(); err != nil {
			return w.st, fmt.Errorf("dedup: %w", err)
		}
	}
	return w.st, nil
}

// cleanWriter writes the documents and their cuts to CLEAN's files.
type cleanWriter struct {
	an            *doc.Analyzer
	p             dedupPlan
	docs, removed *hdfsfs.AtomicFile
	written       map[string]bool // every id read: whether it was written
	st            dedupStats
	line          []byte
	ranges        []charRange
}

// add writes document d, read at where, unless its id came before.
func (w *cleanWriter) add(d *doc.Doc, where string) error {
	if _, dup := w.written[d.ID]; dup {
		w.st.dups++
		return nil
	}
	a, err := w.an.Analyze(d)
	w.written[strings.Clone(d.ID)] = err == nil
	if err != nil {
		w.st.unparsable++ // the run leaves it out too
		return nil
	}
	cuts := w.p.cuts[d.ID]
	w.ranges = w.ranges[:0]
	for _, c := range cuts {
		w.ranges = append(w.ranges, c.charRange)
	}
	text, n, err := cutText(a.Text, mergeRanges(w.ranges))
	if err != nil {
		return fmt.Errorf("document %q (%s): %w: give the run's documents with --input", d.ID, where, err)
	}
	w.st.add(a, text, n, len(cuts))
	w.line = append(doc.AppendJSON(w.line[:0], &doc.Doc{ID: d.ID, URL: d.URL, Text: text}), '\n')
	if _, err := w.docs.Write(w.line); err != nil {
		return fmt.Errorf("write %s: %w", w.docs.Name(), err)
	}
	for _, c := range cuts {
		if _, err := w.removed.Write(appendRemoval(w.line[:0], d.ID, c)); err != nil {
			return fmt.Errorf("write %s: %w", w.removed.Name(), err)
		}
	}
	return nil
}

// add counts a written document: its analysis, its text after cutting
// (n characters before) and its number of removed passages.
func (st *dedupStats) add(a doc.Analysis, text string, n, cuts int) {
	st.written++
	st.chars += int64(n)
	if a.Truncated {
		st.truncated++
	}
	if cuts == 0 {
		return
	}
	st.docsCut++
	st.passages += int64(cuts)
	st.removed += int64(n - len([]rune(text)))
	if strings.TrimSpace(text) == "" {
		st.emptied++
	}
}

// appendRemoval appends a line of removed.tsv.
func appendRemoval(b []byte, id string, c removal) []byte {
	b = mr.AppendEscape(b, id)
	for _, n := range []int{c.start, c.end} {
		b = strconv.AppendInt(append(b, '\t'), int64(n), 10)
	}
	b = append(append(b, '\t'), c.cluster...)
	b = mr.AppendEscape(append(b, '\t'), c.kept.Doc)
	for _, n := range []int{c.kept.CharStart, c.kept.CharEnd} {
		b = strconv.AppendInt(append(b, '\t'), int64(n), 10)
	}
	return append(b, '\n')
}

// dedupSummary prints the one-line summary of pdc dedup.
func (m *Main) dedupSummary(st dedupStats, o dedupOptions, undated int) {
	clean := strings.TrimSuffix(o.clean, "/")
	var b strings.Builder
	fmt.Fprintf(&b, "pdc dedup: %s read, %d written to %s/%s", plural(st.Docs, "document"), st.written, clean, dedupDocs)
	var notes []string
	if st.dups > 0 {
		notes = append(notes, plural(st.dups, "duplicate id")+" skipped")
	}
	if st.unparsable > 0 {
		notes = append(notes, fmt.Sprintf("%d unparsable skipped", st.unparsable))
	}
	if n := st.SkippedTotal(); n > 0 {
		notes = append(notes, fmt.Sprintf("%s skipped (%s)", plural(n, "bad record"), input.ReasonList(st.Skipped)))
	}
	if st.emptied > 0 {
		notes = append(notes, fmt.Sprintf("%d left empty", st.emptied))
	}
	if st.truncated > 0 {
		notes = append(notes, fmt.Sprintf("%d cut at --max-doc-bytes", st.truncated))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	share := 0.0
	if st.chars > 0 {
		share = 100 * float64(st.removed) / float64(st.chars)
	}
	fmt.Fprintf(&b, "; %s removed from %s (%s/%s), %d of %d characters (%.1f%%); %s",
		plural(st.passages, "passage"), plural(st.docsCut, "document"), clean, dedupRemoved,
		st.removed, st.chars, share, plural(int64(st.conflicts), "conflict"))
	if o.keep == "earliest" {
		fmt.Fprintf(&b, "; %d of %d cluster documents without %s", undated, st.clusterDocs, o.dateField)
	}
	fmt.Fprintln(m.Stderr, b.String())
}
