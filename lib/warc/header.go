package warc

import (
	"bytes"
	"strings"
)

// Field is one WARC named field.
type Field struct {
	Name, Value string
}

// Header holds the named fields of a WARC record in file order. Names may
// repeat (WARC-Concurrent-To); lookups are case-insensitive.
type Header []Field

// Get returns the value of the first field named name (case-insensitive), or
// "" if there is none.
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Values returns the values of all fields named name, in file order.
func (h Header) Values(name string) []string {
	var vs []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// parseHeaderLines parses the named-field lines of a record header (the
// lines after the version line, without the blank line ending the header).
// Lines starting with space or tab continue the previous value (WARC/1.0
// folding). Lines without a colon are dropped and counted in bad.
func parseHeaderLines(lines [][]byte) (h Header, bad int) {
	for _, line := range lines {
		line = trimEOL(line)
		if len(line) == 0 {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(h) > 0 {
			last := &h[len(h)-1]
			cont := strings.TrimSpace(string(line))
			if cont != "" {
				last.Value = strings.TrimSpace(last.Value + " " + cont)
			}
			continue
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			bad++
			continue
		}
		name := strings.TrimSpace(string(line[:i]))
		if name == "" {
			bad++
			continue
		}
		h = append(h, Field{Name: name, Value: strings.TrimSpace(string(line[i+1:]))})
	}
	return h, bad
}

// trimEOL removes a trailing "\n" or "\r\n" (and any run of CRs before it).
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimRight(line, "\r")
}

// stripAngle removes one pair of enclosing angle brackets, as in
// "<urn:uuid:...>".
func stripAngle(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		return strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}
