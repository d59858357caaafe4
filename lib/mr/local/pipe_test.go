package local

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

// TestLinePipe: lines written come out in order, across batches, as lines
// (ReadLine) or bytes (Read), with keys gaining their empty value, and the
// writer's error ends the input.
func TestLinePipe(t *testing.T) {
	const n = 20000 // several batches
	boom := errors.New("boom")
	for _, bytesRead := range []bool{false, true} {
		p := newLinePipe()
		go func() {
			for i := range n {
				if err := p.writeKeyValue(fmt.Appendf(nil, "k%d\tv", i), 1); err != nil {
					panic(err)
				}
			}
			p.writeKeyValue([]byte("key only"), 1)
			p.closeWrite(boom)
		}()
		var lines []string
		if bytesRead {
			b, err := io.ReadAll(p)
			if !errors.Is(err, boom) {
				t.Fatalf("Read: %v; want %v", err, boom)
			}
			want := ""
			for i := range n {
				want += fmt.Sprintf("k%d\tv\n", i)
			}
			// The last batch, short of pipeBatch, is not sent on an error.
			if got := string(b); len(got) > len(want) || got != want[:len(got)] || len(got) < len(want)-pipeBatch {
				t.Fatalf("Read %d bytes, not a prefix of the %d written", len(got), len(want))
			}
			continue
		}
		for {
			l, err := p.ReadLine()
			if err != nil {
				if !errors.Is(err, boom) {
					t.Fatalf("ReadLine: %v; want %v", err, boom)
				}
				break
			}
			lines = append(lines, string(l))
		}
		for i, l := range lines {
			if l != fmt.Sprintf("k%d\tv", i) {
				t.Fatalf("line %d = %q", i, l)
			}
		}
	}

	// A clean close: every line, then EOF; a key alone gains a TAB.
	p := newLinePipe()
	go func() {
		p.writeKeyValue([]byte("a\tb"), 1)
		p.writeKeyValue([]byte("key only"), 1)
		p.closeWrite(nil)
	}()
	for _, want := range []string{"a\tb", "key only\t"} {
		if l, err := p.ReadLine(); err != nil || string(l) != want {
			t.Fatalf("ReadLine = %q, %v; want %q", l, err, want)
		}
	}
	if _, err := p.ReadLine(); err != io.EOF {
		t.Fatalf("after the last line: %v; want EOF", err)
	}
	if p.lost() {
		t.Error("lines lost after reading them all")
	}
}

// TestLinePipeReaderStops: once the reader stops, writes fail, and lines
// it left unread are reported lost.
func TestLinePipeReaderStops(t *testing.T) {
	p := newLinePipe()
	p.closeRead()
	var err error
	for i := 0; err == nil && i < 10*pipeBatch; i++ {
		err = p.writeKeyValue([]byte("k\tv"), 1)
	}
	if !errors.Is(err, errChainDone) {
		t.Fatalf("write after closeRead: %v; want errChainDone", err)
	}

	p = newLinePipe()
	done := make(chan struct{})
	go func() {
		p.ReadLine() // one line, then stop
		p.closeRead()
		close(done)
	}()
	p.writeKeyValue([]byte("1\tv"), 1)
	p.writeKeyValue([]byte("2\tv"), 1)
	if err := p.closeWrite(nil); err != nil {
		t.Fatalf("closeWrite: %v", err)
	}
	<-done
	if !p.lost() {
		t.Error("an unread line not reported lost")
	}
}
