package hdfsfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testAtomic runs the CreateAtomic behaviour every FS must share under dir, which it
// creates.
func testAtomic(t *testing.T, fsys FS, dir string) {
	t.Helper()
	// sub makes a fresh directory for one subtest.
	sub := func(t *testing.T) string {
		d := path.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
		if err := fsys.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	read := func(t *testing.T, name, want string) {
		t.Helper()
		if got, err := ReadFile(fsys, name); err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	hidden := regexp.MustCompile(`^\..*\.[0-9a-f]{16}\.tmp$`)

	t.Run("NewFile", func(t *testing.T) {
		d := sub(t)
		name := path.Join(d, "new.txt")
		f, err := CreateAtomic(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		if _, err := fsys.Stat(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat before Close err = %v, want ErrNotExist", err)
		}
		if got := names(t, fsys, d); len(got) != 1 || !hidden.MatchString(got[0]) {
			t.Errorf("while writing, the directory holds %v, want one hidden .new.txt.RANDOM.tmp", got)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		read(t, name, "hello")
		if got := names(t, fsys, d); !reflect.DeepEqual(got, []string{"new.txt"}) {
			t.Errorf("after Close, the directory holds %v, want [new.txt]", got)
		}
		if err := f.Abort(); err != nil {
			t.Errorf("Abort after Close = %v, want nil", err)
		}
		read(t, name, "hello")
		if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("second Close = %v, want ErrClosed", err)
		}
	})
	t.Run("Replaces", func(t *testing.T) {
		d := sub(t)
		name := path.Join(d, "f.txt")
		if err := WriteFile(fsys, name, []byte("old")); err != nil {
			t.Fatal(err)
		}
		f, err := CreateAtomic(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("new contents")); err != nil {
			t.Fatal(err)
		}
		read(t, name, "old")
		if err := f.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		read(t, name, "new contents")
		if got := names(t, fsys, d); !reflect.DeepEqual(got, []string{"f.txt"}) {
			t.Errorf("after Close, the directory holds %v, want [f.txt]", got)
		}
	})
	t.Run("Abort", func(t *testing.T) {
		d := sub(t)
		name := path.Join(d, "f.txt")
		if err := WriteFile(fsys, name, []byte("old")); err != nil {
			t.Fatal(err)
		}
		f, err := CreateAtomic(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("discarded")); err != nil {
			t.Fatal(err)
		}
		if err := f.Abort(); err != nil {
			t.Fatalf("Abort: %v", err)
		}
		read(t, name, "old")
		if got := names(t, fsys, d); !reflect.DeepEqual(got, []string{"f.txt"}) {
			t.Errorf("after Abort, the directory holds %v, want [f.txt]", got)
		}
		if err := f.Abort(); err != nil {
			t.Errorf("second Abort = %v, want nil", err)
		}
		if _, err := f.Write([]byte("x")); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("Write after Abort = %v, want ErrClosed", err)
		}
		if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("Close after Abort = %v, want ErrClosed", err)
		}
		read(t, name, "old")
	})
	t.Run("Empty", func(t *testing.T) {
		d := sub(t)
		name := path.Join(d, "_SUCCESS")
		if err := WriteFileAtomic(fsys, name, nil); err != nil {
			t.Fatalf("WriteFileAtomic(nil): %v", err)
		}
		fi, err := fsys.Stat(name)
		if err != nil || fi.Size() != 0 || fi.IsDir() {
			t.Errorf("Stat = %v, %v; want an empty file", fi, err)
		}
	})
	t.Run("ManyWrites", func(t *testing.T) {
		d := sub(t)
		name := path.Join(d, "big.bin")
		want := randomBytes(3*atomicBuffer + 5)
		f, err := CreateAtomic(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		for p := want; len(p) > 0; {
			n := min(len(p), 1000)
			if _, err := f.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := f.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if got, err := ReadFile(fsys, name); err != nil || !bytes.Equal(got, want) {
			t.Errorf("ReadFile: %d bytes, %v; want the %d bytes written", len(got), err, len(want))
		}
		if err := WriteFileAtomic(fsys, name, want[:10]); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadFile(fsys, name); err != nil || !bytes.Equal(got, want[:10]) {
			t.Errorf("ReadFile after WriteFileAtomic: %q, %v; want %q", got, err, want[:10])
		}
	})
	t.Run("MissingDir", func(t *testing.T) {
		d := sub(t)
		if _, err := CreateAtomic(fsys, path.Join(d, "missing", "f")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("CreateAtomic in a missing directory = %v, want ErrNotExist", err)
		}
		if err := WriteFileAtomic(fsys, path.Join(d, "missing", "f"), []byte("x")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("WriteFileAtomic in a missing directory = %v, want ErrNotExist", err)
		}
	})
	t.Run("OntoDir", func(t *testing.T) {
		d := sub(t)
		if _, err := CreateAtomic(fsys, d); !errors.Is(err, syscall.EISDIR) {
			t.Errorf("CreateAtomic of a directory = %v, want EISDIR", err)
		}
	})
}

func TestTempName(t *testing.T) {
	tests := []struct{ name, pattern string }{
		{"/out/spans/part-00000", `^/out/spans/\.part-00000\.[0-9a-f]{16}\.tmp$`},
		{"dir/a.txt", `^dir/\.a\.txt\.[0-9a-f]{16}\.tmp$`},
		{"a.txt", `^\.a\.txt\.[0-9a-f]{16}\.tmp$`},
		{"/_SUCCESS", `^/\._SUCCESS\.[0-9a-f]{16}\.tmp$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := tempName(tt.name), tempName(tt.name)
			if !regexp.MustCompile(tt.pattern).MatchString(a) {
				t.Errorf("tempName(%q) = %q, want a match of %s", tt.name, a, tt.pattern)
			}
			if a == b {
				t.Errorf("tempName(%q) twice = %q: not random", tt.name, a)
			}
		})
	}
}

// failFS is the local disk with failures injected.
type failFS struct {
	FS
	write, close, rename error
}

func (f failFS) Create(name string) (io.WriteCloser, error) {
	w, err := f.FS.Create(name)
	if err != nil {
		return nil, err
	}
	return failWriter{w, f.write, f.close}, nil
}

func (f failFS) Rename(oldname, newname string) error {
	if f.rename != nil {
		return f.rename
	}
	return f.FS.Rename(oldname, newname)
}

type failWriter struct {
	io.WriteCloser
	write, close error
}

func (w failWriter) Write(p []byte) (int, error) {
	if w.write != nil {
		return 0, w.write
	}
	return w.WriteCloser.Write(p)
}

func (w failWriter) Close() error {
	err := w.WriteCloser.Close()
	if w.close != nil {
		return w.close
	}
	return err
}

// TestAtomicFailure checks that a failure at any step leaves the old file and no
// temporary file, and is reported.
func TestAtomicFailure(t *testing.T) {
	defer func(b time.Duration) { writeBackoff = b }(writeBackoff)
	writeBackoff = time.Millisecond // the injected errors are retried (retryWrite)
	injected := errors.New("injected")
	tests := []struct {
		name string
		fsys failFS
		data []byte
	}{
		{"write", failFS{FS: Local(), write: injected}, []byte("new")},
		{"write large", failFS{FS: Local(), write: injected}, randomBytes(2 * atomicBuffer)},
		{"close", failFS{FS: Local(), close: injected}, []byte("new")},
		{"rename", failFS{FS: Local(), rename: injected}, []byte("new")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := path.Join(dir, "f.txt")
			if err := WriteFile(Local(), name, []byte("old")); err != nil {
				t.Fatal(err)
			}
			err := WriteFileAtomic(tt.fsys, name, tt.data)
			if !errors.Is(err, injected) || !strings.Contains(err.Error(), name) {
				t.Errorf("WriteFileAtomic = %v, want the injected error naming %s", err, name)
			}
			if got, err := ReadFile(Local(), name); err != nil || string(got) != "old" {
				t.Errorf("after the failure, ReadFile = %q, %v; want \"old\"", got, err)
			}
			if got := names(t, Local(), dir); !reflect.DeepEqual(got, []string{"f.txt"}) {
				t.Errorf("after the failure, the directory holds %v, want [f.txt]", got)
			}
		})
	}
}
