package jobs

import (
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// isRemote reports whether a path names HDFS: an hdfs:// URI, or an
// absolute path missing from the local disk while HADOOP_CONF_DIR is set.
func (m *Main) isRemote(p string) bool {
	if strings.HasPrefix(p, "hdfs://") {
		return true
	}
	if !strings.HasPrefix(p, "/") || m.Getenv("HADOOP_CONF_DIR") == "" {
		return false
	}
	_, err := os.Stat(p)
	return err != nil
}

// spanFS returns where a run's spans are: the local disk or HDFS.
func (m *Main) spanFS(out string) (spanFS, string, error) {
	if !m.isRemote(out) {
		return localSpanFS{}, out, nil
	}
	fsys, p, err := hdfsfs.Resolve(out, true)
	if err != nil {
		return nil, "", fmt.Errorf("spans %s: %w", out, err)
	}
	return remoteSpanFS{fsys}, p, nil
}

// remoteSpanFS reads span part files from HDFS.
type remoteSpanFS struct{ fsys hdfsfs.FS }

func (r remoteSpanFS) parts(dir string) ([]string, error) {
	if fi, err := r.fsys.Stat(dir + "/spans"); err == nil && fi.IsDir() {
		dir += "/spans"
	}
	ents, err := r.fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("spans %s: %w", dir, unwrapPathErr(err))
	}
	var parts []string
	ok := false
	for _, e := range ents {
		switch {
		case e.Name() == "_SUCCESS":
			ok = true
		case strings.HasPrefix(e.Name(), "part-"):
			parts = append(parts, path.Join(dir, e.Name()))
		}
	}
	if !ok {
		return nil, fmt.Errorf("spans %s: no _SUCCESS: the run did not finish (rerun pdc run to resume)", dir)
	}
	sort.Strings(parts)
	return parts, nil
}

func (r remoteSpanFS) open(p string) (io.ReadCloser, error) { return r.fsys.Open(p) }

// findAnyInputs is findInputs for documents that may be on HDFS: remote
// paths (files or directories of JSON Lines part files) are listed on HDFS.
func (m *Main) findAnyInputs(inputs []string) (*inputSet, error) {
	var local []string
	var remote []remoteFile
	for _, p := range inputs {
		if !m.isRemote(p) {
			local = append(local, p)
			continue
		}
		fsys, rp, err := hdfsfs.Resolve(p, true)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, err)
		}
		files, err := listRemote(fsys, rp)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", p, unwrapPathErr(err))
		}
		remote = append(remote, files...)
	}
	in := &inputSet{}
	if len(local) > 0 {
		var err error
		if in, err = findInputs(local); err != nil {
			return nil, err
		}
	}
	in.remote = remote
	return in, nil
}

// remoteFile is a JSON Lines file on HDFS.
type remoteFile struct {
	fsys hdfsfs.FS
	path string
}

func listRemote(fsys hdfsfs.FS, p string) ([]remoteFile, error) {
	fi, err := fsys.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []remoteFile{{fsys, p}}, nil
	}
	ents, err := fsys.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []remoteFile
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, remoteFile{fsys, path.Join(p, e.Name())})
	}
	return out, nil
}

// eachRemoteDoc reads the documents of a JSON Lines file on HDFS.
func eachRemoteDoc(f remoteFile, fn func(d *doc.Doc, where string) error) error {
	rc, err := f.fsys.Open(f.path)
	if err != nil {
		return fmt.Errorf("input %s: %w", f.path, err)
	}
	defer rc.Close()
	return decodeJSONL(f.path, rc, fn)
}
