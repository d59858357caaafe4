package mr

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SideFiles returns the files of a side input at path: the file itself, or
// the part files of a job output directory. On Hadoop the directory is a
// symlink made by -files, so it is listed with ReadDir (WalkDir would not
// enter it).
func SideFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "part-") {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no part files in %s", path)
	}
	return files, nil
}

// SideStamp is a key of side files that changes with their names, sizes and
// modification times: a task that caches what it built from a side input
// (local tasks share a process) reuses it while the stamp is the same.
func SideStamp(files []string) (string, error) {
	var key strings.Builder
	for _, name := range files {
		fi, err := os.Stat(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&key, "\x00%s\x00%d\x00%d", name, fi.Size(), fi.ModTime().UnixNano())
	}
	return key.String(), nil
}
