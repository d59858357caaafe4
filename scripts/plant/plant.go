// Package plant builds a graded ground-truth corpus for located text reuse:
// from real documents it copies runs of consecutive sentences from a source
// document into a different target document at a sentence boundary, applies
// an edit of a given class, and records where each run came from and went to
// as eval.Case values (truth JSONL and, optionally, PAN XML). The rest of each
// target is kept, and unplanted documents from the same collections are added
// as distractors, so both missed and false detections are possible.
//
// Only sentences that end with sentence-final punctuation and occur once in
// the whole collection (up to case and white space) are copied, each at most
// once, so a planted run does not also duplicate text that the source shares
// with other documents (the State of the Union addresses repeat themselves)
// and no two targets share copied text. Reuse that already exists between
// the real documents stays unannotated; see eval.Unmatched. Sentences are
// split with lib/sentence, as pdc splits them.
//
// Offsets are Unicode code points into the final document texts. Source
// documents are never modified (sources and targets are disjoint), so source
// offsets refer to the text as given. Sentences inside a planted run keep the
// separators they had in the source (a space in English, nothing in Chinese,
// "\n\n" between paragraphs); the run is joined to the target text with a
// space (English) or nothing (Chinese) after a sentence that ends with
// sentence-final punctuation, and with "\n\n" otherwise.
//
// Build is deterministic for a given Config and source list.
package plant

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/eval"
)

// The edit classes. A run of the Reordered class yields two cases.
const (
	// Verbatim copies the run unchanged.
	Verbatim = "verbatim"
	// Light changes case, punctuation and white space in every sentence.
	Light = "light"
	// WordEdits substitutes, inserts or deletes about 10% of the words of
	// every sentence (at least one), with words from the corpus vocabulary;
	// in Chinese each Han character counts as a word.
	WordEdits = "word-edits"
	// SentenceRewritten replaces one inner sentence of the run (runs of at
	// least 3 sentences) by a different real sentence from another document
	// of the same language.
	SentenceRewritten = "sentence-rewritten"
	// SentenceDropped removes one inner sentence of the run (runs of at
	// least 3 sentences).
	SentenceDropped = "sentence-dropped"
	// Reordered splits the run in two parts that are planted swapped, as two
	// paragraphs, and recorded as two cases. Its runs have at least
	// 2*MinRun sentences (if the sources allow), so that each part has at
	// least MinRun.
	Reordered = "reordered"
)

// The hard tier: edit classes used only when Config.Classes names them
// (see hard.go). Each edits-N class edits N% of the words of every sentence
// of the run (of its Han characters in a Chinese document), at least one
// edit per sentence: max(1, round(N% of the words)) edits, each one of
// substituting a word by one of similar length from the collection's
// vocabulary (a Han character by another), inserting one, deleting one or
// swapping two neighbours. Sentence boundaries are kept.
const (
	Edits10 = "edits-10"
	Edits20 = "edits-20"
	Edits30 = "edits-30"
	// MergeSplit merges two sentences of the run by removing the full stop
	// between them ("." or "。"; the next word lower-cased) or splits a
	// long sentence by adding one near its middle (the next word
	// capitalised): round(n/4) changes in a run of n sentences, at least
	// one. The words are kept (runs of at least 2 sentences).
	MergeSplit = "merge-split"
)

// Classes lists the default edit classes, the default for Config.Classes.
var Classes = []string{Verbatim, Light, WordEdits, SentenceRewritten, SentenceDropped, Reordered}

// HardClasses lists the classes of the hard tier, used only when asked
// for.
var HardClasses = []string{Edits10, Edits20, Edits30, MergeSplit}

// minRun is the smallest run each class can work on.
var minRun = map[string]int{Verbatim: 1, Light: 1, WordEdits: 1, SentenceRewritten: 3, SentenceDropped: 3, Reordered: 2,
	Edits10: 1, Edits20: 1, Edits30: 1, MergeSplit: 2}

// KnownClass reports whether name is an edit class of Classes or
// HardClasses.
func KnownClass(name string) bool {
	_, ok := minRun[name]
	return ok
}

// Config controls Build.
type Config struct {
	// Seed makes the corpus reproducible.
	Seed int64
	// Pairs is the number of planted runs (a reordered run gives two cases).
	Pairs int
	// MinRun and MaxRun bound the run length in sentences (default 3 and 15).
	MinRun, MaxRun int
	// Classes are used in turn, run i getting Classes[i%len(Classes)]
	// (default: all of Classes; HardClasses only when named).
	Classes []string
	// Copies is the number of targets each run is planted into, each copy
	// edited on its own (default 1; capped by the targets there are).
	Copies int
	// Distractors is the number of unplanted documents added besides the
	// sources and targets; a negative value adds all of them.
	Distractors int
}

// Source is a real document. Lang is "en" or "zh" (anything starting with
// "zh" counts as Chinese); when empty it is guessed from the script.
type Source struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Lang string `json:"lang,omitempty"`
}

// Stats summarises a built corpus.
type Stats struct {
	Docs        int            // documents written
	Targets     int            // documents that received planted text
	Sources     int            // documents text was copied from
	Distractors int            // other documents written
	Runs        int            // planted runs
	Cases       int            // truth cases (reordered runs count twice)
	ByClass     map[string]int // cases per class
	ByLang      map[string]int // cases per language
}

func (cfg Config) withDefaults() (Config, error) {
	if cfg.MinRun == 0 {
		cfg.MinRun = 3
	}
	if cfg.MaxRun == 0 {
		cfg.MaxRun = max(15, cfg.MinRun)
	}
	if len(cfg.Classes) == 0 {
		cfg.Classes = Classes
	}
	switch {
	case cfg.Pairs < 0:
		return cfg, fmt.Errorf("pairs %d < 0", cfg.Pairs)
	case cfg.MinRun < 1 || cfg.MaxRun < cfg.MinRun:
		return cfg, fmt.Errorf("bad run bounds %d..%d", cfg.MinRun, cfg.MaxRun)
	}
	for _, c := range cfg.Classes {
		if !KnownClass(c) {
			return cfg, fmt.Errorf("unknown class %q", c)
		}
	}
	return cfg, nil
}

// ReadSources reads sources JSONL ({"id":..,"text":..,"lang":..} per line).
func ReadSources(r io.Reader) ([]Source, error) {
	dec := json.NewDecoder(r)
	var out []Source
	for {
		var s Source
		err := dec.Decode(&s)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read sources: record %d: %w", len(out)+1, err)
		}
		out = append(out, s)
	}
}

// Build plants cfg.Pairs runs into documents drawn from sources and writes
// the corpus documents (JSONL {"id","text"}, sorted by id) to docs, the truth
// cases (eval truth JSONL, sorted by target and offset) to truth and, when
// panDir is not empty, the cases as PAN XML files into panDir.
func Build(cfg Config, sources []Source, docs io.Writer, truth io.Writer, panDir string) (Stats, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Stats{}, fmt.Errorf("plant: %w", err)
	}
	b, err := newBuilder(cfg, sources)
	if err != nil {
		return Stats{}, fmt.Errorf("plant: %w", err)
	}
	for i := range cfg.Pairs {
		if err := b.plant(i); err != nil {
			return Stats{}, fmt.Errorf("plant run %d: %w", i, err)
		}
	}
	out, cases, st := b.finish()
	if err := writeDocs(docs, out); err != nil {
		return Stats{}, err
	}
	if err := eval.WriteTruthJSONL(truth, cases); err != nil {
		return Stats{}, err
	}
	if panDir != "" {
		if err := eval.WritePANXML(panDir, cases); err != nil {
			return Stats{}, err
		}
	}
	return st, nil
}

// docRecord is one output document line.
type docRecord struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func writeDocs(w io.Writer, docs []*document) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range docs {
		if err := enc.Encode(docRecord{ID: d.id, Text: d.final}); err != nil {
			return fmt.Errorf("write docs: %w", err)
		}
	}
	return nil
}

// isZh reports whether lang names Chinese, or, when lang is empty, whether
// Han characters make up at least a third of the letters of text.
func isZh(lang string, text []rune) bool {
	if lang != "" {
		return strings.HasPrefix(strings.ToLower(lang), "zh")
	}
	return eval.GuessLang(string(text)) == "zh"
}

// shuffled returns a deterministic permutation of s.
func shuffled[T any](rng *rand.Rand, s []T) []T {
	s = slices.Clone(s)
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}
