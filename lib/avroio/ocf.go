package avroio

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/golang/snappy"
)

// Object container file (OCF) framing, from the Avro 1.11 specification:
//
//	header  "Obj" 0x01, metadata map<bytes> (avro.schema, avro.codec), 16-byte sync marker
//	block   long count, long size, size bytes of (compressed) data, sync marker
//
// Longs are zig-zag varints. The codec is null, deflate (raw RFC 1951) or
// snappy (data followed by the big-endian CRC32 of the uncompressed data).
// This reader does its own framing, instead of goavro's OCFReader, so that
// sizes read from damaged files never cause large allocations and a damaged
// block can be skipped by scanning for the next sync marker.

// MaxBlockBytes caps the compressed and the uncompressed size of a block.
const MaxBlockBytes = 64 << 20

// maxMetaBytes caps the size of the header's metadata.
const maxMetaBytes = 1 << 20

var ocfMagic = []byte("Obj\x01")

// errBadBlock marks a damaged block; the reader skips to the next sync marker.
var errBadBlock = errors.New("damaged block")

// ocfReader reads the blocks of an object container file.
type ocfReader struct {
	br     *bufio.Reader
	meta   map[string][]byte
	sync   []byte
	codec  string
	resync bool // scan for the next sync marker before the next block
}

func newOCFReader(r io.Reader) (*ocfReader, error) {
	o := &ocfReader{br: bufio.NewReaderSize(r, 64<<10), meta: map[string][]byte{}}
	magic := make([]byte, 4)
	if _, err := io.ReadFull(o.br, magic); err != nil || !bytes.Equal(magic, ocfMagic) {
		return nil, errors.New("not an avro object container file")
	}
	if err := o.readMeta(); err != nil {
		return nil, fmt.Errorf("read avro header: %w", err)
	}
	o.sync = make([]byte, 16)
	if _, err := io.ReadFull(o.br, o.sync); err != nil {
		return nil, fmt.Errorf("read avro header: %w", unexpected(err))
	}
	o.codec = string(o.meta["avro.codec"])
	switch o.codec {
	case "":
		o.codec = "null"
	case "null", "deflate", "snappy":
	default:
		return nil, fmt.Errorf("unsupported avro codec %q", o.codec)
	}
	return o, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (o *ocfReader) readMeta() error {
	total := 0
	for {
		n, err := binary.ReadVarint(o.br)
		if err != nil {
			return unexpected(err)
		}
		if n == 0 {
			return nil
		}
		if n < 0 {
			n = -n
			if _, err := binary.ReadVarint(o.br); err != nil { // block size
				return unexpected(err)
			}
		}
		for ; n > 0; n-- {
			k, err := o.readBytes(maxMetaBytes - total)
			if err != nil {
				return err
			}
			v, err := o.readBytes(maxMetaBytes - total - len(k))
			if err != nil {
				return err
			}
			total += len(k) + len(v)
			o.meta[string(k)] = v
		}
	}
}

// readBytes reads a length-prefixed byte string of at most limit bytes.
func (o *ocfReader) readBytes(limit int) ([]byte, error) {
	n, err := binary.ReadVarint(o.br)
	if err != nil {
		return nil, unexpected(err)
	}
	if n < 0 || n > int64(limit) {
		return nil, fmt.Errorf("bad length %d", n)
	}
	return readN(o.br, n)
}

// readN reads n bytes, growing the buffer as data arrives.
func readN(r io.Reader, n int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(n, 1<<20)))
	if _, err := io.CopyN(&buf, r, n); err != nil {
		return nil, unexpected(err)
	}
	return buf.Bytes(), nil
}

// next returns the item count and decoded data of the next block. It
// returns io.EOF at the end, an error wrapping errBadBlock for a damaged
// block (after which the reader resynchronises), or an I/O error.
func (o *ocfReader) next() (int64, []byte, error) {
	if o.resync {
		if err := o.skipToSync(); err != nil {
			return 0, nil, err
		}
		o.resync = false
	}
	count, err := binary.ReadVarint(o.br)
	if err == io.EOF {
		return 0, nil, io.EOF
	}
	if err != nil {
		return 0, nil, o.bad(err)
	}
	size, err := binary.ReadVarint(o.br)
	if err != nil {
		return 0, nil, o.bad(err)
	}
	if count <= 0 || size < 0 || size > MaxBlockBytes {
		return 0, nil, o.bad(fmt.Errorf("bad block count %d or size %d", count, size))
	}
	data, err := readN(o.br, size)
	if err != nil {
		return 0, nil, o.bad(err)
	}
	mark := make([]byte, 16)
	if _, err := io.ReadFull(o.br, mark); err != nil || !bytes.Equal(mark, o.sync) {
		return 0, nil, o.bad(errors.New("sync marker mismatch"))
	}
	if data, err = o.decompress(data); err != nil {
		return count, nil, fmt.Errorf("%w: %w", errBadBlock, err)
	}
	return count, data, nil
}

// bad marks the stream for resynchronisation.
func (o *ocfReader) bad(err error) error {
	o.resync = true
	return fmt.Errorf("%w: %w", errBadBlock, err)
}

func (o *ocfReader) decompress(data []byte) ([]byte, error) {
	switch o.codec {
	case "deflate":
		out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), MaxBlockBytes+1))
		if err != nil {
			return nil, fmt.Errorf("inflate: %w", err)
		}
		if len(out) > MaxBlockBytes {
			return nil, errors.New("block too large")
		}
		return out, nil
	case "snappy":
		if len(data) < 4 {
			return nil, errors.New("short snappy block")
		}
		body := data[:len(data)-4]
		n, err := snappy.DecodedLen(body)
		if err != nil || n > MaxBlockBytes {
			return nil, fmt.Errorf("snappy: bad length: %v", err)
		}
		out, err := snappy.Decode(nil, body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if crc32.ChecksumIEEE(out) != binary.BigEndian.Uint32(data[len(data)-4:]) {
			return nil, errors.New("snappy: checksum mismatch")
		}
		return out, nil
	}
	return data, nil
}

// skipToSync discards input through the next sync marker.
func (o *ocfReader) skipToSync() error {
	for {
		p, err := o.br.Peek(len(o.sync))
		if len(p) < len(o.sync) {
			if err == nil || err == io.EOF {
				return io.EOF
			}
			return err
		}
		win, _ := o.br.Peek(o.br.Buffered())
		if i := bytes.Index(win, o.sync); i >= 0 {
			_, _ = o.br.Discard(i + len(o.sync))
			return nil
		}
		_, _ = o.br.Discard(len(win) - len(o.sync) + 1)
	}
}
