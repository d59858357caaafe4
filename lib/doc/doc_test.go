package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSON(t *testing.T) {
	tests := []struct {
		line string
		want Doc
		err  error
	}{
		{`{"id":"a","url":"http://x/","html":"<p>hi</p>"}`, Doc{ID: "a", URL: "http://x/", HTML: "<p>hi</p>", IsHTML: true, ValidUTF8: true}, nil},
		{`{"id":42,"text":"Plain."}`, Doc{ID: "42", Text: "Plain.", ValidUTF8: true}, nil},
		{`{"id":"b","html":"<p>h</p>","text":"t"}`, Doc{ID: "b", HTML: "<p>h</p>", IsHTML: true, ValidUTF8: true}, nil},
		{`{"id":"c","text":""}`, Doc{ID: "c", ValidUTF8: true}, nil},
		{"{\"id\":\"g\",\"text\":\"a\xffb\"}", Doc{ID: "g", Text: "a\ufffdb", ValidUTF8: true}, nil}, // encoding/json's replacement
		{`{"id":"","text":"x"}`, Doc{}, ErrNoID},
		{`{"text":"x"}`, Doc{}, ErrNoID},
		{`{"id":null,"text":"x"}`, Doc{}, ErrNoID},
		{`{"id":[1],"text":"x"}`, Doc{}, ErrNoID},
		{`{"id":"d"}`, Doc{ID: "d"}, ErrNoBody},
		{`{"id":"e","text":`, Doc{}, ErrBadJSON},
		{`not json`, Doc{}, ErrBadJSON},
		{`{"id":"f","text":5}`, Doc{}, ErrBadJSON},
	}
	for _, tt := range tests {
		got, err := ParseJSON([]byte(tt.line))
		if !errors.Is(err, tt.err) {
			t.Errorf("ParseJSON(%s) error = %v, want %v", tt.line, err, tt.err)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseJSON(%s) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, d := range []Doc{
		{ID: "a\tb", URL: "u", HTML: "<p>x & y</p>", IsHTML: true},
		{ID: "7", Text: "line\nbreak \"quoted\" 中文"},
		{ID: "empty", IsHTML: true},
		{ID: "empty-text"},
	} {
		got, err := ParseJSON(AppendJSON(nil, &d))
		d.ValidUTF8 = true
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("round trip of %+v = %+v, %v", d, got, err)
		}
	}
}

// encodingJSON is what AppendJSON must write: encoding/json's record
// without HTML escaping.
func encodingJSON(d *Doc) []byte {
	j := struct {
		ID   string  `json:"id"`
		URL  string  `json:"url,omitempty"`
		HTML *string `json:"html,omitempty"`
		Text *string `json:"text,omitempty"`
	}{ID: d.ID, URL: d.URL}
	if d.IsHTML {
		j.HTML = &d.HTML
	} else {
		j.Text = &d.Text
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

func TestAppendJSON(t *testing.T) {
	for _, d := range []Doc{
		{ID: "a\tb", URL: "u", HTML: "<p>x & y</p>", IsHTML: true},
		{ID: "7", Text: "line\nbreak \"quoted\" \\ 中文 \b\f\r\x00\x1f\x7f"},
		{ID: "bad \xff\xfe utf-8 \xe2\x80", Text: "sep\u2028para\u2029end"},
		{ID: "empty", IsHTML: true},
		{ID: "empty-text"},
		{ID: "long", HTML: "0123456789abcdef\"0123456789\x01abcdefé0123456789", IsHTML: true},
	} {
		if got, want := AppendJSON([]byte("x"), &d), append([]byte("x"), encodingJSON(&d)...); !bytes.Equal(got, want) {
			t.Errorf("AppendJSON(%+v) =\n%s\nwant\n%s", d, got, want)
		}
	}
}

// FuzzAppendJSON: AppendJSON writes what encoding/json writes.
func FuzzAppendJSON(f *testing.F) {
	f.Add("id", "http://x/", "<p>a \"b\" \\ \u2028 \xff</p>", true)
	f.Add("", "", "\x00\x1f\t\n text", false)
	f.Fuzz(func(t *testing.T, id, url, body string, isHTML bool) {
		d := Doc{ID: id, URL: url, IsHTML: isHTML}
		if isHTML {
			d.HTML = body
		} else {
			d.Text = body
		}
		if got, want := AppendJSON(nil, &d), encodingJSON(&d); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON(%+v) =\n%q\nwant\n%q", d, got, want)
		}
	})
}

func TestBlobRoundTrip(t *testing.T) {
	in := []Sentence{
		{Start: 0, End: 12, Tokens: []uint64{1, 2, 1<<64 - 1}},
		{Start: 14, End: 300, Tokens: []uint64{42}},
		{Start: 1 << 30, End: 1<<30 + 5, Tokens: []uint64{7, 7}},
	}
	blob, _ := AppendBlob([]byte("prefix:"), nil, in)
	got, _, _, err := DecodeBlob(blob[len("prefix:"):], nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("got %+v, want %+v", got, in)
	}
	for _, bad := range []string{"!!!", "AQ", "////////"} {
		if _, _, _, err := DecodeBlob([]byte(bad), nil, nil, nil); !errors.Is(err, ErrBadBlob) {
			t.Errorf("DecodeBlob(%q) = %v, want ErrBadBlob", bad, err)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"id":"a","html":"<p>x</p>"}`, `{"id":1,"text":"t"}`, `{`, `[]`, `{"id":"\u0000","url":7}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d, err := ParseJSON(line)
		if err != nil {
			return
		}
		if d.ID == "" {
			t.Fatal("accepted an empty id")
		}
		if !utf8.ValidString(d.Body()) {
			t.Fatal("body is not valid UTF-8")
		}
		again, err := ParseJSON(AppendJSON(nil, &d))
		if err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("re-encoding %+v gave %+v, %v", d, again, err)
		}
	})
}

func FuzzDecodeBlob(f *testing.F) {
	blob, _ := AppendBlob(nil, nil, []Sentence{{Start: 1, End: 4, Tokens: []uint64{9}}})
	f.Add(blob)
	f.Add([]byte("AAAA"))
	f.Fuzz(func(t *testing.T, b []byte) {
		sents, _, _, err := DecodeBlob(b, nil, nil, nil)
		if err != nil {
			return
		}
		again, _ := AppendBlob(nil, nil, sents)
		sents2, _, _, err := DecodeBlob(again, nil, nil, nil)
		noTokens := func(ss []Sentence) { // no tokens: nil or empty, as the buffer was
			for i := range ss {
				if len(ss[i].Tokens) == 0 {
					ss[i].Tokens = nil
				}
			}
		}
		noTokens(sents)
		noTokens(sents2)
		if err != nil || !reflect.DeepEqual(sents, sents2) {
			t.Fatalf("re-encoding changed the sentences: %+v, then %+v", sents, sents2)
		}
	})
}

// TestParser: a Parser reused from record to record gives each record's
// document as ParseJSON does, bodies with and without escapes, both bodies
// of one record, and the encoding/json fallback.
func TestParser(t *testing.T) {
	lines := []string{
		`{"id":"a","url":"https://x/\u00e9","html":"<p>caf\u00e9 \"quoted\"</p>\n"}`,
		`{"id":"b","html":"<p>plain</p>"}`,
		`{"id":"c","html":"<b>\t1</b>","text":"two\\lines\n"}`,
		`{"id":"d","Text":"case-folded key: encoding/json"}`,
		`{"id":"e","text":"last \u263a"}`,
	}
	var p Parser
	for _, l := range lines {
		want, werr := ParseJSON([]byte(l))
		got, err := p.Parse([]byte(l))
		if got != want || (err == nil) != (werr == nil) {
			t.Errorf("Parse(%s) = %+v, %v; want %+v, %v", l, got, err, want, werr)
		}
	}
}

// FuzzParseFast: the fast parser agrees with encoding/json whenever it
// accepts a record.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{`{"id":"a","html":"<p>x\u00e9\ud83d\ude00</p>"}`, `{"id":1.5e3,"text":"t","x":[1,{"a":null}]}`,
		`{"ID":"a","text":"t"}`, `{"id":"a","text":"\u0000"}`, ` {"id" : "b" , "url":null, "text":"x\/y"} `, `{"id":01,"text":"t"}`, `{"id":"s","site":"docs","text":"t"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fast, ok := parseFast(line, nil, "")
		if !ok {
			return
		}
		var slow jsonDoc
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("fast parser accepted what encoding/json rejects (%v): %q", err, line)
		}
		if string(fast.ID) != string(bytes.TrimSpace(slow.ID)) || !eqPtr(fast.URL, slow.URL) || !eqPtr(fast.HTML, slow.HTML) || !eqPtr(fast.Text, slow.Text) || !eqPtr(fast.Site, slow.Site) || !eqPtr(fast.Src, slow.Src) {
			t.Fatalf("fast %+v vs encoding/json %+v for %q", fast, slow, line)
		}
		body := []byte("left over from the last record")[:3]
		borrowed, ok := parseFast(line, &body, "")
		if !ok || string(borrowed.ID) != string(fast.ID) || !eqPtr(borrowed.URL, fast.URL) || !eqPtr(borrowed.HTML, fast.HTML) || !eqPtr(borrowed.Text, fast.Text) {
			t.Fatalf("borrowing %+v (ok %v) vs copying %+v for %q", borrowed, ok, fast, line)
		}
	})
}

func eqPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// TestPlainRun checks the word-at-a-time scan against the byte loop, with
// every special byte at every position of a 20-byte run.
func TestPlainRun(t *testing.T) {
	naive := func(b []byte) int {
		for i, c := range b {
			if c < 0x20 || c == '"' || c == '\\' {
				return i
			}
		}
		return len(b)
	}
	fill := []byte("aé\x7f\x80\xff!#[]~ ")
	for _, sp := range []byte{'"', '\\', 0, '\n', 0x1f} {
		for pos := 0; pos <= 20; pos++ {
			for shift := range fill {
				b := make([]byte, 20)
				for i := range b {
					b[i] = fill[(i+shift)%len(fill)]
				}
				if pos < len(b) {
					b[pos] = sp
					if pos+1 < len(b) {
						b[pos+1] = sp // a second one right after must not matter
					}
				}
				if got, want := plainRun(b), naive(b); got != want {
					t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// TestSite: the site comes from "site", or from Parser.SiteField when the
// record has it, in the fast parser and in encoding/json's fallback
// (taken for a record the fast parser does not accept); AppendJSON writes
// it back.
func TestSite(t *testing.T) {
	tests := []struct {
		line, field, want string
	}{
		{`{"id":"a","site":"docs.example","text":"t"}`, "", "docs.example"},
		{`{"id":"a","text":"t"}`, "", ""},
		{`{"id":"a","site":null,"text":"t"}`, "", ""},
		{`{"id":"a","host":"h1","site":"s","text":"t"}`, "host", "h1"},
		{`{"id":"a","site":"s","text":"t"}`, "host", "s"},
		{`{"id":"a","host":"h1","text":"t\u0000"}`, "host", "h1"},     // fallback: a control character
		{`{"ID2":"x","id":"a","host":"h2","text":"t"}`, "host", "h2"}, // fallback: an upper-case key
		{`{"id":"a","Host":"h3","text":"t"}`, "Host", "h3"},           // a field name with capitals
		{`{"id":"a","":"empty key","text":"t"}`, "", ""},
	}
	for _, tt := range tests {
		p := Parser{SiteField: tt.field}
		d, err := p.Parse([]byte(tt.line))
		if err != nil || d.Site != tt.want {
			t.Errorf("Parse(%s) with SiteField %q: site %q, %v; want %q", tt.line, tt.field, d.Site, err, tt.want)
			continue
		}
		back, err := ParseJSON(AppendJSON(nil, &d))
		if err != nil || back.Site != d.Site {
			t.Errorf("round trip of %s: site %q, %v", tt.line, back.Site, err)
		}
	}
}

func TestAppendJSONKeeping(t *testing.T) {
	d := &Doc{ID: "a", URL: "http://x/a", Text: "new text"}
	for _, tc := range []struct {
		name, raw, want string
	}{
		{"other fields kept in order", `{"date":"2020-01-01","id":"a","text":"old","lang":"en","meta":{"k":[1,2]}}`,
			`{"id":"a","url":"http://x/a","text":"new text","date":"2020-01-01","lang":"en","meta":{"k":[1,2]}}`},
		{"html becomes text", `{"id":"a","html":"<p>old</p>","pdc_source":"t/a.html","n":3}`,
			`{"id":"a","url":"http://x/a","text":"new text","n":3}`},
		{"site kept when the document has none", `{"id":"a","site":"s1","text":"old"}`,
			`{"id":"a","url":"http://x/a","text":"new text","site":"s1"}`},
		{"a repeated key once", `{"id":"a","x":1,"x":2,"text":"t"}`, `{"id":"a","url":"http://x/a","text":"new text","x":1}`},
		{"keys escaped", `{"id":"a","a\"b":true,"text":"t"}`, `{"id":"a","url":"http://x/a","text":"new text","a\"b":true}`},
		{"no record", ``, `{"id":"a","url":"http://x/a","text":"new text"}`},
		{"not an object", `[1,2]`, `{"id":"a","url":"http://x/a","text":"new text"}`},
		{"cut short", `{"id":"a","x":1,"y":`, `{"id":"a","url":"http://x/a","text":"new text","x":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(AppendJSONKeeping(nil, d, []byte(tc.raw))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// FuzzAppendJSONKeeping checks that the record written is JSON, holds the
// document, and every other field of a record that is a JSON object.
func FuzzAppendJSONKeeping(f *testing.F) {
	f.Add(`{"date":"2020-01-01","id":"a","text":"old","lang":"en"}`, "new")
	f.Add(`{"id":1,"html":"<p>x</p>","a":null,"b":[{}]}`, "")
	f.Fuzz(func(t *testing.T, raw, text string) {
		d := &Doc{ID: "a", Text: text}
		out := AppendJSONKeeping(nil, d, []byte(raw))
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s -> not JSON: %s (%v)", raw, out, err)
		}
		var want string // text as encoding/json writes it (invalid UTF-8 replaced)
		b, _ := json.Marshal(text)
		json.Unmarshal(b, &want)
		back, err := ParseJSON(out)
		if err != nil || back.ID != "a" || back.Text != want {
			t.Fatalf("%s -> %s: %+v %v", raw, out, back, err)
		}
		var in map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &in) != nil {
			return
		}
		kept := map[string]bool{} // output keys, lower case
		for k := range got {
			kept[strings.ToLower(k)] = true
		}
		for k := range in {
			switch strings.ToLower(k) {
			case "id", "url", "html", "text", "pdc_source", "site":
				continue // stood for by the document, or read back as it
			}
			if !kept[strings.ToLower(k)] {
				t.Fatalf("%s -> %s: field %q lost", raw, out, k)
			}
		}
	})
}

// TestSkipReason: each error of ParseJSON names its reason, wrapped or not.
func TestSkipReason(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{ErrBadJSON, "bad-json"},
		{fmt.Errorf("line 3: %w", ErrNoID), "no-id"},
		{ErrNoBody, "no-body"},
		{errors.New("something else"), "bad-record"},
	} {
		if got := SkipReason(tt.err); got != tt.want {
			t.Errorf("SkipReason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	var p Parser
	for _, tt := range []struct{ line, want string }{
		{`{"id":`, "bad-json"},
		{`{"text":"a b c"}`, "no-id"},
		{`{"id":"x"}`, "no-body"},
	} {
		_, err := p.Parse([]byte(tt.line))
		if got := SkipReason(err); got != tt.want {
			t.Errorf("%s: SkipReason(%v) = %q, want %q", tt.line, err, got, tt.want)
		}
	}
}
