// Command mirrors builds and scores the mirrors benchmark
// (scripts/mirrors.sh): one real story copied, lightly edited, into N
// pages among other documents, to check that pdc's passage clusters hold
// every copy and that its cost grows linearly with N.
//
//	mirrors gen --copies N --others 5000 --story-from sotu.jsonl --others-from corpus-100.jsonl
//	            [--own-from F.jsonl|DIR ...] [--before 1 --after 1] [--shared K] --seed S --out corpus.jsonl --truth truth.tsv
//	mirrors check --truth truth.tsv --clusters clusters.jsonl [--pairs pairs.tsv] [--spans spans.tsv] [--min-share X]
//	              [--clean docs.jsonl [--dedup-seconds S] [--dedup-check]]
//	mirrors table RESULTS.tsv
//
// gen reads JSON Lines documents as pdc does (lib/doc: id, url, html or
// text) and writes the corpus, one record per line, in a random order:
//
//   - The story: 30 consecutive sentences of 6 words or more (sentences
//     end at '.', '?' or '!' before a capital letter, not after an
//     abbreviation) of one document of --story-from, the document and
//     the place chosen by the seed; grouped into paragraphs of 3 to 6
//     sentences, the same in every copy.
//   - N copies {"id": "mirror-%05d", "url": "https://mirror%05d.example.org/story.html",
//     "html": ...}: a page of <p> elements, --before (1) paragraphs of its
//     own text, the story, --after (1) more. In each copy, 20% of the
//     story's sentences (6), chosen at random, have exactly one word (of 3
//     letters or more, not an abbreviation) replaced by a word of the
//     others' vocabulary (ASCII letters with a vowel, found in 3 documents
//     or more) within one letter of its length, in the same case, and not
//     in the sentence.
//   - Own text: paragraphs of 3 to 6 prose sentences (6 to 60 words, a
//     capital first, '.', '?' or '!' last) taken in order from the
//     documents of --own-from (JSON Lines files or trees of .html pages;
//     default: --story-from), less the story's document, the documents in
//     a random order, a new document when the current one has too few
//     sentences left for the next paragraph. No sentence is used twice,
//     and none whose word set has a Jaccard similarity of 0.6 or more (pdc
//     joins at 0.7) with a sentence of the story, of the other documents
//     or of own text handed out before (near.go): each copy's own text is
//     its own, and shares no sentence with anything else. That takes about
//     9 unused sentences per copy: the State of the Union addresses alone
//     (56,000 prose sentences) run out after about 5,000 copies, so
//     mirrors.sh adds the Python manual and the Debian handbook (in all
//     its languages); with them, 10,000 copies use 90,000 sentences and
//     leave out 77,000 near-duplicates (mostly the handbook's untranslated
//     passages). gen fails, saying so, when the pool runs out. A copy's
//     text does not depend on N: copy i is the same in every corpus of the
//     same seed and inputs.
//   - With --shared K, copies in groups of K (ids i/K alike) share a
//     paragraph of 5 or 6 own-text sentences, drawn once per group and
//     placed after each copy's own paragraphs: text a few copies have in
//     common besides the story, which dedup must keep in exactly one of
//     them.
//   - --others documents of --others-from, each with its own URL host
//     (https://other%05d.example.net/PATH), none with a sentence similar to
//     one of the story (such documents are dropped): a random sample when
//     the file has more; when it has fewer, all of them, and the longest
//     texts split in two at the line break nearest their middle until
//     there are enough (a split document is written as text pieces ID#1,
//     ID#2, ...; the others as their HTML). They are the same documents
//     for every N.
//
// Text is drawn from HTML by a rough extraction (text.go), not pdc's.
// gen prints a JSON line of what it made. truth.tsv has one line per copy:
// id TAB first story sentence TAB last story sentence, as placed in that
// copy (after its edits), then a field per sentence of the copy's own
// text, whitespace collapsed; with --shared, then a field "|", the group
// (its first copy's id) and a field per sentence of its paragraph.
//
// check reads the truth, `pdc clusters OUT --format jsonl --text` (a JSON
// object per passage cluster: cluster, size, members with doc and text;
// missing fields are empty), optionally `pdc pairs OUT` (doc_a TAB doc_b
// TAB ...) and `pdc spans OUT`, and prints one JSON line (summary in
// check.go): the cluster holding the most copies and their share; how
// many of them are located (the text of the copy's members in that cluster
// holds its first and last story sentences, compared as lowercase words
// with one word in five allowed to differ, or by their first and last
// five words); copies with a pair; pairs without a copy; clusters; spans.
// With --min-share it exits 1 when the share is lower.
//
// With --clean (the docs.jsonl of `pdc dedup OUT --output CLEAN`: id and
// text per line) check also counts, after deduplication, the copies that
// still hold the story (its first and last sentences, as above: 1 is
// right), the copies that hold one of the two only (a remnant: 0 is
// right), and the copies' own sentences still in their text, word for
// word (all is right); with --dedup-check it exits 1 unless all three are
// right.
//
// table prints mirrors.sh's results file as a markdown table (table.go).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	err := Main{Stdout: os.Stdout, Stderr: os.Stderr}.Run(os.Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "mirrors:", err)
		os.Exit(1)
	}
}

// Main is the program with its output streams.
type Main struct{ Stdout, Stderr io.Writer }

// errUsage is a usage error (exit status 2).
var errUsage = errors.New("usage")

// Run runs the subcommand named by args[0].
func (m Main) Run(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "gen":
			return m.gen(args[1:])
		case "check":
			return m.check(args[1:])
		case "table":
			return m.table(args[1:])
		}
	}
	fmt.Fprintln(m.Stderr, "usage: mirrors gen|check|table [flags] (mirrors CMD -h for flags)")
	return errUsage
}
