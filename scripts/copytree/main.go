// Command copytree builds a tree of mirrored copies of a documentation
// tree, as mirrors and versioned doc sites hold them, and checks that a run
// groups every page with its copies:
//
//	go run ./scripts/copytree --make --src DIR --copies 10 --out TREE
//	pdc run --input TREE --output OUT
//	pdc pairs OUT --groups > groups.tsv
//	go run ./scripts/copytree --check --copies 10 --groups groups.tsv --out TREE
//
// --make copies every .html file of DIR into TREE/copy-NN/ (NN from 01),
// adding to each page, after <body> and before </body>, one line of its
// copy's own (a mirror's banner and footer: "Mirror NN of this manual ..."),
// so that no two copies are byte-identical and hashing cannot group them.
//
// --check reads `pdc pairs --groups` output (`size TAB doc TAB doc ...`)
// and prints, of the pages of one copy, how many have all their copies in
// one group (the share must reach --fail, default 0.95, else it exits 1);
// with --list N it prints N pages that do not on stderr.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	var (
		mk, check      bool
		src, out, grps string
		copies, list   int
		fail           float64
	)
	flag.BoolVar(&mk, "make", false, "build the tree of copies")
	flag.BoolVar(&check, "check", false, "check pdc pairs --groups output")
	flag.StringVar(&src, "src", "", "the tree to copy (--make)")
	flag.StringVar(&out, "out", "", "the tree of copies")
	flag.StringVar(&grps, "groups", "", "pdc pairs --groups output (--check)")
	flag.IntVar(&copies, "copies", 10, "number of copies")
	flag.IntVar(&list, "list", 0, "pages not grouped with their copies to list (--check)")
	flag.Float64Var(&fail, "fail", 0.95, "exit 1 when the share of grouped pages is under this (--check)")
	flag.Parse()
	var err error
	switch {
	case mk && src != "" && out != "" && copies > 0:
		err = makeTree(src, out, copies)
	case check && grps != "" && out != "" && copies > 1:
		var ok bool
		ok, err = checkGroups(grps, out, copies, list, fail)
		if err == nil && !ok {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: copytree --make --src DIR --copies N --out TREE | --check --groups FILE --copies N --out TREE [--list N] [--fail R]")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "copytree:", err)
		os.Exit(1)
	}
}

// pages returns the .html files under dir, relative to it.
func pages(dir string) ([]string, error) {
	var rels []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".html") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			rels = append(rels, rel)
		}
		return nil
	})
	return rels, err
}

func copyDir(n int) string { return fmt.Sprintf("copy-%02d", n) }

func makeTree(src, out string, copies int) error {
	rels, err := pages(src)
	if err != nil {
		return err
	}
	if len(rels) == 0 {
		return fmt.Errorf("no .html files under %s", src)
	}
	for _, rel := range rels {
		page, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			return err
		}
		for n := 1; n <= copies; n++ {
			banner := fmt.Sprintf("<p>Mirror %02d of this manual, kept by the archive of site number %d; it is refreshed every %d days.</p>", n, n, n+1)
			footer := fmt.Sprintf("<p>Served by mirror %02d (host %d) of the documentation archive.</p>", n, 100+n)
			s := string(page)
			if i := strings.Index(strings.ToLower(s), "<body"); i >= 0 {
				if j := strings.IndexByte(s[i:], '>'); j >= 0 {
					s = s[:i+j+1] + banner + s[i+j+1:]
				}
			}
			if i := strings.LastIndex(strings.ToLower(s), "</body>"); i >= 0 {
				s = s[:i] + footer + s[i:]
			}
			dst := filepath.Join(out, copyDir(n), rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, []byte(s), 0o644); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%d pages in %d copies under %s\n", len(rels), copies, out)
	return nil
}

func checkGroups(groupsFile, out string, copies, list int, fail float64) (bool, error) {
	rels, err := pages(filepath.Join(out, copyDir(1)))
	if err != nil {
		return false, err
	}
	f, err := os.Open(groupsFile)
	if err != nil {
		return false, err
	}
	defer f.Close()
	group := map[string]int{} // document id -> line of its group
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		for _, id := range fields[1:] {
			group[id] = line
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	// The ids of a tree's pages: paths below --input, with or without the
	// tree's own directory name in front.
	id := func(n int, rel string) (string, bool) {
		for _, cand := range []string{filepath.Join(copyDir(n), rel), filepath.Join(filepath.Base(out), copyDir(n), rel)} {
			if _, ok := group[cand]; ok {
				return cand, true
			}
		}
		return "", false
	}
	grouped := 0
	var missed []string
	for _, rel := range rels {
		first, all := 0, true
		for n := 1; n <= copies && all; n++ {
			d, ok := id(n, rel)
			switch {
			case !ok:
				all = false
			case n == 1:
				first = group[d]
			case group[d] != first:
				all = false
			}
		}
		if all {
			grouped++
		} else {
			missed = append(missed, rel)
		}
	}
	share := float64(grouped) / float64(len(rels))
	fmt.Printf("pages\t%d\tgrouped with all %d copies\t%d\tshare\t%.4f\n", len(rels), copies, grouped, share)
	for _, m := range missed[:min(list, len(missed))] {
		fmt.Fprintln(os.Stderr, "not grouped:", m)
	}
	return share >= fail, nil
}
