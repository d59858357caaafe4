package input

import (
	"fmt"
	"path"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
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
// read as JSON Lines. A file on HDFS named as a container (WARC, Avro,
// Parquet) is an error (CheckRemote). f selects the files found under
// local directories.
func FindAny(paths []string, remote func(string) bool, f Filter) (*Set, error) {
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
		for _, f := range fs {
			if err := CheckRemote(f.Path); err != nil {
				return nil, err
			}
		}
		files = append(files, fs...)
	}
	in := &Set{}
	if len(local) > 0 {
		var err error
		if in, err = Find(local, f); err != nil {
			return nil, err
		}
	}
	in.Remote = files
	return in, nil
}

// ListRemote lists the files of the input p on fsys as FindAny does, and
// checks them with CheckRemote.
func ListRemote(fsys hdfsfs.FS, p string) ([]string, error) {
	fs, err := listRemote(fsys, p)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", p, hdfsfs.UnwrapPath(err))
	}
	var names []string
	for _, f := range fs {
		if err := CheckRemote(f.Path); err != nil {
			return nil, err
		}
		names = append(names, f.Path)
	}
	return names, nil
}

// CheckRemote refuses a file on HDFS named as a container (WARC, Avro,
// Parquet): files on HDFS are read in place as JSON Lines (on Hadoop, by
// the parse job's TextInputFormat), and a container's bytes read as lines
// would be counted as bad JSON, record by record.
func CheckRemote(name string) error {
	if c := containerOf(name); c != nil {
		return fmt.Errorf("input %s: %s files on HDFS are not read in place, only JSON Lines are; give pdc a local copy (hdfs dfs -get): pdc run --hadoop and pdc ingest convert local files", name, c.name)
	}
	return nil
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

// Run is the input of one run of a chain: its --input paths and the Filter
// (--include, --exclude) it was made with.
type Run struct {
	Paths  []string
	Filter Filter
}

// FindRuns is FindAny for the inputs of a chain of runs (a batch run's
// stored runs, oldest first, then its own), each with its filter: the
// Set's Sources read every run's files before the next run's, so that of
// the records of one id a reader takes first the one the chain kept (lib/doc
// AppendOrder: a stored record before a batch's). A file in two runs is
// read with the first.
func FindRuns(runs []Run, remote func(string) bool) (*Set, error) {
	all := &Set{runs: map[string]int{}}
	for r, run := range runs {
		in, err := FindAny(run.Paths, remote, run.Filter)
		if err != nil {
			return nil, err
		}
		note := func(name string) {
			key := mr.Escape(name) + "@"
			if _, ok := all.runs[key]; !ok {
				all.runs[key] = r
			}
		}
		for _, p := range in.JSONL {
			note(p)
		}
		for _, rf := range in.Remote {
			note(rf.Path)
		}
		for _, p := range in.Containers {
			note(p)
		}
		for _, t := range in.Tree {
			note(t.Path())
		}
		all.JSONL = append(all.JSONL, in.JSONL...)
		all.Remote = append(all.Remote, in.Remote...)
		all.Containers = append(all.Containers, in.Containers...)
		all.Tree = append(all.Tree, in.Tree...)
		all.Bytes += in.Bytes
		all.Broken = append(all.Broken, in.Broken...)
		all.Linked = append(all.Linked, in.Linked...)
		all.Excluded += in.Excluded
		all.NotJSONL = append(all.NotJSONL, in.NotJSONL...)
		if all.PageSources == 0 {
			all.FirstPageSource = in.FirstPageSource
		}
		all.PageSources += in.PageSources
	}
	return all, nil
}
