package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"runtime"
	"slices"
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
// past the budget (Unread; all of them, with Skipped saying why, when the
// parsed records were too large to search).
type TextsMissing struct {
	Rows    int
	First   error
	Unread  int
	Skipped string
	Total   int // the rows
}

// MaxTextRunes bounds the text a run reads for boilerplate.tsv: the rows,
// most frequent first, whose documents need at most this many runes of
// text (up to each document's last row) get their text; the rest are left
// to pdc boilerplate OUT --text.
const MaxTextRunes = 2 << 20

// MaxScanBytes bounds the parsed records a run searches for its example
// documents' positions (in pdc's own process, reading OUT/parsed and a
// batch's stored runs'): past it, as on a large cluster's run, no text is
// read and pdc boilerplate OUT --text is left to do it.
const MaxScanBytes = 1 << 30

// boilerplateTexts sets the Text of rows (lib/boilerplate SetText) from
// their example documents, most frequent rows first, up to maxRunes of
// text (MaxTextRunes): it finds each document's srcpos in the parsed
// records of dirs (OUT/parsed, and a batch's stored runs'; at most
// maxScan bytes of them, MaxScanBytes), reads those records only (input.At: a seek per
// record in a JSON Lines file, a rendering of a compressed file or a
// container up to its last one), and analyses them with the run's
// analyzer on every core. It is best effort: a row whose document cannot
// be read, or reads otherwise than the run read it, keeps no text and is
// counted, and so is every row when the records cannot be searched.
func boilerplateTexts(ctx context.Context, fsys hdfsfs.FS, dirs []string, cfg jobconf.Config, rows []boilerplate.Row, maxRunes int, maxScan int64) TextsMissing {
	miss := TextsMissing{Total: len(rows)}
	if len(rows) == 0 {
		return miss
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
	var mu sync.Mutex
	fail := func(why error) {
		mu.Lock()
		if miss.First == nil {
			miss.First = why
		}
		mu.Unlock()
	}
	if size, err := partBytes(fsys, dirs); err != nil || size > maxScan {
		if err == nil {
			miss.Skipped = fmt.Sprintf("its parsed records are %d MB, more than the %d MB a run searches for its example documents", size>>20, maxScan>>20)
		} else {
			miss.Skipped = fmt.Sprintf("its parsed records could not be listed: %v", err)
		}
		miss.Unread = len(rows)
		return miss
	}
	order := map[string]string{}
	for _, dir := range dirs {
		if err := findSrcpos(ctx, fsys, dir, need, order); err != nil {
			fail(fmt.Errorf("search the parsed records: %w", err))
			break
		}
	}
	var ps []input.Position
	byPos := map[input.Position][]string{}
	for _, id := range slices.Sorted(maps.Keys(need)) {
		if need[id] == "" {
			continue // in no record: the rows say so below
		}
		p, err := input.ParsePosition(need[id])
		if err != nil {
			fail(fmt.Errorf("document %s: %w", id, err))
			continue
		}
		if len(byPos[p]) == 0 {
			ps = append(ps, p)
		}
		byPos[p] = append(byPos[p], id)
	}
	type docAt struct {
		d  *doc.Doc
		id string // escaped
	}
	work := make(chan docAt)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			an := cfg.Analyzer()
			for w := range work {
				if ctx.Err() != nil {
					continue // the run ended: what is left is not read
				}
				if err := setTexts(an, w.d, w.id, rows, of[w.id]); err != nil {
					fail(err)
				}
			}
		})
	}
	o := input.Options{Fields: doc.Fields{Site: cfg.SiteField}}
	err := input.At(ps, o, opener(fsys), func(p input.Position, d *doc.Doc) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := *d // its strings are its own (input.At)
		for _, id := range byPos[p] {
			if d.Source == "" && mr.Escape(d.ID) != id { // (a tree's page is its file)
				fail(fmt.Errorf("%s@%d holds document %q, not %q (the file changed since the run)", p.File, p.Offset, d.ID, id))
				continue
			}
			work <- docAt{d: &c, id: id}
		}
		return nil
	}, func(p input.Position, why error) { fail(why) })
	close(work)
	wg.Wait()
	if err != nil {
		fail(err)
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
	return miss
}

// partBytes is the size of the part files of dirs (a missing dir has none).
func partBytes(fsys hdfsfs.FS, dirs []string) (int64, error) {
	var n int64
	for _, dir := range dirs {
		ents, err := fsys.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		for _, e := range ents {
			if isPart(e.Name()) {
				n += e.Size()
			}
		}
	}
	return n, nil
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
// dir (lib/doc), keeping the srcpos of each id's first record in order
// (doc.AppendOrder), the record the stats job keeps; order holds the
// places of those found before (dir is one of several).
func findSrcpos(ctx context.Context, fsys hdfsfs.FS, dir string, need, order map[string]string) error {
	parts, err := PartFiles(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // its rows say that their documents are in no record
	}
	if err != nil {
		return err
	}
	// The part files on every core; need is only read meanwhile.
	found := make([]map[string]place, len(parts))
	errs := make([]error, len(parts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				found[i], errs[i] = partSrcpos(ctx, fsys, parts[i], need)
			}
		})
	}
	for i := range parts {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, f := range found {
		for id, pl := range f {
			if o, ok := order[id]; !ok || pl.order < o {
				need[id], order[id] = pl.srcpos, pl.order
			}
		}
	}
	return nil
}

// place is a record's srcpos and its place in order (doc.AppendOrder).
type place struct{ srcpos, order string }

// partSrcpos returns the place of the first record in order of each id of
// need in the parsed records of part file p.
func partSrcpos(ctx context.Context, fsys hdfsfs.FS, p string, need map[string]string) (map[string]place, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	found := map[string]place{}
	var order []byte
	r := mr.NewReader(bufio.NewReaderSize(f, 1<<16))
	for n := 0; r.Next(); n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		line := r.Line()
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			continue
		}
		if _, ok := need[string(line[:i])]; !ok {
			continue
		}
		rec, err := doc.SplitRecord(line)
		if err != nil {
			continue
		}
		id := string(line[:i])
		order = doc.AppendOrder(order[:0], rec)
		if pl, ok := found[id]; !ok || string(order) < pl.order {
			found[id] = place{srcpos: string(rec.Srcpos), order: string(order)}
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return found, nil
}

// opener opens input files by the names srcpos gives them: an hdfs:// URI
// (a Hadoop run's inputs) on fsys, the run's file system (so the URI's
// host is taken to be its NameNode), any other name on the local disk.
func opener(fsys hdfsfs.FS) func(name string) (io.ReadCloser, error) {
	return func(name string) (io.ReadCloser, error) {
		if u, err := url.Parse(name); err == nil && u.Scheme == "hdfs" {
			return fsys.Open(u.Path)
		}
		return os.Open(name)
	}
}
