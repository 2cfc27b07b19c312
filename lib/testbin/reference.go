package testbin

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Reference is ../shared/reference/PARTS seen from the repository root:
// the official benchmark files, present only in the development workspace.
// A test that needs them is skipped, saying so, where they are absent.
func Reference(t testing.TB, parts ...string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(append([]string{filepath.Dir(file), "..", "..", "..", "shared", "reference"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("official reference files not found at %s (only the ifkit workspace has them): %v", p, err)
	}
	return p
}
