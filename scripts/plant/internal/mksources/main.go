// Command mksources turns downloaded documents into plant sources JSONL
// ({"id","text","lang"} per line) on standard output. It is a helper of
// scripts/sources.sh, not part of pdc.
//
//	mksources -format txt -lang en -prefix sotu/ FILE...
//	mksources -format html -lang zh -prefix zh-handbook/ -han 0.3 FILE...
//	mksources -format html -lang zh -prefix zh-reference/ -split 3 FILE...
//
// Plain text files become one document each. HTML pages are reduced to the
// text of their block elements, separated by "\n\n", with navigation, tables
// and code listings left out (see extract.go); -han drops blocks in which Han
// characters are less than that share of the letters (untranslated text in
// partial translations); -split N starts a new document at every heading of
// level N or higher. Documents shorter than -min runes are dropped. Counts go
// to standard error.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

type options struct {
	format, lang, prefix string
	han                  float64
	split, min           int
}

type record struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Lang string `json:"lang"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mksources:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mksources", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.format, "format", "txt", "input format: txt or html")
	fs.StringVar(&o.lang, "lang", "en", "language of the documents")
	fs.StringVar(&o.prefix, "prefix", "", "document id prefix")
	fs.Float64Var(&o.han, "han", 0, "html: drop blocks whose letters are less than this share Han")
	fs.IntVar(&o.split, "split", 0, "html: start a new document at headings of this level or higher (0: never)")
	fs.IntVar(&o.min, "min", 300, "drop documents shorter than this many runes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.format != "txt" && o.format != "html" {
		return fmt.Errorf("unknown format %q", o.format)
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	kept, dropped := 0, 0
	for _, path := range fs.Args() {
		recs, err := convert(path, o)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if utf8.RuneCountInString(r.Text) < o.min {
				dropped++
				continue
			}
			if err := enc.Encode(r); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			kept++
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	fmt.Fprintf(stderr, "mksources %s: %d files, %d documents, %d too short\n", o.prefix, fs.NArg(), kept, dropped)
	return nil
}

// convert reads one file into one or more records.
func convert(path string, o options) ([]record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	base = strings.TrimSuffix(base, ".zh-cn")
	id := o.prefix + base
	if o.format == "txt" {
		text := strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
		return []record{{ID: id, Text: text, Lang: o.lang}}, nil
	}
	parts, err := extract(data, o.split, o.han)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var recs []record
	for i, p := range parts {
		rid := id
		if o.split > 0 {
			rid = fmt.Sprintf("%s#%02d", id, i)
		}
		recs = append(recs, record{ID: rid, Text: p, Lang: o.lang})
	}
	return recs, nil
}
