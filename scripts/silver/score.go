package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/span"
)

// config is the score command's parameters.
type config struct {
	root       string  // the manual's HTML root
	others     string  // other sites' pages (prepare -others), "" for none
	spans      string  // `pdc spans OUT --text --format jsonl` output
	sample     string  // file for the hand-check sample, "" for none
	run        int     // silver: run length in sentences
	minTokens  int     // silver: shorter sentences left out of runs
	window     int     // containment window, in source sentences
	minContain float64 // a passage sentence matches a source window at this gram containment
	jump       int     // a chain of matched sentences may move this far in the source
	minShare   float64 // a passage is content at this content share
	includes   bool    // inline `.. include::` files into the sources
	check      bool    // fail unless the targets hold
	minRecall  float64 // target: silver pairs found
	maxShare   float64 // target: template-only share of reported page pairs
}

// score reads the spans and prints the report (report.go).
func (m Main) score(args []string) error {
	fl := flag.NewFlagSet("silver score", flag.ContinueOnError)
	fl.SetOutput(m.Stderr)
	var c config
	fl.StringVar(&c.root, "html", "", "the manual's HTML root (holding _sources/)")
	fl.StringVar(&c.others, "others", "", "other sites' pages as prepare -others added them: each page's content is its expected.html")
	fl.StringVar(&c.spans, "spans", "", "spans as JSON Lines with passages (pdc spans OUT --text --format jsonl)")
	fl.StringVar(&c.sample, "sample", "", "write a sample of 50 reported pairs with their passages here")
	fl.IntVar(&c.run, "run", 3, "silver pairs share a run of this many sentences")
	fl.IntVar(&c.minTokens, "min-tokens", 3, "silver runs leave out sentences with fewer tokens")
	fl.IntVar(&c.window, "window", 3, "a passage sentence lies in one window of this many source sentences")
	fl.Float64Var(&c.minContain, "contain", 0.8, "share of a passage sentence's distinct token bigrams found in the window")
	fl.IntVar(&c.jump, "jump", 1, "consecutive matched passage sentences lie at most this many source sentences apart")
	fl.Float64Var(&c.minShare, "content-share", 0.8, "share of a passage's tokens in its best in-order chain that makes it content")
	fl.BoolVar(&c.includes, "includes", false, "inline the `.. include::` files Sphinx shipped into the sources (default: each source's own text only; shared include files are the site's notices)")
	fl.BoolVar(&c.check, "check", false, "exit 1 unless recall >= -min-recall and template-only share <= -max-template")
	fl.Float64Var(&c.minRecall, "min-recall", 0.95, "target for -check")
	fl.Float64Var(&c.maxShare, "max-template", 0.05, "target for -check")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if c.root == "" || c.spans == "" || fl.NArg() > 0 {
		fl.Usage()
		return errUsage
	}
	r, err := evaluate(c)
	if err != nil {
		return err
	}
	if err := r.print(m.Stdout); err != nil {
		return err
	}
	if c.sample != "" {
		if err := r.writeSample(c.sample, 50); err != nil {
			return err
		}
	}
	if c.check {
		return r.check(c)
	}
	return nil
}

// scored is one span with the content share of each passage.
type scored struct {
	span.Span
	shareA, shareB float64
	contentA       bool
	contentB       bool
}

// content reports whether either passage is content.
func (s *scored) content() bool { return s.contentA || s.contentB }

// readSpans reads JSON Lines spans.
func readSpans(name string) ([]*scored, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var out []*scored
	for {
		var s scored
		err := dec.Decode(&s.Span)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: span %d: %w", name, len(out)+1, err)
		}
		if s.TextA == nil || s.TextB == nil {
			return nil, fmt.Errorf("read %s: span %d has no passages (use pdc spans --text)", name, len(out)+1)
		}
		out = append(out, &s)
	}
}

// classifyPassages sets the content shares of every span's passages:
// against the page's source for a page, 0 for a page without a source, 1
// for a source document (it is its own content). One document's
// container is built at a time.
func classifyPassages(spans []*scored, srcs map[string]*source, c config) {
	type side struct {
		s *scored
		a bool
	}
	byDoc := map[string][]side{}
	var docs []string
	for _, s := range spans {
		for _, sd := range []side{{s, true}, {s, false}} {
			id := s.DocB
			if sd.a {
				id = s.DocA
			}
			if byDoc[id] == nil {
				docs = append(docs, id)
			}
			byDoc[id] = append(byDoc[id], sd)
		}
	}
	var tz sentence.Tokenizer
	for _, id := range docs {
		var cont *container
		if src := srcs[id]; src != nil {
			cont = newContainer(src, c.window)
		}
		for _, sd := range byDoc[id] {
			share := 0.0
			switch {
			case pageOf(id) != "":
				share = 1
			case cont != nil && sd.a:
				share = cont.share(*sd.s.TextA, c.minContain, c.jump, &tz)
			case cont != nil:
				share = cont.share(*sd.s.TextB, c.minContain, c.jump, &tz)
			}
			if sd.a {
				sd.s.shareA, sd.s.contentA = share, share >= c.minShare
			} else {
				sd.s.shareB, sd.s.contentB = share, share >= c.minShare
			}
		}
	}
}
