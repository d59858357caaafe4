package htmltext

import (
	"bytes"
	"html"
	"net/url"
	"strings"

	"golang.org/x/net/html/atom"
)

// pageURL collects the URLs a page states for itself.
type pageURL struct {
	canonical, og, base string
}

// tag looks at a <link>, <meta> or <base> start tag.
func (p *pageURL) tag(a atom.Atom, raw []byte) {
	switch a {
	case atom.Link:
		if p.canonical != "" {
			return
		}
		if rel, ok := attr(raw, "rel"); ok && hasToken(rel, "canonical") {
			p.canonical = attrURL(raw, "href")
		}
	case atom.Meta:
		if p.og != "" {
			return
		}
		prop, ok := attr(raw, "property")
		if !ok {
			prop, ok = attr(raw, "name")
		}
		if ok && strings.EqualFold(string(bytes.TrimSpace(prop)), "og:url") {
			p.og = attrURL(raw, "content")
		}
	case atom.Base:
		if p.base == "" {
			p.base = attrURL(raw, "href")
		}
	}
}

// best is the canonical link, else og:url, else the base URL.
func (p *pageURL) best() string {
	switch {
	case p.canonical != "":
		return p.canonical
	case p.og != "":
		return p.og
	}
	return p.base
}

// attrURL returns the value of attribute name of raw when it is an absolute
// http or https URL with a host (entities decoded), else "".
func attrURL(raw []byte, name string) string {
	v, ok := attr(raw, name)
	if !ok {
		return ""
	}
	s := strings.TrimSpace(html.UnescapeString(string(v)))
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return s
}

// hasToken reports whether the space-separated list v holds tok, ignoring
// case.
func hasToken(v []byte, tok string) bool {
	for _, f := range bytes.Fields(v) {
		if strings.EqualFold(string(f), tok) {
			return true
		}
	}
	return false
}
