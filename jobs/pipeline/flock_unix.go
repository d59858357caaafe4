//go:build unix

package pipeline

import (
	"os"
	"syscall"
)

// flock takes an exclusive OS lock on f without waiting.
func flock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// alive reports whether process pid runs on this machine.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
