// Command taskprog is a Hadoop Streaming task for the jobs/hadoop integration tests.
//
//	taskprog map     copy stdin to stdout; count records in counter pdc,records; when
//	                 PDC_FLAKY=1, the first attempt of each task (attempt id ending _0) fails
//	taskprog reduce  count lines per key (first field) -> key TAB n; counter pdc,groups
//	taskprog fail    print a message on stderr and exit 1
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "taskprog:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: taskprog map|reduce|fail")
	}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	switch args[0] {
	case "map":
		if os.Getenv("PDC_FLAKY") == "1" && strings.HasSuffix(os.Getenv("mapreduce_task_attempt_id"), "_0") {
			return fmt.Errorf("flaky: failing first attempt %s", os.Getenv("mapreduce_task_attempt_id"))
		}
		n := 0
		for in.Scan() {
			fmt.Fprintln(out, in.Text())
			n++
		}
		fmt.Fprintf(os.Stderr, "reporter:counter:pdc,records,%d\n", n)
	case "reduce":
		var key string
		n, groups := 0, 0
		for in.Scan() {
			k, _, _ := strings.Cut(in.Text(), "\t")
			if n > 0 && k != key {
				fmt.Fprintf(out, "%s\t%d\n", key, n)
				n = 0
			}
			if n == 0 {
				groups++
			}
			key = k
			n++
		}
		if n > 0 {
			fmt.Fprintf(out, "%s\t%d\n", key, n)
		}
		fmt.Fprintf(os.Stderr, "reporter:counter:pdc,groups,%d\n", groups)
	case "fail":
		return fmt.Errorf("deliberate failure for the test")
	default:
		return fmt.Errorf("unknown mode %q", args[0])
	}
	if err := in.Err(); err != nil {
		return err
	}
	return out.Flush()
}
