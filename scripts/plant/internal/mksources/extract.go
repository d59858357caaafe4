package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipClasses and skipIDs mark DocBook/Publican navigation, tables of
// contents, index terms and code listings, which are left out.
var (
	skipClasses = []string{"docnav", "navheader", "navfooter", "toc", "screen", "programlisting",
		"indexterm", "table", "informaltable", "synopsis", "literallayout"}
	skipIDs  = map[string]bool{"banner": true, "title": true}
	skipTags = map[atom.Atom]bool{atom.Head: true, atom.Script: true, atom.Style: true,
		atom.Pre: true, atom.Table: true}
	blockTags = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.Li: true, atom.Dt: true,
		atom.Dd: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
		atom.H6: true, atom.Blockquote: true, atom.Br: true, atom.Ul: true, atom.Ol: true, atom.Dl: true}
	headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}
)

// extractor collects blocks of visible text, grouped into documents.
type extractor struct {
	split int
	han   float64
	cur   strings.Builder // text of the current block
	docs  [][]string      // blocks per document
}

// extract returns the documents of one HTML page (one unless split > 0).
func extract(page []byte, split int, han float64) ([]string, error) {
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	e := &extractor{split: split, han: han, docs: [][]string{nil}}
	e.walk(root)
	e.endBlock()
	var out []string
	for _, blocks := range e.docs {
		if len(blocks) > 0 {
			out = append(out, strings.Join(blocks, "\n\n"))
		}
	}
	return out, nil
}

func skipped(n *html.Node) bool {
	if skipTags[n.DataAtom] {
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "id":
			if skipIDs[a.Val] {
				return true
			}
		case "class":
			for _, c := range strings.Fields(a.Val) {
				for _, s := range skipClasses {
					if c == s {
						return true
					}
				}
			}
		}
	}
	return false
}

func (e *extractor) walk(n *html.Node) {
	switch {
	case n.Type == html.TextNode:
		e.cur.WriteString(n.Data)
		return
	case n.Type == html.ElementNode && skipped(n):
		return
	}
	block := n.Type == html.ElementNode && blockTags[n.DataAtom]
	if block {
		e.endBlock()
		if lvl := headingLevel[n.DataAtom]; lvl > 0 && lvl <= e.split {
			e.docs = append(e.docs, nil)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		e.walk(c)
	}
	if block {
		e.endBlock()
	}
}

// endBlock closes the current block: white space collapsed (and dropped
// between two CJK characters), kept if non-empty and Han enough.
func (e *extractor) endBlock() {
	text := collapse(e.cur.String())
	e.cur.Reset()
	if text == "" || e.han > 0 && hanShare(text) < e.han {
		return
	}
	last := len(e.docs) - 1
	e.docs[last] = append(e.docs[last], text)
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

func collapse(s string) string {
	rs := []rune(strings.Join(strings.Fields(s), " "))
	out := rs[:0]
	for i, r := range rs {
		if r == ' ' && i > 0 && i+1 < len(rs) && isCJK(rs[i-1]) && isCJK(rs[i+1]) {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

func hanShare(s string) float64 {
	han, letters := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Han, r) {
				han++
			}
		}
	}
	if letters == 0 {
		return 0
	}
	return float64(han) / float64(letters)
}
