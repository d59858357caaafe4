package hdfsfs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// AtomicFile is a file written under a hidden temporary name next to its final name and
// renamed onto the final name by Close, so that a reader of the final name never sees a
// partial file: it sees the old file (or none) until Close succeeds, then the whole new
// one. A failed or abandoned write leaves the final name untouched.
//
// The temporary name is DIR/.BASE.RANDOM.tmp for a final name DIR/BASE, RANDOM being 16
// hex digits, so that concurrent writers of one name do not collide. It starts with ".":
// Hadoop's input listing and pdc's part-file listing skip it. A process killed while
// writing leaves it behind, as does an Abort whose removal fails (it says so).
//
// Writes are buffered; errors may surface only at Close. An AtomicFile is not safe for
// concurrent use.
type AtomicFile struct {
	fsys   FS
	name   string // the final name
	tmp    string // the temporary name being written
	w      io.WriteCloser
	bw     *bufio.Writer
	closed bool // Close or Abort was called
}

// atomicBuffer is the write buffer of an AtomicFile: one HDFS packet.
const atomicBuffer = 64 << 10

// CreateAtomic starts writing the named file through a temporary name (see AtomicFile).
// The parent directory must exist; an existing file is replaced by Close, an existing
// directory is an error. Callers must end with Close (to keep the data) or Abort (to
// discard it); a deferred Abort after Close is a no-op:
//
//	f, err := hdfsfs.CreateAtomic(fsys, name)
//	if err != nil {
//		return err
//	}
//	defer f.Abort()
//	... write to f ...
//	return f.Close()
func CreateAtomic(fsys FS, name string) (*AtomicFile, error) {
	if fi, err := fsys.Stat(name); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "create", Path: name, Err: syscall.EISDIR}
	}
	tmp := tempName(name)
	w, err := fsys.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	return &AtomicFile{fsys: fsys, name: name, tmp: tmp, w: w, bw: bufio.NewWriterSize(w, atomicBuffer)}, nil
}

// tempName is the hidden temporary sibling of name: DIR/.BASE.RANDOM.tmp. Local names may
// use the operating system's separator.
func tempName(name string) string {
	i := strings.LastIndexAny(name, "/"+string(filepath.Separator))
	return fmt.Sprintf("%s.%s.%016x.tmp", name[:i+1], name[i+1:], rand.Uint64())
}

// Name returns the final name of the file, as given to CreateAtomic.
func (f *AtomicFile) Name() string { return f.name }

// Write writes p to the temporary file.
func (f *AtomicFile) Write(p []byte) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrClosed}
	}
	return f.bw.Write(p)
}

// Close flushes and closes the temporary file and renames it onto the final name,
// replacing an existing file. When any step fails it removes the temporary file and
// returns the error: the final name is then as it was before CreateAtomic. Closing twice
// is an error wrapping fs.ErrClosed.
func (f *AtomicFile) Close() error {
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	f.closed = true
	err := f.bw.Flush()
	if cerr := f.w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.fsys.Rename(f.tmp, f.name)
	}
	if err != nil {
		if rerr := f.fsys.RemoveAll(f.tmp); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return fmt.Errorf("write %s: %w", f.name, err)
	}
	return nil
}

// Abort discards the file: it closes and removes the temporary file and leaves the final
// name as it was. It returns only an error removing the temporary file. After Close (or a
// first Abort) it does nothing and returns nil, so it can be deferred.
func (f *AtomicFile) Abort() error {
	if f.closed {
		return nil
	}
	f.closed = true
	if a, ok := f.w.(aborter); ok {
		a.abort()
	} else {
		f.w.Close() // the data is discarded: only the removal matters
	}
	if err := f.fsys.RemoveAll(f.tmp); err != nil {
		return fmt.Errorf("abort %s: %w", f.name, err)
	}
	return nil
}

// aborter is a writer that can be closed for data that is thrown away, without
// waiting for it to be safe (hdfsWriter).
type aborter interface{ abort() }

// WriteFileAtomic writes data to the named file through a temporary name (see
// AtomicFile): a reader sees the old file or the new one, never a partial file. An
// existing file is replaced; the parent directory must exist.
func WriteFileAtomic(fsys FS, name string, data []byte) error {
	return retryWrite(context.Background(), func() error {
		f, err := CreateAtomic(fsys, name)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			return errors.Join(fmt.Errorf("write %s: %w", name, err), f.Abort())
		}
		return f.Close()
	})
}

// RewriteAtomic writes the named file as CreateAtomic does, with write,
// which must write the same bytes each time it is called (a conversion of
// files that do not change): when the NameNode refuses one of the file's
// blocks for now (transientExceptions, which a streamed writer cannot take
// back), the file is abandoned and written again from its start, with
// Upload's backoff, up to writeRetries times. Any other error is returned
// at once.
func RewriteAtomic(ctx context.Context, fsys FS, name string, write func(w io.Writer) error) error {
	wait := writeBackoff
	for try := 1; ; try++ {
		err := writeAtomicOnce(fsys, name, write)
		if err == nil || !transient(err) || try == writeRetries {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 8*time.Second)
	}
}

func writeAtomicOnce(fsys FS, name string, write func(w io.Writer) error) error {
	f, err := CreateAtomic(fsys, name)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Close()
}
