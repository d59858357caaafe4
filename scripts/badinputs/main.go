// Command badinputs runs pdc on hostile and broken inputs and prints what
// became of each, as a markdown table (docs/robustness.md): the exit
// status, the documents read, parsed and skipped by reason (from
// OUT/counters.tsv: parse.docs.read, index.docs, parse.docs.skipped.*),
// and the first line of the error or warning.
//
//	go build -o /tmp/pdc ./jobs/pdc && go run ./scripts/badinputs /tmp/pdc [SUBSTRING]
//
// (SUBSTRING: only the cases whose name holds it.)
//
// Every case either fails with a one-line error that names the file, or
// runs and counts every record it could not use: read = indexed + skipped;
// and pdc's peak RSS stays under maxRSS. A file that changes while pdc
// reads it is an error naming it. Run it from the repository's root
// (one case reads lib/parquetio/testdata/oom.parquet).
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/pdc-mr/pdc/lib/avroio"
	"github.com/pdc-mr/pdc/lib/mr"
)

// badCase is one hostile input: make writes it under dir and returns the
// --input path; during, if set, runs while pdc does (given that path).
type badCase struct {
	name   string
	make   func(dir string) (string, error)
	during func(path string)
}

const para = "The harbour board met on Monday to discuss the new quay. Members asked for a survey of the old wall. The chair promised a report by the spring. "

func jsonl(docs ...string) []byte { return []byte(strings.Join(docs, "\n") + "\n") }

func write(dir, name string, data []byte) (string, error) {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, data, 0o644)
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func good(i int) string { return fmt.Sprintf(`{"id":"good-%d","text":%q}`, i, para) }

var cases = []badCase{
	{"truncated .jsonl.gz", func(d string) (string, error) {
		z := gz(jsonl(good(1), good(2), good(3)))
		return write(d, "cut.jsonl.gz", z[:len(z)*2/3])
	}, nil},
	{"gzip bomb: 256 MB of blank lines in 250 kB", func(d string) (string, error) {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		w.Write(jsonl(good(1)))
		chunk := bytes.Repeat([]byte("\n"), 1<<20)
		for range 256 {
			w.Write(chunk)
		}
		w.Write(jsonl(good(2)))
		w.Close()
		return write(d, "bomb.jsonl.gz", b.Bytes())
	}, nil},
	{"invalid UTF-8 inside a JSON string", func(d string) (string, error) {
		return write(d, "utf8.jsonl", jsonl(`{"id":"bad-utf8","text":"caf`+"\xe9\xff"+` au lait. `+para+`"}`, good(1)))
	}, nil},
	{"NUL bytes in a document", func(d string) (string, error) {
		return write(d, "nul.jsonl", jsonl(`{"id":"nul","text":"a\u0000b\u0000c"}`, good(1)))
	}, nil},
	{"ids with tabs, newlines and backslashes", func(d string) (string, error) {
		return write(d, "ids.jsonl", jsonl(fmt.Sprintf(`{"id":"a\tb\nc\\d","text":%q}`, para), fmt.Sprintf(`{"id":"x\ty","text":%q}`, para)))
	}, nil},
	{"duplicate ids", func(d string) (string, error) {
		return write(d, "dup.jsonl", jsonl(good(1), good(1), good(2)))
	}, nil},
	{"records without id or body, and not JSON", func(d string) (string, error) {
		return write(d, "bad.jsonl", jsonl(`{"text":"no id"}`, `{"id":"nobody"}`, `{"id":`, `[1,2,3]`, `"just a string"`, good(1)))
	}, nil},
	{"a JSON array instead of JSON Lines", func(d string) (string, error) {
		return write(d, "array.json", []byte("["+good(1)+",\n"+good(2)+"]\n"))
	}, nil},
	{"an empty file", func(d string) (string, error) { return write(d, "empty.jsonl", nil) }, nil},
	{"random bytes named .jsonl", func(d string) (string, error) {
		r := rand.New(rand.NewPCG(1, 2))
		b := make([]byte, 1<<16)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return write(d, "random.jsonl", b)
	}, nil},
	{"a 100 MB line (one document)", func(d string) (string, error) {
		return write(d, "huge.jsonl", []byte(`{"id":"huge","text":"`+strings.Repeat("word ", 20<<20)+`"}`+"\n"+good(1)+"\n"))
	}, nil},
	{"a page that is one 10 MB sentence", func(d string) (string, error) {
		return write(d, "tree/one-sentence.html", []byte("<p>"+strings.Repeat("and then ", 10<<20/9)+"</p>"))
	}, nil},
	{"a 1 MB word", func(d string) (string, error) {
		return write(d, "tree/word.txt", []byte(strings.Repeat("x", 1<<20)))
	}, nil},
	{"HTML nested 100,000 deep", func(d string) (string, error) {
		return write(d, "tree/deep.html", []byte(strings.Repeat("<div>", 100000)+para+strings.Repeat("</div>", 100000)))
	}, nil},
	{"a charset lie (meta utf-8, bytes windows-1252)", func(d string) (string, error) {
		return write(d, "tree/lie.html", []byte(`<meta charset="utf-8"><p>caf`+"\xe9 cr\xe8me. "+para+`</p>`))
	}, nil},
	{"a PNG named .html", func(d string) (string, error) {
		return write(d, "tree/image.html", append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 512)...))
	}, nil},
	{"a symbolic link loop in a tree", func(d string) (string, error) {
		if _, err := write(d, "loop/a.html", []byte("<p>"+para+"</p>")); err != nil {
			return "", err
		}
		return filepath.Join(d, "loop"), os.Symlink(filepath.Join(d, "loop"), filepath.Join(d, "loop", "again"))
	}, nil},
	{"a broken symbolic link in a tree", func(d string) (string, error) {
		if _, err := write(d, "broken/a.html", []byte("<p>"+para+"</p>")); err != nil {
			return "", err
		}
		return filepath.Join(d, "broken"), os.Symlink(filepath.Join(d, "nowhere.html"), filepath.Join(d, "broken", "b.html"))
	}, nil},
	{"an unknown file type (.md)", func(d string) (string, error) { return write(d, "notes.md", []byte("# Notes\n")) }, nil},
	{"a truncated WARC", func(d string) (string, error) {
		rec := fmt.Sprintf("WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:1>\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n<p>%s</p>\r\n\r\n", len(para)+7, para)
		all := rec + strings.Replace(rec, "urn:x:1", "urn:x:2", 1)
		return write(d, "cut.warc", []byte(all[:len(all)-40]))
	}, nil},
	{"a WARC record whose Content-Length lies", func(d string) (string, error) {
		rec := "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:3>\r\nContent-Type: text/html\r\nContent-Length: 999999\r\n\r\n<p>" + para + "</p>\r\n\r\n"
		return write(d, "lie.warc", []byte(rec))
	}, nil},
	{"a truncated Avro file", func(d string) (string, error) {
		var b bytes.Buffer
		w, _ := avroio.NewDocWriter(&b)
		for i := range 50 {
			w.Write(fmt.Sprintf("a%d", i), "", "", para)
		}
		w.Close()
		return write(d, "cut.avro", b.Bytes()[:b.Len()*2/3])
	}, nil},
	{"a truncated Parquet file", func(d string) (string, error) {
		return parquetFile(d, "cut.parquet", true, true)
	}, nil},
	{"a Parquet file without an id column", func(d string) (string, error) {
		return parquetFile(d, "noid.parquet", false, false)
	}, nil},
	{"a corrupt Parquet page (an LZ4_RAW block that does not decode: ../shared/fixtures/oom.parquet)", func(d string) (string, error) {
		b, err := os.ReadFile(filepath.Join("lib", "parquetio", "testdata", "oom.parquet"))
		if err != nil {
			return "", fmt.Errorf("run from the repository's root: %w", err)
		}
		return write(d, "oom.parquet", b)
	}, nil},
	{"a Parquet page of 300 MB (one zstd value)", func(d string) (string, error) {
		type doc struct {
			ID   string `parquet:"id"`
			Text string `parquet:"text"`
		}
		var b bytes.Buffer
		err := parquet.Write(&b, []doc{{"big", strings.Repeat("a", 300<<20)}}, parquet.Compression(&parquet.Zstd), parquet.DataPageStatistics(false))
		if err != nil {
			return "", err
		}
		return write(d, "bigpage.parquet", b.Bytes())
	}, nil},
	{"a 3 GB JSON line in a 3 MB .jsonl.gz, between two good records", func(d string) (string, error) {
		// Gzip members concatenated: one member of 64 MiB of a letter,
		// repeated, makes the 3 GB line quickly.
		var b bytes.Buffer
		b.Write(gz([]byte(good(1) + "\n" + `{"id":"bomb","text":"`)))
		member := gzBest(bytes.Repeat([]byte("a"), 64<<20))
		for range 3000 / 64 {
			b.Write(member)
		}
		b.Write(gz([]byte(`"}` + "\n" + good(2) + "\n")))
		return write(d, "bomb3g.jsonl.gz", b.Bytes())
	}, nil},
	{"gzip bomb in a WARC: a record of 1 GB of html in 1 MB", func(d string) (string, error) {
		head := "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:bomb>\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n"
		body := 1 << 30
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		fmt.Fprintf(w, head, body)
		w.Write([]byte("<p>" + para + "</p>"))
		chunk := bytes.Repeat([]byte("<p>a</p>"), 1<<20)
		for n := 3 + len(para) + 4; n < body; n += len(chunk) {
			w.Write(chunk[:min(len(chunk), body-n)])
		}
		w.Write([]byte("\r\n\r\n"))
		w.Close()
		return write(d, "bomb.warc.gz", b.Bytes())
	}, nil},
	{"NUL bytes and invalid UTF-8 in ids", func(d string) (string, error) {
		return write(d, "ids2.jsonl", jsonl(fmt.Sprintf(`{"id":"nul\u0000id","text":%q}`, para), `{"id":"bad`+"\xff\xfe"+`id","text":"`+para+`"}`, good(1)))
	}, nil},
	{"a 34 MB .jsonl that grows while it is read (1,000 records appended 0.3 s in)", func(d string) (string, error) {
		var b bytes.Buffer
		for i := range 150000 {
			fmt.Fprintf(&b, `{"id":"d%d","text":"%d %s %s"}`+"\n", i, i, para, para[:i%100])
		}
		return write(d, "growing.jsonl", b.Bytes())
	}, func(p string) {
		time.Sleep(300 * time.Millisecond)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		for i := range 1000 {
			fmt.Fprintln(f, good(1000000+i))
		}
	}},
}

func gzBest(data []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// parquetFile writes documents with parquet-go; cut drops its last third.
func parquetFile(d, name string, withID, cut bool) (string, error) {
	type doc struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	type noID struct {
		Text string `parquet:"text"`
	}
	var b bytes.Buffer
	var err error
	if withID {
		rows := []doc{}
		for i := range 50 {
			rows = append(rows, doc{fmt.Sprintf("p%d", i), para})
		}
		err = parquet.Write(&b, rows)
	} else {
		err = parquet.Write(&b, []noID{{para}})
	}
	if err != nil {
		return "", err
	}
	data := b.Bytes()
	if cut {
		data = data[:len(data)*2/3]
	}
	return write(d, name, data)
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: badinputs PDC_BINARY [SUBSTRING]")
		os.Exit(2)
	}
	bin := os.Args[1]
	only := ""
	if len(os.Args) == 3 {
		only = os.Args[2]
	}
	work, err := os.MkdirTemp("", "badinputs")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(work)
	fmt.Println("| input | exit | read | indexed | skipped | peak RSS (MiB) | message |")
	fmt.Println("|---|---:|---:|---:|---|---:|---|")
	bad := 0
	for i, c := range cases {
		if !strings.Contains(c.name, only) {
			continue
		}
		dir := filepath.Join(work, fmt.Sprint(i))
		in, err := c.make(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c.name, err)
			os.Exit(1)
		}
		out := filepath.Join(dir, "out")
		cmd := exec.Command(bin, "run", "--input", in, "--output", out, "--quiet")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		rss, err := run(cmd, func() {
			if c.during != nil {
				c.during(in)
			}
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c.name, err)
			os.Exit(1)
		}
		code := cmd.ProcessState.ExitCode()
		if rss >= maxRSS {
			bad++
		}
		msg := firstMessage(stderr.String(), code != 0)
		read, parsed, skipped := "", "", ""
		if b, err := os.ReadFile(filepath.Join(out, "counters.tsv")); err == nil {
			counters := mr.ParseCounters(string(b))
			var reasons []string
			var n int64
			for _, k := range slices.Sorted(mapsKeys(counters)) {
				if r, ok := strings.CutPrefix(k, "parse.docs.skipped."); ok && counters[k] > 0 {
					reasons = append(reasons, fmt.Sprintf("%s %d", r, counters[k]))
					n += counters[k]
				}
			}
			read, parsed, skipped = fmt.Sprint(counters["parse.docs.read"]), fmt.Sprint(counters["index.docs"]), strings.Join(reasons, ", ")
			if counters["parse.docs.read"] != counters["index.docs"]+n {
				bad++
				skipped += " **(lost documents)**"
			}
		} else if code == 0 || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 && code != 0 && !strings.Contains(msg, filepath.Base(in)) {
			bad++
			msg += " **(no counters, or an error that does not name the input)**"
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %d |%s |\n", c.name, code, read, parsed, skipped, rss, strings.ReplaceAll(msg, "|", `\|`))
	}
	if bad > 0 {
		os.Exit(1)
	}
}

// run runs cmd and returns its peak resident memory in MiB, polled from
// /proc/PID/status (VmHWM, the high-water mark of the process's own
// memory: the rusage of a child started with vfork counts its parent's).
func run(cmd *exec.Cmd, during func()) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go during()
	done := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var hwm int64
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		for {
			if b, err := os.ReadFile(status); err == nil {
				if m := vmHWM.FindSubmatch(b); m != nil {
					var kb int64
					fmt.Sscan(string(m[1]), &kb)
					hwm = max(hwm, kb>>10)
				}
			}
			select {
			case <-done:
				peak <- hwm
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	cmd.Wait()
	close(done)
	return <-peak, nil
}

var vmHWM = regexp.MustCompile(`VmHWM:\s+([0-9]+) kB`)

// maxRSS is the bound on pdc's peak resident memory, in MiB, on any of the
// inputs.
const maxRSS = 512

// firstMessage is the first line pdc wrote on stderr that is not its
// summary (when it failed, the last: its error), with the temporary
// directory cut out.
func firstMessage(s string, failed bool) string {
	lines := strings.Split(s, "\n")
	if failed { // the error is the last line
		slices.Reverse(lines)
	}
	for _, l := range lines {
		if l == "" || strings.Contains(l, " spans between ") || strings.Contains(l, " span between ") {
			continue
		}
		l = tmpPath.ReplaceAllString(l, "…/")
		if len(l) > 220 {
			l = l[:220] + "…"
		}
		return "`" + l + "`"
	}
	return ""
}

// tmpPath matches the work directory and case number in paths.
var tmpPath = regexp.MustCompile(`/[^ ]*badinputs[0-9]+/[0-9]+/`)

func mapsKeys(m map[string]int64) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
