package mr

import (
	"errors"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"a\tb\nc\rd\\e", `a\tb\nc\rd\\e`},
		{"\\t", `\\t`},
		{"\xff\x00", "\xff\x00"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := string(AppendEscape([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendEscape(%q) = %q", tt.in, got)
		}
		back, err := Unescape(tt.want)
		if err != nil || back != tt.in {
			t.Errorf("Unescape(%q) = %q, %v; want %q", tt.want, back, err, tt.in)
		}
	}
}

func TestUnescapeErrors(t *testing.T) {
	for _, in := range []string{`a\`, `\x`, `\`, "a\tb", "a\nb", "a\rb", `\\\`} {
		if got, err := Unescape(in); !errors.Is(err, ErrBadEscape) {
			t.Errorf("Unescape(%q) = %q, %v; want ErrBadEscape", in, got, err)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("a\tb\\n")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if hasNewline(e) || needsTab(e) {
			t.Fatalf("Escape(%q) = %q holds a raw TAB/LF/CR", s, e)
		}
		back, err := Unescape(e)
		if err != nil || back != s {
			t.Fatalf("round trip %q -> %q -> %q, %v", s, e, back, err)
		}
	})
}

func FuzzUnescape(f *testing.F) {
	f.Add(`a\tb\\`)
	f.Add(`\q`)
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Unescape(s)
		if err != nil {
			return
		}
		if e := Escape(u); e != s {
			t.Fatalf("Escape(Unescape(%q)) = %q", s, e)
		}
	})
}

func needsTab(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\t' {
			return true
		}
	}
	return false
}
