package mr

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func readAll(t *testing.T, r io.Reader) []string {
	t.Helper()
	rd := NewReader(r)
	var got []string
	for rd.Next() {
		got = append(got, string(rd.Line()))
		if rd.LineNumber() != int64(len(got)) {
			t.Fatalf("LineNumber = %d, want %d", rd.LineNumber(), len(got))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 300<<10)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"one", "a\tb\n", []string{"a\tb"}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"blank lines", "\n\nx\n", []string{"", "", "x"}},
		{"cr kept", "a\r\n", []string{"a\r"}},
		{"long", "s\n" + long + "\nt", []string{"s", long, "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readAll(t, strings.NewReader(tt.in)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if got := readAll(t, iotest.OneByteReader(strings.NewReader(tt.in))); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("one byte reader: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	rd := NewReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	n := 0
	for rd.Next() {
		n++
	}
	if n != 1 || !errors.Is(rd.Err(), boom) {
		t.Errorf("lines %d, err %v; want 1, boom", n, rd.Err())
	}
}

func TestSplitKeyAndFields(t *testing.T) {
	tests := []struct {
		line       string
		k          int
		key, value string
	}{
		{"", 1, "", ""},
		{"abc", 1, "abc", ""},
		{"a\tb\tc", 1, "a", "b\tc"},
		{"a\tb\tc", 2, "a\tb", "c"},
		{"a\tb\tc", 3, "a\tb\tc", ""},
		{"a\tb", 2, "a\tb", ""},
		{"a\tb\t", 2, "a\tb", ""},
		{"\t", 1, "", ""},
		{"a\tb", 0, "a", "b"},
	}
	for _, tt := range tests {
		k, v := SplitKey([]byte(tt.line), tt.k)
		if string(k) != tt.key || string(v) != tt.value {
			t.Errorf("SplitKey(%q, %d) = %q, %q; want %q, %q", tt.line, tt.k, k, v, tt.key, tt.value)
		}
	}
	f := Fields(nil, []byte("a\t\tb"))
	if len(f) != 3 || string(f[0]) != "a" || len(f[1]) != 0 || string(f[2]) != "b" {
		t.Errorf("Fields = %q", f)
	}
	if f := Fields(f, nil); len(f) != 1 {
		t.Errorf("Fields(empty) = %q", f)
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteRecord([]byte("k"), []byte("v1\tv2")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteStrings("a", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte("bad\n")); !errors.Is(err, ErrRawNewline) {
		t.Errorf("raw LF: err %v", err)
	}
	if err := w.WriteStrings("x", "bad\r"); !errors.Is(err, ErrRawNewline) {
		t.Errorf("raw CR: err %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "k\tv1\tv2\na\t\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCounters(t *testing.T) {
	var buf bytes.Buffer
	c := NewCounters(&buf)
	now := time.Unix(0, 0)
	c.now = func() time.Time { return now }
	c.last = now
	c.clockEvery = 1
	c.Add("docs", 2)
	c.Add("bytes", 10)
	c.Add("docs", 3)
	if buf.Len() != 0 {
		t.Fatalf("wrote before interval: %q", buf.String())
	}
	now = now.Add(6 * time.Second)
	c.Add("docs", 1)
	want := "reporter:counter:pdc,bytes,10\nreporter:counter:pdc,docs,6\n"
	if buf.String() != want {
		t.Fatalf("after interval: %q, want %q", buf.String(), want)
	}
	c.Add("docs", 4)
	c.Status("half\nway")
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	want += "reporter:status:half way\nreporter:counter:pdc,docs,4\n"
	if buf.String() != want {
		t.Fatalf("after flush: %q, want %q", buf.String(), want)
	}
	c.Add("a,b", 1)
	if err := c.Flush(); err == nil {
		t.Error("comma in name: no error")
	}
}

func TestParseCounterLine(t *testing.T) {
	tests := []struct {
		line        string
		group, name string
		n           int64
		ok          bool
	}{
		{"reporter:counter:pdc,docs,5", "pdc", "docs", 5, true},
		{"reporter:counter:pdc,docs,-5\n", "pdc", "docs", -5, true},
		{"reporter:counter: g,n,7 \r\n", "g", "n", 7, true},
		{"reporter:counter:pdc,docs", "", "", 0, false},
		{"reporter:counter:pdc,a,b,5", "", "", 0, false},
		{"reporter:counter:pdc,docs,x", "", "", 0, false},
		{"reporter:status:hi", "", "", 0, false},
		{"hello", "", "", 0, false},
	}
	for _, tt := range tests {
		g, n, v, ok := ParseCounterLine([]byte(tt.line))
		if g != tt.group || n != tt.name || v != tt.n || ok != tt.ok {
			t.Errorf("ParseCounterLine(%q) = %q, %q, %d, %v", tt.line, g, n, v, ok)
		}
	}
}

func FuzzParseCounterLine(f *testing.F) {
	f.Add([]byte("reporter:counter:pdc,docs,5"))
	f.Fuzz(func(t *testing.T, line []byte) {
		g, n, v, ok := ParseCounterLine(line)
		if !ok {
			return
		}
		var buf bytes.Buffer
		c := NewCounters(&buf)
		if g != CounterGroup || n == "" || v == 0 || strings.ContainsAny(n, ",\n\r") || strings.TrimFunc(n, isJavaSpace) != n {
			return
		}
		c.Add(n, v)
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		g2, n2, v2, ok2 := ParseCounterLine(buf.Bytes())
		if !ok2 || g2 != g || n2 != n || v2 != v {
			t.Fatalf("round trip %q: %q", line, buf.String())
		}
	})
}

func TestInputEnv(t *testing.T) {
	env := map[string]string{"mapreduce_map_input_file": "hdfs://x/a.gz", "map_input_start": "42"}
	get := func(k string) string { return env[k] }
	if got := InputFile(get); got != "hdfs://x/a.gz" {
		t.Errorf("InputFile = %q", got)
	}
	if n, err := InputStart(get); n != 42 || err != nil {
		t.Errorf("InputStart = %d, %v", n, err)
	}
	env[EnvInputStart] = "x"
	if _, err := InputStart(get); err == nil {
		t.Error("bad start: no error")
	}
	if n, err := InputStart(nil); n != 0 || err != nil {
		t.Errorf("nil getenv: %d, %v", n, err)
	}
}

func TestCutInputKey(t *testing.T) {
	tests := []struct {
		in   string
		off  int64
		rest string
		ok   bool
	}{
		{"0\t{}", 0, "{}", true},
		{"1147976\t{\"id\":1}", 1147976, `{"id":1}`, true},
		{"12\t", 12, "", true},
		{"{\"id\":1}", 0, "", false},
		{"12", 0, "", false},
		{"\t{}", 0, "", false},
		{"-1\t{}", 0, "", false},
		{"99999999999999999999\tx", 0, "", false},
	}
	for _, tt := range tests {
		off, rest, err := CutInputKey([]byte(tt.in))
		if (err == nil) != tt.ok || (tt.ok && (off != tt.off || string(rest) != tt.rest)) {
			t.Errorf("CutInputKey(%q) = %d, %q, %v", tt.in, off, rest, err)
		}
	}
}

func TestAtoi(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"0000123", 123, true},
		{"999999999", 999999999, true},
		{"1000000000", 1000000000, true},
		{"999999999999999999", 999999999999999999, true},
		{"1000000000000000000", 0, false}, // 19 digits: could overflow
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1.5", 0, false},
		{" 1", 0, false},
	} {
		got, ok := Atoi([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Atoi(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
