package local

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pdc-mr/pdc/lib/mr"
)

// readSplit reads a split's lines through io.Reader, one byte at a time,
// and checks that mr.Reader, which reads them in place where it can,
// gets the same.
func readSplit(t *testing.T, sp Split) string {
	t.Helper()
	rc, err := sp.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(iotest.OneByteReader(rc))
	if err != nil {
		t.Fatal(err)
	}
	rc2, err := sp.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc2.Close()
	var lines strings.Builder
	r := mr.NewReader(rc2)
	for r.Next() {
		lines.Write(r.Line())
		lines.WriteByte('\n')
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if lines.String() != string(b) {
		t.Errorf("split @%d: lines read in place %q, through Read %q", sp.Start, lines.String(), b)
	}
	return string(b)
}

func TestFileSplitsLines(t *testing.T) {
	dir := t.TempDir()
	content := "aaa\nbb\r\ncccc\rdd\n\neeeeee\r\rf\r\n\r\nlast"
	want := "aaa\nbb\ncccc\ndd\n\neeeeee\n\nf\n\nlast\n"
	p := filepath.Join(dir, "x.txt")
	if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, bufSize := range []int{64 << 10, 2, 3, 5} { // lines longer than the buffer, CRLF across refills
		defer func(n int, pool bool) { lineBufSize, poolLineBufs = n, pool }(lineBufSize, poolLineBufs)
		lineBufSize, poolLineBufs = bufSize, bufSize == 64<<10
		testFileSplitsLines(t, p, content, want)
		// Each line end at the end of the file.
		for _, end := range []struct{ content, want string }{
			{"ab\ncd\n", "ab\ncd\n"}, {"ab\ncd\r", "ab\ncd\n"}, {"ab\ncd\r\n", "ab\ncd\n"}, {"\r\n", "\n"}, {"\n\n", "\n\n"},
		} {
			if err := os.WriteFile(p, []byte(end.content), 0o666); err != nil {
				t.Fatal(err)
			}
			testFileSplitsLines(t, p, end.content, end.want)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

func testFileSplitsLines(t *testing.T, p, content, want string) {
	for size := int64(1); size <= int64(len(content))+1; size++ {
		splits, err := FileSplits([]string{p}, size)
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		var total int64
		for _, sp := range splits {
			got.WriteString(readSplit(t, sp))
			total += sp.Length
		}
		if got.String() != want || total != int64(len(content)) {
			t.Errorf("buffer %d, split size %d (%d splits): got %q, want %q", lineBufSize, size, len(splits), got.String(), want)
		}
	}
}

// TestFileSplitsBoundary checks Hadoop's rule that a line starting exactly at
// a split's start belongs to the previous split.
func TestFileSplitsBoundary(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.txt")
	if err := os.WriteFile(p, []byte("0123\n5678\nabcd\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	splits, err := FileSplits([]string{p}, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0123\n5678\n", "abcd\n", ""}
	if len(splits) != len(want) {
		t.Fatalf("%d splits, want %d", len(splits), len(want))
	}
	for i, sp := range splits {
		if got := readSplit(t, sp); got != want[i] || sp.Start != int64(5*i) {
			t.Errorf("split %d @%d = %q, want %q", i, sp.Start, got, want[i])
		}
	}
}

func TestFileSplitsGzipAndDir(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Repeat("line\r\n", 1000)))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"a.gz": buf.Bytes(), "_SUCCESS": nil, ".hidden": []byte("x"), "b": []byte("z")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	splits, err := FileSplits([]string{dir}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 2 || filepath.Base(splits[0].Name) != "a.gz" || filepath.Base(splits[1].Name) != "b" {
		t.Fatalf("splits %+v", splits)
	}
	if got := readSplit(t, splits[0]); got != strings.Repeat("line\n", 1000) {
		t.Errorf("gz split: %d bytes", len(got))
	}
	if _, err := FileSplits([]string{filepath.Join(dir, "nope")}, 0); !errors.Is(err, os.ErrNotExist) {
		t.Error("missing input: no error")
	}
}

func TestLineSplitter(t *testing.T) {
	in := "a\tb\nc\r\nd\re\r\r\n\nf"
	want := []string{"a\tb", "c", "d", "e", "", "", "f"}
	for chunk := 1; chunk <= len(in); chunk++ {
		var got []string
		s := &lineSplitter{ctx: context.Background(), emit: func(l []byte) error {
			got = append(got, string(l))
			return nil
		}}
		for i := 0; i < len(in); i += chunk {
			if _, err := s.Write([]byte(in[i:min(i+chunk, len(in))])); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("chunk %d: got %q, want %q", chunk, got, want)
		}
	}
}

// refLines splits b at LF, CR and CRLF, keeping a non-empty final line.
func refLines(b []byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' && b[i] != '\r' {
			continue
		}
		out = append(out, string(b[start:i]))
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}

func FuzzLineSplitter(f *testing.F) {
	f.Add([]byte("a\r\nb\rc\n\nd"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		n := int(chunk)%16 + 1
		var got []string
		s := &lineSplitter{ctx: context.Background(), emit: func(l []byte) error {
			got = append(got, string(l))
			return nil
		}}
		for i := 0; i < len(data); i += n {
			s.Write(data[i:min(i+n, len(data))])
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		if want := refLines(data); strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		// A whole-file split yields the same lines.
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, data, 0o666); err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		splits, err := FileSplits([]string{p}, int64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range splits {
			all.WriteString(readSplit(t, sp))
		}
		var want strings.Builder
		for _, l := range refLines(data) {
			want.WriteString(l + "\n")
		}
		if all.String() != want.String() {
			t.Fatalf("splits of %d: got %q, want %q", n, all.String(), want.String())
		}
	})
}

// Programs write straight into a task's lineSplitter (mr.NewOutput returns
// it unbuffered); Flush must report a line the runner could not take.
var _ mr.Output = (*lineSplitter)(nil)

func TestLineSplitterFlush(t *testing.T) {
	full := errors.New("disk full")
	s := &lineSplitter{ctx: context.Background(), emit: func(l []byte) error {
		if string(l) == "bad" {
			return full
		}
		return nil
	}}
	out := mr.NewOutput(s)
	if out != mr.Output(s) {
		t.Fatalf("NewOutput wrapped the task output in %T", out)
	}
	out.Write([]byte("good\n"))
	if err := out.Flush(); err != nil {
		t.Fatalf("Flush after a good line: %v", err)
	}
	out.Write([]byte("bad\n"))
	if err := out.Flush(); !errors.Is(err, full) {
		t.Errorf("Flush after a failed line: %v; want %v", err, full)
	}
}

// TestMaxLine: lines over Job.MaxLine are skipped and counted, in plain
// files cut into splits (a long line across a split boundary, one at the
// end) and in .gz files read as streams; every other line is kept once.
func TestMaxLine(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	var b strings.Builder
	long := 0
	for i := range 200 {
		l := fmt.Sprintf("line %d", i)
		if i%37 == 5 || i == 199 {
			l += strings.Repeat("x", 300+i) // over MaxLine
			long++
		} else {
			lines = append(lines, l)
		}
		b.WriteString(l + "\n")
	}
	plain := filepath.Join(dir, "in.txt")
	zipped := filepath.Join(dir, "in.txt.gz")
	if err := os.WriteFile(plain, []byte(b.String()), 0o666); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(b.String()))
	zw.Close()
	if err := os.WriteFile(zipped, z.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		size int64
	}{{"plain, one split", plain, 0}, {"plain, splits of 250 bytes", plain, 250}, {"gzip", zipped, 250}} {
		t.Run(tc.name, func(t *testing.T) {
			splits, err := FileSplits([]string{tc.path}, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			var stderr bytes.Buffer
			counters, err := (&Runner{Workers: 2, Stderr: &stderr}).Run(context.Background(), &Job{Name: "m", Map: identity,
				Inputs: splits, Output: out, MaxLine: 250, LongLineCounters: []string{"read", "too-long"}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range readOutput(t, out) {
				got = append(got, strings.Fields(strings.ReplaceAll(s, "line ", "line_"))...)
			}
			want := strings.Fields(strings.ReplaceAll(strings.Join(lines, "\n"), "line ", "line_"))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("kept %d lines, want the %d short ones", len(got), len(want))
			}
			if counters["read"] != int64(long) || counters["too-long"] != int64(long) {
				t.Errorf("counters %v, want %d long lines", counters, long)
			}
			if !strings.Contains(stderr.String(), "skipped unread") {
				t.Errorf("stderr %q does not report the skipped lines", stderr.String())
			}
		})
	}
	// No line too long: no counter (Hadoop has none then either).
	splits, err := FileSplits([]string{plain}, 0)
	if err != nil {
		t.Fatal(err)
	}
	counters, err := (&Runner{Workers: 2}).Run(context.Background(), &Job{Name: "m", Map: identity,
		Inputs: splits, Output: filepath.Join(t.TempDir(), "out"), MaxLine: 1 << 20, LongLineCounters: []string{"read", "too-long"}})
	if _, ok := counters["too-long"]; ok || err != nil {
		t.Errorf("no long line: counters %v, %v", counters, err)
	}
}

// TestFileSplitsGzipTruncated: reading a truncated .gz file fails naming
// the file and saying what to do.
func TestFileSplitsGzipTruncated(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Repeat("a line of the file\n", 5000)))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	if err := os.WriteFile(name, buf.Bytes()[:buf.Len()/2], 0o666); err != nil {
		t.Fatal(err)
	}
	splits, err := FileSplits([]string{name}, 0)
	if err != nil || len(splits) != 1 {
		t.Fatal(splits, err)
	}
	rc, err := splits[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	_, err = io.ReadAll(rc)
	if err == nil || !strings.Contains(err.Error(), name+": its gzip data ends early") || !strings.Contains(err.Error(), "--exclude cut.jsonl.gz") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error %v", err)
	}
}
