package avroio

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// writeAvro writes records in a container file of the given schema.
func writeAvro(t testing.TB, schema string, records ...map[string]any) []byte {
	t.Helper()
	codec, err := goavro.NewCodec(schema)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := newOCFWriter(&buf, codec)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]any, len(records))
	for i, r := range records {
		recs[i] = r
	}
	if err := w.Append(recs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// siteSchema has a nullable host, a bytes tld and a site field.
const siteSchema = `{"type": "record", "name": "Page", "fields": [
 {"name": "id", "type": "string"},
 {"name": "text", "type": "string"},
 {"name": "host", "type": ["null", "string"]},
 {"name": "tld", "type": "bytes"},
 {"name": "site", "type": "string"},
 {"name": "crawl", "type": "long"}]}`

var siteRecords = []map[string]any{
	{"id": "1", "text": "a", "host": goavro.Union("string", "example.com"), "tld": []byte("com"), "site": "s1", "crawl": int64(1)},
	{"id": "2", "text": "b", "host": nil, "tld": []byte(""), "site": "s2", "crawl": int64(2)},
	{"id": "3", "text": "c", "host": goavro.Union("string", "例え.jp"), "tld": []byte("jp"), "site": "s3", "crawl": int64(3)},
}

// readSites reads the ids and sites of the documents of data.
func readSites(t *testing.T, data []byte, f DocFields) ([][2]string, map[string]int64) {
	t.Helper()
	r, err := NewDocReader(bytes.NewReader(data), f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for r.Next() {
		id, _, _, _ := r.Doc()
		out = append(out, [2]string{id, r.Site()})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out, r.Skipped()
}

func TestDocSite(t *testing.T) {
	data := writeAvro(t, siteSchema, siteRecords...)
	tests := []struct {
		name      string
		f         DocFields
		want      [][2]string
		wrongType int64
	}{
		{"nullable string", DocFields{Site: "host"}, [][2]string{{"1", "example.com"}, {"2", ""}, {"3", "例え.jp"}}, 0},
		{"bytes", DocFields{Site: "tld"}, [][2]string{{"1", "com"}, {"2", ""}, {"3", "jp"}}, 0},
		{"not configured", DocFields{}, [][2]string{{"1", ""}, {"2", ""}, {"3", ""}}, 0},
		{"long", DocFields{Site: "crawl"}, nil, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped := readSites(t, data, tc.f)
			if !reflect.DeepEqual(got, tc.want) || skipped[SkipWrongType] != tc.wrongType {
				t.Errorf("got %q skipped %v, want %q", got, skipped, tc.want)
			}
		})
	}
}

func TestDocSiteMissing(t *testing.T) {
	data := writeAvro(t, siteSchema, siteRecords...)
	tests := []struct {
		name string
		f    DocFields
		want string
	}{
		{"no site field", DocFields{Site: "domain"},
			`no site field "domain"; the record has fields id, text, host, tld, site, crawl`},
		{"no id field first", DocFields{ID: "doc_id", Site: "domain"}, `no id field "doc_id"; the record has fields id,`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDocReader(bytes.NewReader(data), tc.f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
