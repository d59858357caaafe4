package main

import (
	"errors"
	"slices"
	"strings"
)

// poolDoc is a document the copies' own text is drawn from: its prose
// sentences (prose), their words and their word sets.
type poolDoc struct {
	ID    string
	Sents []string
	Words [][]string
	Sets  [][]int32
}

// newPoolDocs returns the documents with prose sentences, their word sets
// counted in v.
func newPoolDocs(docs []document, v *vocab) []poolDoc {
	pool := make([]poolDoc, len(docs))
	parallel(len(docs), func(i int) {
		p := poolDoc{ID: docs[i].ID}
		for _, s := range sentences(docs[i].Text) {
			if prose(s) {
				p.Sents = append(p.Sents, s)
				p.Words = append(p.Words, words(s))
			}
		}
		pool[i] = p
	})
	pool = slices.DeleteFunc(pool, func(p poolDoc) bool { return len(p.Sents) == 0 })
	for i := range pool {
		p := &pool[i]
		for _, ws := range p.Words {
			p.Sets = append(p.Sets, v.set(ws))
		}
		p.Words = nil
	}
	return pool
}

// errPoolEmpty is returned when the pool has no paragraph left.
var errPoolEmpty = errors.New("the own-text pool ran out")

// ownPool hands out the copies' own paragraphs: runs of prose sentences
// of one pool document, the documents in turn, each sentence at most once
// and none a near-duplicate of one seen before (near holds the story, the
// other documents and the own text handed out so far). A document whose
// rest is too short for the next paragraph is left.
type ownPool struct {
	docs     []poolDoc
	di, si   int // the next sentence: docs[di].Sents[si]
	near     *nearIndex
	Used     int // sentences handed out
	Rejected int // sentences left out as near-duplicates
}

// paragraph returns the next k sentences of the current document that are
// no near-duplicates, moving to the next document when it has too few.
func (p *ownPool) paragraph(k int) ([]string, error) {
	for p.di < len(p.docs) {
		d := &p.docs[p.di]
		var para []string
		for p.si < len(d.Sents) && len(para) < k {
			s, set := d.Sents[p.si], d.Sets[p.si]
			p.si++
			if p.near.near(set) {
				p.Rejected++
				continue
			}
			p.near.add(set)
			para = append(para, s)
		}
		if len(para) == k {
			p.Used += k
			return para, nil
		}
		p.di, p.si = p.di+1, 0
	}
	return nil, errPoolEmpty
}

// DocsUsed returns how many pool documents own text was taken from.
func (p *ownPool) DocsUsed() int { return min(p.di+1, len(p.docs)) }

// Capacity returns the prose sentences of the pool, used or not.
func (p *ownPool) Capacity() int {
	n := 0
	for _, d := range p.docs {
		n += len(d.Sents)
	}
	return n
}

// paraHTML writes a paragraph element holding sentences.
func paraHTML(b *strings.Builder, sents []string) {
	b.WriteString("<p>")
	for i, s := range sents {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(escapeText(s))
	}
	b.WriteString("</p>\n")
}

// escapeText escapes text for an HTML element's content.
func escapeText(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
