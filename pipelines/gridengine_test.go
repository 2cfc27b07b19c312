package pipelines

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gridEngine is a private single-node Grid Engine cell (Debian's gridengine
// 8.1.9 packages) on 127.0.0.1: its own SGE_ROOT in a temporary folder with
// classic flat-file spooling, sge_qmaster and sge_execd in the foreground
// (SGE_ND) on free ports, every name of this host folded into "localhost"
// (host_aliases), so that the daemons and clients agree on who they are
// whatever the machine's own name resolves to.
type gridEngine struct {
	root string
	vars []string // SGE_ROOT, SGE_CELL and the ports
}

// env is what the client commands (and, through qsub -V, the jobs) see: a
// clean PATH without the ifkit programs, so the template must find them.
func (g *gridEngine) env(extra ...string) []string {
	return append(append([]string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + g.root}, g.vars...), extra...)
}

func (g *gridEngine) run(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, g.env(env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// edit runs a qconf command that opens an editor on a template, with the
// editor replaced by sed applying the given expressions.
func (g *gridEngine) edit(t *testing.T, sed string, args ...string) {
	t.Helper()
	editor := filepath.Join(g.root, "edit.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\nexec sed -i -e \"$IFKIT_EDIT\" \"$1\"\n"), 0o755)
	if out, err := g.run(g.root, []string{"EDITOR=" + editor, "IFKIT_EDIT=" + sed}, "qconf", args...); err != nil {
		t.Skipf("the private Grid Engine cell cannot be configured (qconf %v): %v\n%s", args, err, out)
	}
}

const sgeLib = "/usr/lib/gridengine"

// startGridEngine starts the cell, or skips the test saying why Grid Engine
// is not available here (CI installs it, see .ci/run).
func startGridEngine(t *testing.T) *gridEngine {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not starting a Grid Engine cell")
	}
	for _, p := range []string{sgeLib + "/sge_qmaster", sgeLib + "/sge_execd", sgeLib + "/spooldefaults", "/usr/bin/qsub", "/usr/bin/qconf", "/usr/bin/qstat", "/usr/share/gridengine/default-configuration"} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("Grid Engine is not installed (%s not found): apt-get install gridengine-master gridengine-exec gridengine-client to run this test", p)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("sge_execd must run as root to start jobs as their owner; run this test as root (CI does)")
	}
	root, err := os.MkdirTemp("/tmp", "ifkit-sge-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755)
	g := &gridEngine{root: root}
	arch, err := exec.Command("/usr/share/gridengine/util/arch").Output()
	if err != nil {
		t.Skipf("Grid Engine's util/arch does not run: %v", err)
	}
	common := filepath.Join(root, "default", "common")
	for _, d := range []string{"bin", "utilbin", "lib", "default/common", "spool/qmaster/job_scripts", "spool/execd", "work"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"bin", "utilbin", "lib"} {
		os.Symlink(sgeLib, filepath.Join(root, d, strings.TrimSpace(string(arch))))
	}
	os.Symlink("/usr/share/gridengine/util", filepath.Join(root, "util"))
	spool := filepath.Join(root, "spool")
	write := func(name, text string) {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// admin_user none: the daemons stay root, as the jobs they start are.
	write(filepath.Join(common, "bootstrap"), fmt.Sprintf(`admin_user              none
default_domain          none
ignore_fqdn             true
spooling_method         classic
spooling_lib            libspoolc
spooling_params         %[1]s;%[2]s/qmaster
binary_path             %[3]s
qmaster_spool_dir       %[2]s/qmaster
security_mode           none
listener_threads        2
worker_threads          2
scheduler_threads       1
`, common, spool, sgeLib))
	host, _ := os.Hostname()
	names := []string{"localhost"}
	for _, n := range []string{host, strings.Split(host, ".")[0]} {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	write(filepath.Join(common, "host_aliases"), strings.Join(names, " ")+"\n")
	write(filepath.Join(common, "act_qmaster"), "localhost\n")
	g.vars = []string{"SGE_ROOT=" + root, "SGE_CELL=default",
		fmt.Sprintf("SGE_QMASTER_PORT=%d", freePort(t)), fmt.Sprintf("SGE_EXECD_PORT=%d", freePort(t))}

	// The spool, as Debian's init_cluster makes it; jobs may run as root
	// (min_uid 0), the execd spools here.
	conf, err := os.ReadFile("/usr/share/gridengine/default-configuration")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(conf), "\n") {
		switch f := strings.Fields(l); {
		case len(f) > 0 && f[0] == "execd_spool_dir":
			l = "execd_spool_dir " + spool + "/execd"
		case len(f) > 0 && (f[0] == "min_uid" || f[0] == "min_gid"):
			l = f[0] + " 0"
		}
		lines = append(lines, l)
	}
	write(filepath.Join(root, "configuration"), strings.Join(lines, "\n"))
	for _, args := range [][]string{
		{sgeLib + "/spoolinit", "classic", "libspoolc", common + ";" + spool + "/qmaster", "init"},
		{sgeLib + "/spooldefaults", "configuration", filepath.Join(root, "configuration")},
		{sgeLib + "/spooldefaults", "complexes", "/usr/share/gridengine/util/resources/centry"},
		{sgeLib + "/spooldefaults", "usersets", "/usr/share/gridengine/util/resources/usersets"},
		{sgeLib + "/spooldefaults", "managers", "root"},
		{sgeLib + "/spooldefaults", "adminhosts", "localhost"},
	} {
		if out, err := g.run(root, nil, args[0], args[1:]...); err != nil {
			t.Skipf("cannot initialise the Grid Engine spool (%s): %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	logs := func() string {
		var b strings.Builder
		for _, f := range []string{"daemon-qmaster.log", "daemon-execd.log", "spool/qmaster/messages"} {
			data, _ := os.ReadFile(filepath.Join(root, f))
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			fmt.Fprintf(&b, "--- %s (last lines)\n%s\n", f, strings.Join(lines[max(0, len(lines)-15):], "\n"))
		}
		return b.String()
	}
	daemon := func(name string) {
		cmd := exec.Command(filepath.Join(sgeLib, name))
		cmd.Dir, cmd.Env = root, g.env("SGE_ND=1")
		logf, err := os.Create(filepath.Join(root, "daemon-"+strings.TrimPrefix(name, "sge_")+".log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Skipf("cannot start %s: %v", name, err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); logf.Close(); close(done) }()
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
	}
	daemon("sge_qmaster")
	var out string
	if !poll(60*time.Second, func() bool { out, err = g.run(root, nil, "qconf", "-sh"); return err == nil }) {
		t.Skipf("the private sge_qmaster did not answer (qconf -sh: %v %s)\n%s", err, out, logs())
	}
	t.Cleanup(func() { g.run(root, nil, "qdel", "-f", "-u", "root") })
	if out, err := g.run(root, nil, "qconf", "-as", "localhost"); err != nil {
		t.Skipf("qconf -as localhost: %v\n%s", err, out)
	}
	g.edit(t, "s/^hostname .*/hostname localhost/", "-ae")
	// One queue of 8 slots, never in alarm on a busy machine.
	g.edit(t, "s/^qname .*/qname test.q/; s/^hostlist .*/hostlist localhost/; s/^slots .*/slots 8/; s/^load_thresholds .*/load_thresholds NONE/; s/^pe_list .*/pe_list NONE/", "-aq")
	// Schedule at once rather than every 15 s.
	g.edit(t, "s/^schedule_interval .*/schedule_interval 0:0:1/; s/^flush_submit_sec .*/flush_submit_sec 1/; s/^flush_finish_sec .*/flush_finish_sec 1/", "-msconf")
	daemon("sge_execd")
	if !poll(60*time.Second, func() bool {
		out, _ = g.run(root, nil, "qstat", "-f", "-q", "test.q")
		for _, l := range strings.Split(out, "\n") {
			// queuename qtype resv/used/tot load_avg arch [states]: no states is up.
			if f := strings.Fields(l); len(f) == 5 && strings.HasPrefix(f[0], "test.q@") {
				return true
			}
		}
		return false
	}) {
		t.Skipf("the private Grid Engine queue did not come up (qstat -f: %s)\n%s", out, logs())
	}
	return g
}

// TestGridEngine runs the inference array template on a real Grid Engine
// cell: the array (task T is shard T-1), a re-run of one deleted part with
// -t, an array of another size into the same folder (refused), and the merge
// as a job held until the array is done.
func TestGridEngine(t *testing.T) {
	g := startGridEngine(t)
	url := StartSim(t, "--skill", "1")
	co := checkout(t, filepath.Join(g.root, "work"))
	_, want := clusterRequests(t, co)
	parts := filepath.Join("out", "ifscale", "parts")
	env := []string{"OPENAI_BASE_URL=" + url, "REQUESTS=out/ifscale/requests.jsonl.zst", "OUT=" + parts, "JOBS=4"}
	template := "pipelines/gridengine/infer-array.sge"
	// qsub -sync y waits for the job and exits with its status, as
	// sbatch --wait does.
	qsub := func(t *testing.T, args ...string) (string, error) {
		t.Helper()
		return g.run(co, env, "qsub", append([]string{"-sync", "y"}, args...)...)
	}
	taskLog := func(out, task string) string {
		// "Your job-array 7.1-4:1 ... has been submitted": the job id.
		_, line, _ := strings.Cut(out, "Your job-array ")
		job, _, _ := strings.Cut(line, ".")
		data, _ := os.ReadFile(filepath.Join(co, parts, "logs", job+"_"+task+".log"))
		return string(data)
	}

	t.Run("array", func(t *testing.T) {
		out, err := qsub(t, "-t", "1-4", template)
		if err != nil {
			t.Fatalf("qsub -t 1-4 %s: %v\n%s\n%s", template, err, out, taskLog(out, "1"))
		}
		if log := taskLog(out, "2"); !strings.Contains(log, "shard 1/4: Grid Engine task SGE_TASK_ID=2 (shard 1)") {
			t.Errorf("task 2's log does not say it is shard 1 of 4:\n%s", log)
		}
		// The parts of the four tasks hold every request once.
		dir := filepath.Join(co, parts)
		merged := filepath.Join(g.root, "merged.jsonl")
		if o, err := exec.Command(Bin("judge"), "-o", merged, dir+"/").CombinedOutput(); err != nil {
			t.Fatalf("judge %s/: %v\n%s", dir, err, o)
		}
		if got := ids(t, merged); !slices.Equal(got, want) {
			t.Fatalf("the array's parts hold %d ids, want the %d requests once each", len(got), len(want))
		}
	})

	t.Run("re-run of a deleted part", func(t *testing.T) {
		dir := filepath.Join(co, parts)
		os.Remove(filepath.Join(dir, "part-00001-of-00004.jsonl.zst"))
		keep := filepath.Join(dir, "part-00002-of-00004.jsonl.zst")
		before, _ := os.Stat(keep)
		if o, err := exec.Command(Bin("judge"), dir+"/").CombinedOutput(); !strings.Contains(string(o), "part-00001-of-00004") {
			t.Fatalf("judge with part 1 deleted: %v, want a refusal naming it\n%s", err, o)
		}
		// Part 1 is task 2; N comes from the parts already there.
		if out, err := qsub(t, "-t", "2", template); err != nil {
			t.Fatalf("qsub -t 2: %v\n%s\n%s", err, out, taskLog(out, "2"))
		}
		if after, _ := os.Stat(keep); !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("re-running task 2 rewrote part 2")
		}
		// An array of another size into the same folder is refused, not mixed in.
		out, err := qsub(t, "-t", "1-2", template)
		if err == nil {
			t.Errorf("qsub -t 1-2 into a folder of 4 parts succeeded:\n%s", out)
		}
		if log := taskLog(out, "1"); !strings.Contains(log, "the array 1-2 means 2 shards, but out/ifscale/parts holds parts of 4 shards") {
			t.Errorf("a 1-2 array into a folder of 4 parts: the log does not say why it refused:\n%s\n%s", out, log)
		}
	})

	t.Run("merge held until the array is done", func(t *testing.T) {
		os.Remove(filepath.Join(co, parts, "part-00003-of-00004.jsonl.zst"))
		// The array is submitted without waiting; the merge job is held on it
		// by name, as the template's header shows.
		if out, err := g.run(co, env, "qsub", "-t", "4", template); err != nil {
			t.Fatalf("qsub -t 4: %v\n%s", err, out)
		}
		judged := filepath.Join("out", "ifscale", "judged.jsonl")
		out, err := qsub(t, "-hold_jid", "ifkit-infer", "-cwd", "-V", "-N", "ifkit-merge", "-b", "y", "bin/judge", "-o", judged, parts+"/")
		if err != nil {
			data, _ := filepath.Glob(filepath.Join(co, "ifkit-merge.*"))
			var b bytes.Buffer
			for _, f := range data {
				d, _ := os.ReadFile(f)
				b.Write(d)
			}
			t.Fatalf("the merge job: %v\n%s\n%s", err, out, b.String())
		}
		if got := ids(t, filepath.Join(co, judged)); !slices.Equal(got, want) {
			t.Errorf("the merge job judged %d ids, want the %d requests once each", len(got), len(want))
		}
	})
}
