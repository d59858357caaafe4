package hdfsfs

import (
	"io"
	"io/fs"
	"os"
	"sort"
)

// localFS is FS on the local disk through package os.
type localFS struct{}

var _ FS = localFS{}

// Local returns the local file system. Names are operating system paths.
func Local() FS { return localFS{} }

func (localFS) Open(name string) (io.ReadCloser, error) { return os.Open(name) }

func (localFS) Create(name string) (io.WriteCloser, error) { return os.Create(name) }

func (localFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

func (localFS) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }

func (localFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }

func (localFS) RemoveAll(name string) error { return os.RemoveAll(name) }

func (localFS) ReadDir(name string) ([]fs.FileInfo, error) {
	entries, err := os.ReadDir(name)
	if err != nil {
		return nil, err
	}
	infos := make([]fs.FileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		infos = append(infos, fi)
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name() < infos[j].Name() })
	return infos, nil
}
