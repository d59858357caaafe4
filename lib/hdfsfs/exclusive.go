package hdfsfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// CreateExclusive creates the named file for writing, failing with an
// error that wraps fs.ErrExist when it exists. The check and the creation
// are one step of the file system (O_EXCL on the local disk, a create
// without overwrite on HDFS): of two processes, one gets the file.
func CreateExclusive(fsys FS, name string) (io.WriteCloser, error) {
	switch f := fsys.(type) {
	case localFS:
		return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	case *hdfsFS:
		w, err := f.c.Create(name)
		if err != nil {
			return nil, err
		}
		return &hdfsWriter{FileWriter: w}, nil
	}
	return nil, fmt.Errorf("create %s: exclusive create not supported by %T", name, fsys)
}

// Touch sets the modification time of the named file.
func Touch(fsys FS, name string, t time.Time) error {
	switch f := fsys.(type) {
	case localFS:
		return os.Chtimes(name, t, t)
	case *hdfsFS:
		if err := f.c.Chtimes(name, t, t); err != nil {
			return &fs.PathError{Op: "touch", Path: name, Err: UnwrapPath(err)}
		}
		return nil
	}
	return fmt.Errorf("touch %s: not supported by %T", name, fsys)
}
