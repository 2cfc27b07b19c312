package pipelines

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
)

// Ctrl-C in any stage of a pipeline script, then the command the script
// advises (the same one again), finishes the run with the report of a run
// never interrupted: each stage continues (--resume) or computes its output
// again. The interrupt comes from testdata/interrupt.sh, which stands for the
// programs, holds back half of the stage's input and sends SIGINT to the
// script's process group once the stage started its output, as a terminal
// does. (Before, a Ctrl-C in LIFBench's judge stage left
// judged.jsonl.zst.partial, and the rerun exited 2: judge refused its own
// partial file, though its scores cost nothing.)
func TestInterruptEveryStage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two pipeline scripts once per stage")
	}
	// A script run from a terminal has SIGINT at its default action. A test
	// started in the background (CI, nohup) inherits it ignored, which a
	// shell cannot undo: handling it here makes exec give the children the
	// default back.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT)
	defer signal.Stop(sig)
	url := StartSim(t, "--skill", "1")
	wrapper, err := filepath.Abs(filepath.Join("testdata", "interrupt.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, p := range []string{"gen-context", "expand-templates", "infer-batch", "split-subtasks", "judge", "aggregate-ifs"} {
		if err := os.Symlink(wrapper, filepath.Join(bin, p)); err != nil {
			t.Fatal(err)
		}
	}
	type stage struct {
		program string
		left    string // the partial output the interrupt must leave, when the stage writes as it goes
	}
	for _, c := range []struct {
		script string
		args   []string
		stages []stage
	}{
		{"lifbench.sh", []string{"--lengths", "1k", "-j", "4"}, []stage{
			{"gen-context", ""}, {"expand-templates", "requests.jsonl.zst.partial"}, {"infer-batch", "responses.jsonl.zst.partial"},
			{"judge", "judged.jsonl.zst.partial"}, {"aggregate-ifs", ""},
		}},
		// split-subtasks, and a judge that calls a judge model
		{"eifbench.sh", []string{"--judge-base-url", url, "-j", "4"}, []stage{
			{"split-subtasks", "checks.jsonl.zst.partial"}, {"judge", "judged.jsonl.zst.partial"},
		}},
	} {
		env := []string{"OPENAI_BASE_URL=" + url}
		base := t.TempDir()
		RunScript(t, c.script, env, append([]string{"--out", base}, c.args...)...)
		want, err := os.ReadFile(filepath.Join(base, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.stages {
			t.Run(c.script+"/"+s.program, func(t *testing.T) {
				out, tmp := t.TempDir(), t.TempDir()
				cmd := exec.Command("bash", append([]string{c.script, "--out", out}, c.args...)...)
				cmd.Env = Env(append(env, "IFKIT_BIN="+bin, "IFKIT_REAL_BIN="+testbin.Dir, "INTERRUPT_STAGE="+s.program, "INTERRUPT_TMP="+tmp)...)
				if s.left != "" {
					cmd.Env = append(cmd.Env, "INTERRUPT_WAIT_PARTIAL=1")
				}
				// its own process group: the SIGINT is the script's alone
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				got, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 130 && ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
					t.Fatalf("%s interrupted in %s: %v, want exit 130 or SIGINT\n%s", c.script, s.program, err, got)
				}
				if _, err := os.Stat(filepath.Join(out, s.left)); s.left != "" && err != nil {
					t.Fatalf("the interrupt left no %s to continue from:\n%s", s.left, got)
				}
				RunScript(t, c.script, env, append([]string{"--out", out}, c.args...)...)
				if report, _ := os.ReadFile(filepath.Join(out, "report.md")); string(WithoutRunIDs(report)) != string(WithoutRunIDs(want)) {
					t.Errorf("after the rerun, report.md differs from an uninterrupted run's:\n%s\nwant:\n%s", report, want)
				}
			})
		}
	}
}
