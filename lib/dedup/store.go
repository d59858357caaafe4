package dedup

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// Store holds the kept members' records (their text with its edges, the
// bounds of their sentences) between AddKept and Cut: in memory by default,
// in a file given to Plan.Spill when they do not fit. A record is written
// once and read by every removed member aligned to it; the sentences' words
// are hashed again from the text when read, so a record costs about its
// text's bytes.
type Store interface {
	io.Writer
	io.ReaderAt
}

// memStore is a Store in memory.
type memStore struct {
	mu sync.RWMutex
	b  []byte
}

func (m *memStore) Write(p []byte) (int, error) {
	m.mu.Lock()
	m.b = append(m.b, p...)
	m.mu.Unlock()
	return len(p), nil
}

func (m *memStore) ReadAt(p []byte, off int64) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if off < 0 || off > int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// keptLoc is where a kept member's record lies in the store (n < 0: not
// recorded yet).
type keptLoc struct {
	off int64
	n   int
	ext Range // the record's range (keptRecord)
	ok  bool  // its document holds all of ext
}

// holds reports whether the record's text holds range r.
func (l keptLoc) holds(r Range) bool {
	return l.n >= 0 && l.ok && l.ext.Start <= r.Start && r.End <= l.ext.End
}

// keptRecord is a kept member as AddKept records it: the text of its range
// with the edges that go with a run (ext; ok: the document holds all of it,
// else text ends with the document), its sentences, and the edges before
// it (nearest first) and after it.
type keptRecord struct {
	ext   Range
	ok    bool
	text  string
	idx   runeIndex // of text, once read
	sents []Sentence
	edges [2][]Sentence
	raw   []byte // its encoding, when read from a kept record line (ParseKeptDoc)
}

// appendRecord appends the encoding of k: varints ok, ext start
// and end, the text's length and bytes, then the three groups of sentences
// (kept, edges before, edges after), each a count and per sentence its
// start and end in runes from ext's start and whether it matches.
func appendRecord(b []byte, k keptRecord) []byte {
	flags := uint64(0)
	if k.ok {
		flags = 1
	}
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendUvarint(b, uint64(k.ext.Start))
	b = binary.AppendUvarint(b, uint64(k.ext.End))
	b = binary.AppendUvarint(b, uint64(len(k.text)))
	b = append(b, k.text...)
	for _, ss := range [][]Sentence{k.sents, k.edges[0], k.edges[1]} {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			m := uint64(0)
			if s.Match {
				m = 1
			}
			b = binary.AppendUvarint(b, uint64(s.Start-k.ext.Start))
			b = binary.AppendUvarint(b, uint64(s.End-s.Start)<<1|m)
		}
	}
	return b
}

// appendEncoded appends k's encoding: as read (raw), or appendRecord's.
func appendEncoded(b []byte, k keptRecord) []byte {
	if k.raw != nil {
		return append(b, k.raw...)
	}
	return appendRecord(b, k)
}

var errRecord = errors.New("malformed kept record")

// decodeRecord decodes a record of appendRecord, hashing each sentence's
// words from the text with tok (as Sentences does); with tok nil, only its
// range and text.
func decodeRecord(b []byte, tok *sentence.Tokenizer) (keptRecord, error) {
	var k keptRecord
	next := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	k.ok = next() == 1
	k.ext.Start, k.ext.End = int(next()), int(next())
	n := next()
	if uint64(len(b)) < n {
		return k, errRecord
	}
	k.text, b = string(b[:n]), b[n:]
	k.idx = newRuneIndex(k.text)
	idx := k.idx
	if tok == nil {
		return k, nil
	}
	var buf []uint64
	groups := [3][]Sentence{}
	for g := range groups {
		n := next()
		if n > uint64(len(b)) {
			return k, errRecord
		}
		c := int(n)
		ss := make([]Sentence, 0, c)
		for range c {
			s, v := next(), next()
			if b == nil || s > uint64(idx.n) || v>>1 > uint64(idx.n)-s {
				return k, errRecord
			}
			start := int(s)
			end := start + int(v>>1)
			text := idx.slice(start, end)
			buf = tok.Hashes(buf[:0], text)
			ss = append(ss, newSentence(k.ext.Start+start, k.ext.Start+end, text, buf, v&1 != 0))
		}
		groups[g] = ss
	}
	k.sents, k.edges = groups[0], [2][]Sentence{groups[1], groups[2]}
	return k, nil
}

// record reads the record of kept member ref, hashing words with tok; ok
// is false when no document gave it (AddKept) or it cannot be read (the
// error is kept: Err).
func (p *Plan) record(tok *sentence.Tokenizer, ref Ref) (keptRecord, bool) {
	loc, ok := p.stored[ref]
	if !ok || loc.n < 0 {
		return keptRecord{}, false
	}
	b := make([]byte, loc.n)
	if n, err := p.store.ReadAt(b, loc.off); n < len(b) { // a full read may come with io.EOF
		p.fail(fmt.Errorf("read kept member %s %d-%d: %w", ref.Doc, ref.Start, ref.End, cmp.Or(err, io.ErrUnexpectedEOF)))
		return keptRecord{}, false
	}
	k, err := decodeRecord(b, tok)
	if err != nil {
		p.fail(fmt.Errorf("kept member %s %d-%d: %w", ref.Doc, ref.Start, ref.End, err))
		return keptRecord{}, false
	}
	return k, true
}

// records reads kept members' records for the members of one document
// (or one document's removals), each once: a kept member is often the
// kept copy of many of them.
type records struct {
	p   *Plan
	tok *sentence.Tokenizer // nil: only the text
	m   map[Ref]keptRecord
}

func (p *Plan) records(tok *sentence.Tokenizer) *records {
	return &records{p: p, tok: tok, m: map[Ref]keptRecord{}}
}

// get returns the record of kept member ref (as Plan.record).
func (c *records) get(ref Ref) (keptRecord, bool) {
	if k, ok := c.m[ref]; ok {
		return k, true
	}
	k, ok := c.p.record(c.tok, ref)
	if ok {
		c.m[ref] = k
	}
	return k, ok
}

// put writes the record of kept member ref.
func (p *Plan) put(ref Ref, k keptRecord) {
	p.buf = appendEncoded(p.buf[:0], k)
	if _, err := p.store.Write(p.buf); err != nil {
		p.fail(fmt.Errorf("write kept member %s %d-%d: %w", ref.Doc, ref.Start, ref.End, err))
		return
	}
	p.stored[ref] = keptLoc{off: p.size, n: len(p.buf), ext: k.ext, ok: k.ok}
	p.size += int64(len(p.buf))
}

// fail keeps the first error of the store.
func (p *Plan) fail(err error) {
	p.errMu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.errMu.Unlock()
}

// Err returns the first error reading or writing the kept members'
// records: the cuts made since are not to be trusted.
func (p *Plan) Err() error {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.err
}

// Spill makes p keep the kept members' records in s (a temporary file)
// rather than in memory; call it before AddKept.
func (p *Plan) Spill(s Store) { p.store = s }
