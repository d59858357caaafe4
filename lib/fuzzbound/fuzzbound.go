// Package fuzzbound runs the body of a fuzz target under a deadline and an
// allocation bound, so that an input that hangs or allocates without bound
// fails the target (and is written to testdata/fuzz as a crasher) instead
// of stalling the fuzzer: Go's fuzzing engine has no per-input deadline.
//
//	f.Fuzz(func(t *testing.T, data []byte) {
//		fuzzbound.Run(t, func() { ... })
//	})
package fuzzbound

import (
	"runtime/metrics"
	"testing"
	"time"
)

// Bounds of Run (variables for tests). An input of a fuzz target takes
// microseconds to milliseconds; the seeds (whole files) up to a second on
// a loaded machine.
var (
	Deadline          = 10 * time.Second
	AllocBytes uint64 = 1 << 30 // bytes allocated by the body (not live: all of them)
)

var sample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

func allocated() uint64 {
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// Run runs body and fails t if it does not return within Deadline or
// allocates more than AllocBytes. A body that overruns the deadline is
// left running: the failure ends the fuzzing worker's process.
func Run(t testing.TB, body func()) {
	t.Helper()
	before := allocated()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		body()
	}()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
	case <-time.After(Deadline):
		t.Fatalf("input still running after %s: a hang, or a loop bounded only by memory", Deadline)
	}
	if a := allocated() - before; a > AllocBytes {
		t.Fatalf("input allocated %d MiB, over the %d MiB bound", a>>20, AllocBytes>>20)
	}
}

// Bytes wraps the body of a fuzz target over one []byte so that each input
// runs under Run: f.Fuzz(fuzzbound.Bytes(func(t *testing.T, data []byte) {
// ... })).
func Bytes(body func(t *testing.T, data []byte)) func(t *testing.T, data []byte) {
	return func(t *testing.T, data []byte) {
		t.Helper()
		Run(t, func() { body(t, data) })
	}
}
