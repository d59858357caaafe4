// Command floor measures the tokenize-only floor of scripts/bench.sh: the
// golang.org/x/net/html tokenizer run over every page of a JSON Lines
// corpus on all cores, with nothing else. Pages are decoded from JSON into
// memory first (not timed). It prints the corpus size and the time.
//
//	go run ./scripts/floor CORPUS.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/html"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor CORPUS.jsonl")
		os.Exit(2)
	}
	pages, size, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	start := time.Now()
	tokens := tokenize(pages, runtime.NumCPU())
	d := time.Since(start)
	fmt.Printf("pages %d html_bytes %d tokens %d seconds %.3f mb_per_s %.1f\n",
		len(pages), size, tokens, d.Seconds(), float64(size)/1e6/d.Seconds())
}

func load(path string) ([][]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var pages [][]byte
	var size int64
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var d struct{ HTML, Text string }
			if jerr := json.Unmarshal(line, &d); jerr == nil {
				p := []byte(d.HTML + d.Text)
				pages = append(pages, p)
				size += int64(len(p))
			}
		}
		if err == io.EOF {
			return pages, size, nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

func tokenize(pages [][]byte, workers int) int64 {
	var next, total atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var n int64
			for {
				i := next.Add(1) - 1
				if i >= int64(len(pages)) {
					break
				}
				z := html.NewTokenizer(bytes.NewReader(pages[i]))
				for z.Next() != html.ErrorToken {
					n++
				}
			}
			total.Add(n)
		})
	}
	wg.Wait()
	return total.Load()
}
