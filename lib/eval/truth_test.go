package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadTruth: each form of a truth file is read as its format, by its
// name or, without a telling name, by its first character; errors name
// the path.
func TestReadTruth(t *testing.T) {
	dir := t.TempDir()
	pan, err := ReadPANXML(writeFile(t, dir, "pan/suspicious-document00042.xml", panSample))
	if err != nil {
		t.Fatal(err)
	}
	var jl bytes.Buffer
	if err := WriteTruthJSONL(&jl, pan); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, body string // file "" : the directory dir/pan
		want             []Case
		err              string
	}{
		{"PAN directory", "", "", pan, ""},
		{"PAN by name", "a.xml", panSample, pan, ""},
		{"PAN by content", "truth", "\ufeff\n  " + panSample, pan, ""},
		{"JSON Lines by name", "t.jsonl", jl.String(), pan, ""},
		{"JSON Lines by content", "truth.txt", jl.String(), pan, ""},
		{"JSON Lines named .json", "t.json", jl.String(), pan, ""},
		{"XML named .jsonl", "x.jsonl", panSample, nil, "x.jsonl"},
		{"missing", "none.jsonl", "", nil, "none.jsonl: no such file"},
		{"directory without PAN files", "empty/", "", nil, "no PAN *.xml files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "pan")
			switch {
			case strings.HasSuffix(tc.file, "/"):
				path = filepath.Join(dir, tc.file)
				if err := os.MkdirAll(path, 0o755); err != nil {
					t.Fatal(err)
				}
			case tc.name == "missing":
				path = filepath.Join(dir, tc.file)
			case tc.file != "":
				path = writeFile(t, dir, tc.file, tc.body)
			}
			got, err := ReadTruth(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ReadTruth(%s): error %v, want one with %q", path, err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("ReadTruth(%s) = %+v, %v; want %+v", path, got, err, tc.want)
			}
		})
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
