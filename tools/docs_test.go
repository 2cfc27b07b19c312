package tools_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/lake"
	"github.com/ifkit/ifkit/lib/longgenbench"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/provenance"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/testbin"
)

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The docs say what the programs do: each claim a first-hour user tripped
// over (issue 16) is compared with the behaviour or the --help it describes.
// The exit code of a missing input file (3, docs/cli.md) is pinned by the
// cli-*.txtar case tables, where every program is given one.
func TestDocsMatchBehaviour(t *testing.T) {
	// The retry status lists are the ones statusError applies (TestStatusLists).
	for _, doc := range []string{"README.md", "docs/infer-batch.md"} {
		text := strings.Join(strings.Fields(readDoc(t, doc)), " ")
		for _, list := range []string{oai.RetriedStatuses, oai.FinalStatuses} {
			if !strings.Contains(text, list) {
				t.Errorf("%s does not name the statuses %q", doc, list)
			}
		}
	}
	if !strings.Contains(readDoc(t, "docs/cli.md"), "an input file that is missing or unreadable") {
		t.Error("docs/cli.md does not say a missing input file is exit 3")
	}

	// docs/ifscale.md's first-byte wait is infer-batch's default.
	help, err := exec.Command(filepath.Join(testbin.Dir, "infer-batch"), "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`--timeout-first-byte value .*\(default: (\d+)m0s\)`).FindSubmatch(help)
	if m == nil {
		t.Fatalf("infer-batch --help names no --timeout-first-byte default:\n%s", help)
	}
	if want := "waits " + string(m[1]) + " min"; !strings.Contains(strings.Join(strings.Fields(readDoc(t, "docs/ifscale.md")), " "), want) {
		t.Errorf("docs/ifscale.md does not say infer-batch %s (its --timeout-first-byte default)", want)
	}

	// The README asks for the Go version go.mod names.
	gomod := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(readDoc(t, "go.mod"))
	if gomod == nil {
		t.Fatal("go.mod has no go directive")
	}
	if !strings.Contains(readDoc(t, "README.md"), "Go "+gomod[1]+" or later") {
		t.Errorf("README.md does not ask for Go %s or later, the version go.mod requires", gomod[1])
	}
}

// docs/records.md names every field the code writes: each JSON field of the
// record, manifest and row types, every metric-row core column, and every
// error kind a stage sets (a constant Kind… = "…" or an Error{Kind: "…"}
// literal in lib/). A field added without its line there fails here.
func TestRecordsDocNamesEveryField(t *testing.T) {
	doc := readDoc(t, "docs/records.md")
	named := func(what, name string) {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/records.md does not name %s `%s`", what, name)
		}
	}
	var fields func(typ reflect.Type)
	fields = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case f.Anonymous && tag == "":
				fields(f.Type) // an embedded struct's fields are the record's
			case tag != "" && tag != "-":
				named("the field "+typ.String()+"."+f.Name+" as", tag)
			}
		}
	}
	for _, v := range []any{record.Response{}, record.Error{}, record.Judgement{}, record.JudgeCall{}, record.Point{}, record.Usage{},
		record.PromptTokensDetails{}, record.CompletionTokensDetails{},
		parts.Manifest{}, provenance.Provenance{}, provenance.Input{}, lake.Manifest{}, lake.Part{}, longgenbench.Counts{}, longgenbench.Entry{}} {
		fields(reflect.TypeOf(v))
	}
	for _, c := range report.Core {
		named("the metric-row column", c)
	}
	for _, f := range []string{"id", "bench", "task", "group", "context", "gold", record.SourceField, "request", "model", "response", "error", "parent", "entry", "split", "segment", "judgement", record.JudgeModelField, app.PartialField} {
		named("the record field", f)
	}
	kindRE := regexp.MustCompile(`(?m)^\s*Kind\w* *= *"(\w+)"|Error\{[^}\n]*\bKind: *"(\w+)"`)
	err := filepath.WalkDir(filepath.Join("..", "lib"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		for _, m := range kindRE.FindAllStringSubmatch(string(src), -1) {
			named("the error kind (set in "+p+")", m[1]+m[2])
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The contract lives in docs/: no page, comment or help text sends a reader
// to the founding design page, which is not in the repository.
func TestNoDesignPage(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	refs := regexp.MustCompile(`DESIGN(\.md| §)`)
	for _, f := range strings.Fields(string(out)) {
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			continue // deleted in the working tree
		}
		if loc := refs.FindIndex(b); loc != nil {
			t.Errorf("%s:%d refers to the design page; point to docs/records.md or docs/architecture.md instead", f, 1+strings.Count(string(b[:loc[0]]), "\n"))
		}
	}
}

// Every package under lib/ has its comment in doc.go (go doc shows it) and a
// line in the README's layout table.
func TestPackagesDocumented(t *testing.T) {
	readme := readDoc(t, "README.md")
	layout := readme[strings.Index(readme, "## Layout"):]
	dirs, err := os.ReadDir(filepath.Join("..", "lib"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		doc, err := os.ReadFile(filepath.Join("..", "lib", d.Name(), "doc.go"))
		if err != nil || !strings.HasPrefix(string(doc), "// Package "+d.Name()+" ") {
			t.Errorf("lib/%s: no doc.go opening with its package comment (%v)", d.Name(), err)
		}
		if !strings.Contains(layout, "`lib/"+d.Name()+"`") {
			t.Errorf("README.md's layout table does not list lib/%s", d.Name())
		}
	}
}
