package index

import (
	"bytes"
	"strconv"
	"strings"
)

// Boilerplate is a B or T record of the index output (see the package
// comment): a posting list over PDC_MAX_DF, or a site's template postings.
type Boilerplate struct {
	Sig      string
	Template bool  // a T record (else B)
	DF       int64 // B: the list's length; T: the site's documents
	// The example posting: its document, sentence index (without the
	// zero padding) and character range, as written.
	Doc, Sentence, CharStart, CharEnd string
}

// ParseBoilerplate parses line if it is a B or T record; posting lists (P
// records, most of the bytes) are rejected at the third byte.
func ParseBoilerplate(line []byte) (Boilerplate, bool) {
	i := bytes.IndexByte(line, '\t')
	if i < 0 || i+2 >= len(line) || (line[i+1] != 'B' && line[i+1] != 'T') || line[i+2] != '\t' {
		return Boilerplate{}, false
	}
	f := strings.SplitN(string(line), "\t", 5)
	if len(f) != 4 {
		return Boilerplate{}, false
	}
	df, _ := strconv.ParseInt(f[2], 10, 64)
	pf := strings.SplitN(f[3], ",", 6)
	if len(pf) != 6 {
		return Boilerplate{}, false
	}
	sent := strings.TrimLeft(pf[0], "0")
	if sent == "" {
		sent = "0"
	}
	return Boilerplate{Sig: f[0], Template: f[1] == "T", DF: df, Doc: pf[5], Sentence: sent, CharStart: pf[2], CharEnd: pf[3]}, true
}
