package jobs

// pdc ingest converts inputs (WARC, Avro, Parquet, JSON Lines,
// directories of .html/.txt files) to the JSON Lines documents of lib/doc,
// ready for
// `pdc run` locally or on Hadoop.
//
// Output: --output FILE.jsonl (or .ndjson, .json; gzip when it ends .gz) is
// one file. Any other --output is a directory of parts
//
//	DIR/part-00000.jsonl.gz, DIR/part-00001.jsonl.gz, ..., DIR/_SUCCESS
//
// each cut after --part-size compressed bytes (gzip files are not split by
// Hadoop: a part is one map task). The size is checked after each document
// against the compressed bytes gzip has emitted so far, so a part may exceed
// it by what gzip still buffers (about 100 kB) plus one document. Files are written under a hidden
// temporary name and renamed when complete; _SUCCESS is written last.
// hdfs://host:port/path (or any path with --hdfs) writes to HDFS.
//
// Documents are written in reading order (lib/input Sources: by file
// name, a tree's pages by their paths). A document whose id was seen
// before is dropped and counted (the first is kept); ids are remembered as
// 128-bit hashes, so memory grows by ~40 bytes per document. With
// --id-prefix file, a record's id is FILE:ID (FILE: input.ShortNames of
// the input files), for files whose ids restart.

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
)

// ingestOptions are the flags of pdc ingest.
type ingestOptions struct {
	inputs    listFlag
	output    string
	hdfs      bool
	avro      avroio.DocFields
	strict    bool
	overwrite bool
	quiet     bool
	partSize  int64
	siteFrom  string
	idPrefix  string
	filter    input.Filter
}

// ingestProgressEvery is how often ingest reports progress.
var ingestProgressEvery = 5 * time.Second

func (m *Main) ingestCmd(ctx context.Context, args []string) error {
	o := ingestOptions{}
	flags := m.newFlagSet("ingest", "--input SRC... --output DIR|FILE.jsonl[.gz]|hdfs://HOST:PORT/PATH [flags]")
	flags.kerberosFlags()
	flags.Var(&o.inputs, "input", "sources: "+input.Kinds()+" files, or directories of them and of .html/.txt files; repeatable")
	flags.Var((*listFlag)(&o.filter.Include), "include", "read only the files under --input directories that match this `glob` (as pdc run --include); repeatable")
	flags.Var((*listFlag)(&o.filter.Exclude), "exclude", "leave out the files under --input directories that match this `glob`; repeatable")
	flags.StringVar(&o.output, "output", "", "FILE.jsonl[.gz], or a directory of part-NNNNN.jsonl.gz files; hdfs://... writes to HDFS")
	flags.BoolVar(&o.hdfs, "hdfs", false, "write --output (an absolute path) to the HDFS of HADOOP_CONF_DIR")
	flags.StringVar(&o.avro.ID, "avro-id", "id", "Avro: the document id field")
	flags.StringVar(&o.avro.URL, "avro-url", "url", "Avro: the url field")
	flags.StringVar(&o.avro.HTML, "avro-html", "html", "Avro: the html field")
	flags.StringVar(&o.avro.Text, "avro-text", "text", "Avro: the plain text field")
	flags.BoolVar(&o.strict, "strict", false, "stop at the first damaged or malformed input record instead of skipping it")
	flags.BoolVar(&o.overwrite, "overwrite", false, "replace an existing output")
	flags.BoolVar(&o.quiet, "quiet", false, "no progress output")
	o.partSize = 256 << 20
	flags.Var(sizeFlag{&o.partSize}, "part-size", "directory output: start a new part after this `size` of compressed bytes (bytes, or with K, M, G)")
	flags.StringVar(&o.siteFrom, "site-from", "tree", "site written for a tree's pages (\"site\" field): tree, path:N, name:NAME, layout or none (no field), as pdc run --site-from")
	flags.StringVar(&o.idPrefix, "id-prefix", "", "file: write each record's id as FILE:ID, FILE the shortest ending of its input file's path that no other input file's path ends in (for files whose ids restart, as shards numbered from 0 each); tree pages keep their paths")
	flags.StringVar(&o.avro.Site, "site-field", "", "input field naming a document's site, written as \"site\" (JSON Lines: read besides \"site\")")
	if err := flags.parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return usagef("ingest: unexpected argument %q (inputs go after --input)", flags.Arg(0))
	}
	if len(o.inputs) == 0 || o.output == "" {
		return usagef("ingest: --input and --output are required")
	}
	if o.partSize < 1 {
		return usagef("ingest: --part-size must be positive")
	}
	if err := o.filter.Check(); err != nil {
		return usagef("ingest: --include/--exclude: %v", err)
	}
	if _, err := jobconf.ParseSiteFrom(o.siteFrom); err != nil {
		return usagef("ingest: %v", err)
	}
	if o.idPrefix != "" && o.idPrefix != "file" {
		return usagef("ingest: --id-prefix must be file, got %q", o.idPrefix)
	}
	return m.ingest(ctx, &o)
}

func (m *Main) ingest(ctx context.Context, o *ingestOptions) error {
	start := time.Now()
	// Absolute paths, as pdc run reads them: of the records of one id the
	// one written is the one a run over the inputs keeps (lib/input Sources).
	in, err := input.Find(absAll(o.inputs), o.filter)
	if err != nil {
		return err
	}
	in.Warn(m.Stderr)
	sink, err := openSink(o)
	if err != nil {
		return err
	}
	g := &ingester{ctx: ctx, o: o, sink: sink, seen: map[[2]uint64]struct{}{},
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		prog:  ingestProgress{w: m.Stderr, quiet: o.quiet, total: in.Bytes, last: time.Now()}}
	g.prog.written = &g.written
	if err := g.run(in); err != nil {
		return errors.Join(err, sink.abort())
	}
	if err := sink.close(); err != nil {
		return err
	}
	g.report(m.Stderr, len(in.Paths()), time.Since(start))
	return nil
}

// ingester copies documents to the sink, dropping repeated ids.
type ingester struct {
	ctx     context.Context
	o       *ingestOptions
	sink    *docSink
	prog    ingestProgress
	seen    map[[2]uint64]struct{}
	seeds   [2]maphash.Seed
	counts  input.Counts
	written int64
	dups    int64
	line    []byte
}

func (g *ingester) run(in *input.Set) error {
	treeSite, _ := jobconf.ParseSiteFrom(g.o.siteFrom) // validated
	o := input.Options{Fields: g.o.avro, Strict: g.o.strict, OnRead: g.prog.add, TreeSite: treeSite, TreeRoot: treeRoot(g.o.siteFrom, input.TreeNames())}
	if g.o.idPrefix == "" {
		var err error
		g.counts, err = in.Each(o, func(d *doc.Doc, where string) error { return g.emit(d) })
		return err
	}
	// --id-prefix file: each file's records under its short name.
	sources := in.Sources()
	var files []string
	for _, op := range sources {
		if !op.Tree {
			files = append(files, op.Name)
		}
	}
	names := input.ShortNames(files)
	for _, op := range sources {
		prefix := ""
		if !op.Tree {
			prefix = names[op.Name] + ":"
		}
		c, err := op.Each(o, func(d *doc.Doc, _ string, _ []byte) error {
			d.ID = prefix + d.ID
			return g.emit(d)
		})
		g.counts.Add(c)
		if err != nil {
			return err
		}
	}
	return nil
}

// emit writes d unless its id was seen before.
func (g *ingester) emit(d *doc.Doc) error {
	if err := g.ctx.Err(); err != nil {
		return err
	}
	k := [2]uint64{maphash.String(g.seeds[0], d.ID), maphash.String(g.seeds[1], d.ID)}
	if _, dup := g.seen[k]; dup {
		g.dups++
		return nil
	}
	g.seen[k] = struct{}{}
	// A page's file (pdc_source) is where pdc found it, not a field of the
	// document: in a JSON Lines file the record's place is its line.
	d.Source = ""
	g.line = append(doc.AppendJSON(g.line[:0], d), '\n')
	if err := g.sink.write(g.line); err != nil {
		return err
	}
	g.written++
	return nil
}

// report prints the counters: ingest.records.read, ingest.docs.written,
// ingest.docs.duplicate, ingest.docs.truncated, and per reason
// ingest.skipped.REASON, ingest.damaged.REASON and ingest.decoded.CHARSET
// (text files that were not UTF-8; spaces as '-').
func (g *ingester) report(w io.Writer, inputs int, took time.Duration) {
	c := map[string]int64{
		"ingest.records.read":    g.counts.Records,
		"ingest.docs.written":    g.written,
		"ingest.docs.duplicate":  g.dups,
		"ingest.docs.truncated":  g.counts.Truncated,
		"ingest.records.skipped": g.counts.SkippedTotal(),
	}
	name := func(s string) string { return strings.ReplaceAll(s, " ", "-") }
	for k, v := range g.counts.Skipped {
		c["ingest.skipped."+name(k)] = v
	}
	for k, v := range g.counts.Damaged {
		c["ingest.damaged."+name(k)] = v
	}
	for k, v := range g.counts.Decoded {
		c["ingest.decoded."+name(k)] = v
	}
	fmt.Fprintf(w, "pdc ingest: %s from %s (%s) to %s in %s\n", plural(g.written, "document"),
		plural(int64(inputs), "file"), byteSize(g.prog.total), g.sink.describe(), elapsed(took))
	pipeline.PrintCounters(w, c)
}

// ingestProgress prints bytes read out of the total every
// ingestProgressEvery. It is called from the reading goroutine only.
type ingestProgress struct {
	w       io.Writer
	quiet   bool
	done    int64
	total   int64
	written *int64
	last    time.Time
}

func (p *ingestProgress) add(n int64) {
	p.done += n
	if p.quiet || time.Since(p.last) < ingestProgressEvery {
		return
	}
	p.last = time.Now()
	pct := 100.0
	if p.total > 0 {
		pct = min(100, 100*float64(p.done)/float64(p.total))
	}
	fmt.Fprintf(p.w, "pdc ingest: %.1f%% (%s of %s read), %s written\n",
		pct, byteSize(p.done), byteSize(p.total), plural(*p.written, "document"))
}

// byteSize formats n as "12.3 MB" (powers of 1000).
func byteSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

// isJSONLName reports whether --output names a single JSON Lines file.
func isJSONLName(name string) bool { return input.IsJSONLName(name) }

// docSink writes JSON Lines documents to one file or to a directory of
// gzip parts, on the local disk or HDFS.
type docSink struct {
	fsys     hdfsfs.FS
	local    bool   // fsys is the local disk (else HDFS: names are slash-separated)
	output   string // --output as given, for messages
	dir      string // directory of parts; "" for a single file
	file     string // the single file
	partSize int64
	parts    int
	cur      *sinkFile // the file being written, or nil
}

// openSink checks --output and creates the first output file.
func openSink(o *ingestOptions) (*docSink, error) {
	fsys, name, local, err := resolveOutput(o.output, o.hdfs)
	if err != nil {
		return nil, err
	}
	s := &docSink{fsys: fsys, local: local, output: o.output, partSize: o.partSize}
	fi, err := fsys.Stat(name)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("output %s: %w", o.output, hdfsfs.UnwrapPath(err))
	}
	if isJSONLName(name) && (!exists || !fi.IsDir()) {
		s.file = name
		if exists && !o.overwrite {
			return nil, fmt.Errorf("output %s already exists (use --overwrite to replace it)", o.output)
		}
		if dir, _ := s.split(name); dir != "" {
			if err := fsys.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("output %s: %w", o.output, hdfsfs.UnwrapPath(err))
			}
		}
		if s.cur, err = s.create(name, strings.HasSuffix(strings.ToLower(name), ".gz")); err != nil {
			return nil, err
		}
		return s, nil
	}
	s.dir = name
	if err := s.prepareDir(exists, o.overwrite); err != nil {
		return nil, err
	}
	if s.cur, err = s.create(s.partName(), true); err != nil {
		return nil, err
	}
	return s, nil
}

// prepareDir creates the output directory; an existing one must be empty
// unless overwrite is set.
func (s *docSink) prepareDir(exists, overwrite bool) error {
	if exists {
		ents, err := s.fsys.ReadDir(s.dir)
		if err != nil {
			return fmt.Errorf("output %s: %w", s.output, hdfsfs.UnwrapPath(err))
		}
		if len(ents) > 0 && !overwrite {
			return fmt.Errorf("output %s already exists and is not empty (use --overwrite to replace it)", s.output)
		}
		if err := s.fsys.RemoveAll(s.dir); err != nil {
			return fmt.Errorf("output %s: %w", s.output, hdfsfs.UnwrapPath(err))
		}
	}
	if err := s.fsys.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("output %s: %w", s.output, hdfsfs.UnwrapPath(err))
	}
	return nil
}

func (s *docSink) join(elem ...string) string {
	if s.local {
		return filepath.Join(elem...)
	}
	return path.Join(elem...)
}

func (s *docSink) split(name string) (dir, file string) {
	if s.local {
		return filepath.Split(name)
	}
	return path.Split(name)
}

func (s *docSink) partName() string {
	return s.join(s.dir, fmt.Sprintf("part-%05d.jsonl.gz", s.parts))
}

// write writes one line, starting a new part when the current one is full.
func (s *docSink) write(line []byte) error {
	if s.cur == nil {
		var err error
		if s.cur, err = s.create(s.partName(), true); err != nil {
			return err
		}
	}
	if err := s.cur.write(line); err != nil {
		return err
	}
	if s.dir != "" && s.cur.size.n >= s.partSize {
		err := s.cur.close()
		s.cur = nil
		s.parts++
		return err
	}
	return nil
}

// close completes the output: the last file, then DIR/_SUCCESS.
func (s *docSink) close() error {
	var err error
	if s.cur != nil {
		err = s.cur.close()
		s.cur = nil
		s.parts++
	}
	if err == nil && s.dir != "" {
		err = hdfsfs.WriteFile(s.fsys, s.join(s.dir, "_SUCCESS"), nil)
	}
	return err
}

// abort removes the file being written; finished parts stay (without
// _SUCCESS). It returns only cleanup errors.
func (s *docSink) abort() error {
	var err error
	if s.cur != nil {
		err = s.cur.f.Abort()
		s.cur = nil
	}
	return err
}

func (s *docSink) describe() string {
	if s.dir == "" {
		return s.output
	}
	return fmt.Sprintf("%s (%s)", s.output, plural(int64(s.parts), "part"))
}

// sinkFile is one output file, written under a temporary name
// (hdfsfs.CreateAtomic) and renamed when complete.
type sinkFile struct {
	f     *hdfsfs.AtomicFile
	size  byteCounter // bytes after compression
	zw    *gzip.Writer
	final string
}

func (s *docSink) create(final string, gz bool) (*sinkFile, error) {
	f, err := hdfsfs.CreateAtomic(s.fsys, final)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", final, hdfsfs.UnwrapPath(err))
	}
	sf := &sinkFile{f: f, final: final}
	sf.size.w = f
	if gz {
		sf.zw = gzip.NewWriter(&sf.size)
	}
	return sf, nil
}

func (sf *sinkFile) write(line []byte) error {
	var err error
	if sf.zw != nil {
		_, err = sf.zw.Write(line)
	} else {
		_, err = sf.size.Write(line)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", sf.final, err)
	}
	return nil
}

// close finishes the file and renames it to its final name.
func (sf *sinkFile) close() error {
	var err error
	if sf.zw != nil {
		err = sf.zw.Close()
	}
	if err != nil {
		sf.f.Abort()
		return fmt.Errorf("write %s: %w", sf.final, err)
	}
	return sf.f.Close() // names the file in its error
}

// byteCounter counts the bytes written through it.
type byteCounter struct {
	w io.Writer
	n int64
}

func (c *byteCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// resolveOutput returns the file system and the name within it of
// --output (hdfsfs.Resolve): hdfs://HOST:PORT/PATH is that NameNode,
// hdfs:///PATH, and an absolute path with --hdfs, the default file system of
// HADOOP_CONF_DIR; anything else is local. HDFS clients are shared and stay
// open (hdfsfs caches them).
func resolveOutput(out string, useHDFS bool) (fsys hdfsfs.FS, name string, local bool, err error) {
	if useHDFS && !strings.HasPrefix(out, "hdfs://") && !path.IsAbs(out) {
		return nil, "", false, usagef("ingest: --hdfs needs an absolute --output path, got %s", out)
	}
	fsys, name, err = hdfsfs.Resolve(out, useHDFS)
	if err != nil {
		return nil, "", false, fmt.Errorf("output %s: %w", out, err)
	}
	return fsys, name, fsys == hdfsfs.Local(), nil
}
