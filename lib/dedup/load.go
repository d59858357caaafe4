package dedup

// The side inputs of pdc dedup's jobs, read by their tasks. A task
// process loads each once (the local runner runs many tasks in one
// process: they share it while it is in use).
//
// # The facts file (CLEAN/_facts, the dedup-facts job's side input)
//
//	#pdc-dedup-facts TAB 1 TAB date_field
//	doc
//	...
//
// The documents whose length in characters (and date, the string field
// date_field of their JSON Lines record; "": none) decide kept members:
// those of exact copies (lib/copies), and with --keep longest or earliest
// every cluster's. Ids escaped as in lib/mr.
//
// # Facts (CLEAN/_factsout, the dedup-facts job's output)
//
//	doc TAB chars TAB date
//
// One line per document of the facts file that the run's analyzer reads:
// its extracted text's length in characters and its date (escaped as in
// lib/mr; empty when it has none).

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"weak"

	"github.com/pdc-mr/pdc/lib/mr"
)

// The side inputs and outputs of the jobs, by name under CLEAN (and in a
// task's side directory).
const (
	PlanFile  = "_plan"
	KeptDir   = "_kept"
	FactsFile = "_facts"
	FactsDir  = "_factsout"
)

// Loaded is a plan file read back, with its plan; the plan holds the kept
// records too when the side directory has them (KeptDir).
type Loaded struct {
	Input PlanInput
	Plan  *Plan
	// Batch and Replaced hold PlanInput.Batch and Replaced (nil for a
	// run of its own).
	Batch, Replaced map[string]bool
}

// LoadPlan reads the plan file of side directory side, and its kept
// records when there are some, into a Plan (whose kept records are kept
// in an unlinked temporary file).
func LoadPlan(side string) (*Loaded, error) {
	files, err := mr.SideFiles(filepath.Join(side, PlanFile))
	if err != nil {
		return nil, fmt.Errorf("the plan: %w", err)
	}
	var kept []string
	if _, err := os.Stat(filepath.Join(side, KeptDir)); err == nil {
		// A job that kept nothing may have written no part file.
		kept, _ = mr.SideFiles(filepath.Join(side, KeptDir))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the kept records: %w", err)
	}
	key, err := mr.SideStamp(append(files[:len(files):len(files)], kept...))
	if err != nil {
		return nil, err
	}
	planCache.Lock()
	defer planCache.Unlock()
	if planCache.key == key {
		if l := planCache.l.Value(); l != nil {
			return l, nil
		}
	}
	l, err := readLoaded(files, kept)
	if err != nil {
		return nil, err
	}
	planCache.key, planCache.l = key, weak.Make(l)
	return l, nil
}

var planCache struct {
	sync.Mutex
	key string
	l   weak.Pointer[Loaded]
}

func readLoaded(planFiles, keptFiles []string) (*Loaded, error) {
	var in PlanInput
	for i, name := range planFiles {
		if i > 0 {
			return nil, fmt.Errorf("the plan: more than one file in %s", filepath.Dir(name))
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("the plan: %w", err)
		}
		in, err = ReadPlan(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("the plan %s: %w", name, err)
		}
	}
	p := NewPlan(in.Clusters, in.Kept, in.MinWords)
	p.Stored(in.Withdrawn)
	if len(keptFiles) > 0 {
		spill, err := os.CreateTemp("", "pdc-dedup-kept-*")
		if err != nil {
			return nil, fmt.Errorf("the kept records' file: %w", err)
		}
		os.Remove(spill.Name()) // open, it stays readable; closed, it is gone
		p.Spill(spill)
	}
	for _, name := range keptFiles {
		if err := readKept(p, name); err != nil {
			return nil, err
		}
	}
	if err := p.Err(); err != nil {
		return nil, fmt.Errorf("the kept records: %w", err)
	}
	l := &Loaded{Input: in, Plan: p}
	if in.Batch != nil {
		l.Batch, l.Replaced = map[string]bool{}, map[string]bool{}
		for _, id := range in.Batch {
			l.Batch[id] = true
		}
		for _, id := range in.Replaced {
			l.Replaced[id] = true
		}
	}
	return l, nil
}

// readKept adds the kept records of one part file to p.
func readKept(p *Plan, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("the kept records: %w", err)
	}
	defer f.Close()
	r := mr.NewReader(bufio.NewReaderSize(f, 1<<16))
	for r.Next() {
		k, err := ParseKeptDoc(r.Line())
		if err != nil {
			return fmt.Errorf("the kept records %s line %d: %w", name, r.LineNumber(), err)
		}
		p.AddKept(k)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("the kept records %s: %w", name, err)
	}
	return nil
}

// factsMagic starts the facts file.
const factsMagic = "#pdc-dedup-facts\t1\t"

// Facts is the facts file: the documents whose length and date are
// wanted, and the date's field.
type Facts struct {
	Need      map[string]bool
	DateField string
}

// WriteFacts writes the facts file of f to w, its documents in sorted
// order.
func WriteFacts(w io.Writer, ids []string, dateField string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(factsMagic)
	bw.WriteString(mr.Escape(dateField))
	bw.WriteByte('\n')
	for _, id := range ids {
		bw.WriteString(mr.Escape(id))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// LoadFacts reads the facts file of side directory side.
func LoadFacts(side string) (*Facts, error) {
	name := filepath.Join(side, FactsFile)
	files, err := mr.SideFiles(name)
	if err != nil {
		return nil, fmt.Errorf("the facts file: %w", err)
	}
	f := &Facts{Need: map[string]bool{}}
	for i, file := range files {
		if i > 0 {
			return nil, fmt.Errorf("the facts file: more than one file in %s", name)
		}
		r, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("the facts file: %w", err)
		}
		defer r.Close()
		lr := mr.NewReader(bufio.NewReaderSize(r, 1<<16))
		for lr.Next() {
			line := lr.Line()
			if lr.LineNumber() == 1 {
				rest, ok := bytes.CutPrefix(line, []byte(factsMagic))
				if !ok {
					return nil, fmt.Errorf("%s is not a facts file of this pdc", file)
				}
				if f.DateField, err = mr.Unescape(string(rest)); err != nil {
					return nil, fmt.Errorf("the facts file %s: date field: %w", file, err)
				}
				continue
			}
			id, err := mr.Unescape(string(line))
			if err != nil {
				return nil, fmt.Errorf("the facts file %s line %d: %w", file, lr.LineNumber(), err)
			}
			f.Need[id] = true
		}
		if err := lr.Err(); err != nil {
			return nil, fmt.Errorf("the facts file %s: %w", file, err)
		}
	}
	return f, nil
}

// AppendFact appends a line of the facts job's output.
func AppendFact(b []byte, id string, chars int, date string) []byte {
	b = mr.AppendEscape(b, id)
	b = strconv.AppendInt(append(b, '\t'), int64(chars), 10)
	b = mr.AppendEscape(append(b, '\t'), date)
	return append(b, '\n')
}

// ParseFact parses a line of the facts job's output.
func ParseFact(line []byte) (id string, chars int, date string, err error) {
	f := bytes.Split(line, []byte{'\t'})
	if len(f) != 3 {
		return "", 0, "", fmt.Errorf("malformed facts line %q", line)
	}
	n, ok := mr.Atoi(f[1])
	if !ok {
		return "", 0, "", fmt.Errorf("malformed facts line %q", line)
	}
	id, err1 := mr.Unescape(string(f[0]))
	date, err2 := mr.Unescape(string(f[2]))
	if err1 != nil || err2 != nil {
		return "", 0, "", fmt.Errorf("malformed facts line %q", line)
	}
	return id, n, date, nil
}
