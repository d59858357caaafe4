// Command pdc finds partial duplicates in document collections: pairs of
// documents that share runs of near-duplicate sentences. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/pdc-mr/pdc/jobs"
)

func main() {
	// The first SIGINT or SIGTERM stops the command (it can be resumed);
	// a second one kills pdc at once. pdc then exits 128 + the signal.
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var signo atomic.Int32
	go func() { s := <-sigs; signo.Store(int32(s.(syscall.Signal))); signal.Stop(sigs); cancel() }()
	m := &jobs.Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	err := m.Run(ctx, os.Args[1:])
	if n := signo.Load(); err != nil && n != 0 {
		err = jobs.NewInterrupted(err, int(n))
	}
	if err != nil && jobs.ExitCode(err) != 0 && !jobs.Reported(err) {
		fmt.Fprintln(os.Stderr, "pdc:", err)
	}
	cancel()
	os.Exit(jobs.ExitCode(err))
}
