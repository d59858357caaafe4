// Command dedupcheck measures whether a run's passage clusters and its
// pdc dedup output are true of the text they point at:
//
//	go run ./scripts/dedupcheck --run OUT --clean CLEAN [--base BASE_CLEAN] [--input DOCS]...
//
// OUT is a run with --clusters, CLEAN what pdc dedup wrote from it. The
// documents are read again (the run's inputs, and for a batch run those of
// the runs of its chain first; or --input) and analyzed as
// the run did (all visible text), and the words of a range are the
// tokens of its text (lib/sentence Tokenizer), each as often as it
// occurs: a range holds another's words when it has each of them as
// often. It prints one line
// of tab-separated measures:
//
//   - cut: the ranges of removed.tsv, and the characters they cut;
//   - under50, under80: cut ranges whose kept range holds less than 50%
//     (80%) of their words; chars80: the share of cut characters in ranges
//     under 80%;
//   - wide: cut ranges whose kept range is over 1.5 times as long;
//   - names: cut ranges with a code name (an identifier,
//     qualified or host name: see nameKeys) that their kept range lacks;
//   - lost (printed last): cut ranges with a run of lostWords (6) or more
//     consecutive words that no document holds as the dedup left it (each
//     document's text less every cut range): a word is held when a word
//     4-gram around it, in its document, is in one of those texts, so
//     that a word an edited copy changed is one word lost; text of its
//     own that the cut took from the collection;
//   - clusters, mixed: clusters, and those with a member that shares less
//     than half of the words of the smaller of the two with the cluster's
//     earliest member;
//   - identical: groups of documents with the same body (byte-identical
//     pages), and in how many of them a member is cut with no other
//     member kept whole (kept); with --pairs (the output of pdc pairs
//     OUT), identical_low: the members of those groups that pdc pairs
//     does not link to their group at containment >= 0.99 both ways
//     (directly or through other members);
//   - retained: with --base (the CLEAN of another dedup of the same
//     documents), the share of the characters the base cuts soundly (kept
//     range holding at least 80% of the cut's words and every name of
//     it, and no text of the cut's own lost, as lost measures it in the
//     base) that CLEAN also cuts;
//     retained_fit: the same over the base's sound cuts whose kept range is
//     at least half as long as the cut (a shorter one cannot hold its
//     text, whatever words they share);
//   - volume: the characters CLEAN cuts over those the base cuts soundly.
//
// With --fail it exits 1 when a bound of docs/quality.md is broken: a cut
// range under 50%, a cut range whose kept range lacks a name, chars80 over 1%, mixed clusters over 1%, an identical
// group with none kept whole, an identical member under 0.99, retained
// under 95%.
package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/cluster"
	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/mr"
	"github.com/pdc-mr/pdc/lib/ranges"
	"github.com/pdc-mr/pdc/lib/sentence"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var o options
	flag.StringVar(&o.run, "run", "", "the run's output directory (with --clusters)")
	flag.StringVar(&o.clean, "clean", "", "pdc dedup's output directory")
	flag.StringVar(&o.base, "base", "", "another pdc dedup's output of the same documents, to compare with")
	flag.StringVar(&o.pairs, "pairs", "", "the output of pdc pairs OUT, to check identical documents' containment")
	flag.Var(&o.inputs, "input", "the run's documents (default: its inputs)")
	flag.BoolVar(&o.fail, "fail", false, "exit 1 when a bound is broken")
	flag.BoolVar(&o.header, "header", false, "print a header line")
	flag.BoolVar(&o.list, "list", false, "list the cut ranges under 80% and the mixed clusters on stderr")
	flag.Parse()
	if o.run == "" || o.clean == "" {
		fmt.Fprintln(os.Stderr, "usage: dedupcheck --run OUT --clean CLEAN [--base BASE_CLEAN] [--input DOCS]")
		os.Exit(2)
	}
	m, err := check(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dedupcheck:", err)
		os.Exit(1)
	}
	if o.header {
		fmt.Println("cut\tcut_chars\tunder50\tunder80\tchars80\twide\tclusters\tmixed\tidentical\tidentical_lost\tidentical_low\tretained\tretained_fit\tvolume\tnames\tlost")
	}
	fmt.Println(m)
	if o.fail {
		if bad := m.broken(); bad != "" {
			fmt.Fprintln(os.Stderr, "dedupcheck: bound broken:", bad)
			os.Exit(1)
		}
	}
}

type options struct {
	run, clean, base string
	pairs            string
	inputs           listFlag
	fail, header     bool
	list             bool
}

// cut is one line of removed.tsv.
type cut struct {
	doc, kept          string
	start, end         int
	keptStart, keptEnd int
}

// measures are what check prints.
type measures struct {
	cuts, cutChars, under50, under80, chars80, wide int
	names, lost                                     int
	clusters, mixed                                 int
	identical, identicalLost, identicalLow          int
	baseSound, baseKept                             int
	fitSound, fitKept                               int
	haveBase                                        bool
}

func (m measures) String() string {
	ret := "-\t-\t-"
	if m.haveBase {
		ret = fmt.Sprintf("%.4f\t%.4f\t%.4f", ratio(m.baseKept, m.baseSound), ratio(m.fitKept, m.fitSound), ratio(m.cutChars, m.baseSound))
	}
	return fmt.Sprintf("%d\t%d\t%d\t%d\t%.4f\t%d\t%d\t%.4f\t%d\t%d\t%d\t%s\t%d\t%d",
		m.cuts, m.cutChars, m.under50, m.under80, ratio(m.chars80, m.cutChars), m.wide,
		m.clusters, ratio(m.mixed, m.clusters), m.identical, m.identicalLost, m.identicalLow, ret, m.names, m.lost)
}

// broken names the first bound m breaks, or "".
func (m measures) broken() string {
	switch {
	case m.under50 > 0:
		return fmt.Sprintf("%d cut ranges whose kept range holds under 50%% of their words", m.under50)
	case m.names > 0:
		return fmt.Sprintf("%d cut ranges whose kept range lacks a name of theirs", m.names)
	case ratio(m.chars80, m.cutChars) > 0.01:
		return fmt.Sprintf("%.2f%% of cut characters in ranges whose kept range holds under 80%% of their words", 100*ratio(m.chars80, m.cutChars))
	case ratio(m.mixed, m.clusters) > 0.01:
		return fmt.Sprintf("%.2f%% of clusters mixed", 100*ratio(m.mixed, m.clusters))
	case m.identicalLost > 0:
		return fmt.Sprintf("%d groups of identical documents with none kept whole", m.identicalLost)
	case m.identicalLow > 0:
		return fmt.Sprintf("%d identical documents not at containment 0.99 with their group in pdc pairs", m.identicalLow)
	case m.haveBase && ratio(m.fitKept, m.fitSound) < 0.95:
		return fmt.Sprintf("%.2f%% of the base's sound cuts still cut", 100*ratio(m.fitKept, m.fitSound))
	}
	return ""
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func check(o options) (measures, error) {
	var m measures
	remote := func(p string) bool { return hdfsfs.IsRemote(p, false, os.Getenv) }
	fsys, dir, err := hdfsfs.Resolve(o.run, remote(o.run))
	if err != nil {
		return m, err
	}
	inputs := []string(o.inputs)
	var filter input.Filter
	if len(inputs) == 0 {
		man, err := pipeline.ReadManifest(fsys, dir)
		if err != nil {
			return m, err
		}
		// A batch run's documents are its chain's too: the stored runs'
		// inputs first.
		for _, run := range man.Against {
			sm, err := pipeline.ReadManifest(fsys, run)
			if err != nil {
				return m, fmt.Errorf("the stored run %s: %w", run, err)
			}
			inputs = append(inputs, sm.Inputs...)
		}
		inputs, filter = append(inputs, man.Inputs...), input.Filter{Include: man.Include, Exclude: man.Exclude}
	}
	cs, err := cluster.Read(fsys, dir+"/clusters")
	if err != nil {
		return m, err
	}
	cuts, err := readRemoved(o.clean + "/removed.tsv")
	if err != nil {
		return m, err
	}
	var base []cut
	if o.base != "" {
		if base, err = readRemoved(o.base + "/removed.tsv"); err != nil {
			return m, err
		}
	}
	texts, bodies, err := readTexts(inputs, remote, filter)
	if err != nil {
		return m, err
	}
	var tok sentence.Tokenizer
	words := func(d string, s, e int) map[uint64]int {
		r := []rune(texts[d])
		s, e = min(max(s, 0), len(r)), min(max(e, 0), len(r))
		bag := map[uint64]int{}
		for _, h := range tok.Hashes(nil, string(r[s:e])) {
			bag[h]++
		}
		return bag
	}
	held := func(c cut) float64 {
		w := words(c.doc, c.start, c.end)
		if len(w) == 0 {
			return 1
		}
		k := words(c.kept, c.keptStart, c.keptEnd)
		n, all := 0, 0
		for h, cnt := range w {
			n += min(cnt, k[h])
			all += cnt
		}
		return float64(n) / float64(all)
	}
	for _, c := range cuts {
		m.cuts++
		m.cutChars += c.end - c.start
		h := held(c)
		if h < 0.5 {
			m.under50++
		}
		if h < 0.8 {
			m.under80++
			m.chars80 += c.end - c.start
			if o.list {
				fmt.Fprintf(os.Stderr, "cut %.2f\t%s %d-%d\tkept %s %d-%d\n", h, c.doc, c.start, c.end, c.kept, c.keptStart, c.keptEnd)
			}
		}
		if 2*(c.keptEnd-c.keptStart) > 3*(c.end-c.start) {
			m.wide++
		}
		if n := missingName(slice(texts[c.doc], c.start, c.end), slice(texts[c.kept], c.keptStart, c.keptEnd)); n != "" {
			m.names++
			if o.list {
				fmt.Fprintf(os.Stderr, "name %s\t%s %d-%d\tkept %s %d-%d\n", n, c.doc, c.start, c.end, c.kept, c.keptStart, c.keptEnd)
			}
		}
	}
	left := leftGrams(texts, byDoc(cuts), &tok)
	for _, c := range cuts {
		if n := lostRun(texts[c.doc], c.start, c.end, left, &tok); n >= lostWords {
			m.lost++
			if o.list {
				fmt.Fprintf(os.Stderr, "lost %d\t%s %d-%d\tkept %s %d-%d\n", n, c.doc, c.start, c.end, c.kept, c.keptStart, c.keptEnd)
			}
		}
	}
	for _, c := range cs {
		m.clusters++
		e := c.Members[0]
		we := words(e.Doc, e.CharStart, e.CharEnd)
		for _, mem := range c.Members[1:] {
			w := words(mem.Doc, mem.CharStart, mem.CharEnd)
			n := 0
			for h := range w {
				if we[h] > 0 {
					n++
				}
			}
			if small := min(len(w), len(we)); small > 0 && 2*n < small {
				m.mixed++
				if o.list {
					fmt.Fprintf(os.Stderr, "mixed %s\t%s %d-%d\t%s %d-%d\n", c.ID, e.Doc, e.CharStart, e.CharEnd, mem.Doc, mem.CharStart, mem.CharEnd)
				}
				break
			}
		}
	}
	m.identical, m.identicalLost = identical(bodies, cuts, texts)
	if o.pairs != "" {
		if m.identicalLow, err = identicalLow(bodies, texts, o.pairs); err != nil {
			return m, err
		}
	}
	if o.base != "" {
		m.haveBase = true
		now := byDoc(cuts)
		baseLeft := leftGrams(texts, byDoc(base), &tok)
		for _, c := range base {
			if held(c) < 0.8 || missingName(slice(texts[c.doc], c.start, c.end), slice(texts[c.kept], c.keptStart, c.keptEnd)) != "" || lostRun(texts[c.doc], c.start, c.end, baseLeft, &tok) >= lostWords {
				continue
			}
			kept := covered(now[c.doc], c.start, c.end)
			if o.list && c.end-c.start-kept > 100 {
				fmt.Fprintf(os.Stderr, "miss %d\t%s %d-%d\tkept %s %d-%d\n", c.end-c.start-kept, c.doc, c.start, c.end, c.kept, c.keptStart, c.keptEnd)
			}
			m.baseSound += c.end - c.start
			m.baseKept += kept
			if 2*(c.keptEnd-c.keptStart) >= c.end-c.start {
				m.fitSound += c.end - c.start
				m.fitKept += kept
			}
		}
	}
	return m, nil
}

// identical returns the number of groups of documents with the same body
// and the number of those where every member with text lost some of it.
func identical(bodies map[string][32]byte, cuts []cut, texts map[string]string) (groups, lost int) {
	by := map[[32]byte][]string{}
	for d, h := range bodies {
		by[h] = append(by[h], d)
	}
	cutIn := map[string]bool{}
	for _, c := range cuts {
		if c.end > c.start {
			cutIn[c.doc] = true
		}
	}
	for _, ds := range by {
		if len(ds) < 2 || strings.TrimSpace(texts[ds[0]]) == "" {
			continue
		}
		groups++
		whole := false
		for _, d := range ds {
			whole = whole || !cutIn[d]
		}
		if !whole {
			lost++
		}
	}
	return groups, lost
}

// identicalLow returns the members of groups of identical documents (with
// text) that the pairs file (pdc pairs output) does not link to the rest
// of their group by rows at containment >= 0.99 both ways.
func identicalLow(bodies map[string][32]byte, texts map[string]string, pairs string) (int, error) {
	b, err := os.ReadFile(pairs)
	if err != nil {
		return 0, err
	}
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		return x
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 10 || strings.HasPrefix(l, "#") {
			continue
		}
		ca, _ := strconv.ParseFloat(f[7], 64)
		cb, _ := strconv.ParseFloat(f[8], 64)
		if ca >= 0.99 && cb >= 0.99 {
			a, _ := mr.Unescape(f[0])
			c, _ := mr.Unescape(f[1])
			parent[find(a)] = find(c)
		}
	}
	by := map[[32]byte][]string{}
	for d, h := range bodies {
		by[h] = append(by[h], d)
	}
	low := 0
	for _, ds := range by {
		if len(ds) < 2 || strings.TrimSpace(texts[ds[0]]) == "" {
			continue
		}
		slices.Sort(ds)
		for _, d := range ds[1:] {
			if find(d) != find(ds[0]) {
				low++
			}
		}
	}
	return low, nil
}

// lostWords is how many consecutive words of a cut range's own, in no
// document as the dedup left it, make it lost (measures.lost).
const lostWords = 6

// gram is the length of the word n-grams lost compares by.
const gram = 4

// gramsOf appends the hashes of the word 4-grams of text to dst.
func gramsOf(dst []uint64, text string, tok *sentence.Tokenizer) []uint64 {
	ws := tok.Hashes(nil, text)
	for i := 0; i+gram <= len(ws); i++ {
		dst = append(dst, gramHash(ws[i:i+gram]))
	}
	return dst
}

// gramHash is the hash of a word n-gram (FNV-1a over its words' hashes).
func gramHash(ws []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range ws {
		h = (h ^ w) * 1099511628211
	}
	return h
}

// leftGrams returns the word 4-grams of every document as the dedup left
// it (its text less the merged cut ranges), sorted.
func leftGrams(texts map[string]string, cuts map[string][]dedup.Range, tok *sentence.Tokenizer) []uint64 {
	var out []uint64
	for d, t := range texts {
		rs, pos := []rune(t), 0
		for _, r := range cuts[d] {
			out = gramsOf(out, string(rs[min(pos, len(rs)):min(max(r.Start, pos), len(rs))]), tok)
			pos = r.End
		}
		out = gramsOf(out, string(rs[min(pos, len(rs)):]), tok)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// lostRun returns the most consecutive words of the range [start, end) of
// text that no word 4-gram of left covers: a word is held when some
// 4-gram around it (taking up to 3 words of the text on either side of
// the range) is among left, so that a word the copy edited is one lost
// word, and k words of its own at an edge of the range are k.
func lostRun(text string, start, end int, left []uint64, tok *sentence.Tokenizer) int {
	r := []rune(text)
	start, end = min(max(start, 0), len(r)), min(max(end, 0), len(r))
	before := tok.Hashes(nil, string(r[max(start-400, 0):start]))
	before = before[max(len(before)-(gram-1), 0):]
	after := tok.Hashes(nil, string(r[end:min(end+400, len(r))]))
	after = after[:min(len(after), gram-1)]
	cut := tok.Hashes(nil, string(r[start:end]))
	seq := append(append(append([]uint64(nil), before...), cut...), after...)
	held := make([]bool, len(cut))
	for g := 0; g+gram <= len(seq); g++ {
		if _, ok := slices.BinarySearch(left, gramHash(seq[g:g+gram])); !ok {
			continue
		}
		for w := max(g-len(before), 0); w < min(g+gram-len(before), len(cut)); w++ {
			held[w] = true
		}
	}
	best, run := 0, 0
	for _, h := range held {
		if h {
			run = 0
			continue
		}
		run++
		best = max(best, run)
	}
	return best
}

// byDoc returns the cut ranges of each document, merged and sorted.
func byDoc(cuts []cut) map[string][]dedup.Range {
	out := map[string][]dedup.Range{}
	for _, c := range cuts {
		out[c.doc] = append(out[c.doc], dedup.Range{Start: c.start, End: c.end})
	}
	for d, rs := range out {
		out[d] = ranges.Merge(rs)
	}
	return out
}

// covered returns how many characters of [s, e) the sorted ranges rs hold.
func covered(rs []dedup.Range, s, e int) int {
	n := 0
	for _, r := range rs {
		n += max(0, min(e, r.End)-max(s, r.Start))
	}
	return n
}

// readRemoved reads a removed.tsv.
func readRemoved(path string) ([]cut, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []cut
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var cols []string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			cols = strings.Split(strings.TrimPrefix(line, "#"), "\t")
			continue
		}
		f := strings.Split(line, "\t")
		get := func(name string) string {
			if i := slices.Index(cols, name); i >= 0 && i < len(f) {
				return f[i]
			}
			return ""
		}
		var c cut
		var err error
		if c.doc, err = mr.Unescape(get("doc")); err != nil {
			return nil, err
		}
		if c.kept, err = mr.Unescape(get("kept_doc")); err != nil {
			return nil, err
		}
		for _, p := range []struct {
			name string
			n    *int
		}{{"char_start", &c.start}, {"char_end", &c.end}, {"kept_char_start", &c.keptStart}, {"kept_char_end", &c.keptEnd}} {
			if *p.n, err = strconv.Atoi(get(p.name)); err != nil {
				return nil, fmt.Errorf("%s: %q: %w", path, line, err)
			}
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// readTexts returns the extracted text of every document (the first of
// each id) and a hash of its body.
func readTexts(inputs []string, remote func(string) bool, filter input.Filter) (map[string]string, map[string][32]byte, error) {
	in, err := input.FindAny(inputs, remote, filter)
	if err != nil {
		return nil, nil, err
	}
	texts, bodies := map[string]string{}, map[string][32]byte{}
	var an doc.Analyzer
	_, err = in.Each(input.Options{}, func(d *doc.Doc, where string) error {
		if _, ok := texts[d.ID]; ok {
			return nil
		}
		a, err := an.Analyze(d)
		if err != nil {
			return nil
		}
		id := strings.Clone(d.ID)
		texts[id] = strings.Clone(a.Text)
		bodies[id] = sha256.Sum256([]byte(d.Body()))
		return nil
	})
	return texts, bodies, err
}

// slice returns the runes start to end of text (clamped).
func slice(text string, start, end int) string {
	r := []rune(text)
	start, end = min(max(start, 0), len(r)), min(max(end, 0), len(r))
	return string(r[start:end])
}

// nameRun is a candidate code name: ASCII letters, digits, '_', '.',
// runs of two or more ':'; innerUnderscore an underscore between two letters or digits.
var (
	nameRun         = regexp.MustCompile(`(?:[A-Za-z0-9_.]|::+)+`)
	innerUnderscore = regexp.MustCompile(`[A-Za-z0-9]_[A-Za-z0-9]`)
	alnumWord       = regexp.MustCompile(`^[A-Za-z0-9]+$`)
	numberRun       = regexp.MustCompile(`[A-Za-z0-9_]+(?:[.,][A-Za-z0-9_]+)*`)
	digitsOnly      = regexp.MustCompile(`^[0-9]+(?:[.,][0-9]+)*$`)
)

// nameKeys returns the code names of text by their keys, the spec of lib/dedup
// Names written again: a run of nameRun without its end dots and colons,
// with a letter and an underscore between letters or digits, a lower-case letter before an
// upper-case one, two or more parts between dots and colons each of two
// characters or more, or only letters and digits, both; or a number (digits with '.' or ','
// between two, in a run of letters, digits and '_' joined by them that has nothing else),
// keyed by its digits, a separator kept as '.' unless three digits follow it; its key is its last part, lower-cased. A text has a
// name when it has its key as a name's key or as a word.
func nameKeys(text string) map[string]string {
	out := map[string]string{}
	for _, w := range nameRun.FindAllString(text, -1) {
		w = strings.Trim(w, ".:")
		parts := strings.FieldsFunc(w, func(r rune) bool { return r == '.' || r == ':' })
		if !strings.ContainsAny(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") || len(parts) == 0 {
			continue
		}
		short := false
		for _, p := range parts {
			short = short || len(p) < 2
		}
		camel := false
		for i := 1; i < len(w); i++ {
			camel = camel || w[i-1] >= 'a' && w[i-1] <= 'z' && w[i] >= 'A' && w[i] <= 'Z'
		}
		word := alnumWord.MatchString(w) && strings.ContainsAny(w, "0123456789")
		if innerUnderscore.MatchString(w) || camel || len(parts) >= 2 && !short || word {
			out[strings.ToLower(parts[len(parts)-1])] = w
		}
	}
	for _, w := range numberRun.FindAllString(text, -1) {
		if !digitsOnly.MatchString(w) {
			continue
		}
		groups := strings.FieldsFunc(w, func(r rune) bool { return r == '.' || r == ',' })
		key := groups[0]
		for _, g := range groups[1:] {
			if len(g) != 3 {
				key += "."
			}
			key += g
		}
		out[key] = w
	}
	return out
}

// missingName returns a name of cut whose key kept lacks among its names'
// keys and its words, or "".
func missingName(cut, kept string) string {
	k := nameKeys(kept)
	var tok sentence.Tokenizer
	for _, w := range tok.Tokens(nil, kept) {
		k[w] = w
	}
	c := nameKeys(cut)
	keys := make([]string, 0, len(c))
	for key := range c {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if _, ok := k[key]; !ok {
			return c[key]
		}
	}
	return ""
}
