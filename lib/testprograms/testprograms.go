package testprograms

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/programs"
	"github.com/ifkit/ifkit/lib/testbin"
)

// Main is a TestMain: MainWith over lib/benches.All, except under -race,
// where it builds the programs from tools/ without the race detector
// instead: instrumented, they made the pipelines' tests take 13 minutes
// instead of under 2 (this machine, 2026-11-27). The tests' own code still
// runs under -race, and so do the programs' packages' own tests.
func Main(m *testing.M) {
	if !Race {
		MainWith(m, benches.All)
	}
	run(m, build)
}

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
	run(m, func(dir string) error {
		self, err := os.Executable()
		for name := range tools {
			if err == nil {
				err = os.Symlink(self, filepath.Join(dir, name))
			}
		}
		return err
	})
}

// run fills testbin.Dir, runs the tests and exits.
func run(m *testing.M, fill func(dir string) error) {
	dir, err := os.MkdirTemp("", "ifkit-bin-")
	if err == nil {
		err = fill(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprograms: the programs under test:", err)
		os.Exit(1)
	}
	testbin.Dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds ./tools/... of this checkout into dir.
func build(dir string) error {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-ldflags", "-X github.com/ifkit/ifkit/lib/app.Version="+testbin.Version, "-o", dir+string(os.PathSeparator), "./tools/...")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}
