package hdfsfs

import (
	"context"
	"path"
	"reflect"
	"testing"
	"time"
)

// fakeClock is a clock that tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestThrottle(t *testing.T) {
	type call struct {
		at          time.Duration // since the throttle was made
		done, total int64
	}
	type report struct{ done, total int64 }
	tests := []struct {
		name  string
		every time.Duration
		calls []call
		want  []report
	}{
		{
			name:  "first report waits for every",
			every: time.Second,
			calls: []call{{100 * time.Millisecond, 1, 10}, {999 * time.Millisecond, 2, 10}, {time.Second, 3, 10}},
			want:  []report{{3, 10}},
		},
		{
			name:  "measured from the last report",
			every: time.Second,
			calls: []call{{1500 * time.Millisecond, 1, 10}, {2400 * time.Millisecond, 2, 10}, {2500 * time.Millisecond, 3, 10}, {3400 * time.Millisecond, 4, 10}},
			want:  []report{{1, 10}, {3, 10}},
		},
		{
			name:  "final always reported",
			every: time.Hour,
			calls: []call{{0, 1, 3}, {time.Millisecond, 2, 3}, {2 * time.Millisecond, 3, 3}},
			want:  []report{{3, 3}},
		},
		{
			name:  "final right after a report",
			every: time.Second,
			calls: []call{{time.Second, 9, 10}, {time.Second, 10, 10}},
			want:  []report{{9, 10}, {10, 10}},
		},
		{
			name:  "empty transfer",
			every: time.Hour,
			calls: []call{{0, 0, 0}},
			want:  []report{{0, 0}},
		},
		{
			name:  "several transfers in turn",
			every: time.Hour,
			calls: []call{{0, 5, 5}, {time.Millisecond, 2, 4}, {2 * time.Millisecond, 4, 4}, {3 * time.Millisecond, 4, 4}},
			want:  []report{{5, 5}, {4, 4}, {4, 4}},
		},
		{
			name:  "every 0 reports all",
			every: 0,
			calls: []call{{0, 1, 3}, {0, 2, 3}, {0, 3, 3}},
			want:  []report{{1, 3}, {2, 3}, {3, 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			clock := &fakeClock{start}
			var got []report
			p := throttle(tt.every, clock.now, func(done, total int64) { got = append(got, report{done, total}) })
			for _, c := range tt.calls {
				clock.t = start.Add(c.at)
				p(c.done, c.total)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("reports = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCopyProgress checks that a copy ends with a done == total report, through
// ThrottledProgress too, and for a copy of nothing but empty files.
func TestCopyProgress(t *testing.T) {
	type report struct{ done, total int64 }
	tests := []struct {
		name  string
		files map[string][]byte
	}{
		{"empty files", map[string][]byte{"a": nil, "b": nil}},
		{"several chunks", map[string][]byte{"a": randomBytes(3*chunk + 17), "b": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			var total int64
			for name, data := range tt.files {
				if err := WriteFile(Local(), path.Join(src, name), data); err != nil {
					t.Fatal(err)
				}
				total += int64(len(data))
			}
			var got []report
			p := ThrottledProgress(time.Hour, func(done, total int64) { got = append(got, report{done, total}) })
			dst := path.Join(t.TempDir(), "dst")
			if err := Copy(context.Background(), Local(), dst, Local(), src, p); err != nil {
				t.Fatal(err)
			}
			if want := []report{{total, total}}; !reflect.DeepEqual(got, want) {
				t.Errorf("reports = %v, want %v", got, want)
			}
		})
	}
}
