// Command silver scores pdc against a silver standard built from the
// Python manual (Debian python3.11-doc), whose HTML pages ship their reST
// source in html/_sources/PAGE.rst.txt: the source is the page's content,
// everything else on the page is template (scripts/silver.sh,
// docs/quality-templates.md).
//
//	silver prepare -html ROOT -out DIR [-url-base URL] [-sources]
//	silver score -html ROOT -spans SPANS.jsonl [-sample FILE] [-check] [-content-share F ...]
//
// prepare writes pdc's input: DIR/pages, a tree of links to the pages
// (id = path under ROOT, e.g. library/os.html), or with -url-base
// DIR/pages.jsonl with url URL+PATH; -sources adds each page's source as a
// text document with id _sources/PATH.rst.txt. It prints the input's path.
//
// score reads `pdc spans OUT --text --format jsonl` and prints the report:
// silver pairs (silver.go) found, and each reported page pair classified
// as silver, template-only (no passage of its spans lies in its page's
// source: contain.go) or content but not silver; pairs with a source
// document (-sources runs) are counted apart (report.go).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	err := Main{Stdout: os.Stdout, Stderr: os.Stderr}.Run(os.Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "silver:", err)
		os.Exit(1)
	}
}

// Main is the program with its output streams.
type Main struct{ Stdout, Stderr io.Writer }

// errUsage is a usage error (exit status 2).
var errUsage = errors.New("usage")

// Run runs the subcommand named by args[0].
func (m Main) Run(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "prepare":
			return m.prepare(args[1:])
		case "score":
			return m.score(args[1:])
		}
	}
	fmt.Fprintln(m.Stderr, "usage: silver prepare|score [flags] (silver CMD -h for flags)")
	return errUsage
}
