package local

import (
	"bytes"
	"io"
	"sync"

	"github.com/pdc-mr/pdc/lib/mr"
)

// linePipe connects a reducer to its Chain program in memory. The reducer's
// lines are packed into batches, which the program reads as an
// mr.LineSource: each line in place, in the batch it came in. An io.Pipe
// would copy every line through a buffer on each side.
//
// It behaves like io.Pipe otherwise: closeWrite(err) ends the program's
// input with err (io.EOF for nil) once the batches sent are read; a write
// after closeRead fails with errChainDone, and so does the reducer when the
// program ended with lines of it unread (lost).
type linePipe struct {
	full chan []byte   // batches of LF-terminated lines
	free chan []byte   // batches read, for reuse
	done chan struct{} // closed by closeRead
	once sync.Once

	// Writer side.
	batch []byte

	// Reader side.
	cur    []byte // unread part of the current batch
	read   []byte // the current batch, handed back on the next batch
	werr   error  // how the writer ended; set before full is closed
	stream lineStream
}

// pipeBatch is the size at which a batch is handed over.
const pipeBatch = 64 << 10

func newLinePipe() *linePipe {
	return &linePipe{full: make(chan []byte, 2), free: make(chan []byte, 4), done: make(chan struct{})}
}

// writeKeyValue adds line as writeKeyValue writes it to a file: key, TAB,
// value, LF.
func (p *linePipe) writeKeyValue(line []byte, keyFields int) error {
	key, _ := mr.SplitKey(line, keyFields)
	p.batch = append(p.batch, line...)
	if len(key) == len(line) {
		p.batch = append(p.batch, '\t')
	}
	p.batch = append(p.batch, '\n')
	if len(p.batch) >= pipeBatch {
		return p.send()
	}
	return nil
}

func (p *linePipe) send() error {
	select {
	case <-p.done:
		return errChainDone
	default:
	}
	select {
	case p.full <- p.batch:
	case <-p.done:
		return errChainDone
	}
	select {
	case b := <-p.free:
		p.batch = b[:0]
	default:
		p.batch = make([]byte, 0, pipeBatch+4<<10)
	}
	return nil
}

// closeWrite ends the input of the reader: after the lines written, with
// err, or io.EOF when err is nil. It returns the error of handing over the
// last lines, if any.
func (p *linePipe) closeWrite(err error) error {
	var serr error
	if err == nil && len(p.batch) > 0 {
		serr = p.send()
		err = serr
	}
	if err == nil {
		err = io.EOF
	}
	p.werr = err
	close(p.full)
	return serr
}

// lost reports whether lines were written that the reader did not read. It
// may be called once both sides are closed.
func (p *linePipe) lost() bool {
	if len(p.cur) > 0 {
		return true
	}
	for b := range p.full {
		if len(b) > 0 {
			return true
		}
	}
	return false
}

// closeRead tells the writer that nothing more will be read.
func (p *linePipe) closeRead() { p.once.Do(func() { close(p.done) }) }

// ReadLine implements mr.LineSource.
func (p *linePipe) ReadLine() ([]byte, error) {
	if len(p.cur) == 0 {
		if p.read != nil {
			select {
			case p.free <- p.read:
			default:
			}
			p.read = nil
		}
		b, ok := <-p.full
		if !ok {
			return nil, p.werr
		}
		p.cur, p.read = b, b
	}
	i := bytes.IndexByte(p.cur, '\n') // every batch ends with one
	line := p.cur[:i]
	p.cur = p.cur[i+1:]
	return line, nil
}

// Read implements io.Reader, for programs that read bytes.
func (p *linePipe) Read(b []byte) (int, error) { return p.stream.read(b, p.ReadLine) }
