package hdfsfs

import (
	"sync"
	"time"
)

// ThrottledProgress returns a Progress that passes a call on to report at most once per
// every (measured from the last call passed on, or from ThrottledProgress itself for the
// first), except that a final call (done >= total) is always passed on, so every
// transfer ends with its 100% report however fast it was. every <= 0 passes on every
// call. One ThrottledProgress may serve several transfers in turn (each one's final call
// is reported); it is safe for concurrent use.
func ThrottledProgress(every time.Duration, report Progress) Progress {
	return throttle(every, time.Now, report)
}

// throttle is ThrottledProgress with a clock.
func throttle(every time.Duration, now func() time.Time, report Progress) Progress {
	var mu sync.Mutex
	last := now()
	return func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		t := now()
		if done < total && t.Sub(last) < every {
			return
		}
		last = t
		report(done, total)
	}
}
