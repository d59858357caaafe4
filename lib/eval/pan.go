package eval

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// panDocument is the root element of a PAN annotation file.
type panDocument struct {
	XMLName   xml.Name     `xml:"document"`
	Reference string       `xml:"reference,attr"`
	Features  []panFeature `xml:"feature"`
}

// panFeature is one <feature/> element; its attributes are kept generically
// because PAN editions differ in which ones they carry.
type panFeature struct {
	Attrs []xml.Attr `xml:",any,attr"`
}

func (f panFeature) attr(name string) (string, bool) {
	for _, a := range f.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// ReadPANXML reads plagiarism cases from a PAN XML file, or from every *.xml
// file in a directory and its immediate subdirectories (as the PAN evaluator
// does), in lexical path order. Features whose name ends in "plagiarism" but
// not "detected-plagiarism" and that carry source_* attributes are cases; the
// class is the obfuscation attribute, or else the type attribute.
func ReadPANXML(path string) ([]Case, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read pan xml: %w", err)
	}
	files := []string{path}
	if fi.IsDir() {
		files, err = panFiles(path)
		if err != nil {
			return nil, err
		}
	}
	var cases []Case
	for _, f := range files {
		cs, err := readPANFile(f)
		if err != nil {
			return nil, err
		}
		cases = append(cases, cs...)
	}
	return cases, nil
}

func panFiles(dir string) ([]string, error) {
	top, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	sub, err := filepath.Glob(filepath.Join(dir, "*", "*.xml"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	files := append(top, sub...)
	slices.Sort(files)
	return files, nil
}

func readPANFile(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read pan xml: %w", err)
	}
	cs, err := decodePAN(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return cs, nil
}

// decodePAN reads the cases of one PAN XML document.
func decodePAN(r io.Reader) ([]Case, error) {
	var doc panDocument
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var cases []Case
	for i, f := range doc.Features {
		name, _ := f.attr("name")
		if !strings.HasSuffix(name, "plagiarism") || strings.HasSuffix(name, "detected-plagiarism") {
			continue
		}
		c, ok, err := panCase(doc.Reference, f)
		if err != nil {
			return nil, fmt.Errorf("feature %d: %w", i+1, err)
		}
		if ok {
			cases = append(cases, c)
		}
	}
	return cases, nil
}

// panCase converts one feature; ok is false for features without a source
// (intrinsic annotations).
func panCase(ref string, f panFeature) (c Case, ok bool, err error) {
	src, hasSrc := f.attr("source_reference")
	if !hasSrc {
		return Case{}, false, nil
	}
	c = Case{Susp: strings.TrimSuffix(ref, ".txt"), Src: strings.TrimSuffix(src, ".txt")}
	fields := []struct {
		name string
		dst  *int
	}{
		{"this_offset", &c.SuspStart}, {"this_length", &c.SuspLen},
		{"source_offset", &c.SrcStart}, {"source_length", &c.SrcLen},
	}
	for _, fl := range fields {
		v, _ := f.attr(fl.name)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return Case{}, false, fmt.Errorf("attribute %s: bad number %q", fl.name, v)
		}
		*fl.dst = n
	}
	if c.Class, ok = f.attr("obfuscation"); !ok {
		c.Class, _ = f.attr("type")
	}
	c.Lang, _ = f.attr("this_language")
	if err := c.check(); err != nil {
		return Case{}, false, err
	}
	return c, true, nil
}

// WritePANXML writes cases into dir as PAN XML, one file per suspicious
// document, named after the document id with characters outside
// [A-Za-z0-9._-] replaced by '_' (and a numeric suffix on collision). Cases
// are sorted by document and offset. dir is created if needed.
func WritePANXML(dir string, cases []Case) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write pan xml: %w", err)
	}
	bySusp := make(map[string][]Case)
	for _, c := range cases {
		bySusp[c.Susp] = append(bySusp[c.Susp], c)
	}
	ids := make([]string, 0, len(bySusp))
	for id := range bySusp {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	used := make(map[string]bool)
	for _, id := range ids {
		name := fileName(id, used)
		cs := bySusp[id]
		slices.SortStableFunc(cs, func(a, b Case) int {
			return cmp.Or(cmp.Compare(a.SuspStart, b.SuspStart), cmp.Compare(a.Src, b.Src),
				cmp.Compare(a.SrcStart, b.SrcStart))
		})
		if err := os.WriteFile(filepath.Join(dir, name), panXML(id, cs), 0o644); err != nil {
			return fmt.Errorf("write pan xml: %w", err)
		}
	}
	return nil
}

func fileName(id string, used map[string]bool) string {
	base := strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, id)
	name := base + ".xml"
	for i := 2; used[name]; i++ {
		name = base + "-" + strconv.Itoa(i) + ".xml"
	}
	used[name] = true
	return name
}

// panXML renders one PAN XML document; a case's Lang becomes this_language
// and source_language.
func panXML(id string, cases []Case) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, "<document reference=\"%s\">\n", xmlAttr(id+".txt"))
	for _, c := range cases {
		lang := ""
		if c.Lang != "" {
			lang = fmt.Sprintf(" this_language=\"%s\" source_language=\"%[1]s\"", xmlAttr(c.Lang))
		}
		fmt.Fprintf(&b, "<feature name=\"plagiarism\" obfuscation=\"%s\"%s this_offset=\"%d\" this_length=\"%d\" source_reference=\"%s\" source_offset=\"%d\" source_length=\"%d\"/>\n",
			xmlAttr(c.Class), lang, c.SuspStart, c.SuspLen, xmlAttr(c.Src+".txt"), c.SrcStart, c.SrcLen)
	}
	b.WriteString("</document>\n")
	return []byte(b.String())
}

func xmlAttr(s string) string {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		return s // strings.Builder never fails
	}
	return strings.ReplaceAll(b.String(), `"`, "&#34;")
}
