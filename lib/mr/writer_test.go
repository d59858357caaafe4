package mr

import (
	"bufio"
	"bytes"
	"errors"
	"testing"
)

// lineSink is an Output that records each write, as the local runner's
// task output does.
type lineSink struct{ writes []string }

func (s *lineSink) Write(p []byte) (int, error) {
	s.writes = append(s.writes, string(p))
	return len(p), nil
}
func (s *lineSink) Flush() error { return nil }

func TestNewOutput(t *testing.T) {
	sink := &lineSink{}
	if o := NewOutput(sink); o != Output(sink) {
		t.Errorf("NewOutput(Output) = %T; want the Output itself", o)
	}
	var b bytes.Buffer
	o := NewOutput(&b)
	if _, ok := o.(*bufio.Writer); !ok {
		t.Fatalf("NewOutput(*bytes.Buffer) = %T; want a *bufio.Writer", o)
	}
	o.Write([]byte("a\tb\n"))
	if b.Len() != 0 {
		t.Errorf("unbuffered: %q written before Flush", b.String())
	}
	if err := o.Flush(); err != nil || b.String() != "a\tb\n" {
		t.Errorf("after Flush: %q, %v", b.String(), err)
	}
}

func TestWriteRecordRejectsNewline(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.WriteRecord([]byte("a"), []byte("b\nc")); !errors.Is(err, ErrRawNewline) {
		t.Errorf("WriteRecord with LF: %v; want ErrRawNewline", err)
	}
	if err := w.WriteStrings("a", "b"); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if b.String() != "a\tb\n" {
		t.Errorf("wrote %q", b.String())
	}
}
