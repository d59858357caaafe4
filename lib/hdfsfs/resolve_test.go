package hdfsfs

import (
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		in          string
		defaultHDFS bool
		wantPath    string
	}{
		{"rel/p", true, "rel/p"},
		{"/abs/p", false, "/abs/p"},
		{"file:///abs/p", true, "/abs/p"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			fsys, p, err := Resolve(tt.in, tt.defaultHDFS)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := fsys.(localFS); !ok || p != tt.wantPath {
				t.Errorf("Resolve(%q) = %T, %q; want local, %q", tt.in, fsys, p, tt.wantPath)
			}
		})
	}
}

func TestIsRemote(t *testing.T) {
	dir := t.TempDir() // exists
	missing := filepath.Join(dir, "missing")
	conf := func(k string) string {
		if k == "HADOOP_CONF_DIR" {
			return "/etc/hadoop/conf"
		}
		return ""
	}
	noConf := func(string) string { return "" }
	tests := []struct {
		name           string
		p              string
		clusterDefault bool
		getenv         func(string) string
		want           bool
	}{
		{"hdfs URI", "hdfs://nn:8020/data", false, noConf, true},
		{"hdfs URI default FS", "hdfs:///data", false, noConf, true},
		{"file URI", "file://" + missing, true, conf, false},
		{"relative missing", "rel/missing", true, conf, false},
		{"relative dot", "./missing", true, conf, false},
		{"absolute existing", dir, true, conf, false},
		{"absolute missing, conf", missing, false, conf, true},
		{"absolute missing, cluster default", missing, true, noConf, true},
		{"absolute missing, cluster default and conf", missing, true, conf, true},
		{"absolute missing, no cluster", missing, false, noConf, false},
		{"absolute missing under a missing dir", filepath.Join(missing, "a", "b"), false, conf, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRemote(tt.p, tt.clusterDefault, tt.getenv); got != tt.want {
				t.Errorf("IsRemote(%q, %v) = %v, want %v", tt.p, tt.clusterDefault, got, tt.want)
			}
		})
	}
}

func TestIsRemoteNilGetenv(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv("HADOOP_CONF_DIR", "")
	if IsRemote(missing, false, nil) {
		t.Errorf("IsRemote(%q) without HADOOP_CONF_DIR = true", missing)
	}
	t.Setenv("HADOOP_CONF_DIR", "/etc/hadoop/conf")
	if !IsRemote(missing, false, nil) {
		t.Errorf("IsRemote(%q) with HADOOP_CONF_DIR = false", missing)
	}
}
