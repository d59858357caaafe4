package clean

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

func TestManifestRoundTrip(t *testing.T) {
	want := Manifest{ID: "i2", Run: "/data/w2", Stamp: 42, Stored: []StoredRun{{Run: "/data/w1", Clean: "/data/c1", CleanID: "i1"}}}
	var b bytes.Buffer
	if err := WriteManifest(&b, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != want.ID || got.Run != want.Run || got.Stamp != want.Stamp || !slices.Equal(got.Stored, want.Stored) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	if m, err := ReadManifest(bytes.NewBufferString(`{"run": "/x", "a later field": 1}`)); err != nil || m.Run != "/x" {
		t.Errorf("a manifest with a field this pdc does not know: %+v, %v", m, err)
	}
	for _, bad := range []string{``, `{}`, `[1]`} {
		if _, err := ReadManifest(bytes.NewBufferString(bad)); err == nil {
			t.Errorf("ReadManifest(%q): no error", bad)
		}
	}
}

// TestCover: the dedup outputs a batch's dedup takes for each stored run
// of a chain r1 <- r2 <- r3 (the batch ran against r3), from those given
// and those their manifests name.
func TestCover(t *testing.T) {
	runs := []string{"/r1", "/r2", "/r3"}
	stamps := []int64{1, 2, 3}
	mans := map[string]Manifest{
		"/c1":     {ID: "i1", Run: "/r1", Stamp: 1},
		"/c1b":    {Run: "/r1", Stamp: 1},
		"/c2":     {ID: "i2", Run: "/r2", Stamp: 2, Stored: []StoredRun{{Run: "/r1", Clean: "/c1", CleanID: "i1"}}},
		"/c3m":    {ID: "i3", Run: "/r3", Stamp: 3, Stored: []StoredRun{{Run: "/r1", Clean: "/gone", CleanID: "i1"}, {Run: "/r2", Clean: "/c2", CleanID: "i2"}}},
		"/c3r":    {ID: "i3", Run: "/r3", Stamp: 3, Stored: []StoredRun{{Run: "/r1", Clean: "/c1", CleanID: "i0"}, {Run: "/r2", Clean: "/c2", CleanID: "i2"}}},
		"/c2bare": {Run: "/r2", Stamp: 2, Stored: []StoredRun{{Run: "/r1"}}},
		"/c3":     {Run: "/r3", Stamp: 3, Stored: []StoredRun{{Run: "/r1", Clean: "/c1"}, {Run: "/r2", Clean: "/c2"}}},
		"/c3old":  {Run: "/r3", Stamp: 9},
		"/c3bad":  {Run: "/r3", Stamp: 3, Stored: []StoredRun{{Run: "/r1", Clean: "/gone"}}},
		"/c4":     {Run: "/r4", Stamp: 4},
		"/c3b":    {Run: "/r3", Stamp: 3, Stored: []StoredRun{{Run: "/r1", Clean: "/c1b"}, {Run: "/r2"}}},
	}
	open := func(dir string) (Manifest, error) {
		m, ok := mans[dir]
		if !ok {
			return Manifest{}, errors.New("no such directory")
		}
		return m, nil
	}
	for _, tt := range []struct {
		given []string
		want  []string // Clean by run
		err   error
		text  string // Describe
	}{
		{nil, []string{"", "", ""}, nil, "as they are"},
		{[]string{"/c3"}, []string{"/c1", "/c2", "/c3"}, nil, "as the dedup outputs /c1, /c2, /c3 left them"},
		{[]string{"/c3", "/c2"}, []string{"/c1", "/c2", "/c3"}, nil, ""},
		{[]string{"/c3b"}, []string{"/c1b", "", "/c3b"}, nil, "of /r1 as /c1b left them, of /r2 as they are, of /r3 as /c3b left them"},
		{[]string{"/c3", "/c1b"}, nil, ErrConflict, ""},
		{[]string{"/c2"}, nil, ErrGap, ""},
		{[]string{"/c1"}, nil, ErrGap, ""},
		{[]string{"/c2bare", "/c3b"}, nil, ErrConflict, ""}, // c3b took r2 as it is
		{[]string{"/c3r", "/c1"}, nil, ErrRedone, ""},       // c1 given, but not the one c3r was made with
		{[]string{"/c4"}, nil, ErrNotOfChain, ""},
		{[]string{"/c3old"}, nil, ErrStale, ""},
		{[]string{"/c3bad"}, nil, nil, "no such directory"},
		{[]string{"/c3m", "/c1"}, []string{"/c1", "/c2", "/c3m"}, nil, ""}, // c1 moved from /gone
		{[]string{"/c3m"}, nil, nil, "made with --stored-clean /gone: no such directory (if it was moved, give its new place with --stored-clean)"},
		{[]string{"/c3r"}, nil, ErrRedone, ""},
	} {
		var given []Given
		for _, d := range tt.given {
			given = append(given, Given{Dir: d, Man: mans[d]})
		}
		c, err := Cover(runs, stamps, given, open)
		switch {
		case tt.want == nil && err == nil:
			t.Errorf("Cover(%v): %v, want an error", tt.given, c.Clean)
		case tt.want == nil && tt.err != nil && !errors.Is(err, tt.err):
			t.Errorf("Cover(%v): %v, want %v", tt.given, err, tt.err)
		case tt.want == nil && tt.err == nil && !bytes.Contains([]byte(err.Error()), []byte(tt.text)):
			t.Errorf("Cover(%v): %v, want it to say %q", tt.given, err, tt.text)
		case tt.want != nil && err != nil:
			t.Errorf("Cover(%v): %v", tt.given, err)
		case tt.want != nil && !slices.Equal(c.Clean, tt.want):
			t.Errorf("Cover(%v) = %v, want %v", tt.given, c.Clean, tt.want)
		case tt.want != nil && tt.text != "" && c.Describe() != tt.text:
			t.Errorf("Cover(%v).Describe() = %q, want %q", tt.given, c.Describe(), tt.text)
		}
	}
}
