package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// A document as pdc reads it from JSON Lines (lib/doc): id (a string or a
// number), url (optional) and html or text (html wins when both are
// present). Text is the visible text: text as given, or htmlText(html).
type document struct {
	ID   string
	URL  string
	HTML string
	Text string
}

type jsonDocument struct {
	ID   json.RawMessage `json:"id"`
	URL  string          `json:"url"`
	HTML *string         `json:"html"`
	Text *string         `json:"text"`
}

// readDocuments reads the documents of a JSON Lines file, or the .html
// pages of a directory tree (id: the path in the tree, no url), and
// extracts their text (on all cores). Records without an id or a body are
// skipped, as pdc skips them.
func readDocuments(path string) ([]document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return readTree(path)
	}
	var docs []document
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	for {
		var j jsonDocument
		if err := dec.Decode(&j); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read %s: document %d: %w", path, len(docs)+1, err)
		}
		d := document{ID: rawID(j.ID), URL: j.URL}
		switch {
		case d.ID == "":
			continue
		case j.HTML != nil:
			d.HTML = *j.HTML
		case j.Text != nil:
			d.Text = *j.Text
		default:
			continue
		}
		docs = append(docs, d)
	}
	extractAll(docs)
	return docs, nil
}

// readTree reads the .html pages under root, in path order (links to
// directories are not followed).
func readTree(root string) ([]document, error) {
	var docs []document
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		docs = append(docs, document{ID: filepath.ToSlash(rel), HTML: string(b)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	extractAll(docs)
	return docs, nil
}

// rawID returns a JSON id as pdc names the document: a string's value, a
// number's digits.
func rawID(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return string(raw)
	}
	return ""
}

// extractAll sets the text of the HTML documents.
func extractAll(docs []document) {
	parallel(len(docs), func(i int) {
		if docs[i].HTML != "" {
			docs[i].Text = htmlText(docs[i].HTML)
		}
	})
}

// parallel calls f(i) for each i in [0, n), on all cores.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	wg.Wait()
}
