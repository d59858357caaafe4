package jobs

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Span is one line of the spans output (see reducers/match for the format).
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
	// spans part file is already in compareSpans order.
	key string
}

// ParseSpan parses one TSV span line.
func ParseSpan(line string) (Span, error) {
	f := strings.Split(line, "\t")
	if len(f) != 10 {
		return Span{}, fmt.Errorf("want 10 fields, got %d", len(f))
	}
	s := Span{key: line[:len(f[0])+len(f[1])+2]}
	var err error
	if s.DocA, err = mr.Unescape(f[0]); err != nil {
		return s, err
	}
	if s.DocB, err = mr.Unescape(f[1]); err != nil {
		return s, err
	}
	ints := []*int{&s.StartA, &s.StartB, &s.Length, &s.CharStartA, &s.CharEndA, &s.CharStartB, &s.CharEndB}
	for i, p := range ints {
		if *p, err = strconv.Atoi(f[2+i]); err != nil {
			return s, fmt.Errorf("field %d: %w", 3+i, err)
		}
	}
	if s.Score, err = strconv.ParseFloat(f[9], 64); err != nil {
		return s, fmt.Errorf("score: %w", err)
	}
	return s, nil
}

// AppendTSV appends s as a TSV line without the newline.
func (s *Span) AppendTSV(b []byte) []byte {
	b = mr.AppendEscape(b, s.DocA)
	b = append(b, '\t')
	b = mr.AppendEscape(b, s.DocB)
	for _, x := range []int{s.StartA, s.StartB, s.Length, s.CharStartA, s.CharEndA, s.CharStartB, s.CharEndB} {
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(x), 10)
	}
	b = append(b, '\t')
	return strconv.AppendFloat(b, s.Score, 'f', 4, 64)
}

// compareSpans orders spans read by ParseSpan: by document pair as the
// join's shuffle sorts them (Span.key), then by start and length.
func compareSpans(a, b Span) int {
	return cmp.Or(strings.Compare(a.key, b.key),
		cmp.Compare(a.StartA, b.StartA), cmp.Compare(a.StartB, b.StartB), cmp.Compare(a.Length, b.Length))
}

// readSpans reads every part file of a spans directory (or a run's output
// directory) and returns the spans sorted by (docA, docB, startA, startB)
// (compareSpans).
func readSpans(fsys spanFS, dir string) ([]Span, error) {
	var spans []Span
	err := eachPartSpan(fsys, dir, func(r *partSpans) error {
		for r.next() {
			spans = append(spans, r.span)
		}
		return r.err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(spans, compareSpans)
	return spans, nil
}

// streamSpans calls f with every span of a spans directory in readSpans'
// order, holding one span per part file in memory: the match job writes
// each part in that order, and the parts are merged. A part out of order
// is an error (the directory is not a pdc run's output).
func streamSpans(fsys spanFS, dir string, f func(*Span) error) error {
	var h spanHeap
	err := eachPartSpan(fsys, dir, func(r *partSpans) error {
		if r.next() {
			h = append(h, r)
			r.keep = true
		}
		return r.err
	})
	defer func() {
		for _, r := range h {
			r.rc.Close()
		}
	}()
	if err != nil {
		return err
	}
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := f(&r.span); err != nil {
			return err
		}
		prev := r.span
		if !r.next() {
			if r.err != nil {
				return r.err
			}
			r.rc.Close()
			heap.Pop(&h)
			continue
		}
		if compareSpans(prev, r.span) > 0 {
			return fmt.Errorf("%s:%d: %w", r.name, r.lines.LineNumber(), errSpansOrder)
		}
		heap.Fix(&h, 0)
	}
	return nil
}

// errSpansOrder reports a part file whose spans are not in order.
var errSpansOrder = errors.New("spans out of order (pdc writes each part file sorted; sort the spans of a file written otherwise)")

// partSpans reads the spans of one part file.
type partSpans struct {
	name  string
	rc    io.ReadCloser
	lines *mr.Reader
	span  Span
	err   error
	keep  bool // still open after eachPartSpan's callback
}

func (r *partSpans) next() bool {
	if r.err != nil || !r.lines.Next() {
		if r.err == nil {
			if err := r.lines.Err(); err != nil {
				r.err = fmt.Errorf("read %s: %w", r.name, err)
			}
		}
		return false
	}
	s, err := ParseSpan(string(r.lines.Line()))
	if err != nil {
		r.err = fmt.Errorf("%s:%d: %w", r.name, r.lines.LineNumber(), err)
		return false
	}
	r.span = s
	return true
}

// eachPartSpan opens every part file of dir in turn and hands it to f; a
// part is closed after f unless f sets keep.
func eachPartSpan(fsys spanFS, dir string, f func(*partSpans) error) error {
	parts, err := fsys.parts(dir)
	if err != nil {
		return err
	}
	for _, p := range parts {
		rc, err := fsys.open(p)
		if err != nil {
			return err
		}
		r := &partSpans{name: p, rc: rc, lines: mr.NewReader(bufio.NewReaderSize(rc, 1<<16))}
		err = f(r)
		if !r.keep || err != nil {
			rc.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type spanHeap []*partSpans

func (h spanHeap) Len() int           { return len(h) }
func (h spanHeap) Less(i, j int) bool { return compareSpans(h[i].span, h[j].span) < 0 }
func (h spanHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *spanHeap) Push(x any)        { *h = append(*h, x.(*partSpans)) }
func (h *spanHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// spanFS lists and opens span part files, locally or on HDFS.
type spanFS interface {
	parts(dir string) ([]string, error)
	open(path string) (io.ReadCloser, error)
}

type localSpanFS struct{}

func (localSpanFS) parts(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, "spans")); err == nil {
		dir = filepath.Join(dir, "spans")
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("spans %s: %w", dir, unwrapPathErr(err))
	}
	if !succeeded(dir) {
		return nil, fmt.Errorf("spans %s: no _SUCCESS: the run did not finish (rerun pdc run to resume)", dir)
	}
	return partFiles(dir)
}

func (localSpanFS) open(path string) (io.ReadCloser, error) { return os.Open(path) }

type spanOptions struct {
	format string
	text   bool
	urls   bool // fill URLs (implied by text)
	inputs []string
	// analyzer settings of the run, so passages are cut from the same text
	// the offsets refer to (from OUT/_pdc.json)
	extract     string
	maxDocBytes int
}

func (m *Main) spansCmd(ctx context.Context, args []string) error {
	o := spanOptions{}
	var inputs listFlag
	fs := m.newFlagSet("spans", "OUT [--format tsv|jsonl|avro] [--text --input DOCS]")
	fs.StringVar(&o.format, "format", "tsv", "output format: tsv, jsonl or avro")
	fs.BoolVar(&o.text, "text", false, "add the duplicated passages (needs --input)")
	fs.Var(&inputs, "input", "the run's documents, for --text; repeatable")
	if err := parseFlags(fs, reorderArgs(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usagef("spans: want exactly one output directory")
	}
	switch o.format {
	case "tsv", "jsonl", "avro":
	default:
		return usagef("spans: unknown --format %q (want tsv, jsonl or avro)", o.format)
	}
	if o.text && len(inputs) == 0 {
		var err error
		if inputs, err = m.manifestInputs(fs.Arg(0)); err != nil {
			return err
		}
	}
	o.inputs = inputs
	return m.printSpans(fs.Arg(0), o)
}

// runAnalyzer returns the --extract and --max-doc-bytes of the run in out
// (defaults when its _pdc.json cannot be read).
func (m *Main) runAnalyzer(out string) (extract string, maxDocBytes int) {
	def := jobconf.Default()
	man, err := m.readManifest(out)
	if err != nil {
		return def.Extract, def.MaxDocBytes
	}
	env := map[string]string{}
	for _, kv := range man.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	cfg, err := jobconf.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		return def.Extract, def.MaxDocBytes
	}
	return cfg.Extract, cfg.MaxDocBytes
}

// readManifest reads OUT/_pdc.json, locally or on HDFS.
func (m *Main) readManifest(out string) (*manifest, error) {
	out = strings.TrimSuffix(strings.TrimSuffix(out, "/"), "/spans")
	var data []byte
	var err error
	if m.isRemote(out) {
		var fsys hdfsfs.FS
		var p string
		if fsys, p, err = hdfsfs.Resolve(out, true); err == nil {
			data, err = hdfsfs.ReadFile(fsys, p+"/_pdc.json")
		}
	} else {
		data, err = os.ReadFile(filepath.Join(out, "_pdc.json"))
	}
	if err != nil {
		return nil, err
	}
	var man manifest
	if err := json.Unmarshal(data, &man); err != nil {
		return nil, fmt.Errorf("%s/_pdc.json: %w", out, err)
	}
	return &man, nil
}

// manifestInputs returns the documents of the run in out, from its
// _pdc.json: the uploaded copy (OUT/input) for Hadoop runs when there is
// one, else the inputs as given.
func (m *Main) manifestInputs(out string) ([]string, error) {
	if strings.HasSuffix(strings.TrimSuffix(out, "/"), "/spans") {
		out = strings.TrimSuffix(strings.TrimSuffix(out, "/"), "/spans")
	}
	var data []byte
	var err error
	remote := m.isRemote(out)
	var fsys hdfsfs.FS
	var p string
	if remote {
		if fsys, p, err = hdfsfs.Resolve(out, true); err == nil {
			data, err = hdfsfs.ReadFile(fsys, p+"/_pdc.json")
		}
	} else {
		data, err = os.ReadFile(filepath.Join(out, "_pdc.json"))
	}
	if err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("spans: --text needs --input DOCS (the run's documents); %s has no readable _pdc.json: %v", out, unwrapPathErr(err))}
	}
	var man manifest
	if err := json.Unmarshal(data, &man); err != nil {
		return nil, fmt.Errorf("spans: %s/_pdc.json: %w", out, err)
	}
	if remote {
		if _, err := fsys.Stat(p + "/input/_SUCCESS"); err == nil {
			var in []string
			for _, i := range man.Inputs {
				if m.isRemote(i) {
					in = append(in, i)
				}
			}
			return append(in, strings.TrimSuffix(out, "/")+"/input"), nil
		}
	}
	return man.Inputs, nil
}

// reorderArgs moves positional arguments after the flags, so that
// `pdc spans OUT --text` works like `pdc spans --text OUT`.
func reorderArgs(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) && takesValue(a) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	return append(flags, pos...)
}

func takesValue(flag string) bool {
	switch strings.TrimLeft(flag, "-") {
	case "text", "h", "help":
		return false
	}
	return true
}

func (m *Main) printSpans(out string, o spanOptions) error {
	return m.writeSpans(m.Stdout, out, o)
}

// writeSpans writes the spans of the run in out to dst in o's format.
// Without passages or URLs it streams them (memory for one span per part
// file); with them, every span is read first, to know which documents to
// fetch. Part files out of order (not written by pdc) are sorted in memory
// when that shows before the first 64 KiB of output, else an error.
func (m *Main) writeSpans(dst io.Writer, out string, o spanOptions) error {
	fsys, dir, err := m.spanFS(out)
	if err != nil {
		return err
	}
	cw := &byteCounter{w: dst}
	w := bufio.NewWriterSize(cw, 64<<10)
	sink, err := newSpanSink(w, o.format, o.text)
	if err != nil {
		return err
	}
	if !o.text && !o.urls {
		err := streamSpans(fsys, dir, sink.write)
		if err == nil {
			return sink.close()
		}
		if !errors.Is(err, errSpansOrder) || cw.n > 0 {
			return err
		}
		// Parts not written by pdc, out of order, and nothing written
		// yet: start again, sorting in memory.
		w.Reset(cw)
		if sink, err = newSpanSink(w, o.format, o.text); err != nil {
			return err
		}
	}
	spans, err := readSpans(fsys, dir)
	if err != nil {
		return err
	}
	switch {
	case o.text:
		if o.extract == "" {
			o.extract, o.maxDocBytes = m.runAnalyzer(out)
		}
		if o.extract == "main" {
			if err := m.needMain(); err != nil {
				return err
			}
		}
		if err := m.addText(spans, o.inputs, &doc.Analyzer{MaxBytes: o.maxDocBytes, Main: o.extract == "main"}); err != nil {
			return err
		}
	case o.urls:
		if err := m.addURLs(spans, o.inputs); err != nil {
			return err
		}
	}
	for i := range spans {
		if err := sink.write(&spans[i]); err != nil {
			return err
		}
	}
	return sink.close()
}

// spanSink writes spans one by one in a format: tsv (with the passages as
// two more fields when withText), jsonl or avro.
type spanSink struct {
	write func(*Span) error
	close func() error
}

func newSpanSink(w *bufio.Writer, format string, withText bool) (*spanSink, error) {
	flush := func() error {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		return nil
	}
	switch format {
	case "jsonl":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return &spanSink{write: func(s *Span) error {
			if err := enc.Encode(s); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			return nil
		}, close: flush}, nil
	case "avro":
		aw, err := newAvroSpanWriter(w, withText)
		if err != nil {
			return nil, err
		}
		return &spanSink{write: aw.write, close: func() error {
			if err := aw.close(); err != nil {
				return err
			}
			return flush()
		}}, nil
	}
	var b []byte
	return &spanSink{write: func(s *Span) error {
		b = s.AppendTSV(b[:0])
		if withText {
			b = append(b, '\t')
			b = mr.AppendEscape(b, *s.TextA)
			b = append(b, '\t')
			b = mr.AppendEscape(b, *s.TextB)
		}
		b = append(b, '\n')
		_, err := w.Write(b)
		return err // a write error is sticky: flush reports it
	}, close: flush}, nil
}

// addURLs fills the spans' document URLs from the documents.
func (m *Main) addURLs(spans []Span, inputs []string) error {
	need := map[string]bool{}
	for _, s := range spans {
		need[s.DocA], need[s.DocB] = true, true
	}
	in, err := m.findAnyInputs(inputs)
	if err != nil {
		return err
	}
	urls := map[string]string{}
	err = eachDoc(in, func(d *doc.Doc, where string) error {
		if _, seen := urls[d.ID]; need[d.ID] && !seen {
			urls[d.ID] = d.URL
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range spans {
		spans[i].URLA, spans[i].URLB = urls[spans[i].DocA], urls[spans[i].DocB]
	}
	return nil
}

// addText fills the spans' passages (and URLs) from the documents.
func (m *Main) addText(spans []Span, inputs []string, an *doc.Analyzer) error {
	need := map[string]bool{}
	for _, s := range spans {
		need[s.DocA], need[s.DocB] = true, true
	}
	in, err := m.findAnyInputs(inputs)
	if err != nil {
		return err
	}
	texts, urls := map[string]string{}, map[string]string{}
	err = eachDoc(in, func(d *doc.Doc, where string) error {
		if !need[d.ID] {
			return nil
		}
		if _, dup := texts[d.ID]; dup {
			return nil // the parse job keeps the first occurrence too
		}
		a, err := an.Analyze(d)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		texts[d.ID], urls[d.ID] = strings.Clone(a.Text), d.URL
		return nil
	})
	if err != nil {
		return err
	}
	for i := range spans {
		s := &spans[i]
		ta, oka := texts[s.DocA]
		tb, okb := texts[s.DocB]
		if !oka || !okb {
			missing := s.DocA
			if oka {
				missing = s.DocB
			}
			return fmt.Errorf("spans --text: document %q is not in --input %s (give the run's documents)", missing, strings.Join(inputs, ","))
		}
		a, b := runeSlice(ta, s.CharStartA, s.CharEndA), runeSlice(tb, s.CharStartB, s.CharEndB)
		s.TextA, s.TextB, s.URLA, s.URLB = &a, &b, urls[s.DocA], urls[s.DocB]
	}
	return nil
}

// decodeSpanJSON parses one span of `pdc spans --format jsonl`.
func decodeSpanJSON(line string) (Span, error) {
	var s Span
	err := json.Unmarshal([]byte(line), &s)
	return s, err
}
