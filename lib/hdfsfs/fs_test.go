package hdfsfs

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"path"
	"reflect"
	"testing"
	"time"
)

// testFS runs the behaviour every FS must share under root, an existing empty directory.
func testFS(t *testing.T, fsys FS, root string) {
	t.Helper()
	dir := path.Join(root, "a", "b")
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("MkdirAll: %v", err)
	}
	for _, name := range []string{"z.txt", "m.txt", "a.txt"} {
		if err := WriteFile(fsys, path.Join(dir, name), []byte(name)); err != nil {
			t.Fatalf("WriteFile: %v", err)
		}
	}
	t.Run("ReadDirSorted", func(t *testing.T) {
		infos, err := fsys.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, fi := range infos {
			names = append(names, fi.Name())
		}
		if want := []string{"a.txt", "m.txt", "z.txt"}; !reflect.DeepEqual(names, want) {
			t.Errorf("ReadDir names = %v, want %v", names, want)
		}
	})
	t.Run("CreateTruncates", func(t *testing.T) {
		name := path.Join(dir, "m.txt")
		if err := WriteFile(fsys, name, []byte("x")); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(fsys, name)
		if err != nil || string(got) != "x" {
			t.Errorf("ReadFile = %q, %v; want \"x\"", got, err)
		}
	})
	t.Run("WriteEmpty", func(t *testing.T) {
		name := path.Join(dir, "empty.txt")
		if err := WriteFile(fsys, name, nil); err != nil {
			t.Fatalf("WriteFile(nil): %v", err)
		}
		fi, err := fsys.Stat(name)
		if err != nil || fi.Size() != 0 || fi.IsDir() {
			t.Errorf("Stat = %v, %v; want an empty file", fi, err)
		}
		if got, err := ReadFile(fsys, name); err != nil || len(got) != 0 {
			t.Errorf("ReadFile = %q, %v; want empty", got, err)
		}
		if err := fsys.RemoveAll(name); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ZeroLengthWrites", func(t *testing.T) {
		name := path.Join(root, "zero.txt")
		w, err := fsys.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range [][]byte{nil, []byte("ab"), {}, []byte("c")} {
			if n, err := w.Write(p); n != len(p) || err != nil {
				t.Errorf("Write(%q) = %d, %v", p, n, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if got, err := ReadFile(fsys, name); err != nil || string(got) != "abc" {
			t.Errorf("ReadFile = %q, %v; want \"abc\"", got, err)
		}
	})
	t.Run("StatAndRename", func(t *testing.T) {
		from, to := path.Join(dir, "z.txt"), path.Join(root, "a", "moved.txt")
		if err := fsys.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		if _, err := fsys.Stat(from); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(old) err = %v, want ErrNotExist", err)
		}
		fi, err := fsys.Stat(to)
		if err != nil || fi.Size() != 5 || fi.IsDir() {
			t.Errorf("Stat(new) = %v, %v; want a 5-byte file", fi, err)
		}
	})
	t.Run("NotExist", func(t *testing.T) {
		missing := path.Join(root, "missing")
		_, errOpen := fsys.Open(missing)
		_, errStat := fsys.Stat(missing)
		_, errDir := fsys.ReadDir(missing)
		errRename := fsys.Rename(missing, path.Join(root, "other"))
		_, errCreate := fsys.Create(path.Join(missing, "f"))
		for i, err := range []error{errOpen, errStat, errDir, errRename, errCreate} {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("op %d: err = %v, want ErrNotExist", i, err)
			}
		}
		if err := fsys.RemoveAll(missing); err != nil {
			t.Errorf("RemoveAll(missing) = %v, want nil", err)
		}
	})
	t.Run("ReadDirOfFile", func(t *testing.T) {
		if _, err := fsys.ReadDir(path.Join(dir, "a.txt")); err == nil {
			t.Error("ReadDir of a file: no error")
		}
	})
	t.Run("Atomic", func(t *testing.T) {
		testAtomic(t, fsys, path.Join(root, "atomic"))
	})
	t.Run("Exclusive", func(t *testing.T) {
		testExclusive(t, fsys, dir)
	})
	t.Run("RemoveAll", func(t *testing.T) {
		if err := fsys.RemoveAll(path.Join(root, "a")); err != nil {
			t.Fatal(err)
		}
		if _, err := fsys.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat after RemoveAll err = %v, want ErrNotExist", err)
		}
	})
}

// names lists the names in dir, hidden ones included.
func names(t *testing.T, fsys FS, dir string) []string {
	t.Helper()
	infos, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fi := range infos {
		out = append(out, fi.Name())
	}
	return out
}

func TestLocal(t *testing.T) {
	testFS(t, Local(), t.TempDir())
}

// randomBytes is n deterministic pseudo-random bytes.
func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// testCopyTree uploads a local tree to dst under root, downloads it back and compares.
func testCopyTree(t *testing.T, dst FS, root string, big int) {
	t.Helper()
	src := t.TempDir()
	files := map[string][]byte{
		"big.bin":       randomBytes(big),
		"sub/one.txt":   []byte("one\n"),
		"sub/empty.txt": nil,
	}
	local := Local()
	if err := local.MkdirAll(path.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var total int64
	for name, data := range files {
		if err := WriteFile(local, path.Join(src, name), data); err != nil {
			t.Fatal(err)
		}
		total += int64(len(data))
	}
	var last, lastTotal int64
	progress := func(done, total int64) { last, lastTotal = done, total }
	ctx := context.Background()
	if err := Upload(ctx, dst, path.Join(root, "up"), src, progress); err != nil {
		t.Fatalf("Upload: %v", err)
	}
	if last != total || lastTotal != total {
		t.Errorf("progress ended at %d/%d, want %d/%d", last, lastTotal, total, total)
	}
	for d, want := range map[string][]string{"up": {"big.bin", "sub"}, "up/sub": {"empty.txt", "one.txt"}} {
		if got := names(t, dst, path.Join(root, d)); !reflect.DeepEqual(got, want) {
			t.Errorf("uploaded %s holds %v, want %v", d, got, want)
		}
	}
	back := path.Join(t.TempDir(), "back")
	if err := Download(ctx, back, dst, path.Join(root, "up"), nil); err != nil {
		t.Fatalf("Download: %v", err)
	}
	for name, want := range files {
		got, err := ReadFile(local, path.Join(back, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: round trip changed the bytes (%d bytes, want %d)", name, len(got), len(want))
		}
	}
}

func TestCopyLocal(t *testing.T) {
	testCopyTree(t, Local(), t.TempDir(), 3*chunk+17)
}

func TestCopyCancelled(t *testing.T) {
	src := path.Join(t.TempDir(), "f")
	if err := WriteFile(Local(), src, randomBytes(10)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if err := Upload(ctx, Local(), path.Join(dir, "g"), src, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Upload err = %v, want context.Canceled", err)
	}
	if got := names(t, Local(), dir); len(got) > 0 {
		t.Errorf("cancelled upload left %v behind", got)
	}
}

func TestNonEmpty(t *testing.T) {
	got := nonEmpty([]string{"", "localhost:9000"})
	if !reflect.DeepEqual(got, []string{"localhost:9000"}) {
		t.Errorf("nonEmpty = %v", got)
	}
}

// testExclusive: of two exclusive creates of one name, the second fails
// with fs.ErrExist; Touch sets the modification time.
func testExclusive(t *testing.T, fsys FS, dir string) {
	name := dir + "/lock"
	w, err := CreateExclusive(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("held")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateExclusive(fsys, name); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second exclusive create: %v, want fs.ErrExist", err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := Touch(fsys, name, old); err != nil {
		t.Fatal(err)
	}
	if fi, err := fsys.Stat(name); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("after Touch: %v, %v; want mtime %v", fi.ModTime(), err, old)
	}
}
