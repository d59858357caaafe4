package input

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// A container is a kind of file that holds many documents. Adding an input
// format is one file with its open function and one line here.
type container struct {
	name string   // for messages: "WARC (.warc[.gz])"
	exts []string // file extensions, lower case
	open func(f *File, o Options) (Source, error)
}

var containers = []container{
	{name: "WARC (.warc[.gz])", exts: []string{".warc", ".warc.gz"}, open: openWARC},
	{name: "Avro (.avro)", exts: []string{".avro"}, open: openAvro},
	{name: "Parquet (.parquet)", exts: []string{".parquet"}, open: openParquet},
}

// File is an open container file, read either as a stream (R, buffered;
// reads are reported to Options.OnRead) or at random (ReaderAt, Size).
type File struct {
	Path string
	R    io.Reader
	io.ReaderAt
	Size int64
}

func containerOf(path string) *container {
	for i := range containers {
		if HasExt(path, containers[i].exts) {
			return &containers[i]
		}
	}
	return nil
}

// kindList names the input kinds for messages.
func kindList() string {
	names := []string{"JSON Lines (.jsonl[.gz])"}
	for _, c := range containers {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// Kinds is the list of input kinds for help texts: "JSON Lines
// (.jsonl[.gz]), WARC (.warc[.gz]), ...".
func Kinds() string { return kindList() }

// OpenContainer opens the container file path (its kind by extension).
func OpenContainer(path string, o Options) (Source, error) {
	c := containerOf(path)
	if c == nil {
		return nil, fmt.Errorf("input %s: not a container file (want %s)", path, kindList())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", path, hdfsfs.UnwrapPath(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	src, err := c.open(&File{Path: path, R: bufio.NewReaderSize(counting(f, o.OnRead), 1<<16), ReaderAt: f, Size: fi.Size()}, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &closing{Source: src, c: f}, nil
}

// closing closes a file after its source.
type closing struct {
	Source
	c io.Closer
}

func (s *closing) Close() error {
	err := s.Source.Close()
	if cerr := s.c.Close(); err == nil {
		err = cerr
	}
	return err
}
