package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/eval"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for i := range 9 {
		var text strings.Builder
		for j := range 12 {
			fmt.Fprintf(&text, "Document %d says thing number %d in plain words. ", i, j)
		}
		fmt.Fprintf(&src, "{\"id\":\"d%d\",\"text\":%q,\"lang\":\"en\"}\n", i, text.String())
	}
	srcPath := filepath.Join(dir, "sources.jsonl")
	if err := os.WriteFile(srcPath, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "corpus")
	var stdout, stderr bytes.Buffer
	args := []string{"-sources", srcPath, "-out", out, "-pairs", "4", "-max-run", "5", "-classes", "verbatim,light"}
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f, err := os.Open(filepath.Join(out, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := eval.ReadTruthJSONL(f)
	if err != nil || len(cases) != 4 {
		t.Fatalf("%d cases, err %v", len(cases), err)
	}
	pan, err := eval.ReadPANXML(filepath.Join(out, "pan"))
	if err != nil || len(pan) != 4 {
		t.Fatalf("%d PAN cases, err %v", len(pan), err)
	}
	if err := run([]string{"-out", out}, &stdout, &stderr); err == nil {
		t.Error("missing -sources accepted")
	}

	// The hard tier's classes, by name.
	hard := filepath.Join(dir, "hard")
	args = []string{"-sources", srcPath, "-out", hard, "-pairs", "8", "-max-run", "5", "-classes", "edits-10,edits-20, edits-30,merge-split"}
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(hard, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err = eval.ReadTruthJSONL(bytes.NewReader(b))
	if err != nil || len(cases) != 8 {
		t.Fatalf("%d hard cases, err %v", len(cases), err)
	}
	for i, c := range cases {
		if !strings.HasPrefix(c.Class, "edits-") && c.Class != "merge-split" {
			t.Errorf("case %d: class %q", i, c.Class)
		}
	}

	// An unknown class is an error, before anything is written.
	bad := filepath.Join(dir, "bad")
	err = run([]string{"-sources", srcPath, "-out", bad, "-classes", "verbatim,edits-40"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `unknown class "edits-40"`) {
		t.Errorf("unknown class: %v", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("output written for an unknown class")
	}
}
