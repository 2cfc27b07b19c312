package lifbench

import (
	"bytes"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pyaliases.go is what its generator writes, where the generator's sources
// (CPython 3.11, Perl 5.36's unicore/Name.pl) are installed.
func TestAliasesGenerated(t *testing.T) {
	if m, _ := filepath.Glob("/usr/share/perl/5.36*/unicore/Name.pl"); len(m) == 0 {
		t.Skip("Perl 5.36's unicore/Name.pl is not installed: cannot regenerate pyaliases.go")
	}
	out, err := exec.Command("python3", "pyaliases_gen.py").Output()
	if err != nil {
		t.Skipf("pyaliases_gen.py needs CPython 3.11: %v", err)
	}
	got, err := format.Source(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("pyaliases.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("pyaliases.go differs from what pyaliases_gen.py writes: run go generate ./lib/lifbench")
	}
}
