// Command hublinks measures what joining long posting lists through hubs
// (--hub-df) leaves unlinked: of the document pairs that an exhaustive run
// (`pdc run --clusters --hub-df 0`, every list joined pairwise) links by a
// span of at least --min sentence pairs, how many a run with hubs links too,
// by a span between the two documents or by a passage cluster holding both
// (copies linked to one hub are clustered, not paired):
//
//	go run ./scripts/hublinks --exhaustive EXH --run OUT [--min 3] [--list N] [--fail 0.99]
//
// Both are run directories on the local disk or HDFS. It prints one line of
// tab-separated measures (with --header, a header line first):
//
//   - pairs: document pairs EXH links by a span of >= --min sentence pairs;
//   - span: of those, pairs OUT links by a span (any length);
//   - cluster: pairs OUT links by a shared cluster only;
//   - missed: pairs OUT links neither way; linked: (span+cluster)/pairs.
//
// --list N prints N missed pairs on stderr with their longest exhaustive
// span; --fail R exits 1 when linked is under R.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/span"
)

type pair struct{ a, b string }

func key(a, b string) pair {
	if b < a {
		a, b = b, a
	}
	return pair{a, b}
}

func main() {
	exh := flag.String("exhaustive", "", "the run with --hub-df 0")
	run := flag.String("run", "", "the run with hubs (both with --clusters)")
	minLen := flag.Int("min", 3, "the least sentence pairs of an exhaustive span counted")
	list := flag.Int("list", 0, "list this many missed pairs on stderr")
	fail := flag.Float64("fail", 0, "exit 1 when the linked share is under this")
	header := flag.Bool("header", false, "print a header line")
	flag.Parse()
	if *exh == "" || *run == "" {
		fmt.Fprintln(os.Stderr, "usage: hublinks --exhaustive EXH --run OUT [--min 3] [--list N] [--fail R]")
		os.Exit(2)
	}
	m, err := measure(*exh, *run, *minLen, *list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hublinks:", err)
		os.Exit(1)
	}
	if *header {
		fmt.Println("pairs\tspan\tcluster\tmissed\tlinked")
	}
	fmt.Printf("%d\t%d\t%d\t%d\t%.4f\n", m.pairs, m.span, m.cluster, m.pairs-m.span-m.cluster, m.linked())
	if *fail > 0 && m.linked() < *fail {
		fmt.Fprintf(os.Stderr, "hublinks: %.4f of the exhaustive pairs linked, under %.4f\n", m.linked(), *fail)
		os.Exit(1)
	}
}

type measures struct{ pairs, span, cluster int }

func (m measures) linked() float64 {
	if m.pairs == 0 {
		return 1
	}
	return float64(m.span+m.cluster) / float64(m.pairs)
}

func measure(exh, run string, minLen, list int) (measures, error) {
	var m measures
	want := map[pair]span.Span{}
	if err := stream(exh, func(s *span.Span) error {
		if s.Length >= minLen {
			k := key(s.DocA, s.DocB)
			if w, ok := want[k]; !ok || s.Length > w.Length {
				c := *s
				c.TextA, c.TextB = nil, nil
				want[k] = c
			}
		}
		return nil
	}); err != nil {
		return m, err
	}
	have := map[pair]bool{}
	if err := stream(run, func(s *span.Span) error {
		if _, ok := want[key(s.DocA, s.DocB)]; ok {
			have[key(s.DocA, s.DocB)] = true
		}
		return nil
	}); err != nil {
		return m, err
	}
	fsys, dir, err := hdfsfs.Resolve(run, hdfsfs.IsRemote(run, false, os.Getenv))
	if err != nil {
		return m, err
	}
	cs, err := cluster.Read(fsys, dir+"/clusters")
	if err != nil {
		return m, fmt.Errorf("%s has no clusters (run it with --clusters): %w", run, err)
	}
	in := map[string][]int{} // document -> clusters holding it
	for i, c := range cs {
		for _, mem := range c.Members {
			if l := in[mem.Doc]; len(l) == 0 || l[len(l)-1] != i {
				in[mem.Doc] = append(l, i)
			}
		}
	}
	var missed []span.Span
	for k, s := range want {
		m.pairs++
		switch {
		case have[k]:
			m.span++
		case shares(in[k.a], in[k.b]):
			m.cluster++
		default:
			missed = append(missed, s)
		}
	}
	slices.SortFunc(missed, func(a, b span.Span) int { return b.Length - a.Length })
	for _, s := range missed[:min(list, len(missed))] {
		fmt.Fprintf(os.Stderr, "missed %d\t%s %d-%d\t%s %d-%d\n", s.Length, s.DocA, s.CharStartA, s.CharEndA, s.DocB, s.CharStartB, s.CharEndB)
	}
	return m, nil
}

// shares reports whether two sorted lists share an element.
func shares(a, b []int) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

func stream(run string, f func(*span.Span) error) error {
	fsys, dir, err := hdfsfs.Resolve(run, hdfsfs.IsRemote(run, false, os.Getenv))
	if err != nil {
		return err
	}
	if err := span.Stream(fsys, dir, f); err != nil {
		return fmt.Errorf("reading the spans of %s: %w", run, err)
	}
	return nil
}
