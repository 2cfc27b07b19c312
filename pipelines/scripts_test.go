package pipelines

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

	// Every script writes one file per stage under the same names
	// (pipelines/lib.sh), split-subtasks' checks only where replies are cut.
	stages := []string{"items.jsonl.zst", "requests.jsonl.zst", "responses.jsonl.zst", "judged.jsonl.zst", "report.md", "report.jsonl"}
	for _, c := range []struct {
		name, title string
		split       bool
		args        []string
	}{
		{"lifbench", "LIFBench", false, []string{"--lengths", "1k"}},
		{"ifscale", "IFScale", false, []string{"--densities", "10,20", "--seeds", "0"}},
		{"longins", "LongIns", false, []string{"--lengths", "256", "--modes", "gist"}},
		{"longgenbench", "LongGenBench", true, []string{"--count", "1", "--scenarios", "diary"}},
		{"eifbench", "EifBench", true, nil},
	} {
		cmd := exec.Command("./pipelines/"+c.name+".sh", append([]string{"--out", "out/" + c.name}, c.args...)...)
		cmd.Dir, cmd.Env = co, clean
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.title) {
			t.Fatalf("./pipelines/%s.sh from a clean PATH: %v\n%s", c.name, err, out)
		}
		want := append([]string(nil), stages...)
		if c.split {
			want = append(want, "checks.jsonl.zst")
		}
		slices.Sort(want)
		var got []string
		files, _ := os.ReadDir(filepath.Join(co, "out", c.name))
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), ".") {
				got = append(got, f.Name())
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s.sh wrote %v, want %v", c.name, got, want)
		}
	}

	// A rerun keeps the stages that are complete, made by the same command
	// from unchanged inputs, and resumes inference; a changed flag redoes the
	// stage and everything after it.
	rerun := func(args ...string) string {
		cmd := exec.Command("./pipelines/ifscale.sh", append([]string{"--out", "out/ifscale"}, args...)...)
		cmd.Dir, cmd.Env = co, clean
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rerun ifscale.sh %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	out := rerun("--densities", "10,20", "--seeds", "0")
	for _, f := range []string{"items.jsonl.zst", "requests.jsonl.zst"} {
		if !strings.Contains(out, "ifscale.sh: "+f+" is complete (same command, inputs unchanged): kept") {
			t.Errorf("rerun did not keep %s:\n%s", f, out)
		}
	}
	if !strings.Contains(out, "resumed=2") {
		t.Errorf("rerun did not resume inference:\n%s", out)
	}
	out = rerun("--densities", "10,20,30", "--seeds", "0")
	if strings.Contains(out, "kept") || !strings.Contains(out, "requests=1 ") {
		t.Errorf("a new density must regenerate the items and send only the new prompt:\n%s", out)
	}

	// A stage that fails beyond --max-failures ends the script with its exit
	// code and one line saying what to do.
	cmd := exec.Command("./pipelines/ifscale.sh", "--model", "no-such-model", "--densities", "10", "--seeds", "0", "--out", "out/failing")
	cmd.Dir, cmd.Env = co, clean
	out2, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 || !strings.Contains(string(out2), "ifscale.sh: infer-batch finished, but more records failed than --max-failures 10% allows (exit 4") {
		t.Errorf("failing inference: %v, want exit 4 and what to do:\n%s", err, out2)
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
	out2, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out2), "make build") {
		t.Errorf("no programs: %v, want exit 2 saying to run make build:\n%s", err, out2)
	}
}
