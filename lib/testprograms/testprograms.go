package testprograms

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
	"github.com/ifkit/ifkit/lib/testbin"
)

// Main is a TestMain: MainWith over lib/benches.All.
func Main(m *testing.M) { MainWith(m, benches.All) }

// MainWith is a TestMain. Run under a program's name (a link in
// testbin.Dir), the binary is that program over bs, stamped with
// testbin.Version. Otherwise it makes testbin.Dir, a folder of links named
// after the seven programs that point to this binary, runs the tests and
// exits.
func MainWith(m *testing.M, bs []bench.Bench) {
	tools := map[string]app.Tool{}
	for _, t := range programs.All(bs) {
		tools[t.Name] = t
	}
	if t, ok := tools[filepath.Base(os.Args[0])]; ok {
		app.Version = testbin.Version
		app.Main(t)
	}
	self, err := os.Executable()
	if err == nil {
		testbin.Dir, err = os.MkdirTemp("", "ifkit-bin-")
	}
	for name := range tools {
		if err == nil {
			err = os.Symlink(self, filepath.Join(testbin.Dir, name))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "linking the programs to the test binary:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(testbin.Dir)
	os.Exit(code)
}
