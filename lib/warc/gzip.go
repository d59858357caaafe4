package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
)

// gzipMagic starts every gzip member (ID1, ID2, CM=deflate).
var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// errStreamBreak is returned once by memberReader.Read when a corrupt gzip
// member was abandoned: the decompressed stream is discontinuous there, so the
// record being read is lost and the reader must resynchronise.
var errStreamBreak = errors.New("corrupt gzip member")

// maxReplay bounds the raw bytes of a member kept for rescanning it after
// damage; the rest of a longer member is rescanned from the damage on.
const maxReplay = 1 << 20

// countingReader counts the bytes read from the raw input, remembers the
// first non-EOF error (so I/O failures can be told apart from bad gzip
// data), records the raw bytes of the current member while it is short
// enough, and serves replayed bytes before new input.
type countingReader struct {
	r         io.Reader
	n         int64
	err       error
	pending   []byte // replayed bytes, served first
	recording bool
	rec       []byte
}

func (c *countingReader) Read(p []byte) (int, error) {
	var n int
	var err error
	if len(c.pending) > 0 {
		n = copy(p, c.pending)
		c.pending = c.pending[n:]
	} else {
		n, err = c.r.Read(p)
		if err != nil && err != io.EOF && c.err == nil {
			c.err = err
		}
	}
	c.n += int64(n)
	if c.recording {
		if len(c.rec)+n > maxReplay {
			c.recording, c.rec = false, nil
		} else {
			c.rec = append(c.rec, p[:n]...)
		}
	}
	return n, err
}

// member maps the start of a gzip member's data in the decompressed stream
// to the member's offset in the compressed file.
type member struct {
	stream, file int64
}

// maxMembers bounds the remembered member table; older entries are dropped.
const maxMembers = 4096

// memberReader decompresses a sequence of gzip members (one per record, one
// for the whole file, or anything in between) as one stream. It remembers
// where each member starts and skips corrupt members and garbage between
// members by scanning for the next gzip magic.
type memberReader struct {
	raw     *countingReader
	br      *bufio.Reader
	z       *gzip.Reader
	inMem   bool  // inside a member (z is valid)
	start   int64 // file offset of the current member
	out     int64 // decompressed bytes produced
	members []member
	broken  bool    // a member was abandoned; report errStreamBreak next
	breaks  []int64 // stream positions where data resumed after a break
	eof     bool
	skipped map[string]int64
}

func newMemberReader(raw *countingReader, br *bufio.Reader, skipped map[string]int64) *memberReader {
	return &memberReader{raw: raw, br: br, skipped: skipped}
}

// fileOffset returns the compressed offset of the member holding
// decompressed stream position pos, and forgets older members.
func (m *memberReader) fileOffset(pos int64) int64 {
	i := len(m.members) - 1
	for i > 0 && m.members[i].stream > pos {
		i--
	}
	if i < 0 {
		return 0
	}
	off := m.members[i].file
	m.members = m.members[i:]
	return off
}

// rawPos is the compressed offset of the next unread raw byte.
func (m *memberReader) rawPos() int64 { return m.raw.n - int64(m.br.Buffered()) }

func (m *memberReader) Read(p []byte) (int, error) {
	for {
		if m.broken {
			m.broken = false
			return 0, errStreamBreak
		}
		if m.eof {
			if m.raw.err != nil {
				return 0, m.raw.err
			}
			return 0, io.EOF
		}
		if !m.inMem {
			if err := m.startMember(); err != nil {
				return 0, err
			}
			continue
		}
		n, err := m.z.Read(p)
		m.out += int64(n)
		if err == nil {
			return n, nil
		}
		m.endMember(err)
		if n > 0 {
			return n, nil
		}
	}
}

// startMember positions at the next gzip member and opens it.
func (m *memberReader) startMember() error {
	if _, err := m.br.Peek(1); err != nil {
		return m.finish(err)
	}
	if !hasMagic(m.br) {
		m.skipped["garbage between gzip members"]++
		if err := m.skipToMagic(); err != nil {
			return m.finish(err)
		}
	}
	start := m.rawPos()
	m.record()
	var err error
	if m.z == nil {
		m.z, err = gzip.NewReader(m.br)
	} else {
		err = m.z.Reset(m.br)
	}
	if err != nil {
		if m.raw.err != nil {
			return m.raw.err
		}
		m.skipped["corrupt gzip member"]++
		m.replay(start)
		return nil
	}
	m.z.Multistream(false)
	m.inMem = true
	if len(m.members) >= maxMembers {
		m.members = append(m.members[:0], m.members[maxMembers/2:]...)
	}
	m.members = append(m.members, member{stream: m.out, file: start})
	m.start = start
	return nil
}

// record starts keeping the raw bytes from the read position on.
func (m *memberReader) record() {
	buffered, _ := m.br.Peek(m.br.Buffered())
	m.raw.recording = true
	m.raw.rec = append(m.raw.rec[:0], buffered...)
}

// replay rereads the raw input from one byte after start, the offset of a
// damaged member, so that a member hidden in or after its damage is found
// by the scan for the next magic. Without a recording (long members) the
// scan goes on from the read position.
func (m *memberReader) replay(start int64) {
	m.broken = true
	if len(m.breaks) >= maxMembers {
		m.breaks = m.breaks[1:]
	}
	m.breaks = append(m.breaks, m.out)
	if !m.raw.recording || len(m.raw.rec) < 1 {
		if m.rawPos() == start {
			_, _ = m.br.Discard(1)
		}
		return
	}
	rest := append(append([]byte{}, m.raw.rec[1:]...), m.raw.pending...)
	m.raw.recording, m.raw.rec = false, m.raw.rec[:0]
	m.raw.pending = rest
	m.raw.n = start + 1
	m.br.Reset(m.raw)
}

// endMember handles the end of the current member: normal end, checksum
// mismatch (data kept, counted) or corruption (stream break).
func (m *memberReader) endMember(err error) {
	m.inMem = false
	switch {
	case err == io.EOF:
	case m.raw.err != nil:
		m.eof = true // reported by finish on the next call
	case errors.Is(err, gzip.ErrChecksum) && !m.raw.recording:
		m.skipped["gzip checksum mismatch"]++ // long member: keep its data
	case errors.Is(err, gzip.ErrChecksum):
		m.skipped["gzip checksum mismatch"]++
		m.replay(m.start)
	default:
		m.skipped["corrupt gzip member"]++
		m.replay(m.start)
	}
}

func (m *memberReader) finish(err error) error {
	if m.raw.err != nil {
		return m.raw.err
	}
	if err == io.EOF {
		m.eof = true
	}
	return err
}

func hasMagic(br *bufio.Reader) bool {
	p, _ := br.Peek(len(gzipMagic))
	return bytes.Equal(p, gzipMagic)
}

// skipToMagic discards raw bytes up to the next gzip magic.
func (m *memberReader) skipToMagic() error {
	for {
		p, err := m.br.Peek(len(gzipMagic))
		if len(p) < len(gzipMagic) {
			_, _ = m.br.Discard(len(p))
			if err == nil {
				err = io.EOF
			}
			return err
		}
		if bytes.Equal(p, gzipMagic) {
			return nil
		}
		win, _ := m.br.Peek(m.br.Buffered())
		if i := bytes.Index(win[1:], gzipMagic); i >= 0 {
			_, _ = m.br.Discard(i + 1)
			continue
		}
		_, _ = m.br.Discard(max(1, len(win)-len(gzipMagic)+1))
	}
}
