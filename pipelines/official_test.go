package pipelines

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/official"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/testbin"
)

// referenceCopies are the workspace's copies of whole official files, by
// the id of their pin (<bench>/<path in the authors' repository>).
var referenceCopies = map[string]string{
	"lifbench/data/meta/tasks.json":           "lifbench/tasks.json",
	"longgenbench/Dataset/Dataset_short.json": "longgenbench/Dataset_short.json",
	"longins/data/GIST/256.json":              "longins/GIST_256.json",
	"ifscale/src/inputs/pruned_rules.csv":     "ifscale/pruned_rules.csv",
}

// officialFolder puts the workspace's copies of official files in a folder
// laid out as gen-context fetch-official lays it out, as a user who fetched
// them would have it (the test skips when the copies are absent). It lacks
// LIFBench's contexts and EifBench's files, of which the workspace has no
// whole copy.
func officialFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for id, copy := range referenceCopies {
		data, err := os.ReadFile(testbin.Reference(t, copy))
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, filepath.FromSlash(id))
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The scripts take --official DIR (issue 28): the official files a run needs
// from the folder, each verified, and the report says "official data" with
// their names and sizes; where the folder lacks them the script stops
// (exit 3) saying how to get them.
func TestScriptsTakeTheOfficialFolder(t *testing.T) {
	dir := officialFolder(t)
	url := StartSim(t, "--skill", "1")
	run := func(script string, args ...string) (string, int) {
		cmd := exec.Command("bash", append([]string{script + ".sh", "--base-url", url, "--out", filepath.Join(t.TempDir(), script), "--official", dir, "--limit", "1"}, args...)...)
		cmd.Env = Env()
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	for _, c := range []struct {
		script string
		args   []string
		items  string
	}{
		{"ifscale", []string{"--densities", "10,20"}, "official data: src/inputs/pruned_rules.csv, 4841 bytes, verified; keyword lists in numpy's order, as the official runner draws them; limited to the first item of each density (--limit 1)."},
		{"longgenbench", []string{"--version", "short", "--judge-base-url", url}, "official data: Dataset/Dataset_short.json, 1474710 bytes, verified; limited to the first item of each version × scenario (--limit 1)."},
	} {
		out, code := run(c.script, c.args...)
		if code != 0 || !strings.Contains(out, "\nItems: "+c.items) {
			t.Errorf("%s.sh --official DIR: exit %d, want 0 and a report saying %q:\n%s", c.script, code, c.items, out)
		}
	}
	// LIFBench's contexts are not in the folder: the script says how to get
	// them, and its templates would be the folder's, verified.
	out, code := run("lifbench")
	if code != 3 || !strings.Contains(out, "lifbench/data/meta/list_input.json: not there: `gen-context fetch-official --official "+dir+" --bench lifbench`") {
		t.Errorf("lifbench.sh --official DIR without the contexts: exit %d, want 3 and what to fetch:\n%s", code, out)
	}
}

// gen-context fetch-official against a mirror on 127.0.0.1 that serves the
// workspace's copies of official files, one corrupted, and lacks the rest:
// the good ones land in DIR/<bench>/<path>, the corrupted one is deleted and
// reported, the missing ones say where they come from and where they go, the
// run exits 4; a second run with --check verifies what is there offline.
func TestFetchOfficial(t *testing.T) {
	copies := referenceCopies // pruned_rules.csv is served corrupted
	served := map[string][]byte{}
	for _, p := range official.Pins() {
		if c, ok := copies[p.ID()]; ok {
			data, err := os.ReadFile(testbin.Reference(t, c))
			if err != nil {
				t.Fatal(err)
			}
			if p.Bench == "ifscale" {
				data = bytes.Clone(data)
				data[len(data)/2] ^= 1
			}
			served["/"+p.Repo+"/"+p.Commit+"/"+p.Path] = data
		}
	}
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if data, ok := served[r.URL.Path]; ok {
			w.Write(data)
			return
		}
		http.NotFound(w, r)
	}))
	defer mirror.Close()
	dir := t.TempDir()
	fetch := func(args ...string) (map[string]*record.Record, string, int) {
		t.Helper()
		cmd := exec.Command(Bin("gen-context"), append([]string{"fetch-official", "--official", filepath.Join(dir, "official"), "--bench", "lifbench,ifscale,longgenbench,longins"}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		recs := map[string]*record.Record{}
		for _, line := range bytes.Split(bytes.TrimSpace(stdout.Bytes()), []byte("\n")) {
			rec, err := record.Parse(line)
			if err != nil {
				t.Fatalf("fetch-official wrote %q: %v\nstderr:\n%s", line, err, stderr.String())
			}
			recs[rec.ID()] = rec
		}
		return recs, stderr.String(), cmd.ProcessState.ExitCode()
	}

	recs, stderr, code := fetch("--mirror", mirror.URL)
	if code != 4 {
		t.Errorf("files missing or corrupt: exit %d, want 4\n%s", code, stderr)
	}
	want := map[string]string{}
	for _, p := range official.Pins() {
		if p.Bench != "eifbench" {
			want[p.ID()] = "missing"
		}
	}
	for id := range copies {
		want[id] = "downloaded"
	}
	want["ifscale/src/inputs/pruned_rules.csv"] = "corrupt"
	for id, status := range want {
		rec := recs[id]
		if rec == nil || rec.String("status") != status {
			t.Errorf("%s: record %v, want status %s", id, rec, status)
			continue
		}
		file := rec.String("file")
		_, err := os.Stat(file)
		if (status == "downloaded") != (err == nil) {
			t.Errorf("%s is %s, but %s exists: %v", id, status, file, err == nil)
		}
	}
	if len(recs) != len(want) {
		t.Errorf("%d records, want one per pinned file of the four benchmarks (%d)", len(recs), len(want))
	}
	for _, says := range []string{
		"ifscale/src/inputs/pruned_rules.csv: corrupt: downloaded " + mirror.URL,
		"sha256", "deleted",
		"put it at " + filepath.Join(dir, "official", "lifbench", "data", "meta", "list_input.json"),
		"longins: not pinned: LongIns's full data",
	} {
		if !strings.Contains(stderr, says) {
			t.Errorf("stderr does not say %q:\n%s", says, stderr)
		}
	}

	// Offline, the files in place verify; nothing is fetched.
	mirror.Close()
	recs, stderr, code = fetch("--check", "--bench", "lifbench")
	if code != 4 || recs["lifbench/data/meta/tasks.json"].String("status") != "verified" || !strings.Contains(stderr, "not in place: download "+official.GitHubRaw) {
		t.Errorf("--check: exit %d, tasks.json %v; want 4, verified, and the GitHub URLs of the rest\n%s", code, recs["lifbench/data/meta/tasks.json"], stderr)
	}
}
