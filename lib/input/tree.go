package input

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/htmltext"
)

// TreeFile is one page file of a directory tree.
type TreeFile struct {
	Root string // the tree's root, as given
	Rel  string // the slash-separated path under Root: the document id
}

// Path is the file's path.
func (f TreeFile) Path() string { return filepath.Join(f.Root, filepath.FromSlash(f.Rel)) }

// walkTree calls file for every regular file under root in path order,
// with its slash-separated path relative to root. It follows symbolic
// links to files and to directories outside the tree (documentation trees
// link whole sections in), walking a directory once however many links
// reach it, and skips hidden directories. Each file is read once, by its
// real path: a link to a file of the tree is left to the file's own name,
// and of several links to one file outside the tree the first is read;
// the names left go to linked with the path they lead to. A link that
// cannot be followed (to nothing, or a loop) goes to broken.
func walkTree(root string, file func(path, rel string, size int64) error, broken func(path string), linked func(name, rel, real string)) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	type entry struct {
		path, rel, real string
		size            int64
		link            bool
	}
	var files []entry
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
					if target, err := filepath.EvalSymlinks(p); err != nil || Within(target, realRoot) {
						continue
					}
				}
				if err := walk(p, r); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				fileReal := filepath.Join(real, e.Name())
				if link {
					if fileReal, err = filepath.EvalSymlinks(p); err != nil {
						broken(p)
						continue
					}
				}
				files = append(files, entry{path: p, rel: r, real: fileReal, size: fi.Size(), link: link})
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return err
	}
	// The name each real file is read by: its own when the tree holds it
	// (not through a link), else the first link's.
	by := map[string]int{}
	for i, f := range files {
		if j, ok := by[f.real]; !ok || files[j].link && !f.link {
			by[f.real] = i
		}
	}
	for i, f := range files {
		if by[f.real] != i {
			linked(f.path, f.rel, f.real)
			continue
		}
		if err := file(f.path, f.rel, f.size); err != nil {
			return err
		}
	}
	return nil
}

// Within reports whether path p is dir or lies under it.
func Within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// ReadTreeDoc reads one page file as a document: HTML decoded to UTF-8 by
// its BOM, <meta charset> or content sniffing (DecodeHTML); .txt as text,
// as it is when it is valid UTF-8, else decoded by the same rules
// (htmltext.Decode: a BOM, else sniffing, so windows-1252, GBK, Shift_JIS
// ...). decoded is the charset a text file was decoded from, or "".
func ReadTreeDoc(f TreeFile) (d doc.Doc, decoded string, err error) {
	p := f.Path()
	b, err := os.ReadFile(p)
	if err != nil {
		return doc.Doc{}, "", fmt.Errorf("read %s: %w", p, err)
	}
	d = doc.Doc{ID: f.Rel}
	if !HasExt(p, htmlExts) {
		if utf8.Valid(b) || bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
			d.Text = string(b) // binary content is left for the parse job to count
			return d, "", nil
		}
		out, name, _, err := htmltext.Decode(b, "text/plain")
		if err != nil {
			return doc.Doc{}, "", fmt.Errorf("read %s: decode %s: %w", p, name, err)
		}
		d.Text = string(out)
		return d, name, nil
	}
	d.IsHTML = true
	d.HTML = DecodeHTML(b, "")
	return d, "", nil
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

// treeSource is a Source over tree files; each file is one record and one
// document, with its site by Options.TreeSite. Options.OnRead gets each
// document's body size.
type treeSource struct {
	files  []TreeFile
	onRead func(int64)
	site   int
	name   func(string) string // Options.TreeRoot
	roots  map[string]string   // names of roots
	cur    TreeFile
	d      doc.Doc
	c      Counts
	err    error
}

func newTreeSource(files []TreeFile, o Options) *treeSource {
	return &treeSource{files: files, onRead: o.OnRead, site: o.TreeSite, name: o.TreeRoot, roots: map[string]string{}}
}

// Site returns the site of tree file f by rule n (Options.TreeSite): "" for
// -1, the root's absolute path for 0, and the root with the first n
// directories of f's path for n > 0 (fewer when f is less deep).
func Site(f TreeFile, n int, abs func(string) string) string {
	if n < 0 {
		return ""
	}
	site := filepath.ToSlash(abs(f.Root))
	dirs := strings.Split(f.Rel, "/")
	dirs = dirs[:len(dirs)-1] // the file's directories
	for i := 0; i < n && i < len(dirs); i++ {
		site += "/" + dirs[i]
	}
	return site
}

func (s *treeSource) abs(root string) string {
	if a, ok := s.roots[root]; ok {
		return a
	}
	if s.name != nil {
		s.roots[root] = s.name(root)
		return s.roots[root]
	}
	a, err := filepath.Abs(root)
	if err != nil {
		a = root
	}
	s.roots[root] = a
	return a
}

func (s *treeSource) Next() bool {
	if s.err != nil || len(s.files) == 0 {
		return false
	}
	s.cur, s.files = s.files[0], s.files[1:]
	var decoded string
	s.d, decoded, s.err = ReadTreeDoc(s.cur)
	if s.err != nil {
		return false
	}
	if decoded != "" {
		if s.c.Decoded == nil {
			s.c.Decoded = map[string]int64{}
		}
		s.c.Decoded[decoded]++
	}
	s.d.Site = Site(s.cur, s.site, s.abs)
	s.d.Source = s.cur.Path()
	s.c.Records++
	s.c.Docs++
	if s.onRead != nil {
		s.onRead(int64(len(s.d.Body())))
	}
	return true
}

func (s *treeSource) Doc() *doc.Doc  { return &s.d }
func (s *treeSource) Where() string  { return s.cur.Rel }
func (s *treeSource) Err() error     { return s.err }
func (s *treeSource) Counts() Counts { return s.c }
func (s *treeSource) Close() error   { return nil }

// TreeNames returns an Options.TreeRoot that names each root by its last
// element ("html" for /usr/share/doc/python3.11/html), with "-2", "-3", ...
// after the name of a root that another root had before: the sites stay
// distinct, and no local path goes into them.
func TreeNames() func(root string) string {
	names := map[string]string{} // root's absolute path -> name
	used := map[string]bool{}
	return func(root string) string {
		a, err := filepath.Abs(root)
		if err != nil {
			a = filepath.Clean(root)
		}
		if n, ok := names[a]; ok {
			return n
		}
		base := filepath.Base(a)
		if base == string(filepath.Separator) || base == "." {
			base = "tree"
		}
		n := base
		for i := 2; used[n]; i++ {
			n = fmt.Sprintf("%s-%d", base, i)
		}
		names[a], used[n] = n, true
		return n
	}
}
