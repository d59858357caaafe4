package local

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress prints the local runner's progress: a bar rewritten in place on
// a terminal; otherwise a line when a job starts a phase (map, reduce),
// one every progressEvery, and one when the phase is complete.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	quiet bool
	tty   bool
	last  time.Time
	phase string // the job and phase of the last line
	shown bool
}

// progressEvery is how often a non-terminal gets a progress line.
const progressEvery = 10 * time.Second

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet, last: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(job, phase string, done, total int64) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	every := progressEvery
	if p.tty {
		every = 200 * time.Millisecond
	}
	key := job + " " + phase
	final := !p.tty && total > 0 && done == total // a phase's end gets its line
	if now.Sub(p.last) < every && (p.tty || key == p.phase) && !final {
		return
	}
	p.last, p.phase = now, key
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	if p.tty {
		const width = 30
		n := min(width, int(pct/100*width))
		fmt.Fprintf(p.w, "\rjob %-5s %-6s [%s%s] %5.1f%%", job, phase, strings.Repeat("#", n), strings.Repeat(".", width-n), pct)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "job %s: %s %.1f%% (%d/%d)\n", job, phase, pct, done, total)
}

// done clears the bar after a job.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
