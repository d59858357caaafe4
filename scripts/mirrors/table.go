package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A line of the results file that scripts/mirrors.sh writes, one per N:
//
//	N TAB seconds TAB peak_rss_kib TAB output_bytes TAB check_json
//
// check_json is check's summary (its spans field counts the spans).
//
// A line of the peers file (mirrors.sh --peers), one per N and tool:
//
//	N TAB tool TAB check_json
//
// check_json is check's summary of the tool's deduplicated documents
// (--clean, --dedup-seconds: the tool's time).
type result struct {
	N        int
	Seconds  float64
	RSSKiB   int64
	OutBytes int64
	Check    summary
}

func (m Main) table(args []string) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 && fs.NArg() != 2 {
		fmt.Fprintln(m.Stderr, "usage: mirrors table RESULTS.tsv [PEERS.tsv]")
		return errUsage
	}
	var rows []result
	err := withFile(fs.Arg(0), func(r io.Reader) error {
		var err error
		rows, err = readResults(r)
		return err
	})
	if err != nil {
		return err
	}
	var peers []peerResult
	if fs.NArg() == 2 {
		err = withFile(fs.Arg(1), func(r io.Reader) error {
			var err error
			peers, err = readPeers(r)
			return err
		})
		if err != nil {
			return err
		}
	}
	return writeTable(m.Stdout, rows, peers)
}

// peerResult is a line of the peers file.
type peerResult struct {
	N     int
	Tool  string
	Check summary
}

// readPeers reads the peers file.
func readPeers(r io.Reader) ([]peerResult, error) {
	var rows []peerResult
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("peers line %d: %d fields, want 3", n, len(f))
		}
		var row peerResult
		var err error
		if row.N, err = strconv.Atoi(f[0]); err != nil {
			return nil, fmt.Errorf("peers line %d: %w", n, err)
		}
		row.Tool = f[1]
		if err := json.Unmarshal([]byte(f[2]), &row.Check); err != nil || row.Check.Dedup == nil {
			return nil, fmt.Errorf("peers line %d: no dedup summary (%v)", n, err)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// readResults reads the results file.
func readResults(r io.Reader) ([]result, error) {
	var rows []result
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := strings.SplitN(sc.Text(), "\t", 5)
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: %d fields, want 5", n, len(f))
		}
		var row result
		var errs [4]error
		row.N, errs[0] = strconv.Atoi(f[0])
		row.Seconds, errs[1] = strconv.ParseFloat(f[1], 64)
		row.RSSKiB, errs[2] = strconv.ParseInt(f[2], 10, 64)
		row.OutBytes, errs[3] = strconv.ParseInt(f[3], 10, 64)
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
		if err := json.Unmarshal([]byte(f[4]), &row.Check); err != nil {
			return nil, fmt.Errorf("line %d: check summary: %w", n, err)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// writeTable prints the results as a markdown table, with the ratio of
// each run's time to the one before it next to the ratio of their N.
func writeTable(w io.Writer, rows []result, peers []peerResult) error {
	b := &strings.Builder{}
	b.WriteString("| N | time s | time ratio (N ratio) | peak RSS MiB | spans | output MB | clusters | largest cluster share | located | with containment | other pairs |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, r := range rows {
		ratio := "-"
		if i > 0 && rows[i-1].Seconds > 0 {
			ratio = fmt.Sprintf("%.2f (%.2f)", r.Seconds/rows[i-1].Seconds, float64(r.N)/float64(rows[i-1].N))
		}
		spans := "-"
		if r.Check.Spans != nil {
			spans = strconv.Itoa(*r.Check.Spans)
		}
		c := r.Check
		fmt.Fprintf(b, "| %d | %.2f | %s | %d | %s | %.1f | %d | %.4f (%d) | %.4f (%d) | %.4f (%d) | %d |\n",
			r.N, r.Seconds, ratio, r.RSSKiB/1024, spans, float64(r.OutBytes)/1e6, c.Clusters,
			c.Share, c.CopiesInLargest, c.LocatedShare, c.Located, c.ContainShare, c.WithContainment, c.OtherPairs)
	}
	// pdc dedup, for the rows that ran it, and the peers at the same N.
	header := "\n| N | tool | seconds | documents written | story whole in | first or last sentence in | story words left in the other copies (copies' worth) | own sentences kept | copies with all their own text |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
	dedupRow := func(n int, tool, secs string, c summary) {
		d := c.Dedup
		b.WriteString(header)
		header = ""
		worth := 0.0
		if d.StoryWords > 0 {
			worth = float64(d.WordsLeft) / float64(d.StoryWords)
		}
		fmt.Fprintf(b, "| %d | %s | %s | %d | %d | %d | %d (%.2f) | %d of %d | %d of %d |\n",
			n, tool, secs, d.Docs, d.StoryKept, d.StoryRemnants, d.WordsLeft, worth, d.OwnKept, d.Own, d.OwnIntact, c.Copies)
	}
	for _, r := range rows {
		if r.Check.Dedup != nil {
			dedupRow(r.N, "pdc run + pdc dedup", fmt.Sprintf("%.2f + %.2f", r.Seconds, r.Check.Dedup.Seconds), r.Check)
		}
		for _, p := range peers {
			if p.N == r.N {
				dedupRow(p.N, p.Tool, fmt.Sprintf("%.2f", p.Check.Dedup.Seconds), p.Check)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
