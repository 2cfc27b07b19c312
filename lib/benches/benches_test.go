package benches_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
)

const module = "github.com/ifkit/ifkit/"

// imports maps each package of the module (by import path) to what its
// non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// tests/ holds modules of their own; testdata is not code.
			if rel, _ := filepath.Rel(root, p); rel == "tests" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := module + filepath.ToSlash(rel)
		for _, im := range f.Imports {
			s, _ := strconv.Unquote(im.Path.Value)
			if !slices.Contains(out[pkg], s) {
				out[pkg] = append(out[pkg], s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The list is the only place that names a benchmark: no program, no
// framework (lib/plot, lib/sim, lib/aggregate, the report) and no other
// benchmark imports a benchmark package, so adding one touches its own
// package and one line of the list.
func TestOnlyTheListNamesABenchmark(t *testing.T) {
	all := imports(t)
	list := module + "lib/benches"
	var pkgs []string
	for _, im := range all[list] {
		if strings.HasPrefix(im, module) && im != module+"lib/bench" {
			pkgs = append(pkgs, im)
		}
	}
	if len(pkgs) != len(benches.All) {
		t.Fatalf("lib/benches imports %d benchmark packages for %d benchmarks: %v", len(pkgs), len(benches.All), pkgs)
	}
	for i, b := range benches.All {
		if !slices.Contains(pkgs, module+"lib/"+b.Name) {
			t.Errorf("benchmark %d is %q, but no package lib/%s is listed", i, b.Name, b.Name)
		}
	}
	for pkg, ims := range all {
		if pkg == list {
			continue
		}
		for _, im := range ims {
			if slices.Contains(pkgs, im) {
				t.Errorf("%s imports %s: only lib/benches names a benchmark (take the list as an argument instead)", strings.TrimPrefix(pkg, module), path.Base(im))
			}
		}
	}
}

// Every program builds over the list: names, stages and flags agree, and
// every benchmark has its page.
func TestListIsWhole(t *testing.T) {
	if err := bench.Check(benches.All); err != nil {
		t.Fatal(err)
	}
	programs.GenContext(benches.All)
	programs.ExpandTemplates(benches.All)
	programs.SplitSubtasks(benches.All)
	programs.Judge(benches.All)
	programs.AggregateIFS(benches.All)
	programs.LLMSim(benches.All)
	for _, b := range benches.All {
		if _, err := os.Stat(filepath.Join("..", "..", "docs", b.Name+".md")); err != nil {
			t.Errorf("%s has no page: %v", b.Name, err)
		}
	}
}
