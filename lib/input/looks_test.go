package input

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLooks(t *testing.T) {
	for _, tt := range []struct {
		head string
		want string
	}{
		{"", "empty"},
		{" \n\n", "blank (white space only)"},
		{"\x1f\x8b\x08\x00rest", "gzip-compressed data"},
		{"PAR1\x15\x04", "a Parquet file"},
		{"Obj\x01\x04\x14avro", "an Avro file"},
		{"WARC/1.0\r\nWARC-Type: warcinfo", "a WARC file"},
		{"\x8f\x3a\x11\xc4\xff\x00", "binary data (starts 8f 3a 11 c4)"},
		{"\xff\xfe<\x00h\x00", "binary data (starts ff fe 3c 00)"},
		{"<!DOCTYPE html>\n<html>", `HTML or XML (starts "<!DOCTYPE html>")`},
		{"\n{\"id\": \"a\"}\n", "JSON Lines"},
		{"[{\"id\": \"a\"},\n", "a JSON array"},
		{"id,url,text\n1,x,y", `text that is not JSON (starts "id,url,text")`},
		{"中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文", `text that is not JSON (starts "中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文…")`},
		{"abc\xe4\xb8", `text that is not JSON (starts "abc\xe4\xb8")`}, // a rune cut at the end of the head
	} {
		if got := looks([]byte(tt.head)); got != tt.want {
			t.Errorf("looks(%q) = %s, want %s", tt.head, got, tt.want)
		}
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("<p>x</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Looks(p); got != `HTML or XML (starts "<p>x</p>")` {
		t.Errorf("Looks(file) = %s", got)
	}
	if got := Looks(p + ".missing"); got != "" {
		t.Errorf("Looks(missing) = %q", got)
	}
}

func FuzzLooks(f *testing.F) {
	f.Add([]byte("{}"))
	f.Add([]byte("\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if looks(b) == "" {
			t.Errorf("looks(%q) is empty", b)
		}
	})
}
