package jobs

// pdc clusters OUT: the passage clusters of a run made with --clusters
// (lib/cluster). Output (tsv), one line per member, clusters largest
// first, each cluster's earliest member first:
//
//	cluster TAB size TAB doc TAB url TAB char_start TAB char_end TAB sentence TAB length [TAB text]
//
// size counts the cluster's documents; url is "" when the document has
// none. With --date-field, members are ordered by their documents' dates. --format jsonl writes one object per cluster: {"cluster", "size",
// "members": [...], "earliest": doc of the first member, "text": the
// earliest member's passage with --text}.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/mr"
)

// clusterRow is a cluster as --format jsonl writes it.
type clusterRow struct {
	*cluster.Cluster
	Earliest string  `json:"earliest"`
	Text     *string `json:"text,omitempty"`
}

func (m *Main) clustersCmd(ctx context.Context, args []string) error {
	var inputs listFlag
	format, minSize := "tsv", 2
	var header, text bool
	var dateField string
	fs := m.newFlagSet("clusters", "OUT [--format tsv|jsonl] [--min-size N] [--text [--input DOCS]]")
	fs.kerberosFlags()
	m.forceFlag(fs)
	fs.StringVar(&format, "format", format, "output format: tsv (one line per member) or jsonl (one object per cluster)")
	fs.BoolVar(&header, "header", false, "tsv: start with a line naming the columns")
	fs.IntVar(&minSize, "min-size", minSize, "only clusters of at least this many documents")
	fs.BoolVar(&text, "text", false, "add each member's passage (read from the documents)")
	fs.StringVar(&dateField, "date-field", "", "order each cluster's members by this `field` of the documents' JSON Lines records (a date compared as text, ISO 8601; undated last, then input order), so that the first, the earliest, is the earliest by date")
	fs.Var(&inputs, "input", "the run's documents, for --text and --date-field (default: the run's inputs); repeatable")
	if err := fs.parse(reorderArgs(fs, args)); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("clusters: want exactly one output directory")
	case format != "tsv" && format != "jsonl":
		return usagef("clusters: unknown --format %q (want tsv or jsonl)", format)
	case header && format != "tsv":
		return usagef("clusters: --header is for --format tsv")
	}
	r, err := m.openRunDir("clusters", fs.Arg(0))
	if err != nil {
		return err
	}
	all, err := cluster.Read(r.FS, r.Dir+"/clusters")
	if err != nil {
		return fmt.Errorf("clusters %s: %w", fs.Arg(0), err)
	}
	var cs []cluster.Cluster
	for _, c := range all {
		if c.Size >= minSize {
			cs = append(cs, c)
		}
	}
	var docs docRuns
	if text || dateField != "" {
		if docs, err = m.docsOf(r, inputs, "clusters"); err != nil {
			return err
		}
	}
	if dateField != "" {
		if err := m.orderByDate(cs, docs, dateField); err != nil {
			return err
		}
	}
	var texts *passages
	if text {
		an, err := r.Analyzer(ctx, append([]string{"clusters"}, args...))
		if err != nil {
			return err
		}
		if texts, err = m.clusterTexts(cs, docs, an); err != nil {
			return err
		}
		defer texts.close()
	}
	return writeClusters(m.Stdout, cs, format, header, texts)
}

// orderByDate orders each cluster's members by the date field of their
// documents (undated last; stable, so input order breaks ties).
func (m *Main) orderByDate(cs []cluster.Cluster, inputs docRuns, field string) error {
	need := map[string]bool{}
	for _, c := range cs {
		for _, mem := range c.Members {
			need[mem.Doc] = true
		}
	}
	in, err := m.findDocs(inputs)
	if err != nil {
		return err
	}
	dates, err := input.FieldValues(in, need, field)
	if err != nil {
		return err
	}
	for _, c := range cs {
		slices.SortStableFunc(c.Members, func(a, b cluster.Member) int {
			da, oka := dates[a.Doc]
			db, okb := dates[b.Doc]
			switch {
			case oka && okb:
				return strings.Compare(da, db)
			case oka:
				return -1
			case okb:
				return 1
			}
			return 0
		})
	}
	return nil
}

// passages are the members' passages, kept in a temporary file rather
// than in memory (they may be most of the corpus's text): member j of
// cluster i is at[base[i]+j] (offset, length).
type passages struct {
	f    *os.File
	base []int
	at   [][2]int64
}

// fill sets the passages of the members of cluster i, c (read back from
// the file); dropTexts drops them again.
func (p *passages) fill(i int, c *cluster.Cluster) error {
	for j := range c.Members {
		o := p.at[p.base[i]+j]
		b := make([]byte, o[1])
		if _, err := p.f.ReadAt(b, o[0]); err != nil {
			return fmt.Errorf("clusters --text: read back %s: %w", p.f.Name(), err)
		}
		s := string(b)
		c.Members[j].Text = &s
	}
	return nil
}

func dropTexts(c *cluster.Cluster) {
	for j := range c.Members {
		c.Members[j].Text = nil
	}
}

func (p *passages) close() {
	p.f.Close()
	os.Remove(p.f.Name())
}

// clusterTexts reads the members' passages from the documents, each
// document once, into a temporary file (passages).
func (m *Main) clusterTexts(cs []cluster.Cluster, inputs docRuns, an *doc.Analyzer) (*passages, error) {
	type ref struct{ cluster, member int }
	at := map[string][]ref{} // a document's members
	p := &passages{base: make([]int, len(cs))}
	n := 0
	for i, c := range cs {
		p.base[i] = n
		for j, mem := range c.Members {
			at[mem.Doc] = append(at[mem.Doc], ref{i, j})
			n++
		}
	}
	p.at = make([][2]int64, n)
	need := make(map[string]bool, len(at))
	for d := range at {
		need[d] = true
	}
	f, err := os.CreateTemp("", "pdc-clusters-*.txt")
	if err != nil {
		return nil, fmt.Errorf("clusters --text: %w", err)
	}
	p.f = f
	w := bufio.NewWriterSize(f, 1<<16)
	var off int64
	var werr error
	err = m.analyzeNeeded(need, inputs, an, func(d *doc.Doc, a doc.Analysis) {
		for _, r := range at[d.ID] {
			mem := &cs[r.cluster].Members[r.member]
			s := runeSlice(a.Text, mem.CharStart, mem.CharEnd)
			if _, err := w.WriteString(s); err != nil && werr == nil {
				werr = err
			}
			p.at[p.base[r.cluster]+r.member] = [2]int64{off, int64(len(s))}
			off += int64(len(s))
		}
		delete(at, d.ID)
	})
	if werr == nil {
		werr = w.Flush()
	}
	if err == nil && werr != nil {
		err = fmt.Errorf("clusters --text: write %s: %w", f.Name(), werr)
	}
	if err != nil {
		p.close()
		return nil, err
	}
	for _, c := range cs {
		for _, mem := range c.Members {
			if _, missing := at[mem.Doc]; missing {
				p.close()
				return nil, fmt.Errorf("clusters --text: document %q is not in --input %s (give the run's documents)", mem.Doc, inputs)
			}
		}
	}
	return p, nil
}

// writeClusters writes cs in format, with the members' passages when
// texts is not nil.
func writeClusters(w io.Writer, cs []cluster.Cluster, format string, header bool, texts *passages) error {
	text := texts != nil
	bw := &byteCounter{w: w}
	var err error
	put := func(b []byte) {
		if err == nil {
			_, err = bw.Write(b)
		}
	}
	if header {
		h := "#cluster\tsize\tdoc\turl\tchar_start\tchar_end\tsentence\tlength"
		if text {
			h += "\ttext"
		}
		put([]byte(h + "\n"))
	}
	var b []byte
	for i := range cs {
		c := &cs[i]
		if text {
			if ferr := texts.fill(i, c); ferr != nil {
				return ferr
			}
		}
		if format == "jsonl" {
			row := clusterRow{Cluster: c, Earliest: c.Earliest().Doc, Text: c.Earliest().Text}
			line, jerr := json.Marshal(row)
			if jerr != nil {
				return fmt.Errorf("clusters: %w", jerr)
			}
			put(append(line, '\n'))
			dropTexts(c)
			continue
		}
		for _, mem := range c.Members {
			b = append(b[:0], c.ID...)
			b = append(b, '\t')
			b = strconv.AppendInt(b, int64(c.Size), 10)
			b = append(b, '\t')
			b = mr.AppendEscape(b, mem.Doc)
			b = append(b, '\t')
			b = mr.AppendEscape(b, mem.URL)
			for _, n := range []int{mem.CharStart, mem.CharEnd, mem.Sentence, mem.Length} {
				b = append(b, '\t')
				b = strconv.AppendInt(b, int64(n), 10)
			}
			if text && mem.Text != nil {
				b = append(b, '\t')
				b = mr.AppendEscape(b, *mem.Text)
			}
			put(append(b, '\n'))
		}
		dropTexts(c)
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
