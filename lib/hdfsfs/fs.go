// Package hdfsfs is the file system pdc reads inputs from and writes outputs to: one small
// interface, FS, with an implementation for the local disk (Local) and one for HDFS (New,
// FromEnv) built on github.com/colinmarc/hdfs/v2. IsRemote is pdc's rule for whether a
// path such as "hdfs://namenode:8020/data/in" or "/tmp/in" is on HDFS, and Resolve picks
// the file system for it.
//
// CreateAtomic and WriteFileAtomic write a file under a hidden temporary name renamed
// when complete, so readers never see a partial file; Copy, Upload and Download copy
// files that way, reporting their progress to a Progress (see ThrottledProgress).
//
// Errors are *fs.PathError values wrapping the os sentinel errors where one applies, so
// callers test them with errors.Is(err, fs.ErrNotExist) on either implementation.
package hdfsfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/colinmarc/hdfs/v2"
)

// FS is the file system pdc reads inputs from and writes outputs to. Names are slash
// separated; HDFS names are absolute.
type FS interface {
	// Open opens the named file for reading.
	Open(name string) (io.ReadCloser, error)
	// Create creates the named file, truncating it if it exists; its parent directory
	// must exist. A Write of no bytes writes nothing. The data is only safe once Close
	// has returned nil: callers must check the Close error.
	Create(name string) (io.WriteCloser, error)
	// Stat describes the named file or directory.
	Stat(name string) (fs.FileInfo, error)
	// ReadDir lists the named directory, sorted by name.
	ReadDir(name string) ([]fs.FileInfo, error)
	// MkdirAll creates a directory and any missing parents.
	MkdirAll(name string, perm fs.FileMode) error
	// Rename renames (moves) a file or directory, replacing an existing file at newname.
	Rename(oldname, newname string) error
	// RemoveAll removes name and everything below it; a missing name is not an error.
	RemoveAll(name string) error
}

// ReadFile reads the whole named file.
func ReadFile(fsys FS, name string) ([]byte, error) {
	r, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return data, nil
}

// WriteFile creates (or truncates) the named file and writes data to it. Empty data
// creates an empty file, on HDFS too. A reader may see a partial file while it is
// written, or after a failure; WriteFileAtomic avoids that. A write that a DataNode
// fails is written again (retryWrite).
func WriteFile(fsys FS, name string, data []byte) error {
	return retryWrite(context.Background(), func() error {
		w, err := fsys.Create(name)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
		return nil
	})
}

// writeRetries and writeBackoff bound retryWrite: about 30 s in all, longer than
// the test cluster takes to declare a DataNode dead.
var (
	writeRetries = 7
	writeBackoff = 500 * time.Millisecond
)

// retryWrite runs write, a whole file's write, again while it fails in a DataNode
// (the pipeline of a block: a DataNode died or dropped the connection) or the
// NameNode asks the writer to try again (transient). The HDFS client pdc uses does
// not rebuild a block's pipeline without the failed node, as the Java client does,
// nor retry a refused addBlock; a new write asks the NameNode for new blocks, on
// other nodes with every try and on live ones once the NameNode has declared the
// node dead. Other errors of the NameNode (a path, a permission, a quota) and of the
// local disk are *fs.PathError or *os.LinkError (a rename) values and are returned at
// once, as is the end of ctx, which also ends a wait between tries.
func retryWrite(ctx context.Context, write func() error) error {
	wait := writeBackoff
	for try := 1; ; try++ {
		err := write()
		if err == nil || final(err) || try == writeRetries {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		if ctx.Err() != nil { // ended as the wait did
			return errors.Join(err, ctx.Err())
		}
		wait = min(2*wait, 8*time.Second)
	}
}

// final reports whether a failed write is not worth trying again (retryWrite).
func final(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &le) || (errors.As(err, &pe) && !transient(err))
}

// transientExceptions are the NameNode's answers that mean "not now, try again":
// NotReplicatedYetException refuses a file's next block (addBlock) while its previous
// block has not yet reached its minimal replication, which a loaded DataNode reports
// late; RetriableException is what a NameNode says while it cannot serve a call for a
// moment (starting, leaving safe mode). The Java client retries both with a backoff.
var transientExceptions = []string{
	"org.apache.hadoop.hdfs.server.namenode.NotReplicatedYetException",
	"org.apache.hadoop.ipc.RetriableException",
}

// transient reports whether err is a NameNode answer worth trying again
// (transientExceptions).
func transient(err error) bool {
	var re hdfs.Error
	if !errors.As(err, &re) {
		return false
	}
	return slices.Contains(transientExceptions, re.Exception())
}
