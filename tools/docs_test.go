package tools_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/oai"
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
