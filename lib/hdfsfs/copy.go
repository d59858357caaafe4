package hdfsfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
)

// chunk is the unit of copying between checks of the context and progress reports.
const chunk = 1 << 20

// Progress is told the bytes copied so far and the total to copy. Copy calls it after
// each chunk it copies and once more at the end if needed, so that the last call of a
// successful copy, empty files included, has done == total. ThrottledProgress limits
// how often a report is made.
type Progress func(done, total int64)

// Upload copies the local file or directory tree src to dstPath on dst.
func Upload(ctx context.Context, dst FS, dstPath, src string, progress Progress) error {
	return Copy(ctx, dst, dstPath, Local(), src, progress)
}

// Download copies the file or directory tree srcPath on src to the local path dst.
func Download(ctx context.Context, dst string, src FS, srcPath string, progress Progress) error {
	return Copy(ctx, Local(), dst, src, srcPath, progress)
}

// Copy copies the file or directory tree srcPath on src to dstPath on dst. Directories are
// created as needed; existing files are replaced. Each file is written through
// CreateAtomic, under a hidden temporary name renamed when complete, so a failed copy
// leaves no partial file under its final name; a file whose write a DataNode fails, or
// the NameNode refuses for now, is copied again from its start (retryWrite), and its
// progress then steps back. progress may be nil.
func Copy(ctx context.Context, dst FS, dstPath string, src FS, srcPath string, progress Progress) error {
	files, total, err := plan(src, srcPath, dstPath)
	if err != nil {
		return err
	}
	c := copier{ctx: ctx, dst: dst, src: src, total: total, progress: progress}
	for _, f := range files {
		if err := c.item(f); err != nil {
			return err
		}
	}
	if progress != nil && (!c.reported || c.done != c.total) {
		// Nothing to copy (only empty files), or the files changed size since plan:
		// the total becomes what was copied.
		progress(c.done, c.done)
	}
	return nil
}

// copyItem is one directory to create or file to copy.
type copyItem struct {
	src, dst string
	dir      bool
}

// plan lists what to copy, parents before children, in name order, and the total bytes.
func plan(src FS, srcPath, dstPath string) ([]copyItem, int64, error) {
	fi, err := src.Stat(srcPath)
	if err != nil {
		return nil, 0, fmt.Errorf("copy: %w", err)
	}
	if !fi.IsDir() {
		return []copyItem{{src: srcPath, dst: dstPath}}, fi.Size(), nil
	}
	items := []copyItem{{src: srcPath, dst: dstPath, dir: true}}
	infos, err := src.ReadDir(srcPath)
	if err != nil {
		return nil, 0, fmt.Errorf("copy: %w", err)
	}
	var total int64
	for _, info := range infos {
		sub, n, err := plan(src, path.Join(srcPath, info.Name()), path.Join(dstPath, info.Name()))
		if err != nil {
			return nil, 0, err
		}
		items = append(items, sub...)
		total += n
	}
	return items, total, nil
}

type copier struct {
	ctx         context.Context
	dst, src    FS
	done, total int64
	progress    Progress
	reported    bool // progress was called
}

func (c *copier) item(it copyItem) error {
	if it.dir {
		if err := c.dst.MkdirAll(it.dst, 0o755); err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		return nil
	}
	if err := c.file(it.src, it.dst); err != nil {
		return fmt.Errorf("copy %s to %s: %w", it.src, it.dst, err)
	}
	return nil
}

// file copies one file, again from its start while writing it fails in a way
// worth trying again (retryWrite): a DataNode failed, or the NameNode said not yet.
// A read error of the source ends the copy. A retry counts its bytes again, so
// progress may step back.
func (c *copier) file(srcName, dstName string) error {
	start := c.done
	return retryWrite(c.ctx, func() error {
		c.done = start
		return c.fileOnce(srcName, dstName)
	})
}

func (c *copier) fileOnce(srcName, dstName string) error {
	r, err := c.src.Open(srcName)
	if err != nil {
		return err
	}
	defer r.Close() // a read error has been seen by stream
	w, err := CreateAtomic(c.dst, dstName)
	if err != nil {
		return err
	}
	if err := c.stream(w, r, srcName); err != nil {
		return errors.Join(err, w.Abort())
	}
	return w.Close()
}

func (c *copier) stream(w io.Writer, r io.Reader, src string) error {
	buf := make([]byte, chunk)
	for {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		n, err := io.ReadFull(r, buf)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			var pe *fs.PathError
			if !errors.As(err, &pe) {
				err = &fs.PathError{Op: "read", Path: src, Err: err} // the source's: not retried
			}
		}
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			c.done += int64(n)
			if c.progress != nil {
				c.progress(c.done, c.total)
				c.reported = true
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
