package input

import (
	"fmt"
	"path"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// RemoteFile is a JSON Lines file on HDFS.
type RemoteFile struct {
	FS   hdfsfs.FS
	Path string
}

func (f RemoteFile) open(o Options) (Source, error) {
	rc, err := f.FS.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", f.Path, err)
	}
	s, err := NewJSONL(f.Path, rc, o)
	if err != nil {
		rc.Close()
		return nil, err
	}
	return s, nil
}

// FindAny is Find for documents that may be on HDFS: paths for which
// remote is true are resolved with hdfsfs.Resolve and listed there (a file,
// or a directory's files but those whose names start with "_" or "."), and
// read as JSON Lines.
func FindAny(paths []string, remote func(string) bool) (*Set, error) {
	var local []string
	var files []RemoteFile
	for _, p := range paths {
		if !remote(p) {
			local = append(local, p)
			continue
		}
		fsys, rp, err := hdfsfs.Resolve(p, true)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, err)
		}
		fs, err := listRemote(fsys, rp)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, hdfsfs.UnwrapPath(err))
		}
		files = append(files, fs...)
	}
	in := &Set{}
	if len(local) > 0 {
		var err error
		if in, err = Find(local); err != nil {
			return nil, err
		}
	}
	in.Remote = files
	return in, nil
}

func listRemote(fsys hdfsfs.FS, p string) ([]RemoteFile, error) {
	fi, err := fsys.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []RemoteFile{{fsys, p}}, nil
	}
	ents, err := fsys.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []RemoteFile
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, RemoteFile{fsys, path.Join(p, e.Name())})
	}
	return out, nil
}
