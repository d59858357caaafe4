package input

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/mr"
)

// Position is a record's place in the input as the parse job writes it
// (lib/doc record.go srcpos): the file and the record's byte offset in
// its uncompressed stream, or in the JSON Lines rendering of a container;
// a page of a tree is its own file at offset 0.
type Position struct {
	File   string
	Offset int64
}

// ParsePosition parses a srcpos field (escaped FILE, "@", 16 digits).
func ParsePosition(srcpos string) (Position, error) {
	i := strings.LastIndexByte(srcpos, '@')
	if i < 0 {
		return Position{}, fmt.Errorf("record position %q: want FILE@OFFSET", srcpos)
	}
	file, err := mr.Unescape(srcpos[:i])
	if err != nil {
		return Position{}, fmt.Errorf("record position %q: %w", srcpos, err)
	}
	off, err := strconv.ParseInt(srcpos[i+1:], 10, 64)
	if err != nil || off < 0 {
		return Position{}, fmt.Errorf("record position %q: want FILE@OFFSET", srcpos)
	}
	return Position{File: file, Offset: off}, nil
}

// At reads the documents at positions and calls fn with each, in file
// and offset order; each Doc's strings are its own, for fn to keep. open opens an input file by the name its positions
// give (a local path, or an hdfs:// URI for a Hadoop run's inputs). A JSON
// Lines file is read from each offset when open's reader can seek, else
// up to the last one; a container file is rendered as the parse job read
// it, up to its last position; a page of a tree (a local .html or .txt
// file at offset 0) is read whole (its
// Doc.Source is the file, its id the file's name: the tree the run read
// it from, which named it, is not known here). A position
// that names no record (the file changed, or holds fewer bytes) is given
// to missing with the reason, and so is every position of a file that
// cannot be opened; a record there that is no document too.
func At(positions []Position, o Options, open func(name string) (io.ReadCloser, error), fn func(p Position, d *doc.Doc) error, missing func(p Position, why error)) error {
	ps := slices.Clone(positions)
	slices.SortFunc(ps, func(a, b Position) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Offset, b.Offset))
	})
	ps = slices.Compact(ps)
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].File == ps[i].File {
			j++
		}
		if err := atFile(ps[i:j], o, open, fn, missing); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// atFile is At for the positions of one file.
func atFile(ps []Position, o Options, open func(name string) (io.ReadCloser, error), fn func(p Position, d *doc.Doc) error, missing func(p Position, why error)) error {
	name := ps[0].File
	lose := func(why error) {
		for _, p := range ps {
			missing(p, why)
		}
	}
	switch {
	case len(ps) == 1 && ps[0].Offset == 0 && !strings.Contains(name, "://") && (HasExt(name, htmlExts) || HasExt(name, textExts)):
		// A page of a tree: the file is the record.
		d, _, err := ReadTreeDoc(TreeFile{Root: filepath.Dir(name), Rel: filepath.Base(name)})
		if err != nil {
			lose(err)
			return nil
		}
		d.Source = name
		return fn(ps[0], &d)
	case containerOf(name) != nil:
		return atContainer(ps, o, fn, missing)
	}
	rc, err := open(name)
	if err != nil {
		lose(err)
		return nil
	}
	defer rc.Close()
	gz := strings.HasSuffix(strings.ToLower(name), ".gz")
	seeker, _ := rc.(io.Seeker)
	var r io.Reader = rc
	if gz {
		zr, err := gzip.NewReader(bufio.NewReaderSize(rc, 1<<16))
		if err != nil {
			lose(fmt.Errorf("%s: %w", name, err))
			return nil
		}
		r, seeker = zr, nil
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var at int64 // br's position in the stream
	for _, p := range ps {
		switch {
		case seeker != nil:
			if _, err := seeker.Seek(p.Offset, io.SeekStart); err != nil {
				missing(p, fmt.Errorf("%s: %w", name, err))
				continue
			}
			br.Reset(r)
		case p.Offset < at:
			missing(p, fmt.Errorf("%s holds no record at byte %d (inside the record before it)", name, p.Offset))
			continue
		default:
			n, err := br.Discard(int(p.Offset - at))
			at += int64(n)
			if err != nil {
				missing(p, fmt.Errorf("%s holds no record at byte %d: %w", name, p.Offset, err))
				continue
			}
		}
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long := slices.Clone(line) // ReadSlice's next call overwrites line
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		at += int64(len(line))
		if err != nil && (err != io.EOF || len(line) == 0) {
			missing(p, fmt.Errorf("%s holds no record at byte %d: %v", name, p.Offset, err))
			continue
		}
		d, err := doc.ParseJSONSite(line, o.Fields.Site)
		if err != nil {
			missing(p, fmt.Errorf("%s@%d: %w", name, p.Offset, err))
			continue
		}
		if err := fn(p, &d); err != nil {
			return err
		}
	}
	return nil
}

// atContainer renders a container file as JSON Lines (Lines, as the parse
// job reads it) up to its last position.
func atContainer(ps []Position, o Options, fn func(p Position, d *doc.Doc) error, missing func(p Position, why error)) error {
	src, err := OpenContainer(ps[0].File, o)
	if err != nil {
		for _, p := range ps {
			missing(p, err)
		}
		return nil
	}
	defer src.Close()
	var off int64
	var line []byte
	for len(ps) > 0 && src.Next() {
		d := src.Doc()
		line = doc.AppendJSON(line[:0], d)
		for len(ps) > 0 && ps[0].Offset < off {
			missing(ps[0], fmt.Errorf("%s holds no record at byte %d of its JSON Lines rendering", ps[0].File, ps[0].Offset))
			ps = ps[1:]
		}
		if len(ps) > 0 && ps[0].Offset == off {
			if err := fn(ps[0], d); err != nil {
				return err
			}
			ps = ps[1:]
		}
		off += int64(len(line)) + 1
	}
	for _, p := range ps {
		why := src.Err()
		if why == nil {
			why = fmt.Errorf("%s holds no record at byte %d of its JSON Lines rendering", p.File, p.Offset)
		}
		missing(p, why)
	}
	return nil
}
