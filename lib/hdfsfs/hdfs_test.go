package hdfsfs

import (
	"fmt"
	"io"
	"os"
	"path"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"
)

// clusterFS connects to the test cluster named by PDC_HADOOP_CONF_DIR (see
// scripts/hadoop-cluster.sh) and returns it with a fresh scratch directory, removed at the
// end. Without PDC_HADOOP_CONF_DIR the test is skipped.
func clusterFS(t *testing.T) (FS, string) {
	t.Helper()
	conf := os.Getenv("PDC_HADOOP_CONF_DIR")
	if conf == "" {
		t.Skip("PDC_HADOOP_CONF_DIR not set; start a cluster with scripts/hadoop-cluster.sh start")
	}
	t.Setenv("HADOOP_CONF_DIR", conf) // for Resolve
	fsys, err := FromConfDir(conf)
	if err != nil {
		t.Fatalf("FromConfDir: %v", err)
	}
	root := fmt.Sprintf("/tmp/hdfsfs-test-%d", time.Now().UnixNano())
	if err := fsys.MkdirAll(root, 0o755); err != nil {
		t.Fatalf("MkdirAll: %v", err)
	}
	t.Cleanup(func() {
		if err := fsys.RemoveAll(root); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		if err := fsys.(io.Closer).Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return fsys, root
}

func TestHDFS(t *testing.T) {
	fsys, root := clusterFS(t)
	testFS(t, fsys, root)
}

// TestHDFSMultiBlock uploads a file spanning three blocks and reads it back byte for byte.
// It needs a small block size: start the cluster with PDC_HDFS_BLOCK_SIZE=1048576.
func TestHDFSMultiBlock(t *testing.T) {
	fsys, root := clusterFS(t)
	probe := path.Join(root, "probe")
	if err := WriteFile(fsys, probe, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := fsys.Stat(probe)
	if err != nil {
		t.Fatal(err)
	}
	block := int64(fi.Sys().(*hdfs.FileStatus).GetBlocksize())
	if block > 8<<20 {
		t.Skipf("block size %d is large; start the cluster with PDC_HDFS_BLOCK_SIZE=1048576", block)
	}
	size := int(2*block + block/2 + 17)
	testCopyTree(t, fsys, root, size)
	fi, err = fsys.Stat(path.Join(root, "up", "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != int64(size) || fi.Size() <= 2*block {
		t.Errorf("uploaded size %d, want %d (> 2 blocks of %d)", fi.Size(), size, block)
	}
	t.Logf("round trip of %d bytes in blocks of %d", size, block)
}

func TestResolveHDFS(t *testing.T) {
	fsys, root := clusterFS(t)
	name := path.Join(root, "r.txt")
	if err := WriteFile(fsys, name, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"hdfs://localhost:9000" + name, "hdfs://" + name, name} {
		if !IsRemote(p, false, os.Getenv) {
			t.Errorf("IsRemote(%q) with HADOOP_CONF_DIR = false, want true", p)
		}
		rfs, rp, err := Resolve(p, IsRemote(p, false, os.Getenv))
		if err != nil {
			t.Fatalf("Resolve(%q): %v", p, err)
		}
		got, err := ReadFile(rfs, rp)
		if err != nil || string(got) != "hi" {
			t.Errorf("Resolve(%q) -> %q: read %q, %v", p, rp, got, err)
		}
	}
}
