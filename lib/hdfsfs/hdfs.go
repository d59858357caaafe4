package hdfsfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/colinmarc/hdfs/v2"
	"github.com/colinmarc/hdfs/v2/hadoopconf"
	"github.com/pdc-mr/pdc/lib/kerberos"
)

// hdfsFS is FS on HDFS through a colinmarc/hdfs client. It also implements io.Closer.
type hdfsFS struct {
	c *hdfs.Client
}

var _ FS = (*hdfsFS)(nil)

// New connects to the HDFS NameNode at namenodeAddr ("host:port", the RPC port, e.g. 8020 or
// 9000; several may be separated by commas) as user. An empty user means HADOOP_USER_NAME,
// else the current user. Other client options (datanode hostnames, wire protection) come
// from HADOOP_CONF_DIR when it is set. The returned FS implements io.Closer.
func New(namenodeAddr, user string) (FS, error) {
	conf, err := hadoopconf.LoadFromEnvironment()
	if err != nil {
		return nil, fmt.Errorf("load hadoop conf: %w", err)
	}
	opts := hdfs.ClientOptionsFromConf(conf)
	opts.Addresses = strings.Split(namenodeAddr, ",")
	return dial(opts, user)
}

// FromEnv connects to the default file system of the Hadoop configuration in
// HADOOP_CONF_DIR (or HADOOP_HOME/conf): fs.defaultFS or dfs.namenode.rpc-address.*.
// HADOOP_USER_NAME is honoured. The returned FS implements io.Closer.
func FromEnv() (FS, error) {
	conf, err := hadoopconf.LoadFromEnvironment()
	if err != nil {
		return nil, fmt.Errorf("load hadoop conf: %w", err)
	}
	if conf == nil {
		return nil, errors.New("no hadoop configuration: set HADOOP_CONF_DIR")
	}
	return fromConf(conf)
}

// FromConfDir is FromEnv with the Hadoop configuration of dir (core-site.xml,
// hdfs-site.xml, mapred-site.xml) instead of HADOOP_CONF_DIR.
func FromConfDir(dir string) (FS, error) {
	conf, err := hadoopconf.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load hadoop conf: %w", err)
	}
	if conf == nil {
		return nil, fmt.Errorf("no hadoop configuration in %s", dir)
	}
	return fromConf(conf)
}

func fromConf(conf hadoopconf.HadoopConf) (FS, error) {
	opts := hdfs.ClientOptionsFromConf(conf)
	opts.Addresses = nonEmpty(opts.Addresses)
	if len(opts.Addresses) == 0 {
		return nil, errors.New("hadoop configuration names no namenode (fs.defaultFS)")
	}
	return dial(opts, "")
}

// nonEmpty drops empty addresses: hadoopconf reads any key containing "fs.default" (such
// as dfs.default.chunk.view.size in a full dumped configuration) as a namenode URL.
func nonEmpty(addrs []string) []string {
	var out []string
	for _, a := range addrs {
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

func dial(opts hdfs.ClientOptions, name string) (FS, error) {
	if opts.KerberosClient != nil { // hadoop.security.authentication is kerberos
		kc, err := kerberos.Login(Identity(), os.Getenv)
		if err != nil {
			return nil, err
		}
		opts.KerberosClient = kc
		if opts.KerberosServicePrincipleName == "" {
			return nil, errors.New("kerberos: the hadoop configuration names no dfs.namenode.kerberos.principal")
		}
	}
	if name == "" {
		var err error
		if name, err = hadoopUser(); err != nil {
			return nil, err
		}
	}
	opts.User = name
	c, err := hdfs.NewClient(opts)
	if err != nil {
		if reason := kerberos.ErrorCode(err); opts.KerberosClient != nil && reason != "" {
			return nil, fmt.Errorf("connect to namenode %s: kerberos: the KDC refused the ticket (%s): run kinit again, or give --principal and --keytab", strings.Join(opts.Addresses, ","), reason)
		}
		return nil, fmt.Errorf("connect to namenode %s: %w", strings.Join(opts.Addresses, ","), err)
	}
	return &hdfsFS{c: c}, nil
}

// hadoopUser is HADOOP_USER_NAME, else the current user, as the Hadoop CLI does.
func hadoopUser() (string, error) {
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u, nil
	}
	u, err := user.Current()
	if err != nil {
		return "", fmt.Errorf("hdfs user: %w", err)
	}
	return u.Username, nil
}

// Close closes the connection to the NameNode.
func (h *hdfsFS) Close() error { return h.c.Close() }

func (h *hdfsFS) Open(name string) (io.ReadCloser, error) {
	f, err := h.c.Open(name)
	if err != nil {
		return nil, err
	}
	if f.Stat().IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	return f, nil
}

// Create truncates an existing file like os.Create (HDFS create does not overwrite).
func (h *hdfsFS) Create(name string) (io.WriteCloser, error) {
	fi, err := h.c.Stat(name)
	switch {
	case err == nil && fi.IsDir():
		return nil, &fs.PathError{Op: "create", Path: name, Err: syscall.EISDIR}
	case err == nil:
		if err := h.c.Remove(name); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	w, err := h.c.Create(name)
	if err != nil {
		return nil, err
	}
	return &hdfsWriter{FileWriter: w}, nil
}

func (h *hdfsFS) Stat(name string) (fs.FileInfo, error) { return h.c.Stat(name) }

func (h *hdfsFS) ReadDir(name string) ([]fs.FileInfo, error) {
	f, err := h.c.Open(name)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: UnwrapPath(err)}
	}
	defer f.Close()
	if !f.Stat().IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	infos, err := f.Readdir(0)
	if err != nil {
		return nil, err
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name() < infos[j].Name() })
	return infos, nil
}

func (h *hdfsFS) MkdirAll(name string, perm fs.FileMode) error { return h.c.MkdirAll(name, perm) }

func (h *hdfsFS) Rename(oldname, newname string) error { return h.c.Rename(oldname, newname) }

func (h *hdfsFS) RemoveAll(name string) error { return h.c.RemoveAll(name) }

// UnwrapPath returns the error inside a *fs.PathError, for messages that
// name the path themselves; other errors are returned as they are.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// hdfsWriter retries Close while the NameNode reports the last block as still
// replicating (all data is acknowledged; the file is not complete yet), as the Java
// client does, and makes a zero-length Write a no-op.
type hdfsWriter struct {
	*hdfs.FileWriter
}

// Write writes p. An empty p writes nothing: hdfs.FileWriter would allocate a block for
// it that never receives data, and Close would then wait for that block to replicate
// and fail ("replication in progress"). So WriteFile(fsys, name, nil) creates an empty,
// complete file, as on the local disk.
func (w *hdfsWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return w.FileWriter.Write(p)
}

// abort closes the file once for data that is thrown away (AtomicFile.Abort): after a
// failed write the client may hold no last block to complete, so the NameNode would
// answer "replicating" for ever; the caller removes the file, lease and all.
func (w *hdfsWriter) abort() { w.FileWriter.Close() }

func (w *hdfsWriter) Close() error {
	err := w.FileWriter.Close()
	// About 50 s in all: a loaded DataNode (one core shared by a whole
	// pseudo-cluster) has taken over 12 s to report a block.
	for wait := 50 * time.Millisecond; hdfs.IsErrReplicating(err) && wait < 30*time.Second; wait *= 2 {
		time.Sleep(wait)
		err = w.FileWriter.Close()
	}
	return err
}
