package jobs

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Main is the pdc command line, with its streams injected.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// UsageError is a command-line mistake; pdc exits with status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitCode maps an error returned by Run to the process exit status: 0 ok
// (or -h), 2 usage error, 1 anything else.
func ExitCode(err error) int {
	var u *UsageError
	var h *handedOver
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		return 2
	case errors.As(err, &h):
		return h.code
	}
	return 1
}

const usage = `pdc finds partial duplicates: pairs of documents that share runs of
near-duplicate sentences, and says where.

Usage:
  pdc run --input DOCS... --output OUT [flags]   run the pipeline (local, or --hadoop)
  pdc spans OUT [--format tsv|jsonl|avro|parquet] [--text --input DOCS]
                                                 print the spans of a run
  pdc text --input DOCS [--id ID]                print extracted text and sentence table
  pdc ingest --input SRC... --output DIR|hdfs://...
                                                 convert WARC, Avro, Parquet, dirs to JSON Lines
  pdc eval --truth TRUTH --spans OUT             score spans against ground truth
  pdc fs put|get|cat|ls|rm ...                   copy documents and results to and from HDFS
  pdc map|reduce|combine JOB                     the Hadoop Streaming programs
  pdc version

Run 'pdc COMMAND -h' for a command's flags.
`

// Run runs the command line args (without the program name).
func (m *Main) Run(ctx context.Context, args []string) error {
	if m.Getenv == nil {
		m.Getenv = os.Getenv
	}
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return m.runCmd(ctx, rest)
	case "spans":
		return m.spansCmd(ctx, rest)
	case "text":
		return m.textCmd(ctx, rest)
	case "map", "reduce", "combine":
		return m.programCmd(ctx, cmd, rest)
	case "ingest":
		return m.ingestCmd(ctx, rest)
	case "eval":
		return m.evalCmd(ctx, rest)
	case "fs":
		return m.fsCmd(ctx, rest)
	case "version":
		fmt.Fprintln(m.Stdout, "pdc", Version)
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	fmt.Fprint(m.Stderr, usage)
	return usagef("unknown command %q", cmd)
}

// Version is pdc's version, set at build time with -ldflags.
var Version = "dev"

// newFlagSet returns a flag set that reports errors instead of exiting.
func (m *Main) newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "Usage: pdc %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and turns flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%s: %v", fs.Name(), err)
	}
	return nil
}

// listFlag is a repeatable flag; values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
