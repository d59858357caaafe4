// Package input reads pdc's documents (lib/doc) from every input kind, one
// document at a time:
//
//   - JSON Lines files (.jsonl, .ndjson, .json, optionally .gz), one
//     document per line (lib/doc), on the local disk or HDFS;
//   - directory trees of pages: .html/.htm/.xhtml and .txt files, one
//     document each, with the path relative to the tree's root as id;
//   - container files, many documents in one file, each kind registered in
//     containers (format.go) with one line: WARC (.warc[.gz]), Avro (.avro)
//     and Parquet (.parquet).
//
// Find expands --input paths into a Set; Set.Sources lists one Source per
// file (per batch of tree files), and Set.Each calls a function per
// document. The local driver renders Sources as JSON Lines for the parse
// job (Lines), the Hadoop driver uploads them as JSON Lines, and `pdc
// text`, `pdc spans --text` and `pdc ingest` iterate them.
package input

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// JSON Lines and page file extensions. .html/.htm/.xhtml and .txt files
// found in a directory tree are one document each.
var (
	jsonlExts = []string{".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz"}
	htmlExts  = []string{".html", ".htm", ".xhtml"}
	textExts  = []string{".txt"}
)

// HasExt reports whether name ends in one of exts, ignoring case.
func HasExt(name string, exts []string) bool {
	lower := strings.ToLower(name)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// IsJSONLName reports whether name is a JSON Lines file name.
func IsJSONLName(name string) bool { return HasExt(filepath.Base(name), jsonlExts) }

// Set is what --input paths expand to.
type Set struct {
	// JSONL are local JSON Lines files.
	JSONL []string
	// Remote are JSON Lines files on HDFS (FindAny).
	Remote []RemoteFile
	// Containers are local container files (WARC, Avro, Parquet).
	Containers []string
	// Tree are the page files of directory trees.
	Tree []TreeFile
	// Bytes is the total size of the local files.
	Bytes int64
	// Broken are symbolic links under input directories whose target is
	// missing or that loop (see Warn).
	Broken []string
	// Linked are the names, under input directories, of files read once
	// under another name (a symbolic link to a file of the tree, or a
	// second link to one file): each as "NAME -> REAL PATH".
	Linked []string
	// Excluded is the number of files under input directories that the
	// Filter left out.
	Excluded int
	// NotJSONL are the .json files under input directories that are not
	// JSON Lines of documents (isJSONLines), left out: a site's search
	// index or configuration beside its pages. (.jsonl and .ndjson files
	// say they are JSON Lines, and are read whatever their first line.)
	NotJSONL []string
	// PageSources counts the page files X.txt beside a page X.html (or
	// .htm, .xhtml) in a tree: a page and its source, which share all
	// their text; FirstPageSource is the first.
	PageSources     int
	FirstPageSource string

	// runs maps a file's order key (Sources) to its run, for the files of
	// every run but the first (FindRuns).
	runs map[string]int
}

// Find expands local --input paths. A missing path is an error naming it.
// Files given explicitly are read by their extension: a container, a page,
// JSON Lines (also a file with no extension, as Hadoop's part files); any
// other extension is an error. Directories are walked
// (walkTree) for JSON Lines, container and page files that f keeps, and
// the part files of job outputs (isJobPart: JSON Lines); other files in
// them are ignored.
func Find(paths []string, f Filter) (*Set, error) {
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	in := &Set{}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, hdfsfs.UnwrapPath(err))
		}
		if !fi.IsDir() {
			in.Bytes += fi.Size()
			switch {
			case HasExt(p, htmlExts) || HasExt(p, textExts):
				in.Tree = append(in.Tree, TreeFile{Root: filepath.Dir(p), Rel: filepath.Base(p)})
			case containerOf(p) != nil:
				in.Containers = append(in.Containers, p)
			case HasExt(p, jsonlExts) || fileExt(p) == "":
				in.JSONL = append(in.JSONL, p)
			default:
				return nil, fmt.Errorf("input %s: unknown input type %s (want %s, .html/.htm/.txt pages, a directory of them, or JSON Lines without an extension)", p, fileExt(p), kindList())
			}
			continue
		}
		err = walkTree(p, func(path, rel string, size int64) error {
			part := isJobPart(path)
			switch {
			case !isDocFile(path) && !part:
				return nil // not read, whatever the filter says
			case !f.Keep(rel):
				in.Excluded++
				return nil
			case part:
				in.JSONL = append(in.JSONL, path)
			case HasExt(path, jsonlExts):
				if HasExt(path, []string{".json"}) && !isJSONLines(path) {
					in.NotJSONL = append(in.NotJSONL, path)
					return nil
				}
				in.JSONL = append(in.JSONL, path)
			case containerOf(path) != nil:
				in.Containers = append(in.Containers, path)
			default: // a page
				in.Tree = append(in.Tree, TreeFile{Root: p, Rel: rel})
			}
			in.Bytes += size
			return nil
		}, func(path string) { in.Broken = append(in.Broken, path) },
			func(name, rel, real string) {
				if isDocFile(name) && f.Keep(rel) {
					in.Linked = append(in.Linked, name+" -> "+real)
				}
			})
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, err)
		}
	}
	in.countPageSources()
	if in.empty() {
		if in.Excluded > 0 {
			return nil, fmt.Errorf("input %s: no documents found: --include/--exclude left out all %s", strings.Join(paths, ", "), count(in.Excluded, "file"))
		}
		if len(in.NotJSONL) > 0 {
			return nil, fmt.Errorf("input %s: no documents found: %s", strings.Join(paths, ", "), in.notJSONLNote())
		}
		return nil, fmt.Errorf("input %s: no documents found (want %s files or .html/.htm/.txt files)", strings.Join(paths, ", "), kindList())
	}
	return in, nil
}

// fileExt is the extension of a file name, lower case, without a .gz.
func fileExt(p string) string {
	return strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(filepath.Base(p)), ".gz")))
}

func (in *Set) empty() bool {
	return len(in.JSONL) == 0 && len(in.Tree) == 0 && len(in.Containers) == 0 && len(in.Remote) == 0
}

// isDocFile reports whether a file found in a directory is read as
// documents.
func isDocFile(p string) bool {
	return HasExt(p, jsonlExts) || containerOf(p) != nil || HasExt(p, htmlExts) || HasExt(p, textExts)
}

// isJobPart reports whether a file is a part file of a job's output
// directory of JSON Lines (part-*, no extension, beside _SUCCESS, starting
// with a JSON object: pdc dedup --jobs, or Hadoop output copied from
// HDFS). The part files of other outputs (pdc run's spans, dedup's removed
// ranges) are not documents.
func isJobPart(p string) bool {
	if !strings.HasPrefix(filepath.Base(p), "part-") || fileExt(p) != "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(p), "_SUCCESS")); err != nil {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return true // read as JSON Lines: opening it reports the error
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], " \t\r\n")
	return len(head) > 0 && head[0] == '{'
}

// sniffBytes is how much of a JSON file isJSONLines reads.
const sniffBytes = 64 << 10

// isJSONLines reports whether a .json file found in a directory holds
// documents: its first line is a JSON object (or longer than sniffBytes
// and starting with "{"), or the file is empty or compressed (not looked
// into). A pretty-printed JSON file, an array, or any other JSON text
// is not: read as JSON Lines, each of its lines would be a bad record.
func isJSONLines(p string) bool {
	if strings.HasSuffix(strings.ToLower(p), ".gz") {
		return true
	}
	f, err := os.Open(p)
	if err != nil {
		return true // read as JSON Lines: opening it reports the error
	}
	defer f.Close()
	head := make([]byte, sniffBytes)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], " \t\r\n\ufeff")
	if len(head) == 0 {
		return true
	}
	line, _, found := bytes.Cut(head, []byte{'\n'})
	if !found && n == sniffBytes {
		return head[0] == '{'
	}
	line = bytes.TrimSpace(line)
	return len(line) > 0 && line[0] == '{' && json.Valid(line)
}

// notJSONLNote says which JSON files Find left out and how to read one.
func (in *Set) notJSONLNote() string {
	return fmt.Sprintf("left out %s under the input directories that %s not JSON Lines of documents (the first line is no JSON object; first: %s): to read one as JSON Lines, give it as --input FILE",
		count(len(in.NotJSONL), "JSON file"), map[bool]string{true: "is", false: "are"}[len(in.NotJSONL) == 1], in.NotJSONL[0])
}

// countPageSources counts the tree's X.txt files beside a page X.html.
func (in *Set) countPageSources() {
	pages := map[string]bool{}
	for _, t := range in.Tree {
		if HasExt(t.Rel, htmlExts) {
			pages[t.Root+"\x00"+strings.TrimSuffix(t.Rel, filepath.Ext(t.Rel))] = true
		}
	}
	for _, t := range in.Tree {
		if HasExt(t.Rel, textExts) && pages[t.Root+"\x00"+strings.TrimSuffix(t.Rel, filepath.Ext(t.Rel))] {
			if in.PageSources == 0 {
				in.FirstPageSource = t.Rel
			}
			in.PageSources++
		}
	}
}

// Warn reports on w what walking the input directories left out or read
// once under two names: broken links, files read by another name, files
// the Filter left out, JSON files that are not JSON Lines, and pages
// whose source is beside them.
func (in *Set) Warn(w io.Writer) {
	if n := len(in.Broken); n > 0 {
		fmt.Fprintf(w, "pdc: skipped %s under the input directories that lead nowhere (first: %s)\n", count(n, "symbolic link"), in.Broken[0])
	}
	if n := len(in.Linked); n > 0 {
		fmt.Fprintf(w, "pdc: left out %s to files read under another name, each file read once (first: %s)\n", count(n, "symbolic link"), in.Linked[0])
	}
	if in.Excluded > 0 {
		fmt.Fprintf(w, "pdc: left out %s under the input directories by --include/--exclude\n", count(in.Excluded, "file"))
	}
	if len(in.NotJSONL) > 0 {
		fmt.Fprintf(w, "pdc: %s\n", in.notJSONLNote())
	}
	if in.PageSources > 0 {
		fmt.Fprintf(w, "pdc: %s beside a page of the same name (first: %s), a page and its source: to read the pages only, --exclude '*.txt'\n", count(in.PageSources, ".txt file"), in.FirstPageSource)
	}
}

// Counters are the counts of Warn, as counters of the run:
// input.links.broken, input.files.linked, input.files.excluded,
// input.files.not-jsonl and input.files.page-sources.
func (in *Set) Counters() map[string]int64 {
	return map[string]int64{
		"input.links.broken":       int64(len(in.Broken)),
		"input.files.linked":       int64(len(in.Linked)),
		"input.files.excluded":     int64(in.Excluded),
		"input.files.not-jsonl":    int64(len(in.NotJSONL)),
		"input.files.page-sources": int64(in.PageSources),
	}
}

func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Paths lists the local files of the set, sorted.
func (in *Set) Paths() []string {
	out := slices.Clone(in.JSONL)
	out = append(out, in.Containers...)
	for _, t := range in.Tree {
		out = append(out, t.Path())
	}
	slices.Sort(out)
	return out
}

// Local returns the set's local documents other than JSON Lines files: the
// ones that must be converted to JSON Lines to reach Hadoop.
func (in *Set) Local() *Set { return &Set{Containers: in.Containers, Tree: in.Tree} }

// Opener opens one Source.
type Opener struct {
	// Name is the file (a tree batch: its root) the Source reads.
	Name string
	// Size is the file size in bytes (0 for tree batches).
	Size int64
	// Container tells whether the Source reads a container file (whose
	// counts pdc run reports, since the parse job never sees what it skips).
	Container bool
	// Tree tells whether the Source reads pages of a directory tree.
	Tree bool
	// Open opens the Source; the Source's Close closes what it opened.
	Open func(o Options) (Source, error)
}

// treeBatch is the number of tree files one Opener reads.
const treeBatch = 256

// Sources returns an Opener per input file in reading order, which is
// the order of the parse job's srcpos (lib/doc record.go): by run (FindRuns:
// a batch run's stored runs before it), then by the escaped file name and
// "@" a srcpos begins with; a page of a tree takes its place by its own
// path, and runs of consecutive pages of one tree are read in batches of
// up to treeBatch, each named by its tree's root (a batch never holds
// pages of two trees, so that its name says where all its pages are). Of
// the records of one id, a reader that takes the first therefore takes
// the one the run kept (the smallest srcpos), whatever the order of the
// --input paths and the kinds of their files.
func (in *Set) Sources() []Opener {
	type item struct {
		run  int
		key  string
		op   Opener
		page int // index in in.Tree, or -1
	}
	var items []item
	add := func(name string, op Opener, page int) {
		key := mr.Escape(name) + "@"
		items = append(items, item{run: in.runs[key], key: key, op: op, page: page})
	}
	for _, p := range in.JSONL {
		add(p, Opener{Name: p, Size: fileSize(p), Open: func(o Options) (Source, error) { return OpenJSONL(p, o) }}, -1)
	}
	for _, f := range in.Remote {
		add(f.Path, Opener{Name: f.Path, Open: func(o Options) (Source, error) { return f.open(o) }}, -1)
	}
	for _, p := range in.Containers {
		add(p, Opener{Name: p, Size: fileSize(p), Container: true, Open: func(o Options) (Source, error) { return OpenContainer(p, o) }}, -1)
	}
	for i, t := range in.Tree {
		add(t.Path(), Opener{}, i)
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.run, b.run), strings.Compare(a.key, b.key))
	})
	var out []Opener
	for i := 0; i < len(items); {
		if items[i].page < 0 {
			out = append(out, items[i].op)
			i++
			continue
		}
		var batch []TreeFile
		for ; i < len(items) && items[i].page >= 0 && len(batch) < treeBatch && (len(batch) == 0 || items[i].run == items[i-1].run && in.Tree[items[i].page].Root == batch[0].Root); i++ {
			batch = append(batch, in.Tree[items[i].page])
		}
		out = append(out, Opener{Name: batch[0].Root, Tree: true, Open: func(o Options) (Source, error) { return newTreeSource(batch, o), nil }})
	}
	return out
}

// Each calls fn for every readable document of the set, in reading order
// (Sources), with where naming its position (file:line, file@offset,
// file#n or the tree-relative path). Records that give no document are
// skipped and counted (with o.Strict, the first is an error). It returns
// the counts of every source read.
func (in *Set) Each(o Options, fn func(d *doc.Doc, where string) error) (Counts, error) {
	return in.EachRecord(o, func(d *doc.Doc, where string, _ []byte) error { return fn(d, where) })
}

// SkipDuplicateID is the Skipped reason of EachKept for a record whose id
// an earlier record had.
const SkipDuplicateID = "duplicate id"

// EachKept is Each for the records a run keeps: of the records of one id
// only the first in reading order (the smallest srcpos, lib/doc record.go)
// is given to fn; the later ones are not documents of the run, and are
// counted in Skipped[SkipDuplicateID], not in Docs.
func (in *Set) EachKept(o Options, fn func(d *doc.Doc, where string) error) (Counts, error) {
	seen := map[string]struct{}{}
	var dups int64
	c, err := in.Each(o, func(d *doc.Doc, where string) error {
		if _, dup := seen[d.ID]; dup {
			dups++
			return nil
		}
		seen[d.ID] = struct{}{}
		return fn(d, where)
	})
	c.Docs -= dups
	c.Skip(SkipDuplicateID, dups)
	return c, err
}

// EachRecord is Each, also giving each document's record as read when it
// was read from one (a JSON Lines line; nil for other formats), valid
// until fn returns.
func (in *Set) EachRecord(o Options, fn func(d *doc.Doc, where string, raw []byte) error) (Counts, error) {
	var total Counts
	for _, op := range in.Sources() {
		c, err := op.Each(o, fn)
		total.Add(c)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// rawSource is a Source that keeps the record of its current document.
type rawSource interface{ Raw() []byte }

// Each opens the Source and calls fn for each of its documents, as
// Set.EachRecord does; it returns the Source's counts.
func (op Opener) Each(o Options, fn func(d *doc.Doc, where string, raw []byte) error) (Counts, error) {
	src, err := op.Open(o)
	if err != nil {
		return Counts{}, err
	}
	rs, _ := src.(rawSource)
	for src.Next() {
		var raw []byte
		if rs != nil {
			raw = rs.Raw()
		}
		if err := fn(src.Doc(), src.Where(), raw); err != nil {
			src.Close()
			return src.Counts(), err
		}
	}
	err = src.Err()
	if cerr := src.Close(); err == nil {
		err = cerr
	}
	return src.Counts(), err
}

// ShortNames returns, for each of paths (distinct absolute paths), its
// shortest ending of whole path elements that ends no other of paths:
// part-00000.jsonl when it is the only file of that name,
// a/part-00000.jsonl beside b/part-00000.jsonl. Elements are joined by
// "/".
func ShortNames(paths []string) map[string]string {
	elems := make([][]string, len(paths))
	depth := 0
	for i, p := range paths {
		elems[i] = strings.Split(strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "/"), "/")
		depth = max(depth, len(elems[i]))
	}
	suffix := func(e []string, n int) string { return strings.Join(e[max(0, len(e)-n):], "/") }
	out := make(map[string]string, len(paths))
	for n := 1; n <= depth && len(out) < len(paths); n++ {
		seen := map[string]int{}
		for _, e := range elems {
			seen[suffix(e, n)]++
		}
		for i, e := range elems {
			if _, done := out[paths[i]]; !done && (seen[suffix(e, n)] == 1 || n >= len(e)) {
				out[paths[i]] = suffix(e, n)
			}
		}
	}
	return out
}

func fileSize(p string) int64 {
	if fi, err := os.Stat(p); err == nil {
		return fi.Size()
	}
	return 0
}
