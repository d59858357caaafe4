package jobs

import (
	"fmt"
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
