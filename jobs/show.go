package jobs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/sentence"
	"github.com/pdc-mr/pdc/lib/sidebyside"
	"github.com/pdc-mr/pdc/lib/span"
)

// showCmd prints two documents of a run side by side (lib/sidebyside).
func (m *Main) showCmd(ctx context.Context, args []string) error {
	var inputs listFlag
	var o sidebyside.Options
	fs := m.newFlagSet("show", "OUT A B [--span N [--context K]] [--width W] [--color auto|always|never]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.Var(&inputs, "input", "the run's documents (default: the inputs the run recorded); repeatable")
	fs.IntVar(&o.Span, "span", 0, "show only span `N` (1: the first in A's order) with --context sentences around it")
	fs.IntVar(&o.Context, "context", 2, "sentences shown around the span of --span on each side")
	fs.IntVar(&o.Width, "width", 0, "output width in columns (default: the terminal's, else $COLUMNS, else 120)")
	color := fs.String("color", "auto", "mark with colour: auto (on a terminal, unless $NO_COLOR), always or never")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 3 {
		return usagef("show: want the output directory and two document ids (pdc show OUT A B)")
	}
	out, a, b := fs.Arg(0), fs.Arg(1), fs.Arg(2)
	switch {
	case a == b:
		return usagef("show: A and B are the same document")
	case o.Span < 0 || o.Context < 0:
		return usagef("show: --span and --context must be >= 0")
	case *color != "auto" && *color != "always" && *color != "never":
		return usagef("show: --color must be auto, always or never, got %q", *color)
	}
	o.Color = *color == "always" || *color == "auto" && isTerminal(m.Stdout) && m.Getenv("NO_COLOR") == ""
	if o.Width == 0 {
		o.Width = m.termWidth()
	}
	if o.Width < sidebyside.MinWidth {
		return usagef("show: --width must be at least %d", sidebyside.MinWidth)
	}
	r, err := m.openRunDir("show", out)
	if err != nil {
		return err
	}
	runDocs, err := m.docsOf(r, inputs, "show")
	if err != nil {
		return err
	}
	cfg, err := r.Config()
	if err != nil {
		return fmt.Errorf("show: the run's parameters: %w", err)
	}
	if cfg.Extract == "main" {
		// The run's texts need main-content extraction: pdc-extract shows them.
		if err := m.needMain(ctx, append([]string{"show"}, args...)); err != nil {
			return err
		}
	}
	spans, err := pairOf(ctx, r, a, b)
	if err != nil {
		return err
	}
	note := ""
	if len(spans) == 0 {
		// Two copies a hub linked share a cluster, not a span: match them alone.
		if spans, _, err = m.pairSpans(r, a, b, runDocs); err != nil {
			return fmt.Errorf("show: %w", err)
		}
		note = fmt.Sprintf("%s has no span between %s and %s; matched alone with its parameters (pdc spans OUT --pair A B)", out, a, b)
	}
	an := cfg.Analyzer()
	docs := map[string]sidebyside.Doc{}
	var tok sentence.Tokenizer
	err = m.analyzeNeeded(map[string]bool{a: true, b: true}, runDocs, an, func(d *doc.Doc, x doc.Analysis) {
		docs[d.ID] = sidebyside.Doc{ID: d.ID, URL: d.URL, Text: strings.Clone(x.Text), Sentences: dedup.Sentences(x, &tok, cfg.MinTokens)}
	})
	if err != nil {
		return fmt.Errorf("show: %w", err)
	}
	for _, id := range []string{a, b} {
		if _, ok := docs[id]; !ok {
			return fmt.Errorf("show: document %q is not in --input %s (give the run's documents)", id, runDocs)
		}
	}
	w := bufio.NewWriter(m.Stdout)
	if note != "" {
		fmt.Fprintf(m.Stderr, "pdc show: %s\n", note)
	}
	if len(spans) == 0 {
		return fmt.Errorf("show: %s and %s share no span, even matched alone", a, b)
	}
	if err := sidebyside.Render(w, docs[a], docs[b], spans, o); err != nil {
		return fmt.Errorf("show: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// pairOf returns the spans of run r between documents a and b,
// streaming its part files.
func pairOf(ctx context.Context, r *runOutput, a, b string) ([]span.Span, error) {
	var spans []span.Span
	err := span.Stream(r.FS, r.Dir, func(s *span.Span) error {
		if s.DocA == a && s.DocB == b || s.DocA == b && s.DocB == a {
			spans = append(spans, *s)
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("show: %w", err)
	}
	return spans, nil
}

// termWidth is the width of the terminal on stdout, else $COLUMNS, else
// 120.
func (m *Main) termWidth() int {
	if f, ok := m.Stdout.(*os.File); ok && isTerminal(m.Stdout) {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	if n, err := strconv.Atoi(m.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 120
}
