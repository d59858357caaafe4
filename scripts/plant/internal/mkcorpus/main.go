// Command mkcorpus builds a planted ground-truth corpus with plant.Build
// from sources JSONL (as written by scripts/sources.sh) into a directory:
// docs.jsonl, truth.jsonl and pan/ (PAN XML). It is a development helper.
//
//	mkcorpus -sources ~/.cache/pdc-data/sources.jsonl -pairs 300 -seed 1 -distractors 100 -out /tmp/corpus
//	mkcorpus -sources ... -classes edits-10,edits-20,edits-30,merge-split -pairs 800 -out /tmp/hard
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/scripts/plant"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mkcorpus:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mkcorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg plant.Config
	src := fs.String("sources", "", "sources JSONL")
	out := fs.String("out", "", "output directory")
	classes := fs.String("classes", "", "comma-separated edit classes (default: "+strings.Join(plant.Classes, ",")+
		"; the hard tier: "+strings.Join(plant.HardClasses, ",")+")")
	fs.Int64Var(&cfg.Seed, "seed", 1, "random seed")
	fs.IntVar(&cfg.Pairs, "pairs", 100, "planted runs")
	fs.IntVar(&cfg.MinRun, "min-run", 3, "shortest run, in sentences")
	fs.IntVar(&cfg.MaxRun, "max-run", 15, "longest run, in sentences")
	fs.IntVar(&cfg.Distractors, "distractors", 100, "unplanted documents (-1: all)")
	fs.IntVar(&cfg.Copies, "copies", 1, "targets each run is planted into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *src == "" || *out == "" {
		return fmt.Errorf("need -sources and -out")
	}
	if *classes != "" {
		for _, c := range strings.Split(*classes, ",") {
			if c = strings.TrimSpace(c); !plant.KnownClass(c) {
				return fmt.Errorf("unknown class %q in -classes (known: %s)", c,
					strings.Join(append(slices.Clone(plant.Classes), plant.HardClasses...), ", "))
			}
			cfg.Classes = append(cfg.Classes, c)
		}
	}
	st, err := build(cfg, *src, *out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%+v\n", st)
	return err
}

func build(cfg plant.Config, src, out string) (plant.Stats, error) {
	f, err := os.Open(src)
	if err != nil {
		return plant.Stats{}, err
	}
	sources, err := plant.ReadSources(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return plant.Stats{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return plant.Stats{}, err
	}
	docs, err := os.Create(filepath.Join(out, "docs.jsonl"))
	if err != nil {
		return plant.Stats{}, err
	}
	truth, err := os.Create(filepath.Join(out, "truth.jsonl"))
	if err != nil {
		docs.Close()
		return plant.Stats{}, err
	}
	st, err := plant.Build(cfg, sources, docs, truth, filepath.Join(out, "pan"))
	for _, c := range []io.Closer{docs, truth} {
		if cerr := c.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close output: %w", cerr)
		}
	}
	return st, err
}
