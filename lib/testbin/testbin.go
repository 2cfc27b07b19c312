package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Version is stamped into the binaries, so scripts can check --version.
const Version = "test-version"

// Dir holds the built programs while the tests run.
var Dir string

// Main builds ./tools/... from the repository root into a temporary folder,
// runs the tests and exits; call it from TestMain.
func Main(m *testing.M, root string) {
	dir, err := os.MkdirTemp("", "ifkit-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-ldflags", "-X github.com/ifkit/ifkit/lib/app.Version="+Version, "-o", dir+"/", "./tools/...")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the tools:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	Dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
