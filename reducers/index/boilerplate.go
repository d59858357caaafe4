package index

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/boilerplate"
)

// ParseBoilerplate parses line if it is a B or T record (see the package
// comment) as a row of OUT/boilerplate.tsv (lib/boilerplate): kind max-df
// for B, site-template for T, and the example posting's document, sentence
// and character range. Posting lists (P records, most of the bytes) are
// rejected at the third byte.
func ParseBoilerplate(line []byte) (boilerplate.Row, bool) {
	i := bytes.IndexByte(line, '\t')
	if i < 0 || i+2 >= len(line) || (line[i+1] != 'B' && line[i+1] != 'T') || line[i+2] != '\t' {
		return boilerplate.Row{}, false
	}
	f := strings.SplitN(string(line), "\t", 5)
	if len(f) != 4 {
		return boilerplate.Row{}, false
	}
	pf := strings.SplitN(f[3], ",", 6)
	if len(pf) != 6 {
		return boilerplate.Row{}, false
	}
	row := boilerplate.Row{Kind: boilerplate.MaxDF, Signature: f[0], Doc: pf[5], Sentences: 1}
	if f[1] == "T" {
		row.Kind = boilerplate.SiteTemplate
	}
	row.DF, _ = strconv.ParseInt(f[2], 10, 64)
	row.Sentence, _ = strconv.Atoi(pf[0])
	row.CharStart, _ = strconv.Atoi(pf[2])
	row.CharEnd, _ = strconv.Atoi(pf[3])
	return row, true
}
