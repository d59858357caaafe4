package jobs

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

const fsUsage = `Usage:
  pdc fs [--principal P --keytab K] COMMAND ARGS...

  pdc fs put LOCAL... DEST     upload files or directories to HDFS (with progress)
  pdc fs get SRC LOCAL         download a file or directory from HDFS
  pdc fs cat PATH...           print files
  pdc fs ls PATH               list a directory
  pdc fs rm PATH...            remove files or directories

HDFS paths are hdfs://HOST:PORT/PATH, or /PATH on the default file system
of HADOOP_CONF_DIR. HADOOP_USER_NAME is honoured. On a Kerberos-secured
cluster pdc logs in from the ticket cache of kinit (KRB5CCNAME), or as
--principal with the key in --keytab.
`

// fsCmd is `pdc fs`: a small HDFS client for moving documents and results.
func (m *Main) fsCmd(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(m.Stdout, fsUsage)
		return nil
	}
	flags := m.newFlagSet("fs", "[--principal P --keytab K] put LOCAL... DEST | get SRC LOCAL | cat PATH... | ls PATH | rm PATH...")
	flags.kerberosFlags()
	// Flags anywhere, as in the other commands: a flag after the
	// subcommand must never be taken for a path (put would overwrite the
	// keytab); a path starting with "-" goes after "--".
	if err := flags.parse(reorderArgs(flags, args)); err != nil {
		return err
	}
	args = flags.Args()
	if len(args) == 0 {
		return usagef("fs: no subcommand")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "put":
		if len(args) < 2 {
			return usagef("fs put: want LOCAL... DEST")
		}
		dstFS, dst, err := hdfsfs.Resolve(args[len(args)-1], true)
		if err != nil {
			return err
		}
		for _, src := range args[:len(args)-1] {
			target := dst
			if fi, err := dstFS.Stat(dst); err == nil && fi.IsDir() {
				target = path.Join(dst, path.Base(src))
			} else if err := dstFS.MkdirAll(path.Dir(dst), 0o755); err != nil {
				return fmt.Errorf("put %s: %w", src, err)
			}
			if err := hdfsfs.Upload(ctx, dstFS, target, src, m.copyProgress(src)); err != nil {
				return fmt.Errorf("put %s: %w", src, err)
			}
		}
		return nil
	case "get":
		if len(args) != 2 {
			return usagef("fs get: want SRC LOCAL")
		}
		srcFS, src, err := hdfsfs.Resolve(args[0], true)
		if err != nil {
			return err
		}
		if err := hdfsfs.Download(ctx, args[1], srcFS, src, m.copyProgress(args[0])); err != nil {
			return fmt.Errorf("get %s: %w", args[0], err)
		}
		return nil
	case "cat":
		for _, p := range args {
			if err := m.catFile(p); err != nil {
				return err
			}
		}
		return nil
	case "ls":
		if len(args) != 1 {
			return usagef("fs ls: want PATH")
		}
		fsys, p, err := hdfsfs.Resolve(args[0], true)
		if err != nil {
			return err
		}
		ents, err := fsys.ReadDir(p)
		if err != nil {
			return fmt.Errorf("ls %s: %w", args[0], hdfsfs.UnwrapPath(err))
		}
		for _, e := range ents {
			kind := "-"
			if e.IsDir() {
				kind = "d"
			}
			fmt.Fprintf(m.Stdout, "%s %12d %s\n", kind, e.Size(), path.Join(p, e.Name()))
		}
		return nil
	case "rm":
		for _, a := range args {
			fsys, p, err := hdfsfs.Resolve(a, true)
			if err != nil {
				return err
			}
			if err := fsys.RemoveAll(p); err != nil {
				return fmt.Errorf("rm %s: %w", a, err)
			}
		}
		return nil
	}
	return usagef("fs: unknown subcommand %q", sub)
}

func (m *Main) catFile(p string) error {
	fsys, rp, err := hdfsfs.Resolve(p, true)
	if err != nil {
		return err
	}
	r, err := fsys.Open(rp)
	if err != nil {
		return fmt.Errorf("cat %s: %w", p, hdfsfs.UnwrapPath(err))
	}
	_, err = io.Copy(m.Stdout, r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cat %s: %w", p, err)
	}
	return nil
}

// copyProgress prints a transfer's progress on stderr when it is a
// terminal or every 10%.
func (m *Main) copyProgress(name string) hdfsfs.Progress {
	last := -1
	return func(done, total int64) {
		pct := 100
		if total > 0 {
			pct = int(100 * done / total)
		}
		if pct/10 == last/10 && pct != 100 {
			return
		}
		last = pct
		fmt.Fprintf(m.Stderr, "%s: %d%% (%d/%d bytes)\n", strings.TrimPrefix(name, "./"), pct, done, total)
	}
}
