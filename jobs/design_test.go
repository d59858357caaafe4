package jobs

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
)

// TestDesignMap: docs/design.md's package map names every package of the
// module (mappers/JOB/ and reducers/JOB/ stand for their folders), and
// names no package that is not there; its table of jobs names every stage
// of the pipeline.
func TestDesignMap(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	design := string(b)
	m := regexp.MustCompile("(?s)## Packages\n\n```\n(.*?)```").FindStringSubmatch(design)
	if m == nil {
		t.Fatal("docs/design.md: no package map (a fenced block after \"## Packages\")")
	}
	block := m[1]
	var pkgs []string
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(p))
			if rel := strings.TrimPrefix(dir, "../"); rel != dir && !slices.Contains(pkgs, rel) {
				pkgs = append(pkgs, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 40 {
		t.Fatalf("found %d packages, want the module's (40 or more)", len(pkgs))
	}
	named := func(pkg string) bool {
		for _, folder := range []string{"mappers/", "reducers/"} {
			if strings.HasPrefix(pkg, folder) && strings.Contains(block, folder+"JOB/") {
				return true
			}
		}
		return regexp.MustCompile(`(^|[\s,(])` + regexp.QuoteMeta(pkg) + `(/|,|\s|$)`).MatchString(block)
	}
	for _, p := range pkgs {
		if !named(p) {
			t.Errorf("docs/design.md's package map does not name %s", p)
		}
	}
	for _, ref := range regexp.MustCompile(`(?m)(?:^|[\s,])((?:jobs|lib|mappers|reducers|scripts)/[a-z0-9/]*[a-z0-9])/?`).FindAllStringSubmatch(block, -1) {
		p := ref[1]
		if strings.HasSuffix(p, "/JOB") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("docs/design.md's package map names %s, which is not in the tree", p)
		}
	}
	rounds := pipeline.StarRound(1, "edges")
	stages := slices.Concat(pipeline.Stages(), pipeline.ClusterStages(), rounds[:], []pipeline.Stage{pipeline.ClustersStage("x")})
	if want := fmt.Sprintf("as %s Hadoop Streaming jobs", spelled[len(pipeline.Stages())]); !strings.Contains(design, want) {
		t.Errorf("docs/design.md does not say the pipeline is %q", want)
	}
	for _, st := range stages {
		if !regexp.MustCompile(`(?m)^\| [^|]*\b` + regexp.QuoteMeta(st.Name) + `\b`).MatchString(design) {
			t.Errorf("docs/design.md's table of jobs does not name the %s stage", st.Name)
		}
	}
}

var spelled = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// TestImports: the module's import graph points one way (docs/design.md,
// "Packages"): the CLI (jobs) -> jobs/pipeline and the two drivers ->
// mappers/*, reducers/* -> lib/*. The CLI imports no mapper or reducer; no
// mapper or reducer imports another of either folder; lib/ imports nothing
// above it; nothing in the product imports scripts/ (the planted corpus's
// generator, scripts/plant, among them), and only the CLI's pdc eval
// imports lib/eval. Tests are left out (a test may run any
// program). The one exception, listed: scripts/dedupcheck reads a run's
// manifest with jobs/pipeline's reader.
func TestImports(t *testing.T) {
	t.Parallel()
	const module = "github.com/pdc-mr/pdc/"
	imports := map[string][]string{} // package dir -> module packages it imports
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := strings.TrimPrefix(filepath.ToSlash(filepath.Dir(p)), "../")
		for _, im := range f.Imports {
			if path := strings.Trim(im.Path.Value, `"`); strings.HasPrefix(path, module) {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(path, module))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	top := func(p string) string { return strings.SplitN(p, "/", 2)[0] }
	isTool := func(p string) bool {
		return p == "lib/eval"
	}
	allowed := map[string]bool{
		"scripts/dedupcheck -> jobs/pipeline": true, // _pdc.json
	}
	var broken []string
	for pkg, ims := range imports {
		for _, im := range ims {
			edge := pkg + " -> " + im
			var why string
			switch {
			case allowed[edge]:
			case top(pkg) != "scripts" && top(im) == "scripts":
				why = "the product imports a tool"
			case pkg == "jobs" && (top(im) == "mappers" || top(im) == "reducers"):
				why = "the CLI imports a streaming program (run it through jobs/pipeline; share through lib/)"
			case (top(pkg) == "mappers" || top(pkg) == "reducers") && (top(im) == "mappers" || top(im) == "reducers") && im != pkg:
				why = "a streaming program imports another (what two jobs share belongs in lib/)"
			case top(pkg) == "lib" && top(im) != "lib":
				why = "lib/ imports a package above it"
			case top(pkg) != "scripts" && isTool(im) && pkg != "jobs":
				why = "the product imports lib/eval, which only pdc eval uses"
			case top(pkg) == "mappers" || top(pkg) == "reducers":
				if top(im) == "jobs" {
					why = "a streaming program imports the CLI or a driver"
				}
			}
			if why != "" {
				broken = append(broken, edge+": "+why)
			}
		}
	}
	slices.Sort(broken)
	for _, b := range broken {
		t.Error(b)
	}
	if len(imports) < 40 {
		t.Fatalf("read the imports of %d packages, want the module's", len(imports))
	}
}
