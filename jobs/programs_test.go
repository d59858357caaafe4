package jobs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/mr"
)

// TestProgramsGolden pins each streaming program's output, run as Hadoop
// Streaming runs it (map | LC_ALL=C sort | reduce, one process each), on a
// small input chained through the pipeline.
func TestProgramsGolden(t *testing.T) {
	t.Parallel()
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

// TestProgramFaults: PDC_FAULT=first-attempt fails a task's first attempt
// only, always every attempt, and hold:PATH runs the task once PATH is gone
// and not before; hold@JOB:PATH holds the tasks of JOB only.
func TestProgramFaults(t *testing.T) {
	t.Parallel()
	echo := func(task *mr.Task) error {
		_, err := io.Copy(task.Stdout, task.Stdin)
		return err
	}
	run := func(env map[string]string) (string, error) {
		var out strings.Builder
		err := runProgram(echo, "index", strings.NewReader("a\tb\n"), &out, io.Discard, func(k string) string { return env[k] })
		return out.String(), err
	}
	for _, tt := range []struct {
		fault, attempt string
		fails          bool
	}{
		{"", "attempt_1_0001_m_000000_0", false},
		{"first-attempt", "attempt_1_0001_m_000000_0", true},
		{"first-attempt", "attempt_1_0001_m_000000_1", false},
		{"always", "attempt_1_0001_m_000000_1", true},
		{"hold:" + filepath.Join(t.TempDir(), "absent"), "attempt_1_0001_m_000000_0", false},
		{"hold@parse:" + os.Args[0], "attempt_1_0001_m_000000_0", false}, // another job's
	} {
		out, err := run(map[string]string{"PDC_FAULT": tt.fault, "mapreduce_task_attempt_id": tt.attempt})
		if tt.fails != errors.Is(err, errInjected) || (!tt.fails && out != "a\tb\n") {
			t.Errorf("PDC_FAULT=%q, %s: output %q, error %v", tt.fault, tt.attempt, out, err)
		}
	}
	held := filepath.Join(t.TempDir(), "held")
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 2)
	for _, fault := range []string{"hold:" + held, "hold@index:" + held} {
		go func() {
			out, _ := run(map[string]string{"PDC_FAULT": fault})
			done <- out
		}()
	}
	select {
	case out := <-done:
		t.Fatalf("a task ran while %s exists: %q", held, out)
	case <-time.After(300 * time.Millisecond):
	}
	os.Remove(held)
	for range 2 {
		if out := <-done; out != "a\tb\n" {
			t.Errorf("the task released: output %q", out)
		}
	}
}
