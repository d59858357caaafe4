// Package extend is the map side of the extend job, which grows the match
// job's runs over edited sentences (lib/extend) and writes pdc's final
// output, the spans.
//
// Input: the match job's seed records (lib/extend) and the parsed-document
// records (lib/doc). Side input: the same seed records at PDC_SEEDS (the
// match output directory; on Hadoop a -files link), from which the mapper
// learns which sentences of which document each document pair needs
// (extend.Needs). Output: the seed records unchanged, and for each
// parsed document and each pair of its seeds a window record (lib/extend)
// with the sentences the pair needs, all keyed by document pair. With
// extension off (PDC_EXTEND_TAU=0) no window is written and the side input
// is not read.
package extend

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"weak"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/extend"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// KeyFields and PartitionFields of the extend job (pipeline.Stages): the
// reducer groups by document pair and reads the records of a pair in any
// order.
const KeyFields, PartitionFields = 2, 2

// Map runs the extend mapper.
func Map(t *mr.Task) error {
	cfg, err := jobconf.FromEnv(t.Getenv)
	if err != nil {
		return err
	}
	var req *Requests
	if cfg.ExtendTau > 0 {
		if req, err = LoadRequests(cfg.Seeds); err != nil {
			return err
		}
	}
	c := mr.NewCounters(t.Stderr)
	out := mr.NewOutput(t.Stdout)
	var (
		sents   []doc.Sentence
		tokens  []uint64
		scratch []byte
		win     extend.Windows
		line    []byte
		nWin    int64
		nDocs   int64
	)
	r := mr.NewReader(t.Stdin)
	for r.Next() {
		l := r.Line()
		f := bytes.SplitN(l, []byte{'\t'}, 6)
		switch {
		case len(f) == 6: // seed record: to the reducer as it is
			if _, err := out.Write(append(append(line[:0], l...), '\n')); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		case len(f) == 5: // parsed-document record
			if req == nil {
				continue
			}
			rec, err := doc.SplitRecord(l)
			if err != nil {
				return fmt.Errorf("extend mapper: line %d: %w", r.LineNumber(), err)
			}
			rs := req.byDoc[string(rec.ID)]
			if len(rs) == 0 {
				continue
			}
			nDocs++
			sents, tokens, scratch, err = doc.DecodeBlob(rec.Blob, sents, tokens, scratch)
			if err != nil {
				return fmt.Errorf("extend mapper: line %d (doc %s): %w", r.LineNumber(), rec.ID, err)
			}
			win.Reset(sents)
			for _, q := range rs {
				line = append(line[:0], q.pair...)
				line = append(line, '\t')
				line = append(line, extend.KindWindow...)
				line = append(line, '\t', q.side)
				line = append(line, '\t')
				line = doc.AppendOrder(line, rec)
				line = append(line, '\t')
				line = win.Append(line, q.ranges)
				line = append(line, '\n')
				if _, err := out.Write(line); err != nil {
					return fmt.Errorf("write: %w", err)
				}
				nWin++
			}
		default:
			return fmt.Errorf("extend mapper: line %d: neither a seed nor a parsed-document record (%d fields)", r.LineNumber(), len(bytes.Split(l, []byte{'\t'})))
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("extend mapper: read: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if nDocs > 0 {
		c.Add("extend.docs", nDocs)
		c.Add("extend.windows", nWin)
	}
	return c.Flush()
}

// Requests tells, per document (escaped id), the sentences each of its
// document pairs needs.
type Requests struct {
	byDoc map[string][]request
}

type request struct {
	pair   string // docA TAB docB
	side   byte   // 'a' or 'b'
	ranges []extend.Range
}

// ReadRequests reads seed records and returns what each document must send.
func ReadRequests(files []string) (*Requests, error) {
	q := &Requests{byDoc: map[string][]request{}}
	var fields [][]byte
	var lastKey []byte
	var pair, docA, docB string
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read seeds: %w", err)
		}
		for n, l := range bytes.Split(data, []byte{'\n'}) {
			if len(l) == 0 {
				continue
			}
			fields = mr.Fields(fields[:0], l)
			if len(fields) != extend.SeedFields {
				return nil, fmt.Errorf("read seeds: %s: line %d: want %d fields, got %d", name, n+1, extend.SeedFields, len(fields))
			}
			if string(fields[2]) == extend.KindCandidate && string(fields[7]) == "1" {
				continue // a single pair needs no sentence (extend.Needs)
			}
			s, err := extend.ParseSeed(fields[2:])
			if err != nil {
				return nil, fmt.Errorf("read seeds: %s: line %d: %w", name, n+1, err)
			}
			// A pair's seeds come together: its strings are made once.
			if key := l[:len(fields[0])+1+len(fields[1])]; !bytes.Equal(key, lastKey) {
				lastKey = append(lastKey[:0], key...)
				pair, docA, docB = string(key), string(fields[0]), string(fields[1])
			}
			q.add(docA, pair, 'a', s)
			q.add(docB, pair, 'b', s)
		}
	}
	for _, rs := range q.byDoc {
		for i := range rs {
			rs[i].ranges = extend.Normalize(rs[i].ranges)
		}
	}
	return q, nil
}

func (q *Requests) add(d, pair string, side byte, s extend.Seed) {
	rs := q.byDoc[d]
	if n := len(rs); n == 0 || rs[n-1].pair != pair || rs[n-1].side != side {
		rs = append(rs, request{pair: pair, side: side})
		q.byDoc[d] = rs
	}
	r := &rs[len(rs)-1]
	r.ranges = extend.Needs(r.ranges, s, side == 'a')
}

// LoadRequests reads the seed records at path (a file, or a directory of
// part files) once per process: the local runner runs every map task of a
// job in one process.
func LoadRequests(path string) (*Requests, error) {
	if path == "" {
		return nil, fmt.Errorf("the extend job needs the match job's output (PDC_SEEDS is not set)")
	}
	files, err := mr.SideFiles(path)
	if err != nil {
		return nil, fmt.Errorf("read seeds: %w", err)
	}
	key, err := mr.SideStamp(files)
	if err != nil {
		return nil, fmt.Errorf("read seeds: %w", err)
	}
	cache.Lock()
	defer cache.Unlock()
	if cache.key == key {
		if q := cache.q.Value(); q != nil {
			return q, nil
		}
	}
	q, err := ReadRequests(files)
	if err != nil {
		return nil, err
	}
	cache.key, cache.q = key, weak.Make(q)
	return q, nil
}

// cache holds the requests last loaded (read-only), as mappers/index
// caches the stats.
var cache struct {
	sync.Mutex
	key string
	q   weak.Pointer[Requests]
}
