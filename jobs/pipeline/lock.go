package pipeline

// One run per output directory. A run holds a lock file next to OUT,
// DIR/.NAME.pdc-lock for OUT = DIR/NAME (outside OUT, which --overwrite
// removes), holding who holds it:
//
//	{"host": "...", "pid": 123, "since": "2026-11-25T08:00:00Z"}
//
// On the local disk the lock is an OS file lock (flock) on that file: it
// ends with the process, however it ends, so a lock is never stale and
// --force-unlock has nothing to remove (a live holder is never broken). On
// HDFS the file is created exclusively and its holder touches it every
// LockBeat; a lock is stale (its holder died) and is taken over when it
// was not touched for LockStale, or at once when its holder ran on this
// host and its process is gone; staleness compares the lock's time with
// this host's clock, so the hosts' clocks must agree (NTP). --force-unlock
// removes an HDFS lock whatever its state. A run releases only a lock that
// is still its own.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// LockBeat is how often a run touches its lock on HDFS; LockStale is how
// long an untouched lock on HDFS lasts.
var (
	LockBeat  = 30 * time.Second
	LockStale = 3 * time.Minute
)

// LockInfo is the content of a lock file.
type LockInfo struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// Command is the command holding it ("": pdc run).
	Command string `json:"command,omitempty"`
}

// ThisProcess is the LockInfo of the calling process, holding a lock for
// command ("": pdc run) from now on.
func ThisProcess(command string) LockInfo {
	host, _ := os.Hostname()
	return LockInfo{Host: host, PID: os.Getpid(), Since: time.Now().UTC().Truncate(time.Second), Command: command}
}

func (l LockInfo) String() string {
	return fmt.Sprintf("%s pid %d on %s since %s", cmp.Or(l.Command, "pdc run"), l.PID, l.Host, l.Since.Format(time.RFC3339))
}

// ErrLocked is wrapped by the error of a run whose output is in use.
var ErrLocked = errors.New("in use")

// Lock is a run's hold on its output directory.
type Lock struct {
	fsys  hdfsfs.FS
	name  string
	info  LockInfo
	file  *os.File // local: the flocked file
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
	error error
}

// LockName is the lock file of output directory out.
func LockName(fsys hdfsfs.FS, out string) string {
	if fsys == hdfsfs.Local() {
		clean := filepath.Clean(out)
		return filepath.Join(filepath.Dir(clean), "."+filepath.Base(clean)+".pdc-lock")
	}
	clean := path.Clean(out)
	return path.Join(path.Dir(clean), "."+path.Base(clean)+".pdc-lock")
}

// AcquireLock locks output directory out for a run described by info, or
// fails with an error wrapping ErrLocked that names the holder. force
// removes an existing lock first.
func AcquireLock(fsys hdfsfs.FS, out string, info LockInfo, force bool) (*Lock, error) {
	name := LockName(fsys, out)
	dir := filepath.Dir(name)
	if fsys != hdfsfs.Local() {
		dir = path.Dir(name)
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output %s: %w", out, err)
	}
	if force && fsys != hdfsfs.Local() {
		if err := fsys.RemoveAll(name); err != nil {
			return nil, fmt.Errorf("output %s: force unlock: %w", out, err)
		}
	}
	l := &Lock{fsys: fsys, name: name, info: info, stop: make(chan struct{})}
	var err error
	if fsys == hdfsfs.Local() {
		err = l.lockLocal(out, info)
	} else {
		err = l.lockRemote(out, info)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// lockLocal takes the OS lock on the lock file, making sure the file it
// locked is still the one at the name (a holder removes it as it lets go).
func (l *Lock) lockLocal(out string, info LockInfo) error {
	for range 10 {
		f, err := os.OpenFile(l.name, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("output %s: lock: %w", out, err)
		}
		if err := flock(f); err != nil {
			holder := readLockInfo(f)
			f.Close()
			return fmt.Errorf("output %s is %w by %s (it holds %s)", out, ErrLocked, holder, l.name)
		}
		fi, err1 := f.Stat()
		ni, err2 := os.Stat(l.name)
		if err1 != nil || err2 != nil || !os.SameFile(fi, ni) {
			f.Close() // removed by the holder that let go: try the new one
			continue
		}
		data, _ := json.Marshal(info)
		err = f.Truncate(0)
		if err == nil {
			_, err = f.WriteAt(append(data, '\n'), 0)
		}
		if err != nil {
			os.Remove(l.name)
			f.Close()
			return fmt.Errorf("output %s: lock: %w", out, err)
		}
		l.file = f
		return nil
	}
	return fmt.Errorf("output %s: lock %s keeps changing", out, l.name)
}

func readLockInfo(f *os.File) string {
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	var info LockInfo
	if json.Unmarshal(buf[:n], &info) != nil || info.PID == 0 {
		return "another pdc run"
	}
	return info.String()
}

// lockRemote creates the lock file exclusively, taking a stale one over,
// and touches it every LockBeat until Release.
func (l *Lock) lockRemote(out string, info LockInfo) error {
	data, _ := json.Marshal(info)
	for attempt := 0; ; attempt++ {
		w, err := hdfsfs.CreateExclusive(l.fsys, l.name)
		if err == nil {
			_, err = w.Write(append(data, '\n'))
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				l.fsys.RemoveAll(l.name)
				return fmt.Errorf("output %s: lock: %w", out, err)
			}
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt > 0 {
			return fmt.Errorf("output %s: lock: %w", out, err)
		}
		fi, serr := l.fsys.Stat(l.name)
		holder := "another pdc run"
		dead := false // its holder ran on this machine and is gone
		if b, rerr := hdfsfs.ReadFile(l.fsys, l.name); rerr == nil {
			var hi LockInfo
			if json.Unmarshal(b, &hi) == nil && hi.PID != 0 {
				holder = hi.String()
				dead = hi.Host == info.Host && hi.PID != info.PID && !alive(hi.PID)
			}
		}
		if !dead && (serr != nil || time.Since(fi.ModTime()) < LockStale) {
			seen := ""
			if serr == nil {
				seen = fmt.Sprintf(", last seen %s ago", time.Since(fi.ModTime()).Round(time.Second))
			}
			return fmt.Errorf("output %s is %w by %s%s (if that run is dead, its lock %s expires %s after it was last seen; --force-unlock removes it)",
				out, ErrLocked, holder, seen, l.name, LockStale)
		}
		// Stale: its holder stopped touching it.
		if err := l.fsys.RemoveAll(l.name); err != nil {
			return fmt.Errorf("output %s: remove stale lock: %w", out, err)
		}
	}
	l.wg.Add(1)
	go l.beat()
	return nil
}

func (l *Lock) beat() {
	defer l.wg.Done()
	t := time.NewTicker(LockBeat)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			if l.owned() { // never keep another run's lock alive
				hdfsfs.Touch(l.fsys, l.name, now) // a failed beat is retried at the next one
			}
		}
	}
}

// Release lets go of the lock and removes the lock file, if it is still
// this run's (not removed and taken by another run meanwhile).
func (l *Lock) Release() error {
	l.once.Do(func() {
		close(l.stop)
		l.wg.Wait()
		if l.file != nil {
			// Remove while holding it, so that a process waiting on
			// this file sees it is no longer the lock (lockLocal).
			fi, err1 := l.file.Stat()
			ni, err2 := os.Stat(l.name)
			if err1 == nil && err2 == nil && os.SameFile(fi, ni) {
				l.error = os.Remove(l.name)
			}
			if err := l.file.Close(); l.error == nil {
				l.error = err
			}
			return
		}
		if l.owned() {
			l.error = l.fsys.RemoveAll(l.name)
		}
	})
	if l.error != nil && !errors.Is(l.error, fs.ErrNotExist) {
		return fmt.Errorf("release lock %s: %w", l.name, l.error)
	}
	return nil
}

// owned tells whether the lock file on HDFS still names this run.
func (l *Lock) owned() bool {
	b, err := hdfsfs.ReadFile(l.fsys, l.name)
	if err != nil {
		return false
	}
	var info LockInfo
	return json.Unmarshal(b, &info) == nil && info.Host == l.info.Host && info.PID == l.info.PID && info.Since.Equal(l.info.Since)
}
