package htmltext

import "golang.org/x/net/html/atom"

// tagClass says how an element affects the extracted text.
type tagClass uint8

const (
	classInline  tagClass = iota // text flows through (a, span, b, unknown tags)
	classBlock                   // start and end tags end the current block
	classPre                     // block whose line breaks are block breaks
	classSkip                    // element and content invisible
	classSkipRaw                 // invisible raw-text element (tokenizer reads to its end tag)
)

// classOf returns the class of the element with atom a (0 for unknown
// names, which are inline).
func classOf(a atom.Atom) tagClass {
	switch a {
	case atom.Script, atom.Style, atom.Title, atom.Noscript, atom.Noembed,
		atom.Noframes, atom.Iframe, atom.Textarea:
		return classSkipRaw
	case atom.Template, atom.Svg, atom.Math, atom.Object, atom.Applet,
		atom.Embed, atom.Audio, atom.Video, atom.Canvas, atom.Select,
		atom.Datalist:
		return classSkip
	case atom.Pre, atom.Listing, atom.Xmp, atom.Plaintext:
		return classPre
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body,
		atom.Br, atom.Caption, atom.Center, atom.Dd, atom.Details,
		atom.Dialog, atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Fieldset,
		atom.Figcaption, atom.Figure, atom.Footer, atom.Form, atom.Frameset,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Head,
		atom.Header, atom.Hgroup, atom.Hr, atom.Html, atom.Legend, atom.Li,
		atom.Main, atom.Marquee, atom.Menu, atom.Nav, atom.Ol, atom.Optgroup,
		atom.Option, atom.P, atom.Search, atom.Section, atom.Summary,
		atom.Table, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead,
		atom.Tr, atom.Ul:
		return classBlock
	}
	return classInline
}
