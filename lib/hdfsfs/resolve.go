package hdfsfs

import (
	"fmt"
	"net/url"
	"path"
	"strings"
	"sync"
)

// clients caches HDFS clients opened by Resolve, by namenode address ("" = from the
// environment), for the life of the process.
var clients struct {
	sync.Mutex
	m map[string]FS
}

// Resolve picks the file system for a path and returns it with the path to use on it:
//
//	hdfs://host:port/p  HDFS at host:port, path /p
//	hdfs:///p           HDFS from HADOOP_CONF_DIR (fs.defaultFS), path /p
//	file:///p           the local disk, path /p
//	/p                  HDFS from HADOOP_CONF_DIR when defaultHDFS, else the local disk
//	p (relative)        the local disk
//
// HDFS clients are shared between calls and stay open.
func Resolve(p string, defaultHDFS bool) (FS, string, error) {
	switch {
	case strings.HasPrefix(p, "hdfs://"):
		u, err := url.Parse(p)
		if err != nil {
			return nil, "", fmt.Errorf("resolve %s: %w", p, err)
		}
		fsys, err := cachedHDFS(u.Host)
		if err != nil {
			return nil, "", fmt.Errorf("resolve %s: %w", p, err)
		}
		return fsys, cleanAbs(u.Path), nil
	case strings.HasPrefix(p, "file://"):
		u, err := url.Parse(p)
		if err != nil {
			return nil, "", fmt.Errorf("resolve %s: %w", p, err)
		}
		return Local(), u.Path, nil
	case defaultHDFS && strings.HasPrefix(p, "/"):
		fsys, err := cachedHDFS("")
		if err != nil {
			return nil, "", fmt.Errorf("resolve %s: %w", p, err)
		}
		return fsys, cleanAbs(p), nil
	}
	return Local(), p, nil
}

func cleanAbs(p string) string { return path.Clean("/" + p) }

func cachedHDFS(addr string) (FS, error) {
	clients.Lock()
	defer clients.Unlock()
	if fsys, ok := clients.m[addr]; ok {
		return fsys, nil
	}
	var fsys FS
	var err error
	if addr == "" {
		fsys, err = FromEnv()
	} else {
		fsys, err = New(addr, "")
	}
	if err != nil {
		return nil, err
	}
	if clients.m == nil {
		clients.m = make(map[string]FS)
	}
	clients.m[addr] = fsys
	return fsys, nil
}
