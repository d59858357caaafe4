package htmltext

import "golang.org/x/net/html/atom"

// Links: the link text of a page (Result.Links) and what makes an <a> a
// link.

// addLink records the text just emitted (after a separator of sep bytes at
// before) as link text, extending the last range across a space.
func (e *extractor) addLink(before, sep int) {
	start := before + sep
	if n := len(e.links); n > 0 && e.links[n-1].End == before && sep <= 1 {
		e.links[n-1].End = len(e.out)
		return
	}
	e.links = append(e.links, Range{Start: start, End: len(e.out)})
}

// isHeading tells whether a is a heading element, h1 to h6.
func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// hasHref reports whether the raw start tag of an <a> element has a
// non-empty href attribute (anchors without one, <a name=...>, are not
// links), and whether it links within the page (href="#..."): a one-page
// manual's navigation lines, table of contents and index are such links.
// It looks for "href" followed by optional spaces and '=', outside quoted
// values.
func hasHref(raw []byte) (href, inPage bool) {
	var quote byte
	for i := 2; i < len(raw); i++ {
		c := raw[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case (c == 'h' || c == 'H') && i+4 <= len(raw) && asciiEqualFold(raw[i:i+4], "href") && isSpaceOrTagStart(raw[i-1]):
			j := i + 4
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r' || raw[j] == '\f') {
				j++
			}
			if j < len(raw) && raw[j] == '=' {
				for j++; j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r' || raw[j] == '\f' || raw[j] == '"' || raw[j] == '\''); j++ {
				}
				if j >= len(raw) || raw[j] == '>' {
					return false, false
				}
				return true, raw[j] == '#'
			}
		}
	}
	return false, false
}

func isSpaceOrTagStart(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '"' || c == '\''
}

func asciiEqualFold(b []byte, lower string) bool {
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
