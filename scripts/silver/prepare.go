package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// prepare writes pdc's input from the HTML root (see the package comment).
func (m Main) prepare(args []string) error {
	fl := flag.NewFlagSet("silver prepare", flag.ContinueOnError)
	fl.SetOutput(m.Stderr)
	root := fl.String("html", "", "the manual's HTML root (holding _sources/)")
	out := fl.String("out", "", "output directory (replaced)")
	urlBase := fl.String("url-base", "", "write JSON Lines with url URL-BASE+PATH instead of a tree")
	withSources := fl.Bool("sources", false, "add each page's source as a text document _sources/PATH.rst.txt")
	dump := fl.Bool("dump", false, "write JSON Lines without url (a dump of pages whose sites are unknown)")
	others := fl.String("others", "", "add the pages of other sites DIR/NAME/source.html as others/NAME.html (JSON Lines; content in DIR/NAME/expected.html, see -others of score)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *root == "" || *out == "" || fl.NArg() > 0 {
		fl.Usage()
		return errUsage
	}
	docs, err := inputDocs(*root, *withSources)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var name string
	if *urlBase != "" || *dump || *others != "" {
		name = filepath.Join(*out, "pages.jsonl")
		err = writeJSONL(name, *root, *urlBase, docs, *others)
	} else {
		name = filepath.Join(*out, "pages")
		err = linkTree(name, *root, docs)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(m.Stdout, name)
	return nil
}

// pages lists the .html files under root (outside _sources/), as
// slash-separated relative paths in bytewise order.
func pages(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel == "_sources" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".html") {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// sourceID is the id of page's source document: _sources/library/os.rst.txt
// for library/os.html, the file Sphinx writes.
func sourceID(page string) string {
	return "_sources/" + strings.TrimSuffix(page, ".html") + ".rst.txt"
}

// pageOf is the page of a source id (sourceID's inverse), or "".
func pageOf(id string) string {
	rest, ok := strings.CutPrefix(id, "_sources/")
	if !ok || !strings.HasSuffix(rest, ".rst.txt") {
		return ""
	}
	return strings.TrimSuffix(rest, ".rst.txt") + ".html"
}

// inputDocs lists the documents to give pdc: the pages, and with
// withSources the sources of those that have one.
func inputDocs(root string, withSources bool) ([]string, error) {
	ps, err := pages(root)
	if err != nil || !withSources {
		return ps, err
	}
	docs := ps
	for _, p := range ps {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(sourceID(p)))); err == nil {
			docs = append(docs, sourceID(p))
		}
	}
	sort.Strings(docs)
	return docs, nil
}

// linkTree makes dir a tree of symbolic links to root's documents.
func linkTree(dir, root string, docs []string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	for _, d := range docs {
		p := filepath.Join(dir, filepath.FromSlash(d))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(filepath.Join(abs, filepath.FromSlash(d)), p); err != nil {
			return err
		}
	}
	return nil
}

// writeJSONL writes docs as JSON Lines: pages as html, sources as text,
// with url urlBase+PATH unless urlBase is ""; then the pages of other
// sites under others, if any, without url.
func writeJSONL(name, root, urlBase string, docs []string, others string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil {
			f.Close()
			return err
		}
		rec := map[string]string{"id": d}
		if urlBase != "" {
			rec["url"] = urlBase + path.Clean(d)
		}
		if pageOf(d) != "" {
			rec["text"] = string(b)
		} else {
			rec["html"] = string(b)
		}
		if err := enc.Encode(rec); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	if others != "" {
		names, err := otherPages(others)
		if err != nil {
			f.Close()
			return err
		}
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(others, n, "source.html"))
			if err != nil {
				f.Close()
				return err
			}
			if err := enc.Encode(map[string]string{"id": otherID(n), "html": string(b)}); err != nil {
				f.Close()
				return fmt.Errorf("write %s: %w", name, err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}

// otherPages lists the pages of other sites under dir: the names of its
// subdirectories holding source.html and expected.html, in order.
func otherPages(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("other sites' pages: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		_, err1 := os.Stat(filepath.Join(dir, e.Name(), "source.html"))
		_, err2 := os.Stat(filepath.Join(dir, e.Name(), "expected.html"))
		if err1 == nil && err2 == nil {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("other sites' pages: no NAME/source.html with NAME/expected.html in %s", dir)
	}
	return out, nil
}

// otherID is the document id of the other site's page name.
func otherID(name string) string { return "others/" + name + ".html" }
