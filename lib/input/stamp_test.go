package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStampsChanged(t *testing.T) {
	tests := []struct {
		name   string
		change func(a, b string) error
		want   string // "" for no error
	}{
		{"unchanged", func(a, b string) error { return nil }, ""},
		{"appended", func(a, b string) error {
			f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			f.WriteString(`{"id":"late","text":"x"}` + "\n")
			return f.Close()
		}, "a.jsonl changed while pdc read it (it went from 20 to 45 bytes)"},
		{"rewritten in place", func(a, b string) error {
			if err := os.WriteFile(b, []byte("<p>THE SAME</p>"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(b, time.Now(), time.Now().Add(time.Hour))
		}, "b.html changed while pdc read it (it was modified at"},
		{"removed", func(a, b string) error { return os.Remove(a) }, "a.jsonl changed while pdc read it (it was removed)"},
		{"both", func(a, b string) error {
			os.Remove(b)
			return os.Remove(a)
		}, "(it was removed), and 1 other input files changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "tree", "b.html")
			os.MkdirAll(filepath.Dir(b), 0o755)
			os.WriteFile(a, []byte(`{"id":"a","text":"x"}`[:20]), 0o644)
			os.WriteFile(b, []byte("<p>the same</p>"), 0o644)
			in, err := Find([]string{a, filepath.Dir(b)}, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			st, err := in.Stamp()
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.change(a, b); err != nil {
				t.Fatal(err)
			}
			err = st.Changed()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Changed() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Changed() = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
