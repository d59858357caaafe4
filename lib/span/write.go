package span

import "encoding/json"

// TSVHeader is the header line (without its line end) that names the
// columns of the tsv format, passages included with text: "#" then the
// JSON field names.
func TSVHeader(withText bool) string {
	h := "#doc_a\tdoc_b\tstart_a\tstart_b\tlength\tchar_start_a\tchar_end_a\tchar_start_b\tchar_end_b\tscore"
	if withText {
		h += "\ttext_a\ttext_b"
	}
	return h
}

// ParseJSON parses one span of the jsonl format.
func ParseJSON(line []byte) (Span, error) {
	var s Span
	err := json.Unmarshal(line, &s)
	return s, err
}
