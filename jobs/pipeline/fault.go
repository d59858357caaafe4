package pipeline

import (
	"context"
	"os"
	"strings"
	"time"
)

// Hold waits while the file of a hold fault exists, for tests that need a
// run to stay at a known point until they let it go on: PDC_FAULT=hold:PATH
// holds every job, PDC_FAULT=hold@JOB:PATH the job named JOB only (a
// stage's name, e.g. index or join+match). On Hadoop the streaming
// programs hold (each task, on the node's disk), on the local runner the
// driver before it starts the job. Hold returns ctx's error if ctx ends
// first, nil at once for any other fault.
func Hold(ctx context.Context, fault, job string) error {
	spec, ok := strings.CutPrefix(fault, "hold")
	if !ok {
		return nil
	}
	var path string
	switch {
	case strings.HasPrefix(spec, ":"):
		path = spec[1:]
	case strings.HasPrefix(spec, "@"):
		name, p, ok := strings.Cut(spec[1:], ":")
		if !ok || name != job {
			return nil
		}
		path = p
	default:
		return nil
	}
	for {
		if _, err := os.Stat(path); err != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
