package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// TextsMissing is what boilerplateTexts left without text: the rows whose
// document could not be read (Rows, First the first reason), and those
// past the budget (Unread).
type TextsMissing struct {
	Rows   int
	First  error
	Unread int
	Total  int // the rows
}

// MaxTextRunes bounds the text a run reads for boilerplate.tsv: the rows,
// most frequent first, whose documents need at most this many runes of
// text (up to each document's last row) get their text; the rest are left
// to pdc boilerplate OUT --text. It keeps the cost to a few percent of a
// run whatever the size of its input.
const MaxTextRunes = 4 << 20

// boilerplateTexts sets the Text of rows (lib/boilerplate SetText) from
// their example documents, most frequent rows first, up to maxRunes of
// text (MaxTextRunes): it finds each document's srcpos in the parsed
// records of dirs (OUT/parsed, and a batch's stored runs'), reads those
// records only (input.At: a seek per record in a JSON Lines file, a
// rendering of a container up to its last one), and analyses them with
// the run's analyzer on every core. A row whose document cannot be read,
// or reads otherwise than the run read it, keeps no text and is counted.
func boilerplateTexts(fsys hdfsfs.FS, dirs []string, cfg jobconf.Config, rows []boilerplate.Row, maxRunes int) (TextsMissing, error) {
	miss := TextsMissing{Total: len(rows)}
	if len(rows) == 0 {
		return miss, nil
	}
	need := map[string]string{} // escaped id -> srcpos
	of := map[string][]int{}    // escaped id -> its rows
	ends := map[string]int{}
	for i := range rows {
		of[rows[i].Doc] = append(of[rows[i].Doc], i)
		ends[rows[i].Doc] = max(ends[rows[i].Doc], rows[i].CharEnd)
	}
	spent := 0
	for _, r := range rows {
		if _, ok := need[r.Doc]; ok {
			continue
		}
		if spent += ends[r.Doc]; spent > maxRunes && len(need) > 0 {
			break
		}
		need[r.Doc] = ""
	}
	for _, dir := range dirs {
		if err := findSrcpos(fsys, dir, need); err != nil {
			return miss, fmt.Errorf("boilerplate texts: %w", err)
		}
	}
	var ps []input.Position
	byPos := map[input.Position]string{}
	for id, sp := range need {
		p, err := input.ParsePosition(sp)
		if err != nil {
			continue // not found: the rows say so below
		}
		ps = append(ps, p)
		byPos[p] = id
	}
	var mu sync.Mutex
	fail := func(why error) {
		mu.Lock()
		if miss.First == nil {
			miss.First = why
		}
		mu.Unlock()
	}
	read := map[string]bool{}
	type docAt struct {
		d  *doc.Doc
		id string // escaped
	}
	work := make(chan *docAt)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			an := cfg.Analyzer()
			for w := range work {
				if err := setTexts(an, w.d, w.id, rows, of[w.id]); err != nil {
					fail(err)
				}
			}
		})
	}
	o := input.Options{Fields: doc.Fields{Site: cfg.SiteField}}
	err := input.At(ps, o, opener(fsys), func(p input.Position, d *doc.Doc) error {
		if d.Source == "" && mr.Escape(d.ID) != byPos[p] { // (a tree's page is its file)
			fail(fmt.Errorf("%s@%d holds document %q, not %q (the file changed since the run)", p.File, p.Offset, d.ID, byPos[p]))
			return nil
		}
		read[byPos[p]] = true
		c := *d
		c.ID, c.URL, c.HTML, c.Text = strings.Clone(d.ID), strings.Clone(d.URL), strings.Clone(d.HTML), strings.Clone(d.Text)
		work <- &docAt{d: &c, id: byPos[p]}
		return nil
	}, func(p input.Position, why error) { fail(why) })
	close(work)
	wg.Wait()
	if err != nil {
		return miss, fmt.Errorf("boilerplate texts: %w", err)
	}
	for _, r := range rows {
		sp, chosen := need[r.Doc]
		switch {
		case r.Text != "":
		case !chosen:
			miss.Unread++
		case sp == "":
			miss.Rows++
			fail(fmt.Errorf("document %s is in no parsed record", r.Doc))
		default:
			miss.Rows++
		}
	}
	return miss, nil
}

// PrefixBytes is the least of a document's body that setTexts analyses
// first: PrefixRatio bytes per rune of text its rows need, at least
// PrefixBytes, then four times as much each time that is not enough, up to
// the whole document.
const (
	PrefixBytes = 8 << 10
	PrefixRatio = 16
)

// prefixMargin is how far past the rows' last character a prefix's last
// sentence must start: sentences ending before it are those of the whole
// document (the splitter decides a boundary from the characters around it).
const prefixMargin = 256

// setTexts sets the texts of d's rows (indexes into rows) from its
// analysis: of a prefix of its body when the rows lie well inside it
// (extraction streams: a prefix's text is the text's prefix; SetText
// checks the sentences), else of the whole document. With main-content
// extraction, which judges the whole page, always the whole.
func setTexts(an *doc.Analyzer, d *doc.Doc, id string, rows []boilerplate.Row, mine []int) error {
	end := 0
	for _, i := range mine {
		end = max(end, rows[i].CharEnd)
	}
	full := an.MaxBytes
	grow := func(limit int) int {
		if an.Main || (full > 0 && limit >= full) || limit >= len(d.Body()) {
			return 0
		}
		return limit
	}
	limit := grow(max(PrefixBytes, PrefixRatio*end))
	for {
		an.MaxBytes = full
		if limit > 0 {
			an.MaxBytes = limit
		}
		a, err := an.Analyze(d)
		an.MaxBytes = full
		if err != nil {
			return fmt.Errorf("document %s: %w", id, err)
		}
		if limit > 0 && a.Truncated && (len(a.Sentences) == 0 || a.Sentences[len(a.Sentences)-1].Start < end+prefixMargin) {
			limit = grow(4 * limit) // the prefix holds too little
			continue
		}
		ok := true
		for _, i := range mine {
			ok = rows[i].SetText(a) && ok
		}
		switch {
		case ok:
			return nil
		case limit > 0:
			limit = grow(4 * limit)
		default:
			for _, i := range mine {
				if rows[i].Text == "" {
					return fmt.Errorf("document %s: sentence %d is not at characters %d-%d (the file changed since the run)", rows[i].Doc, rows[i].Sentence, rows[i].CharStart, rows[i].CharEnd)
				}
			}
			return nil
		}
	}
}

// findSrcpos fills need (escaped id -> srcpos) from the parsed records of
// dir (lib/doc), keeping each id's smallest srcpos, the record the stats
// job keeps.
func findSrcpos(fsys hdfsfs.FS, dir string, need map[string]string) error {
	parts, err := PartFiles(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // its rows say that their documents are in no record
	}
	if err != nil {
		return err
	}
	for _, p := range parts {
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		r := mr.NewReader(bufio.NewReaderSize(f, 1<<16))
		for r.Next() {
			line := r.Line()
			i := bytes.IndexByte(line, '\t')
			if i < 0 {
				continue
			}
			sp, ok := need[string(line[:i])]
			if !ok {
				continue
			}
			rec, err := doc.SplitRecord(line)
			if err != nil {
				continue
			}
			if s := string(rec.Srcpos); sp == "" || s < sp {
				need[string(line[:i])] = s
			}
		}
		err = r.Err()
		f.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
	}
	return nil
}

// opener opens input files by the names srcpos gives them: an hdfs:// URI
// (a Hadoop run's inputs) on fsys, any other name on the local disk.
func opener(fsys hdfsfs.FS) func(name string) (io.ReadCloser, error) {
	return func(name string) (io.ReadCloser, error) {
		if u, err := url.Parse(name); err == nil && u.Scheme == "hdfs" {
			return fsys.Open(u.Path)
		}
		return os.Open(name)
	}
}
