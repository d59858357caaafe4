package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pdc-mr/pdc/lib/htmltext"
	"github.com/pdc-mr/pdc/lib/sentence"
)

// source is one page's content: its stripped reST source, split into
// sentences and tokens with pdc's own splitter and tokenizer
// (lib/sentence), so that sentence boundaries and tokens mean the same as
// in the spans scored.
type source struct {
	page       string
	text       string
	sents      []sentence.Span
	toks       [][]uint64 // token hashes of each sentence, in order
	unresolved int        // includes not inlined
}

// loadSources reads the source of every page that has one, and strips it
// with the section labels of all.
func loadSources(root string, pages []string, includes bool) (map[string]*source, error) {
	raws := map[string]string{}
	unresolved := map[string]int{}
	labels := map[string]string{}
	for _, p := range pages {
		raw, n, ok, err := loadSource(root, p, includes)
		if err != nil {
			return nil, fmt.Errorf("read source of %s: %w", p, err)
		}
		if ok {
			raws[p], unresolved[p] = raw, n
			addLabels(labels, raw)
		}
	}
	out := map[string]*source{}
	var tz sentence.Tokenizer
	for p, raw := range raws {
		out[p] = newSource(p, stripReST(raw, labels), &tz)
		out[p].unresolved = unresolved[p]
	}
	return out, nil
}

// newSource splits and tokenizes text, the stripped source of page.
func newSource(page, text string, tz *sentence.Tokenizer) *source {
	s := &source{page: page, text: text, sents: sentence.Split(nil, text)}
	for _, sp := range s.sents {
		s.toks = append(s.toks, tz.Hashes(nil, text[sp.ByteStart:sp.ByteEnd]))
	}
	return s
}

// sentenceText is sentence i of s.
func (s *source) sentenceText(i int) string {
	return s.text[s.sents[i].ByteStart:s.sents[i].ByteEnd]
}

// loadOthers adds to srcs the other sites' pages under dir (prepare
// -others), each with the visible text of its expected.html (the article
// readability keeps) as its content, and returns their ids.
func loadOthers(srcs map[string]*source, dir string) ([]string, error) {
	names, err := otherPages(dir)
	if err != nil {
		return nil, err
	}
	var tz sentence.Tokenizer
	var ids []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n, "expected.html"))
		if err != nil {
			return nil, fmt.Errorf("content of %s: %w", n, err)
		}
		res, err := htmltext.ExtractUTF8(b)
		if err != nil {
			return nil, fmt.Errorf("content of %s: %w", n, err)
		}
		id := otherID(n)
		srcs[id] = newSource(id, res.Text, &tz)
		ids = append(ids, id)
	}
	return ids, nil
}
