package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Looks says in a few words what a local file looks like from its first
// bytes, for an error about a file none of whose records could be read:
// "empty", "gzip-compressed data", "binary data (starts 8f 3a 11 c4)",
// "HTML or XML (starts "<!DOCTYPE html>")", "a JSON array", "text that is not JSON
// (starts "id,url,text")" or "JSON Lines"; "" when the file cannot be
// read.
func Looks(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return ""
	}
	return looks(head[:n])
}

func looks(head []byte) string {
	quote := func(b []byte) string {
		s := string(b)
		if i := strings.IndexAny(s, "\r\n"); i >= 0 {
			s = s[:i]
		}
		if utf8.RuneCountInString(s) > 40 {
			s = string([]rune(s)[:40]) + "…"
		}
		return fmt.Sprintf("%q", s)
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case len(head) == 0:
		return "empty"
	case len(trimmed) == 0:
		return "blank (white space only)"
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip-compressed data"
	case bytes.HasPrefix(head, []byte("PAR1")):
		return "a Parquet file"
	case bytes.HasPrefix(head, []byte("Obj\x01")):
		return "an Avro file"
	case bytes.HasPrefix(head, []byte("WARC/")):
		return "a WARC file"
	case bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head[:lastRuneStart(head)]):
		return fmt.Sprintf("binary data (starts % x)", head[:min(4, len(head))])
	case trimmed[0] == '<':
		return "HTML or XML (starts " + quote(trimmed) + ")"
	case trimmed[0] == '{':
		return "JSON Lines"
	case trimmed[0] == '[':
		return "a JSON array"
	}
	return "text that is not JSON (starts " + quote(trimmed) + ")"
}

// lastRuneStart is where the last, possibly cut, rune of b starts.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return len(b)
}
