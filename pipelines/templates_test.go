package pipelines

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The array templates users submit are valid bash, and their scheduler
// directives are options the scheduler has, come before the first command
// (where schedulers stop reading them), and make an array of the 16 shards
// docs/cluster.md shows, with what each scheduler needs to run the script as
// written. Running them is TestShardRecipes' job (and TestSlurm's and
// TestGridEngine's on real schedulers); the Kubernetes manifest is checked
// against Kubernetes' own types in tests/kubernetes.
func TestTemplateDirectives(t *testing.T) {
	doc, err := os.ReadFile("../docs/cluster.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tpl := range []struct {
		script, prefix string
		// known are the scheduler's options (sbatch(1), PBS qsub(1B), bsub,
		// Grid Engine qsub(1)) a template may use; need must be there.
		known, need []string
		array       *regexp.Regexp // the array directive: 16 tasks
	}{
		{"slurm/infer-array.sbatch", "#SBATCH", []string{"--job-name", "--array", "--signal", "--time", "--partition", "--account", "--requeue", "--output", "--error", "--mem", "--cpus-per-task", "--gres"},
			[]string{"--job-name", "--array", "--signal"}, regexp.MustCompile(`^--array=0-15(%\d+)?$`)},
		{"slurm/judge-array.sbatch", "#SBATCH", []string{"--job-name", "--array", "--signal"}, []string{"--job-name", "--signal"}, nil},
		{"pbs/infer-array.pbs", "#PBS", []string{"-N", "-J", "-V", "-j", "-r", "-l", "-q", "-A", "-o", "-e", "-m", "-M", "-W", "-k"},
			[]string{"-N", "-J", "-V"}, regexp.MustCompile(`^-J 0-15(:1)?$`)},
		{"lsf/infer-array.lsf", "#BSUB", []string{"-J", "-o", "-e", "-q", "-n", "-W", "-R", "-M", "-G", "-P"},
			[]string{"-J", "-o"}, regexp.MustCompile(`^-J "ifkit-infer\[1-16\](%\d+)?"$`)},
		{"gridengine/infer-array.sge", "#$", []string{"-N", "-t", "-tc", "-cwd", "-V", "-j", "-r", "-S", "-o", "-e", "-l", "-q", "-pe", "-notify"},
			[]string{"-N", "-t", "-cwd", "-V", "-S"}, regexp.MustCompile(`^-t 1-16$`)},
	} {
		if out, err := exec.Command("bash", "-n", tpl.script).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", tpl.script, err, out)
		}
		if info, err := os.Stat(tpl.script); err != nil || info.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", tpl.script)
		}
		if !strings.Contains(string(doc), "pipelines/"+tpl.script) {
			t.Errorf("docs/cluster.md does not show pipelines/%s", tpl.script)
		}
		src, _ := os.ReadFile(tpl.script)
		var seen []string
		arrays := 0
		commands := false
		for n, line := range strings.Split(string(src), "\n") {
			rest, ok := strings.CutPrefix(line, tpl.prefix+" ")
			switch {
			case ok && commands:
				t.Errorf("%s:%d: %s after the first command, where the scheduler no longer reads it", tpl.script, n+1, line)
			case ok:
				opt, _, _ := strings.Cut(rest, " ")
				opt, _, _ = strings.Cut(opt, "=")
				if !slices.Contains(tpl.known, opt) {
					t.Errorf("%s:%d: %s is not an option of %s the template may use (%v)", tpl.script, n+1, opt, tpl.prefix, tpl.known)
				}
				seen = append(seen, opt)
				if tpl.array != nil && tpl.array.MatchString(strings.TrimSpace(rest)) {
					arrays++
				}
			case strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#"):
				commands = true
			}
		}
		for _, o := range tpl.need {
			if !slices.Contains(seen, o) {
				t.Errorf("%s has no %s %s directive", tpl.script, tpl.prefix, o)
			}
		}
		if tpl.array != nil && arrays != 1 {
			t.Errorf("%s: want one array directive of 16 tasks matching %s", tpl.script, tpl.array)
		}
	}
}
