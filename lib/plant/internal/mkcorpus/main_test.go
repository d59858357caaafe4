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
}
