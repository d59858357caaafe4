package clean

import (
	"bytes"
	"errors"
	"strings"
	"sync"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/input"
)

// inFlight is how many documents per worker ordered reads ahead of the
// one it writes next.
const inFlight = 8

// errStopped stops the reader of ordered after a failure.
var errStopped = errors.New("stopped")

// ordered reads the documents of in (the first of each id; with opts,
// as the run read them: readOptions) that want accepts, with their records when keepRaw, has workers process them, and
// hands them to write in input order. It returns the input's counts and
// the documents skipped as repeated ids. At most inFlight documents per
// worker are read and not yet written, so that a slow document does not
// leave every later one waiting in memory.
func ordered(in *input.Set, opts input.Options, workers int, an *doc.Analyzer, want func(id string) bool, keepRaw bool,
	process func(c *document, wk *worker), write func(c *document) error) (input.Counts, int64, error) {
	jobs, results := make(chan *document, 2*workers), make(chan *document, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &worker{an: doc.Analyzer{MaxBytes: an.MaxBytes, Main: an.Main, ContentType: an.ContentType}}
			for c := range jobs {
				process(c, wk)
				results <- c
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	stop := make(chan struct{})
	window := make(chan struct{}, inFlight*workers)
	type read struct {
		counts input.Counts
		dups   int64
		err    error
	}
	done := make(chan read, 1)
	go func() {
		var r read
		seen, seq := map[string]bool{}, 0
		r.counts, r.err = in.EachRecord(opts, func(d *doc.Doc, where string, raw []byte) error {
			if !want(d.ID) {
				return nil
			}
			if seen[d.ID] {
				r.dups++
				return nil
			}
			seen[strings.Clone(d.ID)] = true
			c := &document{seq: seq, where: where, d: doc.Doc{ID: strings.Clone(d.ID), URL: strings.Clone(d.URL),
				HTML: strings.Clone(d.HTML), Text: strings.Clone(d.Text), Site: strings.Clone(d.Site), IsHTML: d.IsHTML, ValidUTF8: d.ValidUTF8}}
			if keepRaw {
				c.raw = bytes.Clone(raw)
			}
			seq++
			select {
			case window <- struct{}{}:
			case <-stop:
				return errStopped
			}
			select {
			case jobs <- c:
				return nil
			case <-stop:
				return errStopped
			}
		})
		close(jobs)
		done <- r
	}()
	var err error
	pending, next := map[int]*document{}, 0
	for c := range results {
		pending[c.seq] = c
		for c := pending[next]; c != nil; c = pending[next] {
			delete(pending, next)
			next++
			<-window
			if err == nil {
				if err = write(c); err != nil {
					close(stop)
				}
			}
		}
	}
	r := <-done
	if err == nil && r.err != nil {
		err = r.err
	}
	return r.counts, r.dups, err
}
