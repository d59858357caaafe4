package jobs

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/kerberos"
)

// Main is the pdc command line, with its streams injected.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string

	// force: the command's --force (read a run's inputs even if they
	// changed since the run; runOutput Inputs).
	force bool
}

// UsageError is a command-line mistake; pdc exits with status 2. Cmd, if
// set, is the command whose help the message points to.
type UsageError struct {
	Msg string
	Cmd string
}

func (e *UsageError) Error() string {
	if e.Cmd != "" {
		return fmt.Sprintf("%s (run 'pdc %s --help')", e.Msg, e.Cmd)
	}
	return e.Msg + " (run 'pdc help')"
}

// usagef returns a usage error of the command named by the message's first
// word ("run: ...", "spans: ..."), or of pdc itself.
func usagef(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	cmd, _, _ := strings.Cut(msg, ":")
	if _, ok := commands[cmd]; !ok || strings.ContainsAny(cmd, " \t") {
		cmd = ""
	}
	return &UsageError{Msg: msg, Cmd: cmd}
}

// ExitCode maps an error returned by Run to the process exit status: 0 ok
// (or -h), 2 usage error, 1 anything else.
func ExitCode(err error) int {
	var u *UsageError
	var h *handedOver
	var sig *Interrupted
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		return 2
	case errors.As(err, &h):
		return h.code
	case errors.As(err, &sig):
		return 128 + sig.signo
	}
	return 1
}

// Interrupted is the error of a command stopped by a signal: pdc exits with
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), after
// printing Err (which says how to resume).
type Interrupted struct {
	Err   error
	signo int
}

// NewInterrupted wraps err, the error of a command stopped by signal signo.
func NewInterrupted(err error, signo int) *Interrupted { return &Interrupted{Err: err, signo: signo} }

func (e *Interrupted) Error() string { return e.Err.Error() }
func (e *Interrupted) Unwrap() error { return e.Err }

const usage = `pdc finds partial duplicates: pairs of documents that share runs of
near-duplicate sentences, and says where.

Usage:
  pdc run --input DOCS... --output OUT [flags]   run the pipeline (local, or --hadoop)
  pdc spans OUT [--format tsv|jsonl|avro|parquet] [--text --input DOCS]
                                                 print the spans of a run
  pdc pairs OUT [--min-containment X] [--groups] document pairs: shared characters, containment,
                                                 resemblance; or groups of near-copies
  pdc clusters OUT [--min-size N] [--text]       passage clusters of a run --clusters: each passage
                                                 and every document it is in, earliest first
  pdc dedup OUT --output CLEAN [--keep first|longest|earliest]
                                                 the documents with each cluster's passage kept in
                                                 one: CLEAN/docs.jsonl and removed.tsv
  pdc show OUT A B [--span N]                    two documents side by side, sentence by sentence
  pdc boilerplate OUT [--text] [--top N]         what the run left out as templates, with its text
  pdc report OUT --output DIR                    write an HTML report of a run (DIR/index.html)
  pdc text --input DOCS | OUT [--id ID]          print extracted text and sentence table
  pdc ingest --input SRC... --output DIR|hdfs://...
                                                 convert WARC, Avro, Parquet, dirs to JSON Lines
  pdc eval --truth TRUTH --spans OUT             score spans against ground truth
  pdc fs put|get|cat|ls|rm ...                   copy documents and results to and from HDFS
  pdc map|reduce|combine JOB                     the Hadoop Streaming programs
  pdc version                                    (also pdc --version)

Run 'pdc help COMMAND' (or 'pdc COMMAND --help') for a command's flags;
'pdc completion bash|zsh' prints a shell completion script.
`

// commands are pdc's commands; map, reduce and combine are the streaming
// programs.
var commands = map[string]string{
	"run": "", "spans": "", "text": "", "ingest": "", "eval": "", "fs": "",
	"map": "", "reduce": "", "combine": "", "version": "", "help": "", "completion": "", "report": "", "pairs": "", "clusters": "", "dedup": "", "show": "", "boilerplate": "",
}

// ReadHeapLimit is the soft limit of the Go heap of the commands that read
// a run (pdc pairs, clusters, dedup, report, spans, show, text) unless
// GOMEMLIMIT sets one: the garbage collector then keeps their peak
// near what they hold (at 850 MB of input, 420 MB of RSS against 520-730
// MB with the default pacing; docs/performance.md), at a little CPU when
// what they hold nears it.
const ReadHeapLimit = 384 << 20

// boundHeap sets ReadHeapLimit, unless GOMEMLIMIT is set.
func (m *Main) boundHeap() {
	if m.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(ReadHeapLimit)
	}
}

// Run runs the command line args (without the program name).
func (m *Main) Run(ctx context.Context, args []string) error {
	if m.Getenv == nil {
		m.Getenv = os.Getenv
	}
	return kerberos.Explain(hdfsfs.ExplainSpace(m.run(ctx, args)))
}

func (m *Main) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage)
		return &UsageError{Msg: "no command given"}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "spans", "text", "show", "report", "pairs", "clusters", "dedup", "boilerplate":
		m.boundHeap()
	}
	switch cmd {
	case "run":
		return m.runCmd(ctx, rest)
	case "spans":
		return m.spansCmd(ctx, rest)
	case "text":
		return m.textCmd(ctx, rest)
	case "show":
		return m.showCmd(ctx, rest)
	case "map", "reduce", "combine":
		return m.programCmd(ctx, cmd, rest)
	case "ingest":
		return m.ingestCmd(ctx, rest)
	case "eval":
		return m.evalCmd(ctx, rest)
	case "fs":
		return m.fsCmd(ctx, rest)
	case "completion":
		return m.completionCmd(rest)
	case "report":
		return m.reportCmd(ctx, rest)
	case "pairs":
		return m.pairsCmd(ctx, rest)
	case "clusters":
		return m.clustersCmd(ctx, rest)
	case "dedup":
		return m.dedupCmd(ctx, rest)
	case "boilerplate":
		return m.boilerplateCmd(ctx, rest)
	case "version", "-version", "--version":
		fmt.Fprintln(m.Stdout, "pdc", Version)
		return nil
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && rest[0] != "help" {
			if _, ok := commands[rest[0]]; ok {
				return m.Run(ctx, []string{rest[0], "--help"})
			}
			return &UsageError{Msg: fmt.Sprintf("help: unknown command %q", rest[0])}
		}
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	return &UsageError{Msg: fmt.Sprintf("unknown command %q", cmd)}
}

// Version is pdc's version, set at build time with -ldflags.
var Version = "dev"

// flagSet is a command's flags and the synopsis its help shows.
type flagSet struct {
	*flag.FlagSet
	synopsis string
	stdout   io.Writer
	groups   []flagGroup        // for help; none: one list
	ident    *kerberos.Identity // --principal and --keytab, when the command has them
	notes    string             // printed after the flags (columns of the output)
}

// kerberosFlags adds --principal and --keytab, the Kerberos identity of the
// command's HDFS access (and Hadoop jobs) on a secured cluster; parse hands
// them to hdfsfs.
func (fs *flagSet) kerberosFlags() {
	fs.ident = &kerberos.Identity{}
	fs.StringVar(&fs.ident.Principal, "principal", "", "secured cluster: log in as this Kerberos `principal` (USER@REALM) with --keytab; default: the ticket cache of kinit (KRB5CCNAME)")
	fs.StringVar(&fs.ident.Keytab, "keytab", "", "secured cluster: keytab `file` holding the key of --principal (unattended runs; the login renews itself)")
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints nothing itself: parse prints the help on stdout for -h and --help,
// and turns errors into one-line usage errors.
func (m *Main) newFlagSet(name, synopsis string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, synopsis: synopsis, stdout: m.Stdout}
}

// help prints the command's synopsis and flags, by group when the command
// has groups (flags in no group come last, under "Other flags").
func (fs *flagSet) help() {
	fmt.Fprintf(fs.stdout, "Usage: pdc %s %s\n", fs.Name(), fs.synopsis)
	if fs.notes != "" {
		defer fmt.Fprintf(fs.stdout, "\n%s", fs.notes)
	}
	if len(fs.groups) == 0 {
		fmt.Fprintf(fs.stdout, "\nFlags:\n")
		fs.VisitAll(func(f *flag.Flag) { printFlag(fs.stdout, f) })
		return
	}
	shown := map[string]bool{}
	for _, g := range fs.groups {
		fmt.Fprintf(fs.stdout, "\n%s:\n", g.title)
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil {
				printFlag(fs.stdout, f)
				shown[name] = true
			}
		}
	}
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if shown[f.Name] {
			return
		}
		if first {
			fmt.Fprintf(fs.stdout, "\nOther flags:\n")
			first = false
		}
		printFlag(fs.stdout, f)
	})
}

// flagGroup is a titled group of flags in a command's help.
type flagGroup struct {
	title string
	flags []string
}

// printFlag prints one flag as flag.PrintDefaults does.
func printFlag(w io.Writer, f *flag.Flag) {
	name, usage := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if name != "" {
		line += " " + name
	}
	line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
		line += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	fmt.Fprintln(w, line)
}

// parse parses args: -h and --help print the command's help on stdout
// (flag.ErrHelp: exit 0); a flag error is a one-line usage error.
func (fs *flagSet) parse(args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.help()
			return err
		}
		return &UsageError{Msg: fmt.Sprintf("%s: %v", fs.Name(), err), Cmd: fs.Name()}
	}
	if fs.ident != nil {
		hdfsfs.SetIdentity(*fs.ident)
	}
	return nil
}
