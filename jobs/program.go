package jobs

import (
	"bufio"
	"errors"
	"io"
	"strings"

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
// every attempt.
func runProgram(f mr.Func, in io.Reader, out, stderr io.Writer, getenv func(string) string) error {
	switch getenv("PDC_FAULT") {
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
