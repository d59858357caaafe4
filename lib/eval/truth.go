package eval

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// ReadTruth reads the cases of a truth file in either format (read.go):
// a directory of PAN XML files, a PAN XML file (by its .xml name, or a
// file whose first character is "<"), or else truth JSON Lines (.jsonl,
// .json, .ndjson, or any other file). Errors name the path.
func ReadTruth(path string) ([]Case, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", path, hdfsfs.UnwrapPath(err))
	}
	if fi.IsDir() {
		return readPANDir(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", path, hdfsfs.UnwrapPath(err))
	}
	var cases []Case
	if IsPAN(path, b) {
		cases, err = ReadPANXML(path)
	} else {
		cases, err = ReadTruthJSONL(bytes.NewReader(b))
	}
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", path, err)
	}
	return cases, nil
}

// IsPAN reports whether the truth file at path, whose contents are b, is
// PAN XML rather than truth JSON Lines.
func IsPAN(path string, b []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml":
		return true
	case ".jsonl", ".json", ".ndjson":
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n\ufeff"), []byte("<"))
}

// readPANDir reads a PAN XML directory, which must hold some *.xml files.
func readPANDir(dir string) ([]Case, error) {
	top, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	sub, _ := filepath.Glob(filepath.Join(dir, "*", "*.xml"))
	if len(top)+len(sub) == 0 {
		return nil, fmt.Errorf("truth %s: no PAN *.xml files in the directory", dir)
	}
	cases, err := ReadPANXML(dir)
	if err != nil {
		return nil, fmt.Errorf("truth %s: %w", dir, err)
	}
	return cases, nil
}
