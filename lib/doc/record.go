package doc

// Parsed-document record: the output of the parse job and the input of the
// stats and index jobs, one line per document:
//
//	docid TAB srcpos TAB url TAB nsent TAB blob
//
// In a batch run (pdc run --against) nsent is followed by ":" and the run's
// number in its chain of batches (1 for the first batch against a stored
// run): the index job tells the batch's documents from the stored ones by
// it. A record without it is of batch 0, a run of its own. docid and url
// are escaped with mr.Escape. url is the document's URL; for a document
// without one, the URL its page states for itself (canonical link, og:url,
// base href), else SitePrefix and the site its input named (Doc.Site: a
// directory tree, --site-field), else SitePrefix, LayoutPrefix and the hash
// of its page's layout (Analysis.Layout: pages that share their template
// elements are taken for one site), else "". The index job takes the site
// (URL host, or the name) from it. srcpos is the escaped input file name,
// "@" and the record's 16-digit byte offset in it (in the uncompressed
// stream of a .gz file; in the JSON Lines rendering of inputs converted on
// the fly): among records with the same id, the one with the smallest
// srcpos (in a batch run the first by AppendOrder, a stored run's before the
// batch's) is kept (see reducers/stats), and lib/input reads records in that
// order (Set.Sources), whatever the order of the --input paths. The local
// runner names its input files by their absolute paths. nsent is
// the number of sentences. blob is base64 (standard alphabet, no padding) of,
// for each sentence in order:
//
//	uvarint charStart   rune offset of the sentence in the extracted text
//	uvarint charLen     length in runes
//	uvarint ntokens
//	ntokens x uint64    token hashes (lib/sentence), little endian
//
// Sentences with no token are not recorded, so sentence i of the record is
// sentence i of `pdc text`. A sentence that is not content (Analyzer: in
// the page's template elements, mostly link text, or no letter at all) is
// recorded with ntokens 0: it
// keeps its index, so that a span can step over it, and is never matched.

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Record is the fields of a parsed-document record line, as its bytes (id
// and url still escaped).
type Record struct {
	ID, Srcpos, URL, NSent, Blob []byte
	// Batch is the record's batch number (0: none in nsent).
	Batch int
}

// SplitRecord splits a parsed-document record line (without its line end)
// into its five fields (and the batch from nsent); any other number of
// fields is an error.
func SplitRecord(line []byte) (Record, error) {
	var f [4][]byte
	for i := range f {
		j := bytes.IndexByte(line, '\t')
		if j < 0 {
			return Record{}, fmt.Errorf("want 5 fields, got %d", i+1)
		}
		f[i], line = line[:j], line[j+1:]
	}
	if n := bytes.Count(line, []byte{'\t'}); n > 0 {
		return Record{}, fmt.Errorf("want 5 fields, got %d", 5+n)
	}
	rec := Record{ID: f[0], Srcpos: f[1], URL: f[2], NSent: f[3], Blob: line}
	if n, b, ok := bytes.Cut(rec.NSent, []byte{':'}); ok {
		v, ok := mr.Atoi(b)
		if !ok || v < 1 {
			return Record{}, fmt.Errorf("want a batch number after the sentence count, got %q", rec.NSent)
		}
		rec.NSent, rec.Batch = n, v
	}
	return rec, nil
}

// BatchOrder starts the place of a record of batch k > 0 in the order of
// a batch run's merged collection (AppendOrder): no UTF-8 text has the
// byte, so every stored run's own records (batch 0) come first.
const BatchOrder = '\xff'

// AppendOrder appends rec's place in the order of the documents of a
// batch run's merged collection (the passage clusters' members, whose
// first is a cluster's earliest): its srcpos for a record of batch 0, else
// BatchOrder, its batch number in 6 digits, "@" and its srcpos, so that
// the documents come batch by batch, each in input order.
func AppendOrder(b []byte, rec Record) []byte {
	if rec.Batch == 0 {
		return append(b, rec.Srcpos...)
	}
	b = mr.AppendPadded(append(b, BatchOrder), int64(rec.Batch), 6)
	return append(append(b, '@'), rec.Srcpos...)
}

// OrderString is a place of AppendOrder as a person reads it: the
// srcpos, after "batch N (run N+1 of its chain), " for a record of a
// batch (the chain's first run is batch 0).
func OrderString(place []byte) string {
	if len(place) > 8 && place[0] == BatchOrder && place[7] == '@' {
		n, ok := mr.Atoi(place[1:7])
		if ok {
			return fmt.Sprintf("batch %d (run %d of its chain), %s", n, n+1, place[8:])
		}
	}
	return string(place)
}

// OrderBatch is the batch number of a place of AppendOrder (0: a stored
// run's own record, or a run of its own).
func OrderBatch(place []byte) int {
	if len(place) > 8 && place[0] == BatchOrder && place[7] == '@' {
		if n, ok := mr.Atoi(place[1:7]); ok {
			return n
		}
	}
	return 0
}

// BatchMark starts the site field of the postings of a batch's own
// documents in a batch run (mappers/index, reducers/index): the join pairs
// stored documents only with those.
const BatchMark = '+'

// AppendNSent appends the nsent field of a record of n sentences and
// batch b (0: no batch).
func AppendNSent(line []byte, n, b int) []byte {
	line = strconv.AppendInt(line, int64(n), 10)
	if b <= 0 {
		return line
	}
	return strconv.AppendInt(append(line, ':'), int64(b), 10)
}

// SitePrefix starts a record's url field that names a site, not a URL.
const SitePrefix = "site:"

// LayoutPrefix follows SitePrefix in the url field of a document whose
// site is inferred from its page's layout.
const LayoutPrefix = "layout:"

// URLField returns the url field of a document's record (above, before
// escaping) and where it comes from: "url", "page", "input", "layout"
// (with layout false, a page's layout is not taken for its site: --site-from
// none) or "none".
func URLField(d *Doc, a *Analysis, layout bool) (value, from string) {
	switch {
	case d.URL != "":
		return d.URL, "url"
	case a.PageURL != "":
		return a.PageURL, "page"
	case d.Site != "":
		return SitePrefix + d.Site, "input"
	case a.Layout != "" && layout:
		return SitePrefix + LayoutPrefix + a.Layout, "layout"
	}
	return "", "none"
}

// Sentence is one sentence of a parsed document.
type Sentence struct {
	Start, End int // rune offsets in the extracted text, end exclusive
	// Tokens are the sentence's token hashes; none for a sentence that is
	// not content (NotContent).
	Tokens []uint64
	// NotContent says why the sentence is not matched ("" for content):
	// NotContentTemplate, NotContentLinks or NotContentNoLetter.
	NotContent string
}

// Reasons a sentence is not content (Sentence.NotContent).
const (
	// NotContentLinks: at least MaxLinkShare of its letters and digits are
	// link text, as in navigation, tables of contents, indexes,
	// breadcrumbs.
	NotContentLinks = "links"
	// NotContentNoLetter: no letter at all (section numbers, dates,
	// table cells of figures, punctuation).
	NotContentNoLetter = "no-letter"
	// NotContentTemplate: at least half of it lies in the page's template
	// elements (htmltext: navigation, banners, footers, sidebars).
	NotContentTemplate = "template"
)

// MaxLinkShare is the share of a sentence's letters and digits inside
// links from which it is navigation, not content. Navigation,
// indexes and tables of contents are links from end to end; prose with
// many links (an encyclopedia article) stays below: on the 118 real pages
// of go-readability's tests, 0.9 marks 4% of the main-content sentences
// (citations, "See also" lists), 0.5 marks 6%.
const MaxLinkShare = 0.9

// AppendBlob appends the base64 blob of sents to dst. scratch is reused
// between calls to avoid allocation; the grown scratch is returned.
func AppendBlob(dst, scratch []byte, sents []Sentence) (out, newScratch []byte) {
	b := scratch[:0]
	for _, s := range sents {
		b = binary.AppendUvarint(b, uint64(s.Start))
		b = binary.AppendUvarint(b, uint64(s.End-s.Start))
		b = binary.AppendUvarint(b, uint64(len(s.Tokens)))
		for _, t := range s.Tokens {
			b = binary.LittleEndian.AppendUint64(b, t)
		}
	}
	return base64.RawStdEncoding.AppendEncode(dst, b), b
}

// ErrBadBlob reports a corrupt parsed-document record.
var ErrBadBlob = errors.New("corrupt sentence blob")

// DecodeBlob decodes a blob into sents (reused) and tokens (one backing array
// for all sentences' tokens, reused). It returns the sentences and the grown
// scratch buffers.
func DecodeBlob(blob []byte, sents []Sentence, tokens []uint64, scratch []byte) ([]Sentence, []uint64, []byte, error) {
	var err error
	scratch, err = base64.RawStdEncoding.AppendDecode(scratch[:0], blob)
	if err != nil {
		return nil, tokens, scratch, fmt.Errorf("%w: %v", ErrBadBlob, err)
	}
	sents, tokens = sents[:0], tokens[:0]
	if n := len(scratch) / 8; cap(tokens) < n {
		tokens = make([]uint64, 0, n) // room for every token: no reallocation below
	}
	b := scratch
	for len(b) > 0 {
		var v [3]uint64
		for i := range v {
			x, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, tokens, scratch, ErrBadBlob
			}
			v[i], b = x, b[n:]
		}
		if v[2] > uint64(len(b)/8) || v[0] > 1<<40 || v[1] > 1<<40 {
			return nil, tokens, scratch, ErrBadBlob
		}
		off := len(tokens)
		for i := 0; i < int(v[2]); i++ {
			tokens = append(tokens, binary.LittleEndian.Uint64(b[8*i:]))
		}
		sents = append(sents, Sentence{Start: int(v[0]), End: int(v[0] + v[1]), Tokens: tokens[off:len(tokens):len(tokens)]})
		b = b[8*v[2]:]
	}
	return sents, tokens, scratch, nil
}

// AppendSrcpos appends a record's srcpos (see the record above): for a
// page of a tree (source, its file), the escaped file and offset 0, else
// fileEsc (the escaped input file name) and the record's byte offset off.
func AppendSrcpos(b []byte, fileEsc, source string, off int64) []byte {
	if source != "" {
		// A page of a tree: its own file, not the rendering's offset.
		b = mr.AppendEscape(b, source)
		off = 0
	} else {
		b = append(b, fileEsc...)
	}
	return mr.AppendPadded(append(b, '@'), off, 16)
}
