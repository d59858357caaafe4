package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pdc-mr/pdc/lib/mr"
)

// srcpos is a record position as the parse job writes it (lib/doc
// record.go): the escaped file name, "@" and a 16-digit byte offset.
var srcpos = regexp.MustCompile(`(\S+)@(\d{16})\b`)

// Positions returns a writer to w that rewrites the record positions in
// the lines written to it (FILE@OFFSET, as task messages give them) into
// FILE:LINE when FILE is a local JSON Lines file (the line counted in its
// uncompressed stream), and into FILE for a page of a tree (a file that
// is one record); other positions (records of WARC, Avro and Parquet
// files, offsets in their JSON Lines rendering) stay as they are. Goroutines may
// write to it at once; each Write should hold whole lines.
func Positions(w io.Writer) io.Writer { return &positions{w: w, lines: map[string]string{}} }

type positions struct {
	mu    sync.Mutex
	w     io.Writer
	lines map[string]string // position -> FILE:LINE, or itself
}

func (p *positions) Write(b []byte) (int, error) {
	if !bytes.ContainsRune(b, '@') {
		return p.w.Write(b)
	}
	out := srcpos.ReplaceAllStringFunc(string(b), p.line)
	if _, err := io.WriteString(p.w, out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// MaxLineOffset is the largest offset whose line Positions counts (it
// reads the file up to it); a later position stays FILE@OFFSET.
const MaxLineOffset = 256 << 20

// line returns FILE:LINE for position pos, or pos. The file is read
// outside the lock: tasks writing other lines do not wait for it.
func (p *positions) line(pos string) string {
	p.mu.Lock()
	l, ok := p.lines[pos]
	p.mu.Unlock()
	if ok {
		return l
	}
	l = pos
	m := srcpos.FindStringSubmatch(pos)
	file, err := mr.Unescape(m[1])
	off, _ := strconv.ParseInt(m[2], 10, 64)
	switch {
	case err != nil:
	case IsJSONLName(file) && off <= MaxLineOffset:
		if n, err := LineAt(file, off); err == nil {
			l = fmt.Sprintf("%s:%d", file, n)
		}
	case off == 0 && (HasExt(file, htmlExts) || HasExt(file, textExts)):
		l = file // a page of a tree: the file is the record
	}
	p.mu.Lock()
	p.lines[pos] = l
	p.mu.Unlock()
	return l
}

// LineAt returns the line number (from 1) of byte offset off of the JSON
// Lines file path (of its uncompressed stream, for a .gz file).
func LineAt(path string, off int64) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<16)
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	buf := make([]byte, 1<<16)
	line := 1
	for off > 0 {
		n, err := r.Read(buf[:min(int64(len(buf)), off)])
		line += bytes.Count(buf[:n], []byte{'\n'})
		off -= int64(n)
		if err == io.EOF {
			return 0, fmt.Errorf("%s: offset past the end", path)
		}
		if err != nil {
			return 0, err
		}
	}
	return line, nil
}
