package fuzzbound

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

var sink []byte

func TestRun(t *testing.T) {
	defer func(d time.Duration, a uint64) { Deadline, AllocBytes = d, a }(Deadline, AllocBytes)
	AllocBytes = 64 << 20
	release := make(chan struct{})
	defer close(release)
	// Only the hang has a short deadline: the others must end, however
	// loaded the machine, before theirs.
	for _, tc := range []struct {
		name     string
		deadline time.Duration
		body     func()
		want     string
	}{
		{"quick", time.Minute, func() { sink = make([]byte, 1<<20) }, ""},
		{"hang", 200 * time.Millisecond, func() { <-release }, "still running"},
		{"allocates", time.Minute, func() {
			for range 100 {
				sink = make([]byte, 1<<20)
			}
		}, "allocated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Deadline = tc.deadline
			r := &recorder{TB: t}
			Run(r, tc.body)
			if tc.want == "" && r.msg != "" || !strings.Contains(r.msg, tc.want) {
				t.Errorf("Run failed with %q, want %q", r.msg, tc.want)
			}
		})
	}
	t.Run("panic", func(t *testing.T) {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the body's panic", p)
			}
		}()
		Run(&recorder{TB: t}, func() { panic("boom") })
	})
}
