package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"
)

// genConfig is what gen builds (flags in gen; defaults in defaultGenConfig).
type genConfig struct {
	Copies, Others        int
	StoryFrom, OthersFrom string
	OwnFrom               []string // default: StoryFrom
	Seed                  uint64
	Out, Truth            string

	StorySentences int     // sentences of the story
	EditShare      float64 // share of the story's sentences edited in each copy
	Before, After  int     // own paragraphs before and after the story
	Near           float64 // own text has no sentence this similar (Jaccard) to any other
	Shared         int     // copies per group sharing a paragraph of text (0: none)
}

func defaultGenConfig() genConfig {
	return genConfig{Others: 5000, Seed: 1, StorySentences: 30, EditShare: 0.2, Before: 1, After: 1, Near: 0.6}
}

// genStats says what gen made.
type genStats struct {
	Story         string  `json:"story"`
	StoryStart    int     `json:"story_start"`
	Copies        int     `json:"copies"`
	Others        int     `json:"others"`
	OthersRead    int     `json:"others_read"`
	OthersDropped int     `json:"others_dropped"`
	Pieces        int     `json:"pieces"`
	OwnSentences  int     `json:"own_sentences"`
	OwnRejected   int     `json:"own_rejected"`
	OwnDocs       int     `json:"own_docs"`
	PoolSentences int     `json:"pool_sentences"`
	Bytes         int64   `json:"bytes"`
	Seconds       float64 `json:"seconds"`
}

func (m Main) gen(args []string) error {
	cfg := defaultGenConfig()
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.IntVar(&cfg.Copies, "copies", 1000, "copies of the story (N)")
	fs.IntVar(&cfg.Others, "others", cfg.Others, "other documents")
	fs.StringVar(&cfg.StoryFrom, "story-from", "", "JSON Lines file the story is drawn from (State of the Union addresses)")
	fs.StringVar(&cfg.OthersFrom, "others-from", "", "JSON Lines file of the other documents (the bench corpus)")
	fs.Func("own-from", "JSON Lines file or tree of .html pages the copies' own text is drawn from; repeatable (default: --story-from, less the story's document)", func(s string) error {
		cfg.OwnFrom = append(cfg.OwnFrom, s)
		return nil
	})
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	fs.StringVar(&cfg.Out, "out", "", "corpus to write (JSON Lines)")
	fs.StringVar(&cfg.Truth, "truth", "", "truth to write (TSV: id, first and last story sentence, own sentences)")
	fs.IntVar(&cfg.Before, "before", cfg.Before, "own paragraphs before the story")
	fs.IntVar(&cfg.After, "after", cfg.After, "own paragraphs after the story")
	fs.IntVar(&cfg.Shared, "shared", 0, "copies per group that share a paragraph of text besides the story, after their own (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.StoryFrom == "" || cfg.OthersFrom == "" || cfg.Out == "" || cfg.Truth == "" || fs.NArg() > 0 || cfg.Copies < 1 || cfg.Others < 0 {
		fmt.Fprintln(m.Stderr, "usage: mirrors gen --copies N --others 5000 --story-from F.jsonl --others-from F.jsonl [--own-from F.jsonl|DIR ...] --seed S --out corpus.jsonl --truth truth.tsv")
		return errUsage
	}
	if len(cfg.OwnFrom) == 0 {
		cfg.OwnFrom = []string{cfg.StoryFrom}
	}
	st, err := generate(cfg)
	if err != nil {
		return err
	}
	j, err := json.Marshal(st)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "%s\n", j)
	return err
}

// corpus is what gen writes: the story, its copies and the others, and
// the order of the records (indexes into copies, then others).
type corpus struct {
	Story  story
	Copies []copyPage
	Others []other
	Order  []int
	Stats  genStats
}

// generate writes the corpus and its truth (see the package comment).
func generate(cfg genConfig) (genStats, error) {
	start := time.Now()
	c, err := build(cfg)
	if err != nil {
		return genStats{}, err
	}
	if c.Stats.Bytes, err = writeCorpus(cfg.Out, c); err != nil {
		return genStats{}, err
	}
	if err := writeTruth(cfg.Truth, c.Copies); err != nil {
		return genStats{}, err
	}
	c.Stats.Seconds = time.Since(start).Seconds()
	return c.Stats, nil
}

// build reads the inputs and makes the corpus.
func build(cfg genConfig) (*corpus, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	storyDocs, err := readDocuments(cfg.StoryFrom)
	if err != nil {
		return nil, err
	}
	c := &corpus{}
	if c.Story, err = pickStory(storyDocs, cfg.StorySentences, rng); err != nil {
		return nil, fmt.Errorf("story from %s: %w", cfg.StoryFrom, err)
	}
	otherDocs, err := readDocuments(cfg.OthersFrom)
	if err != nil {
		return nil, err
	}
	v := newVocab()
	storySets := make([][]int32, len(c.Story.Sentences))
	for i, s := range c.Story.Sentences {
		storySets[i] = v.set(words(s))
	}
	otherSets := wordSets(otherDocs, v)
	wl := newWordList(v, docFreq(otherSets, len(v.words)))
	pool, err := readPool(cfg.OwnFrom, cfg.StoryFrom, storyDocs, c.Story.Doc, v)
	if err != nil {
		return nil, err
	}
	near := newNearIndex(cfg.Near, v.ranks())
	kept := withoutStory(otherDocs, otherSets, storySets, near)
	if c.Others, err = pickOthers(kept, cfg.Others, rng); err != nil {
		return nil, fmt.Errorf("others from %s: %w", cfg.OthersFrom, err)
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	own := &ownPool{docs: pool, near: near}
	c.Copies = make([]copyPage, cfg.Copies)
	var shared []string // the current group's paragraph
	for i := range c.Copies {
		if cfg.Shared > 0 && i%cfg.Shared == 0 {
			// 5 or 6 sentences: pdc's splitter may join two (after "Corp.",
			// "in p."), and it needs --lambda (3) to find a passage.
			if shared, err = own.paragraph(5 + rand.New(rand.NewPCG(cfg.Seed, uint64(1<<32+i))).IntN(2)); err != nil {
				return nil, fmt.Errorf("shared paragraph of copy %d: %w", i, err)
			}
		}
		if c.Copies[i], err = makeCopy(i, c.Story, cfg, own, wl, shared, rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1))); err != nil {
			if errors.Is(err, errPoolEmpty) {
				err = fmt.Errorf("%w (%d prose sentences in %s, %d used, %d near-duplicates left out): give more text with --own-from", err, own.Capacity(), strings.Join(cfg.OwnFrom, ", "), own.Used, own.Rejected)
			}
			return nil, err
		}
	}
	c.Order = rng.Perm(len(c.Copies) + len(c.Others))
	c.Stats = genStats{
		Story: c.Story.Doc, StoryStart: c.Story.Start, Copies: len(c.Copies), Others: len(c.Others),
		OthersRead: len(otherDocs), OthersDropped: len(otherDocs) - len(kept),
		OwnSentences: own.Used, OwnRejected: own.Rejected, OwnDocs: own.DocsUsed(), PoolSentences: own.Capacity(),
	}
	for _, o := range c.Others {
		if o.HTML == "" {
			c.Stats.Pieces++
		}
	}
	return c, nil
}

// withoutStory returns the documents none of whose sentences is near one
// of the story, and adds the story's and their sentences to near.
func withoutStory(docs []document, sets [][][]int32, storySets [][]int32, near *nearIndex) []document {
	storyIdx := newNearIndex(near.t, near.rank)
	for _, s := range storySets {
		storyIdx.add(s)
		near.add(s)
	}
	var kept []document
	for i, d := range docs {
		if !slices.ContainsFunc(sets[i], storyIdx.near) {
			kept = append(kept, d)
			for _, s := range sets[i] {
				near.add(s)
			}
		}
	}
	return kept
}

// wordSets returns the word sets of the sentences of 3 words or more of
// each document, counted in v.
func wordSets(docs []document, v *vocab) [][][]int32 {
	ws := make([][][]string, len(docs))
	parallel(len(docs), func(i int) {
		for _, s := range sentences(docs[i].Text) {
			if w := words(s); len(w) >= 3 {
				ws[i] = append(ws[i], w)
			}
		}
	})
	sets := make([][][]int32, len(docs))
	for i := range ws {
		for _, w := range ws[i] {
			sets[i] = append(sets[i], v.set(w))
		}
		ws[i] = nil
	}
	return sets
}

// docFreq returns in how many documents each word id occurs, given the
// documents' word sets.
func docFreq(docs [][][]int32, words int) []int32 {
	df := make([]int32, words)
	last := make([]int32, words)
	for i, sets := range docs {
		for _, set := range sets {
			for _, id := range set {
				if last[id] != int32(i+1) {
					last[id] = int32(i + 1)
					df[id]++
				}
			}
		}
	}
	return df
}

// readPool reads the documents of the own-text files (storyDocs for the
// story file, read already), less the story's document.
func readPool(files []string, storyFile string, storyDocs []document, storyDoc string, v *vocab) ([]poolDoc, error) {
	var docs []document
	for _, f := range files {
		if f == storyFile {
			docs = append(docs, slices.DeleteFunc(slices.Clone(storyDocs), func(d document) bool { return d.ID == storyDoc })...)
			continue
		}
		more, err := readDocuments(f)
		if err != nil {
			return nil, err
		}
		docs = append(docs, more...)
	}
	return newPoolDocs(docs, v), nil
}

// record is a corpus line, as pdc reads it (lib/doc).
type record struct {
	ID   string `json:"id"`
	URL  string `json:"url"`
	HTML string `json:"html,omitempty"`
	Text string `json:"text,omitempty"`
}

// writeCorpus writes the records of c in its order and returns the bytes
// written. The file appears whole or not at all.
func writeCorpus(path string, c *corpus) (int64, error) {
	return writeAtomic(path, func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, k := range c.Order {
			if err := enc.Encode(c.record(k)); err != nil {
				return err
			}
		}
		return nil
	})
}

// record returns the k-th record: copies first, then the others.
func (c *corpus) record(k int) record {
	if k < len(c.Copies) {
		p := c.Copies[k]
		return record{ID: p.ID, URL: p.URL, HTML: p.HTML}
	}
	o := c.Others[k-len(c.Copies)]
	if o.HTML == "" {
		return record{ID: o.ID, URL: o.URL, Text: o.Text}
	}
	return record{ID: o.ID, URL: o.URL, HTML: o.HTML}
}

// writeTruth writes one line per copy, in id order:
// id TAB first story sentence TAB last story sentence, then TAB and each of
// the copy's own sentences; with --shared, then TAB | TAB the copy's group
// (its first copy's id) and each sentence of the group's paragraph.
func writeTruth(path string, copies []copyPage) error {
	_, err := writeAtomic(path, func(w *bufio.Writer) error {
		for _, c := range copies {
			if _, err := fmt.Fprintf(w, "%s\t%s\t%s", c.ID, c.First, c.Last); err != nil {
				return err
			}
			for _, o := range c.Own {
				if _, err := fmt.Fprintf(w, "\t%s", o); err != nil {
					return err
				}
			}
			if len(c.Shared) > 0 {
				if _, err := fmt.Fprintf(w, "\t|\t%s\t%s", c.Group, strings.Join(c.Shared, "\t")); err != nil {
					return err
				}
			}
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// writeAtomic writes path through a temporary sibling renamed when fill
// and the close succeed, and returns the bytes written.
func writeAtomic(path string, fill func(*bufio.Writer) error) (int64, error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	var n int64
	if err == nil {
		if fi, serr := f.Stat(); serr == nil {
			n = fi.Size()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return n, nil
}
