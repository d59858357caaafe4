package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// truthRow is a line of truth.tsv: a copy, its first and last story
// sentences as placed, and its own sentences.
type truthRow struct {
	ID, First, Last string
	Own             []string
	// Group and Shared: the copy's group (its first copy's id) and the
	// paragraph the group shares (gen --shared), if any.
	Group  string
	Shared []string
}

// summary is check's report, printed as one line of JSON.
type summary struct {
	Copies          int           `json:"copies"`
	Clusters        int           `json:"clusters"`
	Largest         string        `json:"largest"`           // the cluster holding the most copies
	LargestSize     int           `json:"largest_size"`      // its documents
	CopiesInLargest int           `json:"copies_in_largest"` // copies among them
	Share           float64       `json:"share"`             // CopiesInLargest / Copies
	OthersInLargest int           `json:"others_in_largest"` // documents of it that are no copy
	Located         int           `json:"located"`           // copies whose text in it holds the first and last story sentence
	LocatedShare    float64       `json:"located_share"`
	WithContainment int           `json:"with_containment"` // copies in some pair of pdc pairs
	ContainShare    float64       `json:"containment_share"`
	Pairs           int           `json:"pairs"`           // lines of --pairs
	OtherPairs      int           `json:"other_pairs"`     // of them, pairs of two documents that are no copy
	Spans           *int          `json:"spans,omitempty"` // lines of --spans
	Dedup           *dedupSummary `json:"dedup,omitempty"`
}

// dedupSummary is what check finds in the documents pdc dedup wrote
// (--clean).
type dedupSummary struct {
	Seconds       float64 `json:"seconds"`        // --dedup-seconds
	Docs          int     `json:"docs"`           // lines of docs.jsonl
	StoryKept     int     `json:"story_kept"`     // copies holding the story's first and last sentences
	StoryRemnants int     `json:"story_remnants"` // copies holding one of the two only
	StoryWords    int     `json:"story_words"`    // words of the copy with the most words that are none of its own sentences
	WordsLeft     int     `json:"words_left"`     // such words in all the other copies
	Own           int     `json:"own"`            // the copies' own sentences
	OwnKept       int     `json:"own_kept"`       // of them, still in their copy's text word for word
	OwnIntact     int     `json:"own_intact"`     // copies with all their own sentences
	// With gen --shared: the groups, those whose shared paragraph is whole
	// in exactly one copy of theirs, and the copies holding part of it.
	SharedGroups   int `json:"shared_groups,omitempty"`
	SharedOnce     int `json:"shared_once,omitempty"`
	SharedRemnants int `json:"shared_remnants,omitempty"`
}

// right reports whether the story is in one copy whole, in no other, and
// every own sentence kept.
func (d *dedupSummary) right() bool {
	return d.StoryKept == 1 && d.StoryRemnants == 0 && d.WordsLeft == 0 && d.OwnKept == d.Own &&
		d.SharedOnce == d.SharedGroups && d.SharedRemnants == 0
}

func (m Main) check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	truthPath := fs.String("truth", "", "truth.tsv written by gen")
	clusters := fs.String("clusters", "", "output of pdc clusters OUT --format jsonl --text")
	pairs := fs.String("pairs", "", "output of pdc pairs OUT (optional)")
	spans := fs.String("spans", "", "output of pdc spans OUT, to count its lines (optional)")
	minShare := fs.Float64("min-share", 0, "fail (exit 1) when the largest cluster holds a smaller share of the copies")
	clean := fs.String("clean", "", "docs.jsonl of pdc dedup OUT --output CLEAN (optional)")
	dedupSecs := fs.Float64("dedup-seconds", 0, "the time pdc dedup took, recorded with --clean")
	dedupCheck := fs.Bool("dedup-check", false, "with --clean, fail (exit 1) unless the story is left in one copy, whole, and every own sentence is kept")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *truthPath == "" || *clusters == "" || fs.NArg() > 0 || *dedupCheck && *clean == "" {
		fmt.Fprintln(m.Stderr, "usage: mirrors check --truth truth.tsv --clusters clusters.jsonl [--pairs pairs.tsv] [--spans spans.tsv] [--min-share X] [--clean docs.jsonl [--dedup-seconds S] [--dedup-check]]")
		return errUsage
	}
	s, err := checkFiles(*truthPath, *clusters, *pairs, *spans)
	if err != nil {
		return err
	}
	if *clean != "" {
		truth, err := readTruth(*truthPath)
		if err != nil {
			return err
		}
		if len(truth) > 0 && !slices.ContainsFunc(truth, func(t truthRow) bool { return len(t.Own) > 0 }) {
			return fmt.Errorf("%s lists no copy's own sentences: it was written by an older mirrors gen (delete the corpus to have it made again)", *truthPath)
		}
		s.Dedup = &dedupSummary{Seconds: *dedupSecs}
		if err := withFile(*clean, func(r io.Reader) error { return s.Dedup.add(r, truth) }); err != nil {
			return fmt.Errorf("%s: %w", *clean, err)
		}
	}
	j, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(m.Stdout, "%s\n", j); err != nil {
		return err
	}
	if d := s.Dedup; *dedupCheck && d != nil && !d.right() {
		return fmt.Errorf("after pdc dedup the story is whole in %d copies (want 1), its first or last sentence in %d more (want 0), %d words other than their own in the other copies (want 0), %d of %d own sentences are kept, and %d of %d shared paragraphs are whole in exactly one copy of their group (%d copies hold part of one)", d.StoryKept, d.StoryRemnants, d.WordsLeft, d.OwnKept, d.Own, d.SharedOnce, d.SharedGroups, d.SharedRemnants)
	}
	if s.Share < *minShare {
		return fmt.Errorf("largest cluster holds %.4f of the copies, under --min-share %g", s.Share, *minShare)
	}
	return nil
}

// checkFiles reads the truth and pdc's output and summarizes them.
func checkFiles(truthPath, clustersPath, pairsPath, spansPath string) (summary, error) {
	var s summary
	truth, err := readTruth(truthPath)
	if err != nil {
		return s, err
	}
	s.Copies = len(truth)
	byID := make(map[string]truthRow, len(truth))
	for _, t := range truth {
		byID[t.ID] = t
	}
	if err := withFile(clustersPath, func(r io.Reader) error { return s.addClusters(r, byID) }); err != nil {
		return s, err
	}
	if pairsPath != "" {
		if err := withFile(pairsPath, func(r io.Reader) error { return s.addPairs(r, byID) }); err != nil {
			return s, err
		}
	}
	if spansPath != "" {
		if err := withFile(spansPath, func(r io.Reader) error {
			n, err := countLines(r)
			s.Spans = &n
			return err
		}); err != nil {
			return s, err
		}
	}
	if s.Copies > 0 {
		s.Share = round4(float64(s.CopiesInLargest) / float64(s.Copies))
		s.LocatedShare = round4(float64(s.Located) / float64(s.Copies))
		s.ContainShare = round4(float64(s.WithContainment) / float64(s.Copies))
	}
	return s, nil
}

func round4(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

// withFile calls read with the file at path open.
func withFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := read(bufio.NewReaderSize(f, 1<<20)); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// readTruth reads truth.tsv.
func readTruth(path string) ([]truthRow, error) {
	var rows []truthRow
	err := withFile(path, func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			f := strings.Split(sc.Text(), "\t")
			if len(f) < 3 {
				return fmt.Errorf("line %d: %d fields, want 3 or more", n, len(f))
			}
			row := truthRow{ID: f[0], First: f[1], Last: f[2], Own: f[3:]}
			if i := slices.Index(row.Own, "|"); i >= 0 {
				if i+1 >= len(row.Own) {
					return fmt.Errorf("line %d: no group after |", n)
				}
				row.Group, row.Shared, row.Own = row.Own[i+1], row.Own[i+2:], row.Own[:i]
			}
			rows = append(rows, row)
		}
		return sc.Err()
	})
	return rows, err
}

// cluster is a line of pdc clusters --format jsonl (fields missing are
// empty).
type cluster struct {
	Cluster string `json:"cluster"`
	Size    int    `json:"size"`
	Members []struct {
		Doc  json.RawMessage `json:"doc"`
		Text string          `json:"text"`
	} `json:"members"`
}

// addClusters finds the cluster holding the most copies (the first of
// those that hold as many) and how many of them it located.
func (s *summary) addClusters(r io.Reader, truth map[string]truthRow) error {
	dec := json.NewDecoder(r)
	for {
		var c cluster
		if err := dec.Decode(&c); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("cluster %d: %w", s.Clusters+1, err)
		}
		s.Clusters++
		texts := make(map[string][]string)
		docs := make(map[string]bool)
		for _, mb := range c.Members {
			id := rawID(mb.Doc)
			docs[id] = true
			if _, ok := truth[id]; ok {
				texts[id] = append(texts[id], mb.Text)
			}
		}
		if len(texts) <= s.CopiesInLargest {
			continue
		}
		s.Largest, s.CopiesInLargest = c.Cluster, len(texts)
		s.LargestSize = max(c.Size, len(docs))
		s.OthersInLargest = len(docs) - len(texts)
		s.Located = 0
		for id, ts := range texts {
			t := truth[id]
			text := words(strings.Join(ts, "\n"))
			if holds(text, words(t.First)) && holds(text, words(t.Last)) {
				s.Located++
			}
		}
	}
}

// holds reports whether the words of a text hold those of a sentence: in
// order, with at most one in five (at least one) replaced, or with its
// first five and last five in order.
func holds(text, sent []string) bool {
	if len(sent) == 0 {
		return true
	}
	if within(text, sent, max(1, len(sent)/5)) {
		return true
	}
	k := min(5, len(sent))
	return within(text, sent[:k], 0) && within(text, sent[len(sent)-k:], 0)
}

// without returns text less the first run of words equal to sent,
// replaced by a word no sentence has (the words around it stay apart).
func without(text, sent []string) []string {
	for i := 0; len(sent) > 0 && i+len(sent) <= len(text); i++ {
		if slices.Equal(text[i:i+len(sent)], sent) {
			return slices.Concat(text[:i], []string{"\x00"}, text[i+len(sent):])
		}
	}
	return text
}

// within reports whether some run of len(sent) words of text differs from
// sent in at most miss words.
func within(text, sent []string, miss int) bool {
	for i := 0; i+len(sent) <= len(text); i++ {
		m := 0
		for j, w := range sent {
			if text[i+j] != w {
				if m++; m > miss {
					break
				}
			}
		}
		if m <= miss {
			return true
		}
	}
	return false
}

// addPairs counts the copies in some line of pdc pairs (doc_a TAB doc_b
// TAB ...; a header line is skipped) and the pairs of no copy.
func (s *summary) addPairs(r io.Reader, truth map[string]truthRow) error {
	seen := make(map[string]bool)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) < 2 || f[0] == "doc_a" {
			continue
		}
		s.Pairs++
		copies := 0
		for _, id := range f[:2] {
			if _, ok := truth[id]; ok {
				seen[id] = true
				copies++
			}
		}
		if copies == 0 {
			s.OtherPairs++
		}
	}
	s.WithContainment = len(seen)
	return sc.Err()
}

// countLines returns the lines of r (a last line without a newline
// counts).
func countLines(r io.Reader) (int, error) {
	br := bufio.NewReader(r)
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			n++
		} else if len(line) > 0 && errors.Is(err, io.EOF) {
			n++
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}

// add reads docs.jsonl (one {"id", "text"} object per line) and counts what
// it finds of the copies of truth.
func (d *dedupSummary) add(r io.Reader, truth []truthRow) error {
	byID := make(map[string]truthRow, len(truth))
	groups := map[string]int{} // copies holding the group's paragraph whole
	for _, t := range truth {
		byID[t.ID] = t
		d.Own += len(t.Own)
		if t.Group != "" {
			groups[t.Group] += 0
		}
	}
	defer func() {
		d.SharedGroups = len(groups)
		for _, n := range groups {
			if n == 1 {
				d.SharedOnce++
			}
		}
	}()
	dec := json.NewDecoder(r)
	for {
		var rec struct{ ID, Text string }
		if err := dec.Decode(&rec); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("record %d: %w", d.Docs+1, err)
		}
		d.Docs++
		t, ok := byID[rec.ID]
		if !ok {
			continue
		}
		text := words(rec.Text)
		first, last := holds(text, words(t.First)), holds(text, words(t.Last))
		switch {
		case first && last:
			d.StoryKept++
		case first || last:
			d.StoryRemnants++
		}
		intact, ownWords := true, 0
		for _, o := range t.Own {
			if ow := words(o); within(text, ow, 0) {
				d.OwnKept++
				ownWords += len(ow)
			} else {
				intact = false
			}
		}
		if intact {
			d.OwnIntact++
		}
		if len(t.Shared) > 0 {
			// The group's sentences, looked for outside the copy's own
			// (a short one may open a longer own sentence).
			rest := text
			for _, o := range t.Own {
				rest = without(rest, words(o))
			}
			n, sw := 0, 0
			for _, o := range t.Shared {
				if ow := words(o); within(rest, ow, 0) {
					n++
					sw += len(ow)
				}
			}
			switch {
			case n == len(t.Shared):
				groups[t.Group]++
				ownWords += sw // the copy that keeps the paragraph
			case n > 0:
				d.SharedRemnants++
			}
		}
		// Words that are none of the copy's own sentences: the story's, or
		// what is left of it. All but the copy with the most count as left.
		left := max(0, len(text)-ownWords)
		d.WordsLeft += min(left, d.StoryWords)
		d.StoryWords = max(d.StoryWords, left)
	}
}
