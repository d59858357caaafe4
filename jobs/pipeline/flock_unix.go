//go:build unix

package pipeline

import (
	"os"
	"syscall"
)

// flock takes an exclusive OS lock on f without waiting.
func flock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
