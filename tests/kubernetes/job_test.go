// Package kubernetes checks pipelines/kubernetes/infer-indexed-job.yaml the
// way the API server would read it, with Kubernetes' own types and strict
// decoding (a misspelt or mistyped field fails), then runs its container's
// command once per completion index, as the Job's pods would, and merges the
// parts.
package kubernetes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/ifkit/ifkit/lib/testprograms"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func TestMain(m *testing.M) { testprograms.Main(m) }

const manifest = "../../pipelines/kubernetes/infer-indexed-job.yaml"

// varRef is a $(VAR) reference in a container's command or args, which
// Kubernetes expands from the container's env ($$ escapes it).
var varRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

func expand(s string, env map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := env[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func TestIndexedJob(t *testing.T) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("%s is not a batch/v1 Job: %v", manifest, err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name == "" {
		t.Fatalf("apiVersion %q, kind %q, name %q: want a named batch/v1 Job", job.APIVersion, job.Kind, job.Name)
	}
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v: want Indexed (the pods' JOB_COMPLETION_INDEX is their shard)", spec.CompletionMode)
	}
	if spec.Completions == nil || *spec.Completions < 1 || spec.Parallelism == nil || *spec.Parallelism < 1 {
		t.Fatalf("completions %v, parallelism %v: an Indexed Job needs both", spec.Completions, spec.Parallelism)
	}
	pod := spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %q: a Job's pods must be Never or OnFailure", pod.RestartPolicy)
	}
	if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds <= 25 {
		t.Errorf("terminationGracePeriodSeconds %v: want more than infer-batch's --grace of 25 s", pod.TerminationGracePeriodSeconds)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want one", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Name == "" || c.Image == "" || len(c.Command) == 0 || c.Command[0] != "infer-batch" {
		t.Fatalf("container %q, image %q, command %v: want a named container running infer-batch", c.Name, c.Image, c.Command)
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = true
	}
	for _, m := range c.VolumeMounts {
		if !volumes[m.Name] || !filepath.IsAbs(m.MountPath) {
			t.Errorf("volumeMount %q at %q: no such volume, or not an absolute path", m.Name, m.MountPath)
		}
	}
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	if env["SHARDS"] != fmt.Sprint(*spec.Completions) {
		t.Errorf("SHARDS=%q but completions %d: the pods would write parts of another N", env["SHARDS"], *spec.Completions)
	}
	args := append(slices.Clone(c.Command[1:]), c.Args...)
	for _, a := range args {
		for _, m := range varRef.FindAllStringSubmatch(a, -1) {
			if m[1] != "" {
				if _, ok := env[m[1]]; !ok {
					t.Errorf("argument %q refers to $(%s), which the container's env does not set (Kubernetes would pass it as written)", a, m[1])
				}
			}
		}
	}
	for _, want := range [][]string{{"--shard", "auto"}, {"--resume"}} {
		if !slices.ContainsFunc(args, func(a string) bool { return a == want[0] }) || len(want) == 2 && !slices.Contains(args, want[1]) {
			t.Errorf("args %v: want %v", args, want)
		}
	}
	if t.Failed() {
		return
	}

	// The pods, one per index, with the volume's paths under a temporary
	// folder and llm-sim as the endpoint.
	dir := t.TempDir()
	requests := filepath.Join(dir, "requests.jsonl.zst")
	gen := exec.Command("bash", "-c", "gen-context ifscale --densities 10,20,30,40 --seeds 0,1,2,3 | expand-templates --compress zstd -o "+requests)
	gen.Env = append(os.Environ(), "PATH="+testbin.Dir+":"+os.Getenv("PATH"))
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("making requests: %v\n%s", err, out)
	}
	env["REQUESTS"] = requests
	env["OUT"] = filepath.Join(dir, "parts")
	env["OPENAI_BASE_URL"] = testbin.StartSim(t, "--skill", "1")
	env["JOBS"] = "4"
	for i := range int(*spec.Completions) {
		cmd := exec.Command(filepath.Join(testbin.Dir, c.Command[0]))
		for _, a := range args {
			cmd.Args = append(cmd.Args, expand(a, env))
		}
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the pod of index %d: %v\n%s", i, err, out)
		}
	}
	// The parts are one complete set: judge reads the folder only then.
	judged := filepath.Join(dir, "judged.jsonl")
	if out, err := exec.Command(filepath.Join(testbin.Dir, "judge"), "-o", judged, env["OUT"]+"/").CombinedOutput(); err != nil {
		t.Fatalf("judge over the pods' parts: %v\n%s", err, out)
	}
	count := func(path string) int {
		out, err := exec.Command(filepath.Join(testbin.Dir, "split-subtasks"), "--compress", "none", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(out), "\n")
	}
	if got, want := count(judged), count(requests); got != want {
		t.Errorf("the pods' parts hold %d records, want the %d requests", got, want)
	}
}
