package mr

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestShuffled: a reduce, then a job's map, shuffle and reduce in one task
// give what the two jobs give: the next reducer sees its input sorted by
// its key fields (bytewise, a shorter key first), each key's lines
// together; counters of every part reach stderr.
func TestShuffled(t *testing.T) {
	// reduce: "u TAB v" edges -> "v TAB u" (and a counter);
	// nextMap: "a TAB b" -> "a TAB x TAB b" keyed by 2 fields;
	// nextReduce: each key with its values, in input order.
	reduce := func(t *Task) error {
		sc := bufio.NewScanner(t.Stdin)
		n := 0
		for sc.Scan() {
			u, v, _ := strings.Cut(sc.Text(), "\t")
			fmt.Fprintf(t.Stdout, "%s\t%s\n", v, u)
			n++
		}
		fmt.Fprintf(t.Stderr, "reporter:counter:pdc,first,%d\n", n)
		return nil
	}
	nextMap := func(t *Task) error {
		sc := bufio.NewScanner(t.Stdin)
		for sc.Scan() {
			a, b, _ := strings.Cut(sc.Text(), "\t")
			fmt.Fprintf(t.Stdout, "%s\tx\t%s\n", a, b)
		}
		return nil
	}
	nextReduce := func(t *Task) error {
		sc := bufio.NewScanner(t.Stdin)
		var last string
		for sc.Scan() {
			k, v := SplitKey(sc.Bytes(), 2)
			if string(k) != last {
				fmt.Fprintf(t.Stdout, "\n%s:", k)
				last = string(k)
			}
			fmt.Fprintf(t.Stdout, " %s", v)
		}
		fmt.Fprintln(t.Stderr, "reporter:counter:pdc,last,1")
		return nil
	}
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"a\tb\n", "\nb\tx: a"},
		// keys "b\tx", "bb\tx", "b!\tx": "b\tx" first (a tab sorts before
		// any printable byte); one key's values in input order.
		{"1\tb\n2\tbb\n3\tb\n4\tb!\n5\tbb\n", "\nb\tx: 1 3\nb!\tx: 4\nbb\tx: 2 5"},
	} {
		var out, stderr bytes.Buffer
		task := &Task{Stdin: strings.NewReader(tt.in), Stdout: &out, Stderr: &stderr}
		if err := Shuffled(reduce, nextMap, 2, nextReduce)(task); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("Shuffled(%q) = %q, want %q", tt.in, out.String(), tt.want)
		}
		if n := strings.Count(tt.in, "\n"); stderr.String() != fmt.Sprintf("reporter:counter:pdc,first,%d\nreporter:counter:pdc,last,1\n", n) {
			t.Errorf("counters %q", stderr.String())
		}
	}
}
