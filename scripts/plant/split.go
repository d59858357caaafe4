package plant

import (
	"strings"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// sent is a sentence as a half-open range of rune offsets into a document.
type sent struct{ lo, hi int }

// split returns the sentences of text with lib/sentence's rules, the ones
// pdc itself uses, so planted runs start and end at boundaries pdc sees.
func split(text []rune) []sent {
	spans := sentence.Split(nil, string(text))
	out := make([]sent, len(spans))
	for i, s := range spans {
		out[i] = sent{s.Start, s.End}
	}
	return out
}

func isCloser(r rune) bool {
	return strings.ContainsRune(`"')]»”’」』）】`, r)
}

// terminated reports whether a sentence ends with sentence-final
// punctuation (possibly followed by closers). Runs are only copied from
// terminated sentences, so that a planted run never runs on into the text
// that follows it.
func terminated(s []rune) bool {
	i := len(s)
	for i > 0 && isCloser(s[i-1]) {
		i--
	}
	return i > 0 && strings.ContainsRune(".!?…。！？；｡", s[i-1])
}
