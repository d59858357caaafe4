package main

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Reading a page's content from its reST source.
//
// A page PATH.html's source is ROOT/_sources/PATH.rst.txt. `.. include:: F`
// is replaced by the file, when Sphinx shipped it (F + ".txt" under
// _sources/, F relative to the including document or, with a leading /, to
// the root); other includes, and every `.. literalinclude::` (code files
// Sphinx does not ship), are counted as unresolved. Markup is then
// stripped (stripReST) so that the text reads as the page shows it.

// maxIncludeDepth bounds nested includes.
const maxIncludeDepth = 4

var includeRE = regexp.MustCompile(`^\s*\.\. (include|literalinclude)::\s*(\S+)\s*$`)

// loadSource returns page's source, with includes inlined if includes is
// set (else include lines stay and are dropped as markup), ok=false when
// the page has none, and how many includes could not be inlined.
func loadSource(root, page string, includes bool) (text string, unresolved int, ok bool, err error) {
	name := filepath.Join(root, filepath.FromSlash(sourceID(page)))
	b, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	if !includes {
		return string(b), 0, true, nil
	}
	text, unresolved = inline(root, path.Dir(page), string(b), 0)
	return text, unresolved, true, nil
}

// inline replaces the include lines of src, a source in directory dir
// (relative to the root), by the included sources.
func inline(root, dir, src string, depth int) (string, int) {
	lines := strings.Split(src, "\n")
	unresolved := 0
	for i, l := range lines {
		m := includeRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rel := path.Join(dir, m[2])
		if strings.HasPrefix(m[2], "/") {
			rel = path.Clean(m[2][1:])
		}
		b, err := os.ReadFile(filepath.Join(root, "_sources", filepath.FromSlash(rel)+".txt"))
		if m[1] == "literalinclude" || err != nil || depth >= maxIncludeDepth {
			unresolved++
			continue
		}
		sub, n := inline(root, path.Dir(rel), string(b), depth+1)
		lines[i] = "\n" + sub + "\n"
		unresolved += n
	}
	return strings.Join(lines, "\n"), unresolved
}

// directiveText is how Sphinx renders the name of a directive whose
// arguments it shows; directives not listed and not hidden show their
// arguments alone (function signatures, class names, ...).
var directiveText = map[string]string{
	"versionadded":       "New in version",
	"versionchanged":     "Changed in version",
	"deprecated":         "Deprecated since version",
	"deprecated-removed": "Deprecated since version",
	"note":               "Note",
	"seealso":            "See also",
	"warning":            "Warning",
	"important":          "Important",
	"tip":                "Tip",
	"caution":            "Caution",
	"attention":          "Attention",
	"hint":               "Hint",
	"danger":             "Danger",
	"availability":       "Availability:",
	"impl-detail":        "CPython implementation detail:",
}

// hiddenDirective lists directives whose line the page does not show.
var hiddenDirective = map[string]bool{
	"highlight": true, "module": true, "currentmodule": true, "sectionauthor": true,
	"moduleauthor": true, "tabularcolumns": true, "code-block": true, "sourcecode": true,
	"only": true, "include": true, "literalinclude": true, "image": true, "figure": true,
	"c:namespace": true,
}

// hiddenBlock lists directives whose line and indented body the page does
// not show (the toctree's body names other documents, which the page
// shows by their titles).
var hiddenBlock = map[string]bool{
	"index": true, "toctree": true, "testsetup": true, "testcleanup": true, "raw": true,
}

var (
	directiveRE = regexp.MustCompile(`^(\s*)\.\. ([\w:-]+)::\s*(.*)$`)
	commentRE   = regexp.MustCompile(`^\s*\.\.(\s|$)`)       // comments, targets, substitutions
	optionRE    = regexp.MustCompile(`^\s+:[\w-]+:(\s.*)?$`) // directive options
	literalRE   = regexp.MustCompile("``(.+?)``")
	roleRE      = regexp.MustCompile(":[\\w.+-]+(?::[\\w.+-]+)*:`([^`]*)`")
	linkRE      = regexp.MustCompile("`([^`<]*?)\\s*(?:<[^`>]*>)?`_{0,2}")
	titleRE     = regexp.MustCompile(`^(.*?)\s*<[^<>]*>$`)
	pepRE       = regexp.MustCompile(`:(pep|rfc):`)
)

// stripReST turns reST into the text a reader sees: title adornments,
// comments (with their indented body), targets, hidden directives (some
// with their body) and directive options dropped;
// other directives replaced by their rendered name and arguments
// (`.. versionadded:: 3.3` -> "New in version 3.3"); inline markup
// replaced by its text: “code“ -> code, :func:`open` -> open,
// :class:`~io.TextIOWrapper` -> TextIOWrapper, :ref:`title <label>` ->
// title, :ref:`label` -> the title of the section the label marks (from
// labels), :pep:`8` -> PEP 8, :issue:`123` -> bpo-123, :gh:`123` -> gh-123,
// :abbr:`LIFO (last-in, first-out)` -> LIFO, `text <url>`_ -> text. Line structure is kept
// (blank lines are paragraph, hence sentence, boundaries).
func stripReST(src string, labels map[string]string) string {
	lines := strings.Split(src, "\n")
	skip := -1 // indentation of the hidden block being skipped
	for i, l := range lines {
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		if skip >= 0 && (strings.TrimSpace(l) == "" || ind > skip) {
			lines[i] = ""
			continue
		}
		skip = -1
		if hidesBlock(l) {
			skip = ind
		}
		lines[i] = stripLine(l, labels)
	}
	return strings.Join(lines, "\n")
}

// hidesBlock reports whether l starts a block the page does not show: a
// comment or a hidden-block directive.
func hidesBlock(l string) bool {
	if m := directiveRE.FindStringSubmatch(l); m != nil {
		return hiddenBlock[m[2]]
	}
	t := strings.TrimSpace(l)
	return commentRE.MatchString(l) && !strings.HasPrefix(t, ".. _") && !strings.HasPrefix(t, ".. |")
}

// stripLine strips one line of reST (see stripReST).
func stripLine(l string, labels map[string]string) string {
	if isAdornment(l) || optionRE.MatchString(l) {
		return ""
	}
	if m := directiveRE.FindStringSubmatch(l); m != nil {
		name, args := m[2], m[3]
		switch {
		case hiddenDirective[name], hiddenBlock[name]:
			return ""
		case name == "audit-event":
			if f := strings.Fields(args); len(f) >= 2 {
				args = f[0] + " with arguments " + strings.ReplaceAll(f[1], ",", ", ") + "."
			}
			l = m[1] + "Raises an auditing event " + args
		case directiveText[name] != "":
			l = m[1] + directiveText[name] + " " + args
		default:
			l = m[1] + args
		}
	} else if commentRE.MatchString(l) {
		return ""
	}
	return inlineText(l, labels)
}

// inlineText replaces inline markup by its text (see stripReST).
func inlineText(l string, labels map[string]string) string {
	l = literalRE.ReplaceAllString(l, "$1")
	l = roleRE.ReplaceAllStringFunc(l, func(r string) string { return roleText(r, labels) })
	return linkRE.ReplaceAllString(l, "$1")
}

// roleText is the text Sphinx shows for a role, given as :role:`content`.
func roleText(r string, labels map[string]string) string {
	i := strings.Index(r, "`")
	role, c := r[:i], r[i+1:len(r)-1]
	if m := titleRE.FindStringSubmatch(c); m != nil && m[1] != "" {
		return m[1]
	}
	if m := pepRE.FindStringSubmatch(role); m != nil {
		return strings.ToUpper(m[1]) + " " + c
	}
	switch role {
	case ":ref:":
		if t, ok := labels[strings.ToLower(c)]; ok {
			return t
		}
	case ":issue:":
		return "bpo-" + c
	case ":gh:":
		return "gh-" + c
	case ":abbr:":
		c, _, _ = strings.Cut(c, " (")
		return c
	}
	c = strings.TrimLeft(c, "!")
	if rest, ok := strings.CutPrefix(c, "~"); ok {
		c = rest[strings.LastIndex(rest, ".")+1:]
	}
	return strings.TrimPrefix(c, ".")
}

// isAdornment reports whether l is a title underline or overline: 3 or
// more of one punctuation character.
func isAdornment(l string) bool {
	t := strings.TrimSpace(l)
	if len(t) < 3 || !strings.ContainsRune("=-~^\"'`#*+<>:._", rune(t[0])) {
		return false
	}
	return strings.Count(t, t[:1]) == len(t)
}

var labelRE = regexp.MustCompile("^\\.\\. _([^:`]+):\\s*$")

// addLabels adds the section labels of src to labels: `.. _label:` before a
// section title maps label (lowercased, as Sphinx does) to the title, which
// is what :ref:`label` shows.
func addLabels(labels map[string]string, src string) {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		m := labelRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		j := i + 1
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || labelRE.MatchString(lines[j])) {
			j++
		}
		if j < len(lines) && isAdornment(lines[j]) { // overline
			j++
		}
		if j+1 < len(lines) && isAdornment(lines[j+1]) && strings.TrimSpace(lines[j]) != "" {
			labels[strings.ToLower(m[1])] = inlineText(strings.TrimSpace(lines[j]), nil)
		}
	}
}
