// Package index is the map side of the index job: it computes each
// sentence's signatures (lib/signature) and emits one posting per
// signature.
//
// Input: parsed-document records (lib/doc), and the stats job's output at
// PDC_STATS for I-Match and SpotSigs. Output, one line per signature and
// batch of its postings (mr.Batch: a mapper gathers the postings of each
// signature it meets, so that the shuffle sorts one record per signature
// and batch, not one per posting):
//
//	sig16hex TAB posting TAB posting ...
//
// each posting six fields, `docid TAB sent TAB nsig TAB charStart TAB
// charEnd TAB site`: sent is the 7-digit zero-padded sentence index, nsig
// the sentence's number of distinct signatures, charStart/charEnd its rune
// offsets, site the document's site (lib/sitetemplate Site: 8 hex digits
// of the URL's host, "n" and 7 for a named site, "-" for none), followed,
// when the document has a site and a copy key and PDC_MAX_SITE_DF is set,
// by "~" and the key (lib/sitetemplate CopyKey, 8 hex digits), which the
// reducer reads and drops. In a batch
// run (PDC_BATCH), the site of a posting of the batch's own documents
// (records of that batch, lib/doc) starts with "+" (doc.BatchMark), which
// the reducer keeps and the join reads. docid is empty when the posting
// before it in the line is of the same document (ids are never empty): a
// token met in several sentences of one document, common with long ids and
// rare tokens, brings its id once per line.
//
// With the words method (PPJoin) only the prefix of each sentence's
// ordered token set is indexed, and each posting carries two more fields
// (eight in all):
//
//	... TAB site TAB pos TAB set
//
// pos is the prefix element's position in the set and set the whole
// ordered set in compact form (lib/signature/set.go), so the join can apply
// the positional filter and verify pairs exactly. The key is then not a
// 16-hex-digit signature but an 8-hex-digit token key (appendTokenKey), and
// prefix tokens seen in one document only are not indexed: they cannot make
// a pair.
package index

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"weak"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/docstats"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/signature"
	"github.com/pdc-mr/pdc/lib/sitetemplate"
)

// SentWidth is the width of zero-padded sentence indexes in keys.
const SentWidth = 7

// Map runs the index mapper.
func Map(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	st, dups, err := LoadStats(cfg.Stats, cfg.Signature)
	if err != nil {
		return err
	}
	gen, err := signature.NewGenerator(cfg.Signature, st)
	if err != nil {
		return err
	}
	return run(t, gen, cfg, dups, st)
}

func run(t *mr.Task, gen *signature.Generator, cfg jobconf.Config, dups *signature.Duplicates, st *signature.Stats) error {
	prefixed := cfg.Signature.Method.Prefixed()
	c := mr.NewCounters(t.Stderr)
	batch := mr.NewBatch[uint64](mr.NewOutput(t.Stdout))
	if prefixed {
		batch.Dense(gen.Ranked()) // lines by token rank (writePrefix)
	}
	var (
		// Per-sentence counts, added to c at the end.
		nShort, nUnsigned, nSents, nPostings, nPrefix, nUnique, nNotBatch int64

		sents   []doc.Sentence
		tokens  []uint64
		scratch []byte
		sigs    []uint64
		tail    []byte
		docNo   uint64
		// siteField is the postings' site field: the site and copy key.
		siteField []byte
		order     []byte // the record's place (doc.AppendOrder), for duplicate ids
	)
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		rec, err := doc.SplitRecord(r.Line())
		if err != nil {
			return fmt.Errorf("index mapper: line %d: %w", r.LineNumber(), err)
		}
		if order = doc.AppendOrder(order[:0], rec); dups.IsDuplicate(rec.ID, order) {
			c.Add("parse.docs.skipped.duplicate-id", 1)
			continue
		}
		c.Add("index.docs", 1)
		docNo++ // the mark of the lines whose last posting is of this document
		sents, tokens, scratch, err = doc.DecodeBlob(rec.Blob, sents, tokens, scratch)
		if err != nil {
			return fmt.Errorf("index mapper: line %d (doc %s): %w", r.LineNumber(), rec.ID, err)
		}
		site := sitetemplate.Site(rec.URL)
		siteField = siteField[:0]
		// In a batch run, a stored document's postings go only to the
		// lists of the batch's tokens (nil: all lists).
		var only *signature.Stats
		if cfg.Batch > 0 && rec.Batch == cfg.Batch {
			siteField = append(siteField, doc.BatchMark)
		} else if cfg.Batch > 0 {
			only = st
		}
		siteField = append(siteField, site...)
		if site != "-" && cfg.MaxSiteDF > 0 {
			if key, ok := sitetemplate.CopyKey(sents, cfg.MinTokens); ok {
				siteField = fmt.Appendf(siteField, "~%08x", key)
			}
		}
		for i, s := range sents {
			if len(s.Tokens) < cfg.MinTokens {
				nShort++
				continue
			}
			sigs = gen.Append(sigs[:0], s.Tokens)
			if len(sigs) == 0 {
				nUnsigned++
				continue
			}
			nSents++
			nPostings += int64(len(sigs))
			tail = append(tail[:0], '\t')
			tail = append(tail, rec.ID...)
			tail = append(tail, '\t')
			tail = mr.AppendPadded(tail, int64(i), SentWidth)
			tail = append(tail, '\t')
			tail = strconv.AppendInt(tail, int64(len(sigs)), 10)
			tail = append(tail, '\t')
			tail = strconv.AppendInt(tail, int64(s.Start), 10)
			tail = append(tail, '\t')
			tail = strconv.AppendInt(tail, int64(s.End), 10)
			tail = append(tail, '\t')
			tail = append(tail, siteField...)
			if prefixed {
				prefix := signature.PrefixLen(len(sigs), cfg.Tau)
				if cfg.NoFilter {
					prefix = len(sigs)
				}
				w, skipped, err := writePrefix(batch, sigs, prefix, tail, len(rec.ID), docNo, &scratch, only)
				if err != nil {
					return err
				}
				nPrefix += int64(w)
				nUnique += int64(prefix - w - skipped)
				nNotBatch += int64(skipped)
				continue
			}
			for _, sig := range sigs {
				line, i := batch.Line(sig)
				if len(line) == 0 {
					line = docstats.AppendHex(line, sig)
				}
				if err := batch.Put(i, appendTail(line, tail, len(rec.ID), batch.Mark(i, docNo) == docNo)); err != nil {
					return err
				}
			}
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("index mapper: read: %w", err)
	}
	if err := batch.Close(); err != nil {
		return err
	}
	c.Add("index.sentences.short", nShort)
	c.Add("index.sentences.unsigned", nUnsigned)
	c.Add("index.sentences", nSents)
	c.Add("index.postings", nPostings)
	if prefixed {
		c.Add("index.postings.prefix", nPrefix)
		c.Add("index.postings.prefix.unique-token", nUnique)
		if nNotBatch > 0 {
			c.Add("index.postings.prefix.not-in-batch", nNotBatch)
		}
	}
	return c.Flush()
}

// appendTail appends a posting's tail (`TAB docid TAB sent ...`, the id
// idLen bytes long) to a line, without the id if same: when the line's
// last posting is of the same document.
func appendTail(line, tail []byte, idLen int, same bool) []byte {
	if same {
		line = append(line, '\t')
		return append(line, tail[1+idLen:]...)
	}
	return append(line, tail...)
}

// writePrefix adds the postings of the first prefix elements of a set to
// the batch, but for tokens seen in one document only, which cannot make a
// pair, and, with only set (a stored document of a batch run), tokens not in
// the run's batch (Stats.InBatch); the document, docNo in the lines' marks,
// has an id idLen bytes long at the start of tail. It returns the number of
// postings added and of those left out for only.
func writePrefix(batch *mr.Batch[uint64], set []uint64, prefix int, tail []byte, idLen int, docNo uint64, scratch *[]byte, only *signature.Stats) (n, skipped int, err error) {
	var enc []byte
	for pos, sig := range set[:prefix] {
		if sig&signature.Shared == 0 {
			continue
		}
		if only != nil && !only.InBatch(sig) {
			skipped++
			continue
		}
		if enc == nil {
			enc = signature.AppendSet((*scratch)[:0], set)
			*scratch = enc
		}
		b, i := batch.LineAt(int(uint32(sig))) // the rank of a Shared key
		if len(b) == 0 {
			b = appendTokenKey(b, sig)
		}
		b = appendTail(b, tail, idLen, batch.Mark(i, docNo) == docNo)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(pos), 10)
		b = append(b, '\t')
		b = append(b, enc...)
		if err := batch.Put(i, b); err != nil {
			return n, skipped, err
		}
		n++
	}
	return n, skipped, nil
}

// appendTokenKey appends the posting-list key of a shared token: its rank
// times an odd constant (a bijection of 32-bit numbers) as 8 hex digits.
// The key only has to be unique; scrambling the rank makes its leading
// bytes vary, which is what the shuffle's radix sort needs.
func appendTokenKey(b []byte, orderKey uint64) []byte {
	const digits = "0123456789abcdef"
	v := uint32(orderKey) * 0x9e3779b1
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, digits[(v>>uint(shift))&0xf])
	}
	return b
}

// LoadStats reads the stats job's output: a file, or a directory of part
// files.
func LoadStats(path string, cfg signature.Config) (*signature.Stats, *signature.Duplicates, error) {
	if path == "" {
		return nil, nil, fmt.Errorf("the index job needs the stats job's output (PDC_STATS is not set)")
	}
	files, err := mr.SideFiles(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read stats: %w", err)
	}
	stamp, err := mr.SideStamp(files)
	if err != nil {
		return nil, nil, fmt.Errorf("read stats: %w", err)
	}
	key := fmt.Sprintf("%+v", cfg) + stamp
	statsCache.Lock()
	defer statsCache.Unlock()
	if statsCache.key == key {
		// Duplicates is nil when no id repeats.
		if st, dups := statsCache.st.Value(), statsCache.dups.Value(); st != nil && (dups != nil || !statsCache.hasDups) {
			return st, dups, nil
		}
	}
	b := signature.NewStatsBuilder(cfg)
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, fmt.Errorf("read stats: %w", err)
		}
		err = b.Read(f, name)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("read stats: %w", err)
		}
	}
	st, dups := b.Build(), b.Duplicates()
	statsCache.key, statsCache.st, statsCache.dups, statsCache.hasDups = key, weak.Make(st), weak.Make(dups), dups != nil
	return st, dups, nil
}

// statsCache holds the stats last loaded, which are read-only: the local
// runner runs all map tasks of a job in one process, and each task would
// otherwise read and index the same side file again (on Hadoop each task is
// a process of its own). The key is the configuration and each file's
// name, size and modification time. The pointers are weak: once no task
// holds the stats (the index job is over), the memory goes back.
var statsCache struct {
	sync.Mutex
	key     string
	st      weak.Pointer[signature.Stats]
	dups    weak.Pointer[signature.Duplicates]
	hasDups bool
}
