package jobs

import (
	"bufio"
	"context"
	"flag"
	"fmt"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Output of `pdc text`, per document:
//
//	# doc ID url URL charset CHARSET sentences N
//	<the extracted text, as sentence offsets count it>
//	# sentences
//	ID TAB index TAB charStart TAB charEnd TAB sentence
//
// The sentence text is escaped like every pdc field (lib/mr). With --table
// only the sentence rows are printed. With --format jsonl, one JSON object
// per document, {"id", "url", "site", "pdc_source", "text"} (lib/doc
// AppendJSON: the record as pdc read it, with the extracted text for its
// html; fields left out when empty): what other tools should read to
// see the words pdc sees, and what pdc reads back as input. Of the records
// of one id only the one a run keeps is printed (input.Set.EachKept).
func (m *Main) textCmd(ctx context.Context, args []string) error {
	var inputs listFlag
	cfg := jobconf.Default()
	fs := m.newFlagSet("text", "--input DOCS | OUT [--id ID] [--table | --format jsonl]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.Var(&inputs, "input", "documents (as for pdc run); repeatable")
	id := fs.String("id", "", "only the document with this id")
	table := fs.Bool("table", false, "print only the sentence table")
	format := fs.String("format", "text", "text (the text and its sentence table), or jsonl: {\"id\", \"url\", \"text\"} per document")
	fs.Var(intSizeFlag{&cfg.MaxDocBytes}, "max-doc-bytes", "truncate documents larger than this `size` (as pdc run)")
	fs.StringVar(&cfg.Extract, "extract", cfg.Extract, "HTML text: all or main (as pdc run)")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return err
	}
	docs := m.given(inputs)
	switch {
	case fs.NArg() > 1:
		return usagef("text: want at most one run directory (pdc text OUT --id ID)")
	case fs.NArg() == 1:
		// The documents of a run, analysed with its parameters unless the
		// flags say otherwise.
		out := fs.Arg(0)
		r, err := m.openRun(out)
		if err != nil {
			return fmt.Errorf("text: %s is not a run's output (give --input DOCS): %w", out, err)
		}
		run, err := r.Config()
		if err != nil {
			return fmt.Errorf("text: %s is not a run's output (give --input DOCS): %w", out, err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["extract"] {
			cfg.Extract = run.Extract
		}
		if !set["max-doc-bytes"] {
			cfg.MaxDocBytes = run.MaxDocBytes
		}
		if docs, err = m.docsOf(r, inputs, "text"); err != nil {
			return err
		}
	case docs == nil:
		return usagef("text: give --input DOCS, or a run's output directory (pdc text OUT)")
	}
	if *format != "text" && *format != "jsonl" {
		return usagef("text: --format must be text or jsonl, got %q", *format)
	}
	if *format == "jsonl" && *table {
		return usagef("text: --table prints the sentence table as text; leave out --format jsonl")
	}
	in, err := m.findDocs(docs)
	if err != nil {
		if hint := m.runInput(inputs, fs.NArg(), *id); hint != nil {
			return hint
		}
		return err
	}
	w := bufio.NewWriter(m.Stdout)
	if cfg.Extract != "all" && cfg.Extract != "main" {
		return usagef("text: --extract must be all or main, got %q", cfg.Extract)
	}
	if cfg.Extract == "main" {
		if err := m.needMain(ctx, append([]string{"text"}, args...)); err != nil {
			return err
		}
	}
	an := cfg.Analyzer()
	found := false
	var line []byte
	counts, err := in.EachKept(input.Options{}, func(d *doc.Doc, where string) error {
		if *id != "" && d.ID != *id {
			return ctx.Err()
		}
		found = true
		a, err := an.Analyze(d)
		if err != nil {
			fmt.Fprintf(m.Stderr, "pdc: %s: %v\n", where, err)
			return nil
		}
		if *format == "jsonl" {
			line = append(doc.AppendJSON(line[:0], &doc.Doc{ID: d.ID, URL: d.URL, Site: d.Site, Source: d.Source, Text: a.Text}), '\n')
			_, err := w.Write(line)
			if err == nil {
				err = ctx.Err()
			}
			return err
		}
		if !*table {
			fmt.Fprintf(w, "# doc %s url %s charset %s sentences %d\n%s\n# sentences\n",
				mr.Escape(d.ID), mr.Escape(d.URL), a.Charset, len(a.Sentences), a.Text)
		}
		for i, sp := range a.Spans {
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\n", mr.Escape(d.ID), i, sp.Start, sp.End,
				mr.Escape(a.Text[sp.ByteStart:sp.ByteEnd]))
		}
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	if *id != "" && !found {
		if hint := m.runInput(inputs, fs.NArg(), *id); hint != nil {
			return hint
		}
		return fmt.Errorf("text: no document with id %q in the input", *id)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if n := counts.Skipped[input.SkipDuplicateID]; n > 0 {
		fmt.Fprintf(m.Stderr, "pdc text: %s left out: an earlier record had their id, and a run keeps the first (its srcpos is smallest)\n", plural(n, "record"))
	}
	return nil
}

// runInput returns the error of pdc text --input OUT, when one of the
// --input paths (with no run argument, nargs 0) is a run's output, whose
// documents pdc text OUT reads; else nil.
func (m *Main) runInput(inputs []string, nargs int, id string) error {
	if nargs > 0 {
		return nil
	}
	for _, p := range inputs {
		r, err := m.openRun(p)
		if err != nil {
			continue
		}
		if _, err := r.Config(); err == nil {
			if id == "" {
				return fmt.Errorf("text: %s is a run's output, not documents: its documents are read by pdc text %s", p, p)
			}
			return fmt.Errorf("text: no document with id %q in %s, a run's output: its documents are read by pdc text %s --id %s", id, p, p, id)
		}
	}
	return nil
}
