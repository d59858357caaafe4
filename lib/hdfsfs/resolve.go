package hdfsfs

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/pdc-mr/pdc/lib/kerberos"
)

// clients caches HDFS clients opened by Resolve, by namenode address ("" = from the
// environment), for the life of the process.
var clients struct {
	sync.Mutex
	m map[string]FS
}

// identity is the Kerberos identity of every HDFS client the process opens.
var identity struct {
	sync.Mutex
	id kerberos.Identity
}

// SetIdentity sets the Kerberos identity (--principal, --keytab) of the HDFS
// clients opened after it, on a secured cluster. The zero Identity means the
// environment's (PDC_KEYTAB and PDC_PRINCIPAL, else the ticket cache).
func SetIdentity(id kerberos.Identity) {
	identity.Lock()
	defer identity.Unlock()
	identity.id = id
}

// Identity is the Kerberos identity set by SetIdentity.
func Identity() kerberos.Identity {
	identity.Lock()
	defer identity.Unlock()
	return identity.id
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

// IsRemote reports whether p names a file on HDFS rather than on the local disk. It is
// the rule pdc applies to every path it is given, inputs and outputs alike:
//
//	hdfs://...                       HDFS
//	file://...                       the local disk
//	p (relative)                     the local disk
//	/p that exists on the local disk the local disk
//	/p missing from the local disk   HDFS when clusterDefault is set or HADOOP_CONF_DIR
//	                                 (read through getenv) is set, else the local disk
//
// clusterDefault says that the command runs on a cluster, so HDFS is its default file
// system (pdc run --hadoop): a path missing locally is then on HDFS even without
// HADOOP_CONF_DIR. Otherwise a path missing locally is on HDFS only when a cluster is
// configured. "Missing" means os.Stat reports fs.ErrNotExist; any other error (such as
// permission denied) keeps the path local, so that opening it reports that error. A nil
// getenv means os.Getenv.
//
// Resolve(p, IsRemote(p, clusterDefault, getenv)) returns the file system and path that
// the rule picks.
func IsRemote(p string, clusterDefault bool, getenv func(string) string) bool {
	switch {
	case strings.HasPrefix(p, "hdfs://"):
		return true
	case !strings.HasPrefix(p, "/"): // relative, or file://
		return false
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if !clusterDefault && getenv("HADOOP_CONF_DIR") == "" {
		return false
	}
	_, err := os.Stat(p)
	return errors.Is(err, fs.ErrNotExist)
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
