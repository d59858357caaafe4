package hdfsfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"
)

// TestRetryWrite: a write that a DataNode fails (an error that is no
// *fs.PathError), or that the NameNode refuses for now (NotReplicatedYetException,
// RetriableException), is tried again, up to writeRetries times; one that the
// NameNode or the disk refuses otherwise (a *fs.PathError, a rename's
// *os.LinkError) is not, nor one that the end of a context stopped.
func TestRetryWrite(t *testing.T) {
	defer func(b time.Duration) { writeBackoff = b }(writeBackoff)
	writeBackoff = time.Millisecond
	pipeline := errors.New("write failed: ERROR ()")
	quota := &fs.PathError{Op: "create", Path: "/out/x", Err: syscall.EDQUOT}
	notYet := &fs.PathError{Op: "create", Path: "/out/x", Err: namenodeError{"org.apache.hadoop.hdfs.server.namenode.NotReplicatedYetException"}}
	safeMode := &fs.PathError{Op: "create", Path: "/out/x", Err: namenodeError{"org.apache.hadoop.hdfs.server.namenode.SafeModeException"}}
	retriable := &fs.PathError{Op: "create", Path: "/out/x", Err: namenodeError{"org.apache.hadoop.ipc.RetriableException"}}
	joined := errors.Join(notYet, errors.New("abort /out/x: remove failed"))
	rename := &os.LinkError{Op: "rename", Old: "/out/.x.tmp", New: "/out/x", Err: syscall.EXDEV}
	cancelled := fmt.Errorf("copy: %w", context.Canceled)
	deadline := fmt.Errorf("copy: %w", context.DeadlineExceeded)
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
		{"the NameNode says not yet, twice", 2, notYet, 3, true},
		{"the NameNode says not yet every try", 100, notYet, writeRetries, false},
		{"the NameNode refuses with another exception", 100, safeMode, 1, false},
		{"the NameNode is busy for a moment", 1, retriable, 2, true},
		{"not yet, with the abort's error", 1, joined, 2, true},
		{"a local rename fails", 100, rename, 1, false},
		{"the context ends", 100, cancelled, 1, false},
		{"the context's deadline passes", 100, deadline, 1, false},
		{"no failure", 0, nil, 1, true},
	} {
		calls := 0
		err := retryWrite(context.Background(), func() error {
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

// TestRetryWriteCancelledWait: the end of the context ends the wait between tries at
// once, with the write's error and the context's.
func TestRetryWriteCancelledWait(t *testing.T) {
	defer func(b time.Duration) { writeBackoff = b }(writeBackoff)
	writeBackoff = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	pipeline := errors.New("write failed: ERROR ()")
	calls := 0
	err := retryWrite(ctx, func() error {
		calls++
		cancel() // while the write runs: retryWrite then waits an hour unless it sees the end
		return pipeline
	})
	if calls != 1 || !errors.Is(err, pipeline) || !errors.Is(err, context.Canceled) {
		t.Errorf("%d calls, error %v; want 1 call, the write's error and context.Canceled", calls, err)
	}
}

var _ hdfs.Error = namenodeError{} // the interface transient looks for

// namenodeError is an error of the NameNode as the HDFS client reports it (hdfs.Error),
// with the Java exception's class name.
type namenodeError struct{ exception string }

func (e namenodeError) Error() string {
	return "addBlock call failed with ERROR_APPLICATION (" + e.exception + ")"
}
func (e namenodeError) Method() string    { return "addBlock" }
func (e namenodeError) Desc() string      { return "ERROR_APPLICATION" }
func (e namenodeError) Exception() string { return e.exception }
func (e namenodeError) Message() string   { return e.exception }

// notYetFS is the local file system whose first fails writers fail at their second
// Write as an HDFS writer does when the NameNode refuses the file's next block.
type notYetFS struct {
	FS
	fails int
}

func (f *notYetFS) Create(name string) (io.WriteCloser, error) {
	w, err := f.FS.Create(name)
	if err != nil || f.fails == 0 {
		return w, err
	}
	f.fails--
	return &notYetWriter{WriteCloser: w, name: name}, nil
}

type notYetWriter struct {
	io.WriteCloser
	name   string
	writes int
}

func (w *notYetWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > 1 {
		return 0, &fs.PathError{Op: "create", Path: w.name, Err: namenodeError{"org.apache.hadoop.hdfs.server.namenode.NotReplicatedYetException"}}
	}
	return w.WriteCloser.Write(p)
}

// TestCopyRetriesNotYet: a file whose write the NameNode refuses for now
// (NotReplicatedYetException at a block's end) is copied again from its start, and the
// copy is whole, with no temporary file left and progress ending at the total.
func TestCopyRetriesNotYet(t *testing.T) {
	defer func(b time.Duration) { writeBackoff = b }(writeBackoff)
	writeBackoff = time.Millisecond
	src := path.Join(t.TempDir(), "bin")
	data := randomBytes(2*chunk + 5)
	if err := WriteFile(Local(), src, data); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dst := &notYetFS{FS: Local(), fails: 2}
	var last, lastTotal int64
	err := Upload(context.Background(), dst, path.Join(dir, "bin"), src, func(done, total int64) { last, lastTotal = done, total })
	if err != nil {
		t.Fatalf("Upload: %v", err)
	}
	if dst.fails != 0 {
		t.Errorf("%d failing writers left unused: the copy was not retried", dst.fails)
	}
	got, err := ReadFile(Local(), path.Join(dir, "bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("copied %d bytes (%v), want the %d of the source", len(got), err, len(data))
	}
	if n := names(t, Local(), dir); len(n) != 1 {
		t.Errorf("the directory holds %v, want only bin", n)
	}
	if want := int64(len(data)); last != want || lastTotal != want {
		t.Errorf("progress ended at %d/%d, want %d/%d", last, lastTotal, want, want)
	}
}

// failingReader reads n bytes, then fails as a broken source does.
type failingReader struct {
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := min(len(p), r.n)
	r.n -= k
	return k, nil
}

func (r *failingReader) Close() error { return nil }

// brokenSourceFS is the local file system whose files read as failingReaders (a
// source whose block is lost), counting the opens.
type brokenSourceFS struct {
	FS
	opens int
}

func (f *brokenSourceFS) Open(name string) (io.ReadCloser, error) {
	f.opens++
	return &failingReader{n: 3 * chunk / 2, err: errors.New("read block: no DataNode has it")}, nil
}

// TestCopyBrokenSource: a source that fails to read ends the copy at its first try
// (only writes are tried again), with no file left behind, the error naming the source.
func TestCopyBrokenSource(t *testing.T) {
	defer func(b time.Duration) { writeBackoff = b }(writeBackoff)
	writeBackoff = time.Millisecond
	src := path.Join(t.TempDir(), "in")
	if err := WriteFile(Local(), src, randomBytes(2*chunk)); err != nil {
		t.Fatal(err)
	}
	from := &brokenSourceFS{FS: Local()}
	dir := t.TempDir()
	err := Copy(context.Background(), Local(), path.Join(dir, "out"), from, src, nil)
	if err == nil || from.opens != 1 || !strings.Contains(err.Error(), "read "+src+": read block: no DataNode has it") {
		t.Errorf("Copy of a broken source: %d opens, error %v; want 1 open and the read error naming %s", from.opens, err, src)
	}
	if n := names(t, Local(), dir); len(n) != 0 {
		t.Errorf("the failed copy left %v", n)
	}
}

// TestRewriteAtomicNotYet: a streamed file whose block the NameNode refuses
// for now is written again from its start and is whole; another error of
// the writing is returned at once, with no file and no temporary file left.
func TestRewriteAtomicNotYet(t *testing.T) {
	defer func(b time.Duration) { writeBackoff = b }(writeBackoff)
	writeBackoff = time.Millisecond
	data := randomBytes(3*atomicBuffer + 5)
	dir := t.TempDir()
	dst := &notYetFS{FS: Local(), fails: 2}
	calls := 0
	write := func(w io.Writer) error {
		calls++
		for off := 0; off < len(data); off += 4096 {
			if _, err := w.Write(data[off:min(off+4096, len(data))]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := RewriteAtomic(context.Background(), dst, path.Join(dir, "f"), write); err != nil {
		t.Fatalf("RewriteAtomic: %v", err)
	}
	if calls != 3 || dst.fails != 0 {
		t.Errorf("written %d times, %d failing writers left; want 3 and 0", calls, dst.fails)
	}
	got, err := ReadFile(Local(), path.Join(dir, "f"))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("wrote %d bytes (%v), want %d", len(got), err, len(data))
	}
	broken := errors.New("the source broke")
	calls = 0
	err = RewriteAtomic(context.Background(), Local(), path.Join(dir, "g"), func(w io.Writer) error { calls++; return broken })
	if !errors.Is(err, broken) || calls != 1 {
		t.Errorf("a failing source: %v after %d calls, want it after 1", err, calls)
	}
	if n := names(t, Local(), dir); len(n) != 1 {
		t.Errorf("the directory holds %v, want only f", n)
	}
}
