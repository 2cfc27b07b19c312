package pipelines

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/testbin"
)

// cluster is a private single-node Slurm on 127.0.0.1: its own munged socket
// and key, slurmctld and slurmd on free ports, state under a temp folder,
// proctrack/linuxproc and task/none so no cgroups are needed.
type cluster struct {
	dir  string
	conf string
}

// env is what Slurm's client commands (and the jobs they submit) see: a clean
// PATH without the ifkit programs, so the recipes must find them themselves.
func (c *cluster) env(extra ...string) []string {
	return append([]string{"SLURM_CONF=" + c.conf, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + c.dir}, extra...)
}

func (c *cluster) run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, c.env(env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// startSlurm starts the cluster, or skips the test saying why Slurm is not
// available here (CI installs slurm-wlm and munge, see .ci/run).
func startSlurm(t *testing.T) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not starting a Slurm cluster")
	}
	for _, p := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"} {
		if _, err := exec.LookPath(p); err != nil {
			if _, err2 := os.Stat("/usr/sbin/" + p); err2 != nil {
				t.Skipf("Slurm is not installed (%s not found): apt-get install slurm-wlm munge to run this test", p)
			}
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("Slurm's slurmd must run as root to start jobs; run this test as root (CI does)")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	// Short path: munge and Slurm sockets have length limits.
	dir, err := os.MkdirTemp("/tmp", "ifkit-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil { // munged wants its socket's folder searchable, not writable, by all
		t.Fatal(err)
	}
	for _, d := range []string{"state", "spool", "log", "work"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge.sock")
	c := &cluster{dir: dir, conf: filepath.Join(dir, "slurm.conf")}
	conf := fmt.Sprintf(`ClusterName=ifkit-test
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[5]s
CryptoType=crypto/munge
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmctldLogFile=%[2]s/log/slurmctld.log
SlurmdLogFile=%[2]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=30
MinJobAge=600
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, dir, freePort(t), freePort(t), sock)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := func() string {
		var b strings.Builder
		for _, f := range []string{"munged.log", "slurmctld.log", "slurmd.log"} {
			data, _ := os.ReadFile(filepath.Join(dir, "log", f))
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			fmt.Fprintf(&b, "--- %s (last lines)\n%s\n", f, strings.Join(lines[max(0, len(lines)-15):], "\n"))
		}
		return b.String()
	}
	daemon := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Env = c.env()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Skipf("cannot start %s: %v", name, err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
	}
	daemon("munged", "--foreground", "--force", "--socket="+sock, "--key-file="+filepath.Join(dir, "munge.key"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"), "--pid-file="+filepath.Join(dir, "munged.pid"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	waitFor(t, 10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil }, func() string { return "munged did not create its socket\n" + logs() })
	daemon("slurmctld", "-D", "-i", "-f", c.conf)
	daemon("slurmd", "-D", "-f", c.conf, "-N", host)
	t.Cleanup(func() { c.run(t, dir, nil, "scancel", "--full", "--user=root") })
	var state string
	if !poll(30*time.Second, func() bool {
		state, _ = c.run(t, dir, nil, "sinfo", "-h", "-o", "%T")
		return strings.TrimSpace(state) == "idle"
	}) {
		t.Skipf("the private Slurm cluster did not come up (sinfo: %q)\n%s", state, logs())
	}
	return c
}

// exitCode is a finished job's ExitCode as scontrol shows it ("2:0").
func (c *cluster) exitCode(t *testing.T, job string) string {
	out, err := c.run(t, c.dir, nil, "scontrol", "-o", "show", "job", job)
	if err != nil {
		t.Fatalf("scontrol show job %s: %v\n%s", job, err, out)
	}
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "ExitCode="); ok {
			return v
		}
	}
	return "?"
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func poll(d time.Duration, ok func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return false
}

func waitFor(t *testing.T, d time.Duration, ok func() bool, why func() string) {
	t.Helper()
	if !poll(d, ok) {
		t.Fatal(why())
	}
}

// checkout makes a folder laid out like a clone after `make build`: the
// recipes under pipelines/ and the programs under bin/.
func checkout(t *testing.T, parent string) string {
	dir, err := os.MkdirTemp(parent, "checkout-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	root, _ := filepath.Abs(".")
	for name, target := range map[string]string{"pipelines": root, "bin": testbin.Dir} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// clusterRequests writes the IFScale requests the cluster tests submit to
// co/out/ifscale/requests.jsonl.zst and returns that path and their ids.
func clusterRequests(t *testing.T, co string) (string, []string) {
	t.Helper()
	requests := filepath.Join(co, "out", "ifscale", "requests.jsonl.zst")
	os.MkdirAll(filepath.Dir(requests), 0o755)
	gen := exec.Command("bash", "-c", "gen-context ifscale --densities 10,20,30,40,50,60,70,80 --seeds 0,1,2,3 | expand-templates --compress zstd -o "+requests)
	gen.Env = Env()
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("making requests: %v\n%s", err, out)
	}
	return requests, ids(t, requests)
}

// readmeClusterBlock is the first code block of the README's "On a cluster" section.
func readmeClusterBlock(t *testing.T) string {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "## On a cluster")
	_, block, ok2 := strings.Cut(sec, "```\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`README.md has no code block under "## On a cluster"`)
	}
	return block
}

func TestSlurm(t *testing.T) {
	c := startSlurm(t)
	url := StartSim(t, "--skill", "1")
	// Slow enough that a task is still running when the test acts on it.
	slow := StartSim(t, "--skill", "1", "--latency", "400ms")
	co := checkout(t, filepath.Join(c.dir, "work"))
	requests, want := clusterRequests(t, co)
	parts := filepath.Join(co, "out", "ifscale", "parts")

	// sbatch waits for its job, so the next command of a block runs after it
	// as a user's would; everything else runs as written.
	shim := filepath.Join(c.dir, "shim")
	os.Mkdir(shim, 0o755)
	os.WriteFile(filepath.Join(shim, "sbatch"), []byte("#!/bin/sh\nexec /usr/bin/sbatch --wait \"$@\"\n"), 0o755)

	submit := func(t *testing.T, wait bool, env []string, args ...string) string {
		t.Helper()
		if wait {
			args = append([]string{"--wait"}, args...)
		}
		out, err := c.run(t, co, env, "sbatch", append([]string{"--parsable"}, args...)...)
		if err != nil && !wait {
			t.Fatalf("sbatch %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(strings.Split(out, ";")[0])
	}
	merge := func(t *testing.T, dir string) {
		t.Helper()
		judged := filepath.Join(c.dir, "judged.jsonl")
		cmd := exec.Command(Bin("judge"), "-o", judged, dir+"/")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("judge %s/: %v\n%s", dir, err, out)
		}
		if got := ids(t, judged); !slices.Equal(got, want) {
			t.Fatalf("judge %s/ gave %d ids, want exactly the %d requests once each", dir, len(got), len(want))
		}
	}
	refused := func(t *testing.T, dir string, says ...string) {
		t.Helper()
		out, err := exec.Command(Bin("judge"), dir+"/").CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Fatalf("judge %s/ with parts missing: %v (want exit 3)\n%s", dir, err, out)
		}
		for _, s := range says {
			if !strings.Contains(string(out), s) {
				t.Errorf("judge's refusal does not say %q:\n%s", s, out)
			}
		}
	}

	t.Run("README recipe", func(t *testing.T) {
		block := readmeClusterBlock(t)
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
		cmd.Dir = co
		cmd.Env = c.env("PATH="+shim+":"+testbin.Dir+":/usr/local/bin:/usr/bin:/bin", "OPENAI_BASE_URL="+url)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the README's block failed: %v\n%s\n%s", err, block, out)
		}
		if !strings.Contains(string(out), "IFScale") {
			t.Errorf("the README's block printed no IFScale table:\n%s", out)
		}
		merge(t, parts)
		logs, _ := filepath.Glob(filepath.Join(parts, "logs", "*.attempt0.log"))
		if len(logs) != 16 {
			t.Errorf("%d attempt logs beside the parts, want 16: %v", len(logs), logs)
		}
	})

	t.Run("re-run of deleted parts", func(t *testing.T) {
		for _, i := range []int{1, 5} {
			os.Remove(filepath.Join(parts, fmt.Sprintf("part-%05d-of-00016.jsonl.zst", i)))
		}
		refused(t, parts, "part-00001-of-00016", "part-00005-of-00016")
		keep := filepath.Join(parts, "part-00002-of-00016.jsonl.zst")
		before, _ := os.Stat(keep)
		env := []string{"OPENAI_BASE_URL=" + url, "REQUESTS=" + requests, "OUT=" + parts}
		submit(t, true, env, "--array=1,5", "pipelines/slurm/infer-array.sbatch")
		merge(t, parts)
		if after, _ := os.Stat(keep); !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("re-running tasks 1 and 5 rewrote part 2")
		}
		// An array of another size into the same folder is refused, not mixed in.
		job := submit(t, true, env, "--array=0-3", "pipelines/slurm/infer-array.sbatch")
		data, _ := os.ReadFile(filepath.Join(parts, "logs", job+"_3.attempt0.log"))
		if !strings.Contains(string(data), "holds parts of 16 shards") {
			t.Errorf("a 0-3 array into a folder of 16 parts: log does not say why it refused:\n%s", data)
		}
		merge(t, parts)
	})

	t.Run("scancel and resubmit", func(t *testing.T) {
		out := filepath.Join(co, "out", "scancel")
		env := []string{"OPENAI_BASE_URL=" + slow, "REQUESTS=" + requests, "OUT=" + out, "JOBS=1"}
		job := submit(t, false, env, "--array=0-3", "pipelines/slurm/infer-array.sbatch")
		task := job + "_2"
		waitFor(t, 60*time.Second, func() bool {
			st, _ := c.run(t, co, nil, "squeue", "-h", "-j", task, "-o", "%T")
			_, err := os.Stat(filepath.Join(out, "part-00002-of-00004.manifest.json"))
			return strings.TrimSpace(st) == "RUNNING" && err == nil
		}, func() string { return "task 2 never ran" })
		time.Sleep(time.Second)
		if o, err := c.run(t, co, nil, "scancel", task); err != nil {
			t.Fatalf("scancel %s: %v\n%s", task, err, o)
		}
		waitFor(t, 90*time.Second, func() bool {
			st, _ := c.run(t, co, nil, "squeue", "-h", "-j", job)
			return strings.TrimSpace(st) == ""
		}, func() string { return "the array did not finish" })
		refused(t, out, "unfinished: part-00002-of-00004")
		submit(t, true, env, "--array=2", "pipelines/slurm/infer-array.sbatch")
		merge(t, out)
	})

	t.Run("pipeline.sh: judge array and report after the inference array", func(t *testing.T) {
		out := filepath.Join("out", "pipeline")
		cmd := exec.Command("pipelines/slurm/pipeline.sh")
		cmd.Dir = co
		cmd.Env = c.env("OPENAI_BASE_URL="+url, "REQUESTS="+requests, "OUT="+out, "SHARDS=4", "JOBS=4")
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("pipeline.sh: %v\n%s", err, stdout)
		}
		jobs := strings.Fields(string(stdout))
		if len(jobs) != 3 {
			t.Fatalf("pipeline.sh printed %q, want three job ids", stdout)
		}
		waitFor(t, 120*time.Second, func() bool {
			st, _ := c.run(t, co, nil, "squeue", "-h", "-j", strings.Join(jobs, ","))
			return strings.TrimSpace(st) == ""
		}, func() string {
			st, _ := c.run(t, co, nil, "squeue", "-j", strings.Join(jobs, ","), "-o", "%i %T %r")
			logs, _ := filepath.Glob(filepath.Join(co, out, "*", "logs", "*"))
			var b strings.Builder
			for _, l := range logs {
				data, _ := os.ReadFile(l)
				fmt.Fprintf(&b, "--- %s\n%s", l, data)
			}
			return "the pipeline's jobs did not finish:\n" + st + b.String()
		})
		if code := c.exitCode(t, jobs[2]); code != "0:0" {
			logs, _ := filepath.Glob(filepath.Join(co, out, "*", "logs", "*"))
			t.Fatalf("the report job ended %s; logs: %v", code, logs)
		}
		report, _ := os.ReadFile(filepath.Join(co, out, "report.txt"))
		if !strings.Contains(string(report), "IFScale") {
			t.Errorf("report.txt has no IFScale table:\n%s", report)
		}
		judged := filepath.Join(c.dir, "pipeline-judged.jsonl")
		if o, err := exec.Command(Bin("split-subtasks"), "-o", judged, filepath.Join(co, out, "judged")+"/").CombinedOutput(); err != nil {
			t.Fatalf("reading the judged parts: %v\n%s", err, o)
		}
		if got := ids(t, judged); !slices.Equal(got, want) {
			t.Errorf("the judged parts hold %d ids, want the %d requests once each", len(got), len(want))
		}
	})

	t.Run("two attempts of one task at once", func(t *testing.T) {
		out := filepath.Join(co, "out", "twice")
		env := []string{"OPENAI_BASE_URL=" + slow, "REQUESTS=" + requests, "OUT=" + out, "JOBS=1", "SHARDS=4"}
		a := submit(t, false, env, "--array=2", "pipelines/slurm/infer-array.sbatch")
		b := submit(t, false, env, "--array=2", "pipelines/slurm/infer-array.sbatch")
		waitFor(t, 90*time.Second, func() bool {
			st, _ := c.run(t, co, nil, "squeue", "-h", "-j", a+","+b)
			return strings.TrimSpace(st) == ""
		}, func() string { return "the two attempts did not finish" })
		// One writer per part: the second attempt exits 2 (the -o lock) and
		// leaves the first one's part alone.
		codes := []string{c.exitCode(t, a+"_2"), c.exitCode(t, b+"_2")}
		slices.Sort(codes)
		if !slices.Equal(codes, []string{"0:0", "2:0"}) {
			for _, j := range []string{a, b} {
				data, _ := os.ReadFile(filepath.Join(out, "logs", j+"_2.attempt0.log"))
				t.Logf("log of %s_2:\n%s", j, data)
			}
			t.Errorf("exit codes of two attempts at once: %v, want one 0:0 and one 2:0 (refused: the part is locked)", codes)
		}
		got := ids(t, filepath.Join(out, "part-00002-of-00004.jsonl.zst"))
		var shard []string
		for _, id := range want {
			if (app.Shard{I: 2, N: 4}).Keep(id) {
				shard = append(shard, id)
			}
		}
		if !slices.Equal(got, shard) {
			t.Errorf("part 2 after two attempts holds %v, want %v", got, shard)
		}
	})
}
