package local

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/input"
	mrlocal "github.com/pdc-mr/pdc/lib/mr/local"
)

func TestSplitSize(t *testing.T) {
	tests := []struct {
		flag, total int64
		workers     int
		want        int64
	}{
		{100000, 1 << 30, 2, 100000}, // explicit
		{0, 11 << 20, 2, 1441792},    // 11 MiB: 8 splits
		{0, 100 << 10, 2, 1 << 20},   // tiny: one 1 MiB split
		{0, 10 << 30, 2, 32 << 20},   // large: 32 MiB
		{0, 100 << 20, 0, 25 << 20},  // workers < 1 counts as 1
	}
	for _, tt := range tests {
		if got := splitSize(tt.flag, tt.total, tt.workers); got != tt.want {
			t.Errorf("splitSize(%d, %d, %d) = %d, want %d", tt.flag, tt.total, tt.workers, got, tt.want)
		}
	}
}

// TestWholeFilesNotCut: a stage that relies on whole, sorted part files
// (the match job reads each document pair's group in one task) gets splits
// the local runner never cuts; others get divisible ones.
func TestWholeFilesNotCut(t *testing.T) {
	big := bytes.Repeat([]byte("a\tb\t0000001\t0000002\t3\n"), 200_000) // 4.6 MB
	for _, st := range pipeline.Stages() {
		if st.Input != "pairs" && st.Input != "index" {
			continue
		}
		out := t.TempDir()
		if err := os.MkdirAll(filepath.Join(out, st.Input), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, st.Input, "part-r-00000"), big, 0o644); err != nil {
			t.Fatal(err)
		}
		d := &Driver{Runner: &mrlocal.Runner{Workers: 2}, Input: &input.Set{}}
		job, err := d.job(pipeline.Step{Stages: []pipeline.Stage{st}, Out: out}, st, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range job.Inputs {
			if sp.Divisible == st.WholeFiles {
				t.Errorf("stage %s (whole files %v): split %s@%d divisible %v", st.Name, st.WholeFiles, sp.Name, sp.Start, sp.Divisible)
			}
		}
	}
}
