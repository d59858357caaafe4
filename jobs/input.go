package jobs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/htmltext"
	"github.com/pdc-mr/pdc/lib/mr/local"
)

// Input kinds pdc reads directly. JSON Lines files (.jsonl, .ndjson, .json,
// optionally .gz) hold documents (lib/doc); .html/.htm/.xhtml and .txt
// files found in a directory tree are one document each, with the path
// relative to the tree's root as id.
var (
	jsonlExts = []string{".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz"}
	htmlExts  = []string{".html", ".htm", ".xhtml"}
	textExts  = []string{".txt"}
)

func hasExt(name string, exts []string) bool {
	lower := strings.ToLower(name)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// treeFile is one document file of a directory tree.
type treeFile struct{ root, rel string }

// inputSet is what --input paths expand to.
type inputSet struct {
	jsonl []string
	tree  []treeFile
	// records are container files (WARC, Avro) rendered as JSON Lines on
	// the fly by recordSplit.
	records []string
	// remote are JSON Lines files on HDFS (pdc spans --text, pdc text).
	remote []remoteFile
	bytes  int64
	// broken are symbolic links under input directories whose target is
	// missing (see warnBroken).
	broken []string
}

// walkTree calls file for every regular file under root in path order,
// with its slash-separated path relative to root. It follows symbolic
// links to files and to directories outside the tree (documentation trees
// link whole sections in), walking a directory once however many links
// reach it, and skips hidden directories. A link that cannot be followed
// (to nothing, or a loop) goes to broken.
func walkTree(root string, file func(path, rel string, size int64) error, broken func(path string)) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return err
		}
		if seen[real] {
			return nil
		}
		seen[real] = true
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			p, r := filepath.Join(dir, e.Name()), path.Join(rel, e.Name())
			link := e.Type()&fs.ModeSymlink != 0
			fi, err := os.Stat(p) // through links
			if err != nil {
				if link { // to nothing, to itself, through a file...
					broken(p)
					continue
				}
				return err
			}
			switch {
			case fi.IsDir():
				if strings.HasPrefix(e.Name(), ".") {
					continue
				}
				if link {
					// A link into the tree itself would give that
					// directory's documents a second name: they keep
					// their own.
					if target, err := filepath.EvalSymlinks(p); err != nil || within(target, realRoot) {
						continue
					}
				}
				if err := walk(p, r); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				if err := file(p, r, fi.Size()); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(root, "")
}

// within reports whether path p is dir or lies under it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// warnBroken reports the broken links found under input directories.
func warnBroken(w io.Writer, in *inputSet) {
	if len(in.broken) == 0 {
		return
	}
	fmt.Fprintf(w, "pdc: skipped %s under the input directories that lead nowhere (first: %s)\n",
		plural(int64(len(in.broken)), "symbolic link"), in.broken[0])
}

// findInputs expands --input paths. A missing path is an error naming it.
// Files given explicitly are read whatever their extension, as JSON Lines
// unless they are .html/.htm/.txt.
func findInputs(paths []string) (*inputSet, error) {
	in := &inputSet{}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, unwrapPathErr(err))
		}
		if !fi.IsDir() {
			in.bytes += fi.Size()
			switch {
			case hasExt(p, htmlExts) || hasExt(p, textExts):
				in.tree = append(in.tree, treeFile{root: filepath.Dir(p), rel: filepath.Base(p)})
			case hasExt(p, recordExts):
				in.records = append(in.records, p)
			default:
				in.jsonl = append(in.jsonl, p)
			}
			continue
		}
		err = walkTree(p, func(path, rel string, size int64) error {
			switch {
			case hasExt(path, jsonlExts):
				in.jsonl = append(in.jsonl, path)
			case hasExt(path, recordExts):
				in.records = append(in.records, path)
			case hasExt(path, htmlExts), hasExt(path, textExts):
				in.tree = append(in.tree, treeFile{root: p, rel: rel})
			default:
				return nil
			}
			in.bytes += size
			return nil
		}, func(path string) { in.broken = append(in.broken, path) })
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, err)
		}
	}
	if len(in.jsonl) == 0 && len(in.tree) == 0 && len(in.records) == 0 {
		return nil, fmt.Errorf("input %s: no documents found (want .jsonl[.gz] files or .html/.htm/.txt files)", strings.Join(paths, ", "))
	}
	return in, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// treeBatch is the number of tree files per map task.
const treeBatch = 256

// splits returns the map input splits: JSON Lines files cut at splitSize,
// and tree files in batches rendered as JSON Lines on the fly.
func (in *inputSet) splits(splitSize int64) ([]local.Split, error) {
	sp, err := local.FileSplits(in.jsonl, splitSize)
	if err != nil {
		return nil, err
	}
	for _, p := range in.records {
		sp = append(sp, recordSplit(p))
	}
	for i := 0; i < len(in.tree); i += treeBatch {
		batch := in.tree[i:min(i+treeBatch, len(in.tree))]
		sp = append(sp, local.Split{
			Name:      batch[0].root, // records name their file as the document id
			Divisible: true,
			Open:      func() (io.ReadCloser, error) { return &treeReader{files: batch}, nil },
		})
	}
	return sp, nil
}

// treeReader renders tree files as JSON Lines documents.
type treeReader struct {
	files []treeFile
	buf   bytes.Buffer
	line  []byte
}

func (r *treeReader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if len(r.files) == 0 {
			return 0, io.EOF
		}
		f := r.files[0]
		r.files = r.files[1:]
		d, err := readTreeDoc(f)
		if err != nil {
			return 0, err
		}
		r.line = doc.AppendJSON(r.line[:0], &d)
		r.buf.Write(r.line)
		r.buf.WriteByte('\n')
	}
	return r.buf.Read(p)
}

func (r *treeReader) Close() error { return nil }

// readTreeDoc reads one file as a document, decoding HTML to UTF-8 by its
// BOM, <meta charset> or content sniffing.
func readTreeDoc(f treeFile) (doc.Doc, error) {
	path := filepath.Join(f.root, filepath.FromSlash(f.rel))
	b, err := os.ReadFile(path)
	if err != nil {
		return doc.Doc{}, fmt.Errorf("read %s: %w", path, err)
	}
	d := doc.Doc{ID: f.rel}
	if !hasExt(path, htmlExts) {
		d.Text = string(b)
		return d, nil
	}
	d.IsHTML = true
	d.HTML = DecodeHTML(b, "")
	return d, nil
}

// DecodeHTML converts an HTML page to UTF-8 by the charset rules the parse
// job applies to raw pages (htmltext.Decode: BOM, the Content-Type's
// charset, a <meta> declaration, UTF-8 when the whole page is valid UTF-8,
// else content sniffing). Binary content is returned unchanged so that the
// parse job can count it.
func DecodeHTML(b []byte, contentType string) string {
	if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
		return string(b)
	}
	out, _, _, err := htmltext.Decode(b, contentType)
	if err != nil {
		return string(b)
	}
	return string(out)
}

// sortedInputs is for deterministic error messages in tests.
func sortedInputs(in *inputSet) []string {
	out := slices.Clone(in.jsonl)
	out = append(out, in.records...)
	for _, t := range in.tree {
		out = append(out, filepath.Join(t.root, t.rel))
	}
	slices.Sort(out)
	return out
}
