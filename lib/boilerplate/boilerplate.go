// Package boilerplate is OUT/boilerplate.tsv, what a run kept out of
// matching, with its one writer and reader: a header line, then one line
// per block and reason, most frequent first,
//
//	df TAB kind TAB signature TAB example_doc TAB sentence TAB char_start TAB char_end TAB sentences TAB text
//
// kind is max-df (a posting list over --max-df; df counts its sentences)
// or site-template (the sentence is in more than --max-site-df pages of
// one site; df counts that site's documents); signature is the posting
// list's key; example_doc (escaped as in lib/mr), sentence (its index in
// the document) and char_start, char_end (rune offsets in its extracted
// text) name one sentence it stands for. The index job writes a record per
// posting list (reducers/index), and a sentence is in the list of each of
// its prefix tokens: Dedupe keeps one row per kind and example sentence.
// Blocks then joins the rows of one kind whose example sentences follow
// each other in one document (a footer, a menu: at most MaxBlockGap
// sentences between them) into one row: sentence is the block's first,
// char_start and char_end span it, sentences counts the rows joined, df
// and signature are those of its most frequent row. text is the block's
// text, the runes char_start to char_end of the example document's
// extracted text as pdc text prints it, each run of white space one space
// (SetText; at most MaxText runes, a longer block cut with " …"), escaped
// as in lib/mr; it is empty when the
// document could not be read again. A file without the
// sentences column (pdc before it) reads as one sentence per row, one
// without the text column as rows without text.
package boilerplate

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Kinds of rows.
const (
	MaxDF        = "max-df"
	SiteTemplate = "site-template"
)

// Header is the file's first line.
const Header = "# df\tkind\tsignature\texample_doc\tsentence\tchar_start\tchar_end\tsentences\ttext"

// Row is one line of the file.
type Row struct {
	DF                           int64
	Kind, Signature, Doc         string
	Sentence, CharStart, CharEnd int
	// Sentences is the number of sentences the row stands for (Blocks).
	Sentences int
	// Text is the block's text (SetText), unescaped; "" when unknown.
	Text string
}

// Dedupe returns rows with one row per kind and example sentence (the
// highest df, then the smallest signature), most frequent first.
func Dedupe(rows []Row) []Row {
	type key struct {
		kind, doc string
		sentence  int
	}
	best := map[key]int{}
	var out []Row
	for _, r := range rows {
		k := key{r.Kind, r.Doc, r.Sentence}
		i, ok := best[k]
		switch {
		case !ok:
			best[k] = len(out)
			out = append(out, r)
		case r.DF > out[i].DF || r.DF == out[i].DF && r.Signature < out[i].Signature:
			out[i] = r
		}
	}
	Sort(out)
	return out
}

// MaxBlockGap is the most sentences between two rows of a block: a
// sentence too short to be indexed (a "|" or a two-word link) does not
// split a footer.
const MaxBlockGap = 1

// Blocks joins rows (Dedupe's: one per kind and example sentence) into one
// row per block of consecutive example sentences of one kind and document,
// most frequent first.
func Blocks(rows []Row) []Row {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b Row) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Doc, b.Doc), cmp.Compare(a.Sentence, b.Sentence))
	})
	var out []Row
	for i := 0; i < len(rows); {
		b := rows[i]
		b.Sentences = max(b.Sentences, 1)
		last := b.Sentence
		j := i + 1
		for ; j < len(rows); j++ {
			r := rows[j]
			if r.Kind != b.Kind || r.Doc != b.Doc || r.Sentence-last > MaxBlockGap+1 || r.CharStart < b.CharEnd {
				break
			}
			if r.DF > b.DF || r.DF == b.DF && r.Signature < b.Signature {
				b.DF, b.Signature = r.DF, r.Signature
			}
			b.CharEnd, last = r.CharEnd, r.Sentence
			b.Sentences += max(r.Sentences, 1)
		}
		out = append(out, b)
		i = j
	}
	Sort(out)
	return out
}

// Sort orders rows most frequent first, then by their line.
func Sort(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.DF, a.DF), cmp.Compare(a.Kind, b.Kind), strings.Compare(a.Signature, b.Signature),
			strings.Compare(a.Doc, b.Doc), cmp.Compare(a.Sentence, b.Sentence))
	})
}

// Write writes the header and rows to w.
func Write(w io.Writer, rows []Row) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header)
	for _, r := range rows {
		fmt.Fprintf(bw, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", r.DF, r.Kind, r.Signature, r.Doc, r.Sentence, r.CharStart, r.CharEnd, max(r.Sentences, 1), mr.Escape(r.Text))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write boilerplate.tsv: %w", err)
	}
	return nil
}

// Read reads the rows of a boilerplate.tsv; a malformed line is an error
// naming it.
func Read(r io.Reader) ([]Row, error) {
	var rows []Row
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) == 7 {
			f = append(f, "1") // written before the sentences column
		}
		if len(f) == 8 {
			f = append(f, "") // written before the text column
		}
		if len(f) != 9 {
			return nil, fmt.Errorf("boilerplate.tsv line %d: want 9 fields, got %d", n, len(f))
		}
		text, err := mr.Unescape(f[8])
		if err != nil {
			return nil, fmt.Errorf("boilerplate.tsv line %d: text: %w", n, err)
		}
		var nums [5]int64
		for i, j := range []int{0, 4, 5, 6, 7} {
			v, err := strconv.ParseInt(f[j], 10, 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("boilerplate.tsv line %d: field %d: want a count or offset, got %q", n, j+1, f[j])
			}
			nums[i] = v
		}
		rows = append(rows, Row{DF: nums[0], Kind: f[1], Signature: f[2], Doc: f[3], Sentence: int(nums[1]), CharStart: int(nums[2]), CharEnd: int(nums[3]), Sentences: int(nums[4]), Text: text})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read boilerplate.tsv: %w", err)
	}
	return rows, nil
}

// MaxText is the most runes of a row's text; a longer block is cut there
// and " …" appended.
const MaxText = 400

// SetText sets the row's text from an analysis of its example document
// (lib/doc): the runes char_start to char_end of a.Text. It checks that
// the analysis fits the row, sentence starting at char_start and a
// sentence ending at char_end, and reports false, leaving the text empty,
// when it does not (the document changed since the run; an edit that
// keeps every offset goes unnoticed).
func (r *Row) SetText(a doc.Analysis) bool {
	r.Text = ""
	if r.Sentence < 0 || r.Sentence >= len(a.Sentences) || a.Sentences[r.Sentence].Start != r.CharStart {
		return false
	}
	ends := false
	for _, s := range a.Sentences[r.Sentence:] {
		if s.End == r.CharEnd {
			ends = true
			break
		}
		if s.Start >= r.CharEnd {
			break
		}
	}
	if !ends {
		return false
	}
	start, end, stop, i := -1, len(a.Text), min(r.CharEnd, r.CharStart+MaxText), 0
	for b := range a.Text {
		if i == r.CharStart {
			start = b
		}
		if i == stop {
			end = b
			break
		}
		i++
	}
	if start < 0 {
		return false
	}
	text := strings.Join(strings.Fields(a.Text[start:end]), " ")
	if r.CharEnd-r.CharStart > MaxText {
		text += " …"
	}
	r.Text = text
	return text != ""
}

// Docs returns the example documents of rows, each once, sorted.
func Docs(rows []Row) []string {
	var docs []string
	for _, r := range rows {
		docs = append(docs, r.Doc)
	}
	slices.Sort(docs)
	return slices.Compact(docs)
}
