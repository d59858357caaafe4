package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/sentence"
)

// The tiny tree: pages a, b and c with sources, and genindex.html without.
// a and b share a run of three sentences, written with different markup;
// a and c share two sentences (below the silver run of 3).
var treeFiles = map[string]string{
	"a.html":        "<p>page a</p>",
	"b.html":        "<p>page b</p>",
	"sub/c.html":    "<p>page c</p>",
	"genindex.html": "<p>index</p>",
	"_static/x.js":  "var x;",
	"_sources/a.rst.txt": `Alpha
=====

.. comment: Rules for maintenance.
   Anyone can add text to this document.

.. function:: spam(eggs)

   The :func:` + "`~pkg.spam`" + ` function opens the eggs file for reading.
   It returns a ` + "``Spam``" + ` object with one method per egg.
   See ` + "`the egg docs <https://example.com/eggs>`_" + ` for more about eggs.

The bacon module keeps its own cache of sliced bacon.
Cached bacon is never written back to the pantry on disk.

First heading of alpha
----------------------

Alpha notes the first heading. Nothing else is here at all.

Some filler text that separates the headings of this page.

More filler text so that the next heading is far from the first.

Second heading of alpha
-----------------------

Still more filler text in a paragraph of its own here.

Yet more filler words that keep the headings well apart.

Filler again, the last paragraph before the third heading.

Third heading of alpha
----------------------

Alpha ends here with a closing remark about the pantry.
`,
	"_sources/b.rst.txt": `Beta
====

The spam() function opens the eggs file for reading.  It returns a
*Spam* object with one method per egg.  See the egg docs for more
about eggs.

.. versionadded:: 3.3

.. literalinclude:: ../includes/beta.py
`,
	"_sources/sub/c.rst.txt": `Gamma
=====

.. include:: ../shared.rst

Gamma talks about something else entirely, like weather in the hills.
`,
	"_sources/shared.rst.txt": `The bacon module keeps its own cache of sliced bacon.
Cached bacon is never written back to the pantry on disk.
`,
}

// footer is template text on every page.
const footer = "© Copyright 2001-2026, Python Software Foundation.\n\nThis page is licensed under the PSF License.\n\nLast updated on Oct 07, 2026."

// toc is page a's table of contents: its headings, far apart in its source.
const toc = "First heading of alpha\n\nSecond heading of alpha\n\nThird heading of alpha"

// spansJSONL builds the fake `pdc spans --text --format jsonl` output.
func spansJSONL(t *testing.T, extra ...map[string]any) string {
	t.Helper()
	spans := []map[string]any{
		{"doc_a": "a.html", "doc_b": "b.html", "text_a": "spam(eggs)\n\nThe spam() function opens the eggs file for reading. It returns a Spam object with one method per egg. See the egg docs for more about eggs.",
			"text_b": "The spam() function opens the eggs file for reading. It returns a Spam object with one method per egg. See the egg docs for more about eggs."},
		{"doc_a": "a.html", "doc_b": "b.html", "text_a": footer, "text_b": footer},
		{"doc_a": "a.html", "doc_b": "sub/c.html", "text_a": "The bacon module keeps its own cache of sliced bacon. Cached bacon is never written back to the pantry on disk.\n\nNavigation index modules next",
			"text_b": "The bacon module keeps its own cache of sliced bacon. Cached bacon is never written back to the pantry on disk.\n\nNavigation index modules next"},
		{"doc_a": "b.html", "doc_b": "sub/c.html", "text_a": footer, "text_b": footer},
		{"doc_a": "a.html", "doc_b": "genindex.html", "text_a": toc, "text_b": toc},
	}
	var b strings.Builder
	for _, s := range append(spans, extra...) {
		j, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// writeTree writes treeFiles and the spans under a temporary directory and
// returns the HTML root and the spans file.
func writeTree(t *testing.T, spans string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "html")
	for name, text := range treeFiles {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(dir, "spans.jsonl")
	if err := os.WriteFile(name, []byte(spans), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, name
}

// testConfig is score's default configuration for root and spans.
func testConfig(root, spans string) config {
	return config{root: root, spans: spans, run: 3, minTokens: 3, window: 3, minContain: 0.8, jump: 1, minShare: 0.8, includes: true}
}

// TestNoIncludes: without -includes a source is its own file's text only.
func TestNoIncludes(t *testing.T) {
	root, spans := writeTree(t, spansJSONL(t))
	c := testConfig(root, spans)
	c.includes = false
	r, err := evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	if src := r.srcs["sub/c.html"]; strings.Contains(src.text, "keeps its own cache") || r.unresolved != 0 {
		t.Errorf("include inlined in c without -includes: %q (%d unresolved)", src.text, r.unresolved)
	}
}

func TestClassify(t *testing.T) {
	root, spans := writeTree(t, spansJSONL(t))
	r, err := evaluate(testConfig(root, spans))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.silver[pair{"a.html", "b.html"}]; !ok || len(r.silver) != 1 {
		t.Errorf("silver pairs %v, want only a.html-b.html", r.silver)
	}
	want := map[pair]string{
		{"a.html", "b.html"}:        silverClass,
		{"a.html", "sub/c.html"}:    contentClass,
		{"b.html", "sub/c.html"}:    templateClass,
		{"a.html", "genindex.html"}: templateClass, // a's headings, far apart: its table of contents
	}
	for _, res := range r.results {
		if res.kind != pagePage || res.class != want[res.pair] {
			t.Errorf("%v: kind %s class %s, want page-page %s", res.pair, res.kind, res.class, want[res.pair])
		}
	}
	c := r.count()
	if c.silverFound != 1 || c.byClass[templateClass] != 2 || c.spans != 5 || c.templateSpans != 3 || c.templateNoSource != 1 {
		t.Errorf("counts %+v", c)
	}
	if r.pages != 4 || r.withSource != 3 || r.unresolved != 1 {
		t.Errorf("pages %d with source %d unresolved %d, want 4, 3, 1", r.pages, r.withSource, r.unresolved)
	}
	if c := r.srcs["sub/c.html"]; !strings.Contains(c.text, "keeps its own cache") || c.unresolved != 0 {
		t.Errorf("include not inlined in c: %q", c.text)
	}
}

func TestScoreReport(t *testing.T) {
	root, spans := writeTree(t, spansJSONL(t))
	sample := filepath.Join(t.TempDir(), "sample.txt")
	var out, errOut bytes.Buffer
	err := Main{Stdout: &out, Stderr: &errOut}.Run([]string{"score", "-html", root, "-spans", spans, "-sample", sample, "-check"})
	if err == nil || !strings.Contains(err.Error(), "targets not met") {
		t.Errorf("-check: err %v, want targets not met (template share 0.5)", err)
	}
	for _, line := range []string{
		"silver pairs found             1  recall 1.0000",
		"  template-only                2  share 0.5000",
		"  template-only spans          3  share 0.6000",
		"     2  © Copyright 2001-2026, Python Software Foundation. This page is licensed under t",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("report lacks %q:\n%s", line, out.String())
		}
	}
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n== "); n != 3 { // 4 pairs, the first without a newline before it
		t.Errorf("sample has %d+1 pairs, want 4:\n%s", n, b)
	}
}

func TestWithSources(t *testing.T) {
	own := map[string]any{"doc_a": "_sources/a.rst.txt", "doc_b": "a.html", "text_a": "x", "text_b": "y"}
	src := map[string]any{"doc_a": "_sources/a.rst.txt", "doc_b": "_sources/b.rst.txt", "text_a": "x", "text_b": "y"}
	other := map[string]any{"doc_a": "_sources/a.rst.txt", "doc_b": "b.html", "text_a": "x", "text_b": footer}
	root, spans := writeTree(t, spansJSONL(t, own, src, other))
	r, err := evaluate(testConfig(root, spans))
	if err != nil {
		t.Fatal(err)
	}
	c := r.count()
	if c.byKind[ownSource] != 1 || c.byKind[sourceSource] != 1 || c.byKind[pageSource] != 1 || c.sourceSilver != 1 {
		t.Errorf("kinds %v, source pairs silver %d", c.byKind, c.sourceSilver)
	}
	if strings.Join(c.unpaired, " ") != "b.html sub/c.html" {
		t.Errorf("pages not paired with their source %v, want b.html sub/c.html", c.unpaired)
	}
	if c.byKind[pagePage] != 4 || c.byClass[templateClass] != 2 {
		t.Errorf("page pairs %d, template-only %d: source pairs must not count", c.byKind[pagePage], c.byClass[templateClass])
	}
}

func TestStripReST(t *testing.T) {
	labels := map[string]string{}
	addLabels(labels, ".. _wasm-availability:\n\n.. _other:\n\n=====================\n:ref:`Web` platforms\n=====================\n\n.. _not-a-title:\n\nText.\n")
	if len(labels) != 2 || labels["other"] != "Web platforms" {
		t.Errorf("labels %q", labels)
	}
	labels["wasm-availability"] = "WebAssembly platforms"
	for _, tc := range []struct{ in, want string }{
		{"The :func:`open` function", "The open function"},
		{"A :class:`~io.TextIOWrapper` object", "A TextIOWrapper object"},
		{"See :ref:`the tutorial <tut-intro>` and :pep:`8`.", "See the tutorial and PEP 8."},
		{"See :ref:`wasm-availability` and :ref:`Other`.", "See WebAssembly platforms and Web platforms."},
		{"Use ``x = 1`` here", "Use x = 1 here"},
		{"(Contributed by A in :issue:`12866` and :gh:`9`.)", "(Contributed by A in bpo-12866 and gh-9.)"},
		{"A :abbr:`LIFO (last-in, first-out)` queue", "A LIFO queue"},
		{"Read `the docs <https://docs.python.org/>`_ or `this`__.", "Read the docs or this."},
		{":meth:`!close` and :c:func:`.PyObject_New`", "close and PyObject_New"},
		{"Title\n=====", "Title\n"},
		{".. versionadded:: 3.3", "New in version 3.3"},
		{"   .. function:: spam(eggs)\n      :noindex:", "   spam(eggs)\n"},
		{".. audit-event:: os.open path,mode os.open", "Raises an auditing event os.open with arguments path, mode."},
		{".. index:: single: spam\n   pair: eggs; ham\n\nText", "\n\n\nText"},
		{".. _label:\n\nText", "\n\nText"},
		{".. a comment\n   still the comment\nText", "\n\nText"},
	} {
		if got := stripReST(tc.in, labels); got != tc.want {
			t.Errorf("stripReST(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestContainOrder(t *testing.T) {
	var tz sentence.Tokenizer
	text := stripReST(treeFiles["_sources/a.rst.txt"], nil)
	c := newContainer(newSource("a.html", text, &tz), 3)
	for _, tc := range []struct {
		passage string
		content bool
	}{
		{"The bacon module keeps its own cache of sliced bacon. Cached bacon is never written back to the pantry on disk.", true},
		{"the BACON module keeps its own cache of sliced bacon!", true},                                                                                          // case, punctuation
		{"Alpha ends here with a closing remark about the pantry. Still more filler text in a paragraph of its own here. Alpha notes the first heading.", false}, // out of order
		{toc, false}, // in order, far apart
		{"The bacon module keeps its own cache of sliced bacon. Return value: New reference. Part of the Stable ABI.", false}, // half generated
		{"pantry the on disk never written back", false},                                                                      // words, no order
	} {
		if got := c.share(tc.passage, 0.8, 1, &tz) >= 0.8; got != tc.content {
			t.Errorf("%q: content %v, want %v (share %.2f)", tc.passage, got, tc.content, c.share(tc.passage, 0.8, 1, &tz))
		}
	}
}

func TestPrepare(t *testing.T) {
	root, _ := writeTree(t, "")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"a.html", "b.html", "genindex.html", "sub/c.html"}},
		{[]string{"-sources"}, []string{"_sources/a.rst.txt", "_sources/b.rst.txt", "_sources/sub/c.rst.txt", "a.html", "b.html", "genindex.html", "sub/c.html"}},
	} {
		var ids []string
		for _, r := range prepared(t, append([]string{"-html", root, "-url-base", "https://x/3/"}, tc.args...)...) {
			d := struct{ ID, URL, HTML, Text string }{r["id"], r["url"], r["html"], r["text"]}
			if d.URL != "https://x/3/"+d.ID || (d.HTML == "") == (d.Text == "") || (d.Text != "") != strings.HasPrefix(d.ID, "_sources/") {
				t.Errorf("record %+v", d)
			}
			ids = append(ids, d.ID)
		}
		if strings.Join(ids, " ") != strings.Join(tc.want, " ") {
			t.Errorf("prepare %v: ids %v, want %v", tc.args, ids, tc.want)
		}
	}
}

// TestPrepareDumpOthers: -dump writes no url; -others adds each other
// site's page NAME/source.html as others/NAME.html (a directory without
// expected.html is no page), and the scorer takes expected.html's text as
// that page's content, so a pair of other pages sharing their articles is
// silver and one sharing only furniture is template-only.
func TestPrepareDumpOthers(t *testing.T) {
	spans := spansJSONL(t,
		map[string]any{"doc_a": "others/one.html", "doc_b": "others/two.html", "text_a": "Volunteers check the stone bridge for cracks after every flood of the year.", "text_b": "Volunteers check the stone bridge for cracks after every flood of the year."},
		map[string]any{"doc_a": "others/one.html", "doc_b": "others/three.html", "text_a": "Subscribe to our newsletter today and never miss a story again.", "text_b": "Subscribe to our newsletter today and never miss a story again."})
	root, spansFile := writeTree(t, spans)
	others := t.TempDir()
	writeFile := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	article := "<p>The river floods the old mill every spring and the town piles sandbags along its banks. Volunteers check the stone bridge for cracks after every flood of the year. The council promised a new wall and engineers surveyed the bank last summer.</p>"
	furniture := "<div>Subscribe to our newsletter today and never miss a story again. Follow us on all the networks you like to read and share. Copyright notices apply to every page of this site.</div>"
	for name, page := range map[string][2]string{
		"one":   {article + furniture, article},
		"two":   {article + furniture, article},
		"three": {"<p>A different story about the harvest in the valley this autumn.</p>" + furniture, "<p>A different story about the harvest in the valley this autumn.</p>"},
	} {
		writeFile(filepath.Join(others, name, "source.html"), page[0])
		writeFile(filepath.Join(others, name, "expected.html"), page[1])
	}
	writeFile(filepath.Join(others, "no-expected", "source.html"), article)
	var ids []string
	for _, d := range prepared(t, "-html", root, "-dump", "-others", others) {
		if _, ok := d["url"]; ok {
			t.Errorf("record %s has a url", d["id"])
		}
		ids = append(ids, d["id"])
	}
	want := "a.html b.html genindex.html sub/c.html others/one.html others/three.html others/two.html"
	if strings.Join(ids, " ") != want {
		t.Errorf("ids %v, want %s", ids, want)
	}

	c := testConfig(root, spansFile)
	c.others = others
	r, err := evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, res := range r.results {
		got[res.a+" "+res.b] = res.class
	}
	if got["others/one.html others/two.html"] != silverClass || got["others/one.html others/three.html"] != templateClass {
		t.Errorf("classes %v, want one/two silver and one/three template-only", got)
	}
	if cnt := r.count(); cnt.otherSilver != 1 || cnt.otherFound != 1 || cnt.otherPairs != 2 || cnt.otherTemplate != 1 {
		t.Errorf("other sites' counts %+v", cnt)
	}
}

// prepared runs prepare with args (and -out) and returns the JSON Lines
// records it writes.
func prepared(t *testing.T, args ...string) []map[string]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "in")
	var stdout bytes.Buffer
	if err := (Main{Stdout: &stdout, Stderr: os.Stderr}).Run(append([]string{"prepare", "-out", out}, args...)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(strings.TrimSpace(stdout.String()))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var d map[string]string
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, d)
	}
	return recs
}
