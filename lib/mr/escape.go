package mr

import (
	"errors"
	"fmt"
	"strings"
)

// Escapes remembers the escaped form of the ids it is given, for code
// that compares the same ids in escaped order many times.
type Escapes map[string]string

// Of returns Escape(id), computed once per id.
func (e Escapes) Of(id string) string {
	s, ok := e[id]
	if !ok {
		s = Escape(id)
		e[id] = s
	}
	return s
}

// Escape returns s with the bytes that may not appear in a field escaped:
// backslash as `\\`, TAB as `\t`, LF as `\n` and CR as `\r`. Other bytes,
// including invalid UTF-8, are kept as they are.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	return string(AppendEscape(make([]byte, 0, len(s)+8), s))
}

// AppendEscape appends Escape(s) to dst and returns the extended slice.
func AppendEscape(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '\t', '\n', '\r':
			return true
		}
	}
	return false
}

// ErrBadEscape reports a field that is not a valid escaped string: a
// dangling backslash, an unknown escape, or a raw TAB, LF or CR.
var ErrBadEscape = errors.New("bad escape")

// Unescape reverses Escape. It fails with an error wrapping ErrBadEscape on a
// dangling backslash, an unknown escape sequence or a raw TAB, LF or CR.
func Unescape(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 && !strings.ContainsAny(s, "\t\n\r") {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\t', '\n', '\r':
			return "", fmt.Errorf("unescape: raw %q at byte %d: %w", c, i, ErrBadEscape)
		case '\\':
		default:
			b = append(b, c)
			continue
		}
		if i+1 == len(s) {
			return "", fmt.Errorf("unescape: dangling backslash: %w", ErrBadEscape)
		}
		i++
		switch s[i] {
		case '\\':
			b = append(b, '\\')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		default:
			return "", fmt.Errorf("unescape: unknown escape %q at byte %d: %w", s[i-1:i+1], i-1, ErrBadEscape)
		}
	}
	return string(b), nil
}
