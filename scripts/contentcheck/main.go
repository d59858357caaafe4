// Command contentcheck measures pdc's not-content rules (lib/doc
// Sentence.NotContent) on real article pages whose article text is known:
// go-readability's test pages (test-pages/NAME/source.html, with
// expected.html the article as readability extracts it).
//
//	go run ./scripts/contentcheck [TEST-PAGES-DIR]
//
// Without an argument it finds the pages in the Go module cache (go mod
// download). For every page it analyzes source.html as pdc does and
// counts, among sentences that could be matched (3 tokens or more, or
// marked), those found in the article text (at least 30 characters, the
// whole sentence in expected.html's text) and those outside it, and how
// many of each are marked not content, by reason. It prints the totals
// and the pages that lose the most article sentences.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/htmltext"
)

// module is the go-readability version whose test pages are measured.
const module = "github.com/go-shiori/go-readability@v0.0.0-20241012063810-92284fa8a71f"

func main() {
	dir := ""
	if len(os.Args) > 1 {
		dir = os.Args[1]
	} else {
		out, err := exec.Command("go", "mod", "download", "-json", module).Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "contentcheck: go mod download:", err)
			os.Exit(1)
		}
		var m struct{ Dir string }
		if err := json.Unmarshal(out, &m); err != nil {
			fmt.Fprintln(os.Stderr, "contentcheck:", err)
			os.Exit(1)
		}
		dir = filepath.Join(m.Dir, "test-pages")
	}
	if err := run(dir); err != nil {
		fmt.Fprintln(os.Stderr, "contentcheck:", err)
		os.Exit(1)
	}
}

// page is one page's counts.
type page struct {
	name                   string
	article, articleMarked int
	other, otherMarked     int
	reasons                map[string]int // of marked article sentences
}

func run(dir string) error {
	dirs, err := filepath.Glob(filepath.Join(dir, "*", "source.html"))
	if err != nil || len(dirs) == 0 {
		return fmt.Errorf("no test pages in %s", dir)
	}
	var pages []page
	var total page
	total.reasons = map[string]int{}
	for _, src := range dirs {
		p, err := measure(filepath.Dir(src))
		if err != nil {
			return err
		}
		pages = append(pages, p)
		total.article += p.article
		total.articleMarked += p.articleMarked
		total.other += p.other
		total.otherMarked += p.otherMarked
		for k, v := range p.reasons {
			total.reasons[k] += v
		}
	}
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	fmt.Printf("%d pages: article sentences %d, marked not content %d (%.1f%%) %v; other sentences %d, marked %d (%.1f%%)\n",
		len(pages), total.article, total.articleMarked, pct(total.articleMarked, total.article), total.reasons,
		total.other, total.otherMarked, pct(total.otherMarked, total.other))
	slices.SortStableFunc(pages, func(a, b page) int { return b.articleMarked - a.articleMarked })
	for _, p := range pages[:min(10, len(pages))] {
		fmt.Printf("  %-28s article %4d marked %4d %v\n", p.name, p.article, p.articleMarked, p.reasons)
	}
	return nil
}

func measure(dir string) (page, error) {
	p := page{name: filepath.Base(dir), reasons: map[string]int{}}
	src, err := os.ReadFile(filepath.Join(dir, "source.html"))
	if err != nil {
		return p, err
	}
	exp, err := os.ReadFile(filepath.Join(dir, "expected.html"))
	if err != nil {
		return p, nil // a page without an expected article is not measured
	}
	er, err := htmltext.Extract(exp, "text/html; charset=utf-8")
	if err != nil {
		return p, err
	}
	article := strings.Join(strings.Fields(er.Text), " ")
	an := doc.Analyzer{ContentType: "text/html"}
	a, err := an.Analyze(&doc.Doc{ID: p.name, HTML: string(src), IsHTML: true})
	if err != nil {
		return p, fmt.Errorf("%s: %w", dir, err)
	}
	runes := []rune(a.Text)
	for _, s := range a.Sentences {
		if len(s.Tokens) < 3 && s.NotContent == "" {
			continue // too short to be matched anyway
		}
		t := strings.Join(strings.Fields(string(runes[s.Start:s.End])), " ")
		if len([]rune(t)) >= 30 && strings.Contains(article, t) {
			p.article++
			if s.NotContent != "" {
				p.articleMarked++
				p.reasons[s.NotContent]++
			}
			continue
		}
		p.other++
		if s.NotContent != "" {
			p.otherMarked++
		}
	}
	return p, nil
}
