package parse

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
	statsmap "github.com/pdc-mr/pdc/mappers/stats"
)

// TestSideOutput: the parse mapper's side output (fed to the stats job by
// the local runner) is what the stats mapper writes over the parse
// mapper's records, and having it changes nothing in the records.
func TestSideOutput(t *testing.T) {
	data, err := os.ReadFile("../../testdata/sample/pages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, "not json\n{\"id\": \"empty\", \"text\": \"\"}\n"...) // skipped records feed nothing
	env := map[string]string{mr.EnvInputFile: "pages.jsonl", mr.EnvInputStart: "0"}
	getenv := func(k string) string { return env[k] }
	run := func(f mr.Func, in []byte, side io.Writer) []byte {
		t.Helper()
		var out bytes.Buffer
		if err := f(&mr.Task{Stdin: bytes.NewReader(in), Stdout: &out, Stderr: io.Discard, Getenv: getenv, Side: side}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	var side bytes.Buffer
	records := run(Map, data, &side)
	if plain := run(Map, data, nil); !bytes.Equal(records, plain) {
		t.Error("the side output changed the parsed records")
	}
	want := run(statsmap.Map, records, nil)
	sorted := func(b []byte) []string {
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		slices.Sort(lines)
		return lines
	}
	if got, w := sorted(side.Bytes()), sorted(want); !slices.Equal(got, w) || len(w) < 100 {
		t.Errorf("side output (%d lines) differs from the stats mapper's (%d lines)", len(got), len(w))
	}
}
