package jobs

import (
	"bufio"
	"io"

	"github.com/pdc-mr/pdc/lib/mr"
)

// runProgram runs a streaming program on the process's streams, as Hadoop
// Streaming runs `pdc map JOB`.
func runProgram(f mr.Func, in io.Reader, out, stderr io.Writer, getenv func(string) string) error {
	t := &mr.Task{
		Stdin:  bufio.NewReaderSize(in, 1<<16),
		Stdout: out,
		Stderr: stderr,
		Getenv: getenv,
	}
	return f(t)
}
