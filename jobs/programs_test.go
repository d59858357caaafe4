package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
)

// TestProgramsGolden pins each streaming program's output, run as Hadoop
// Streaming runs it (map | LC_ALL=C sort | reduce, one process each), on a
// small input chained through the pipeline.
func TestProgramsGolden(t *testing.T) {
	dir := t.TempDir()
	para := "The quick brown fox jumps over the lazy dog near the river bank. " +
		"A second sentence follows with several more words in it. " +
		"The third sentence closes the reused passage for good. "
	docs := strings.Join([]string{
		// a's last sentence shares words with the first of the passage:
		// tokens met twice in one document (index postings that leave
		// out the id, as the posting before has it).
		`{"id":"a","url":"http://a.example/1","text":"Intro line here. ` + para + `Later the lazy brown dog sleeps near the river bank."}`,
		`{"id":"b","url":"http://b.example/2","html":"<p>Other start.</p><p>` + para + `</p><p>Fin.</p>"}`,
		`{"id":"c","text":"The quick brown fox jumps over the lazy cat near the river bank. Nothing else matches here at all."}`,
	}, "\n") + "\n"
	in := filepath.Join(dir, "docs.jsonl")
	if err := os.WriteFile(in, []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	stats := filepath.Join(dir, "stats")
	if err := os.MkdirAll(stats, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PDC_STATS=" + stats, "PDC_SEEDS=" + filepath.Join(dir, "matches.txt"), "PDC_INPUT_FILE=docs.jsonl"}
	input := in
	for _, st := range pipeline.Stages() {
		if st.Input != "" {
			input = filepath.Join(dir, st.Input+".txt")
		}
		if len(st.Extra) > 0 { // the input and the extra outputs, as one file
			data, _ := os.ReadFile(input)
			for _, x := range st.Extra {
				more, _ := os.ReadFile(filepath.Join(dir, x+".txt"))
				data = append(data, more...)
			}
			input = filepath.Join(dir, st.Name+".in.txt")
			if err := os.WriteFile(input, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := shellPipeline(t, st.Name, input, env, st.MapOnly)
		golden(t, "program-"+st.Name+".txt", out)
		if err := os.WriteFile(filepath.Join(dir, st.OutputDir()+".txt"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if st.Name == "stats" {
			if err := os.WriteFile(filepath.Join(stats, "part-00000"), []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	spans, err := os.ReadFile(filepath.Join(dir, "spans.txt"))
	if err != nil || !strings.HasPrefix(string(spans), "a\tb\t1\t1\t3\t") {
		t.Errorf("spans = %q, want a ~ b from sentence 1, 3 sentences", spans)
	}
}
