package official

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
)

var (
	hex40 = regexp.MustCompile(`^[0-9a-f]{40}$`)
	hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

func TestPins(t *testing.T) {
	pins := Pins()
	seen := map[string]bool{}
	for _, p := range pins {
		if seen[p.ID()] {
			t.Errorf("%s pinned twice", p.ID())
		}
		seen[p.ID()] = true
		if !hex40.MatchString(p.Commit) || !hex40.MatchString(p.Blob) || p.SHA256 != "" && !hex64.MatchString(p.SHA256) {
			t.Errorf("%s: commit %q, blob %q, sha256 %q: want full hex ids", p.ID(), p.Commit, p.Blob, p.SHA256)
		}
		if strings.Count(p.Repo, "/") != 1 || p.Path == "" || strings.HasPrefix(p.Path, "/") || strings.Contains(p.Path, "..") {
			t.Errorf("%s: repo %q, path %q: want owner/name and a path inside it", p.ID(), p.Repo, p.Path)
		}
	}
	if got, want := Benches(), []string{"lifbench", "ifscale", "longgenbench", "eifbench", "longins"}; !slices.Equal(got, want) {
		t.Errorf("benchmarks with pins %v, want %v", got, want)
	}
}

// pinOf is the pin a table entry gives the file at path id (<bench>/<path>).
func pinOf(t *testing.T, id string) Pin {
	t.Helper()
	for _, p := range Pins() {
		if p.ID() == id {
			return p
		}
	}
	t.Fatalf("no pin %s", id)
	return Pin{}
}

// The copies of official files in the workspace verify against their pins.
func TestCheckReference(t *testing.T) {
	for id, copy := range map[string]string{
		"lifbench/data/meta/tasks.json":       "lifbench/tasks.json",
		"ifscale/src/inputs/pruned_rules.csv": "ifscale/pruned_rules.csv",
		"longins/data/GIST/256.json":          "longins/GIST_256.json",
	} {
		if err := pinOf(t, id).Check(testbin.Reference(t, copy)); err != nil {
			t.Errorf("the workspace's copy of %s: %v", id, err)
		}
	}
}

// A file known only by its git blob id verifies by that id, as git itself
// computes it; a changed byte or size does not.
func TestCheckBlob(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("official bytes\n"), 0o644)
	out, err := exec.Command("git", "hash-object", file).Output()
	if err != nil {
		t.Skipf("git hash-object: %v: no independent blob id to check against", err)
	}
	blob := strings.TrimSpace(string(out))
	p := Pin{Bench: "b", Repo: "o/r", Commit: strings.Repeat("0", 40), Path: "f", Blob: blob, Size: -1}
	if err := p.Check(file); err != nil {
		t.Errorf("a file by its git blob id (%s): %v", blob, err)
	}
	os.WriteFile(file, []byte("official bytez\n"), 0o644)
	if err := p.Check(file); err == nil || !strings.Contains(err.Error(), "git blob id") {
		t.Errorf("a changed byte: %v, want a git blob id mismatch", err)
	}
	p.Size = 3
	if err := p.Check(file); err == nil || !strings.Contains(err.Error(), "size 15, pinned 3") {
		t.Errorf("another size: %v, want a size mismatch", err)
	}
}

// mirror serves the workspace's copies of official files on 127.0.0.1 at the
// paths raw.githubusercontent.com would, one of them corrupted, and counts
// the requests per path.
type mirror struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func startMirror(t *testing.T, files map[string][]byte) *mirror {
	m := &mirror{hits: map[string]int{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.hits[r.URL.Path]++
		m.mu.Unlock()
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *mirror) requests(p Pin) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits["/"+p.Repo+"/"+p.Commit+"/"+p.Path]
}

func TestFetch(t *testing.T) {
	tasks, rules, gist := pinOf(t, "lifbench/data/meta/tasks.json"), pinOf(t, "ifscale/src/inputs/pruned_rules.csv"), pinOf(t, "longins/data/GIST/256.json")
	absent := pinOf(t, "longgenbench/Dataset/Dataset_long.json")
	read := func(copy string) []byte {
		data, err := os.ReadFile(testbin.Reference(t, copy))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tasksData, rulesData, gistData := read("lifbench/tasks.json"), read("ifscale/pruned_rules.csv"), read("longins/GIST_256.json")
	corrupted := bytes.Clone(rulesData)
	corrupted[len(corrupted)/2] ^= 1
	path := func(p Pin) string { return "/" + p.Repo + "/" + p.Commit + "/" + p.Path }
	m := startMirror(t, map[string][]byte{path(tasks): tasksData, path(rules): corrupted, path(gist): gistData})
	dir := t.TempDir()
	f := &Fetcher{Dir: dir, Base: m.URL}
	ctx := context.Background()

	res := f.Fetch(ctx, tasks)
	if res.Status != Downloaded || res.Err != nil {
		t.Fatalf("tasks.json: %s %v, want downloaded", res.Status, res.Err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "lifbench", "data", "meta", "tasks.json")); !bytes.Equal(got, tasksData) {
		t.Errorf("DIR/lifbench/data/meta/tasks.json does not hold the served bytes")
	}

	// A corrupted download is deleted and reported, never left in place.
	res = f.Fetch(ctx, rules)
	if res.Status != Corrupt || res.Err == nil || !strings.Contains(res.Err.Error(), "sha256") || !strings.Contains(res.Err.Error(), "deleted") {
		t.Errorf("corrupted pruned_rules.csv: %s %v, want corrupt, saying the sha256 differs and it was deleted", res.Status, res.Err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "ifscale", "src", "inputs", "*"))
	if len(left) != 0 {
		t.Errorf("a corrupted download left %v", left)
	}

	// A file the mirror does not have is missing, saying where it comes from
	// and where it goes.
	res = f.Fetch(ctx, absent)
	if res.Status != Missing || res.Err == nil || !strings.Contains(res.Err.Error(), absent.URL(m.URL)) || !strings.Contains(res.Err.Error(), absent.File(dir)) || !strings.Contains(res.Err.Error(), "404") {
		t.Errorf("a file the mirror lacks: %s %v, want missing, naming the URL, the 404 and the place", res.Status, res.Err)
	}

	// Run again: the file in place is verified, not downloaded again.
	if res = f.Fetch(ctx, tasks); res.Status != Verified || m.requests(tasks) != 1 {
		t.Errorf("tasks.json again: %s after %d requests, want verified without a second download", res.Status, m.requests(tasks))
	}

	// Files placed by hand are checked the same way, without the network
	// (no Base): the right bytes verify, wrong ones are deleted.
	offline := &Fetcher{Dir: dir}
	place := filepath.Join(dir, "longins", "data", "GIST", "256.json")
	os.MkdirAll(filepath.Dir(place), 0o755)
	os.WriteFile(place, gistData, 0o644)
	if res = offline.Fetch(ctx, gist); res.Status != Verified {
		t.Errorf("GIST 256 placed by hand: %s %v, want verified", res.Status, res.Err)
	}
	os.WriteFile(place, gistData[:len(gistData)-1], 0o644)
	res = offline.Fetch(ctx, gist)
	if _, err := os.Stat(place); res.Status != Missing || !strings.Contains(res.Deleted, "size") || err == nil {
		t.Errorf("a truncated GIST 256 placed by hand: %s %q %v (file there: %v), want it deleted for its size and missing", res.Status, res.Deleted, res.Err, err == nil)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "download "+gist.URL(GitHubRaw)+" and put it at "+place) {
		t.Errorf("offline, a missing file: %v, want what to download and where to put it", res.Err)
	}
	// With the network, a wrong file placed by hand is replaced.
	os.WriteFile(place, []byte("{}"), 0o644)
	res = f.Fetch(ctx, gist)
	if got, _ := os.ReadFile(place); res.Status != Downloaded || res.Deleted == "" || !bytes.Equal(got, gistData) {
		t.Errorf("a wrong GIST 256 with the mirror up: %s %q, want it deleted and downloaded again", res.Status, res.Deleted)
	}

	// No network at all: every download fails, saying what to do.
	down := &Fetcher{Dir: t.TempDir(), Base: testbin.RefusedURL(t)}
	res = down.Fetch(ctx, tasks)
	if res.Status != Missing || res.Err == nil || !strings.Contains(res.Err.Error(), "could not download") || !strings.Contains(res.Err.Error(), "put it at "+tasks.File(down.Dir)) {
		t.Errorf("without network: %s %v, want missing with what to download and where", res.Status, res.Err)
	}
}
