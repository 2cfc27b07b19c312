package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The scripts run as the README shows them: executed directly, from a clean
// PATH without the ifkit programs, they find the checkout's bin/ themselves.
func TestScriptsRunFromACleanPath(t *testing.T) {
	url := StartSim(t, "--skill", "1")
	co := checkout(t, t.TempDir())
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sh") && e.Name() != "lib.sh" {
			if info, _ := e.Info(); info.Mode()&0o111 == 0 {
				t.Errorf("pipelines/%s is not executable", e.Name())
			}
		}
	}
	clean := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + co, "OPENAI_BASE_URL=" + url}
	cmd := exec.Command("./pipelines/ifscale.sh", "--densities", "10,20", "--seeds", "0", "--out", "out/ifscale")
	cmd.Dir, cmd.Env = co, clean
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "IFScale") {
		t.Fatalf("./pipelines/ifscale.sh from a clean PATH: %v\n%s", err, out)
	}

	// The five scripts share their common flags (pipelines/lib.sh): each takes
	// --retry-errors and -j, and refuses an unknown flag (exit 2).
	for _, name := range []string{"lifbench", "ifscale", "longins", "longgenbench", "eifbench"} {
		cmd := exec.Command("./pipelines/"+name+".sh", "--retry-errors", "-j", "4", "--max-failures", "5%", "--no-such-flag")
		cmd.Dir, cmd.Env = co, clean
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "unknown argument --no-such-flag") {
			t.Errorf("%s.sh --retry-errors -j 4 --max-failures 5%% --no-such-flag: %v, want exit 2 naming only the unknown flag:\n%s", name, err, out)
		}
	}

	// Without programs anywhere, the script says what to do (exit 2).
	bare := t.TempDir()
	os.Symlink(filepath.Join(co, "pipelines"), filepath.Join(bare, "pipelines"))
	cmd = exec.Command("./pipelines/ifscale.sh")
	cmd.Dir, cmd.Env = bare, clean
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "make build") {
		t.Errorf("no programs: %v, want exit 2 saying to run make build:\n%s", err, out)
	}
}
