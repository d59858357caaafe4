package jobs

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/mr"
)

// errInjected is the failure PDC_FAULT asks for.
var errInjected = errors.New("injected fault (PDC_FAULT)")

// runProgram runs a streaming program on the process's streams, as Hadoop
// Streaming runs `pdc map JOB`.
//
// PDC_FAULT=first-attempt makes every first task attempt on Hadoop
// (mapreduce_task_attempt_id ending in _0) fail after reading its input, to
// test that Hadoop's retry gives the same result; PDC_FAULT=always fails
// every attempt; PDC_FAULT=hold:PATH (hold@JOB:PATH: of job JOB) makes
// every task wait while the file PATH exists (on the test cluster's one
// machine), so that a test holds a job running for as long as it needs it
// to run (pipeline.Hold).
func runProgram(f mr.Func, job string, in io.Reader, out, stderr io.Writer, getenv func(string) string) error {
	fault := getenv("PDC_FAULT")
	pipeline.Hold(context.Background(), fault, job)
	switch fault {
	case "first-attempt":
		if strings.HasSuffix(getenv("mapreduce_task_attempt_id"), "_0") {
			io.Copy(io.Discard, in)
			return errInjected
		}
	case "always":
		io.Copy(io.Discard, in)
		return errInjected
	}
	t := &mr.Task{
		Stdin:  bufio.NewReaderSize(in, 1<<16),
		Stdout: out,
		Stderr: stderr,
		Getenv: getenv,
	}
	return f(t)
}

// programCmd is `pdc map|reduce|combine JOB`: a streaming program on the
// process's standard streams, as Hadoop Streaming runs it.
func (m *Main) programCmd(ctx context.Context, kind string, args []string) error {
	if len(args) != 1 {
		return usagef("usage: pdc %s JOB (a job of the pipeline: parse, stats, index, join, join+match, match, extend, the clusters and dedup jobs)", kind)
	}
	f, err := pipeline.Program(kind, args[0])
	if err != nil {
		return &UsageError{Msg: err.Error()}
	}
	if kind == "map" && args[0] == "parse" && m.Getenv("PDC_EXTRACT") == "main" {
		if err := m.needMain(ctx, append([]string{kind}, args...)); err != nil {
			return err
		}
	}
	return runProgram(f, args[0], m.Stdin, m.Stdout, m.Stderr, m.Getenv)
}
