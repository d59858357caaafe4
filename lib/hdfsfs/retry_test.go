package hdfsfs

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
	"time"
)

// TestRetryWrite: a write that a DataNode fails (an error that is no
// *fs.PathError) is tried again, up to writeRetries times; one that the
// NameNode or the disk refuses (a *fs.PathError) is not.
func TestRetryWrite(t *testing.T) {
	defer func(b time.Duration) { writeBackoff = b }(writeBackoff)
	writeBackoff = time.Millisecond
	pipeline := errors.New("write failed: ERROR ()")
	quota := &fs.PathError{Op: "create", Path: "/out/x", Err: syscall.EDQUOT}
	for _, tt := range []struct {
		name  string
		fails int   // tries that fail before one succeeds
		err   error // their error
		calls int
		ok    bool
	}{
		{"a DataNode fails twice", 2, pipeline, 3, true},
		{"a DataNode fails every try", 100, pipeline, writeRetries, false},
		{"the NameNode refuses", 100, quota, 1, false},
		{"no failure", 0, nil, 1, true},
	} {
		calls := 0
		err := retryWrite(func() error {
			calls++
			if calls <= tt.fails {
				return tt.err
			}
			return nil
		})
		if calls != tt.calls || (err == nil) != tt.ok {
			t.Errorf("%s: %d calls, error %v; want %d calls, ok %v", tt.name, calls, err, tt.calls, tt.ok)
		}
		if !tt.ok && !errors.Is(err, tt.err) {
			t.Errorf("%s: error %v, want the write's %v", tt.name, err, tt.err)
		}
	}
}
