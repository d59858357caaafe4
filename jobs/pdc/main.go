// Command pdc finds partial duplicates in document collections: pairs of
// documents that share runs of near-duplicate sentences. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/pdc-mr/pdc/jobs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &jobs.Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	err := m.Run(ctx, os.Args[1:])
	if err != nil && jobs.ExitCode(err) != 0 && !jobs.Reported(err) {
		fmt.Fprintln(os.Stderr, "pdc:", err)
	}
	stop()
	os.Exit(jobs.ExitCode(err))
}
