package parts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/provenance"
)

func TestNameParse(t *testing.T) {
	tests := []struct {
		base   string
		i, n   int
		ext    string
		isPart bool
	}{
		{Name(3, 16, ".jsonl.zst"), 3, 16, ".jsonl.zst", true},
		{"part-00000-of-00001.jsonl", 0, 1, ".jsonl", true},
		{"part-00016-of-00016.jsonl", 0, 0, "", false}, // index past the count
		{"part-00001-of-00016.manifest.json", 0, 0, "", false},
		{"part-00001-of-00016.jsonl.zst.partial", 0, 0, "", false},
		{"part-00001-of-00016.jsonl.zst.partial.journal", 0, 0, "", false},
		{"part-00001-of-00016.jsonl.zst.lock", 0, 0, "", false},
		{"part-00001-of-00016.jsonl.zst.bak-1", 0, 0, "", false},
		{"part-1-of-16.jsonl", 0, 0, "", false},
		{"requests.jsonl.zst", 0, 0, "", false},
	}
	for _, tt := range tests {
		i, n, ext, ok := Parse(tt.base)
		if ok != tt.isPart || i != tt.i || n != tt.n || ext != tt.ext {
			t.Errorf("Parse(%q) = %d, %d, %q, %v; want %d, %d, %q, %v", tt.base, i, n, ext, ok, tt.i, tt.n, tt.ext, tt.isPart)
		}
	}
	if got := ManifestPath("out/part-00003-of-00016.jsonl.zst"); got != "out/part-00003-of-00016.manifest.json" {
		t.Errorf("ManifestPath = %q", got)
	}
}

// folder writes parts and manifests: each spec is "I/N" plus flags
// (u: unfinished, x: other input, m: no manifest, d: a second extension,
// p: only .partial, g: the part file gone, its manifest left, l: a writer's
// lock file beside it, b: an earlier part that --force moved aside, c: the
// part changed after its manifest recorded it).
func folder(t *testing.T, specs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, s := range specs {
		var i, n int
		spec, flags, _ := strings.Cut(s, " ")
		if _, err := fmt.Sscanf(spec, "%d/%d", &i, &n); err != nil {
			t.Fatal(err)
		}
		part := filepath.Join(dir, Name(i, n, ".jsonl"))
		if strings.Contains(flags, "p") {
			os.WriteFile(part+".partial", nil, 0o644)
			continue
		}
		os.WriteFile(part, []byte(`{"id":"x"}`+"\n"), 0o644)
		if strings.Contains(flags, "l") {
			os.WriteFile(part+".lock", []byte("123\n"), 0o644)
		}
		if strings.Contains(flags, "b") {
			os.WriteFile(part+".bak-1", []byte(`{"id":"old"}`+"\n"), 0o644)
		}
		if strings.Contains(flags, "d") {
			os.WriteFile(filepath.Join(dir, Name(i, n, ".jsonl.gz")), nil, 0o644)
		}
		if strings.Contains(flags, "m") {
			continue
		}
		if strings.Contains(flags, "g") {
			defer os.Remove(part)
		}
		m := &Manifest{Shard: i, Count: n, Complete: !strings.Contains(flags, "u"), Provenance: provenance.Provenance{Input: []provenance.Input{{Name: "r.jsonl", SHA256: "aaa"}}}}
		if strings.Contains(flags, "x") {
			m.Input[0].SHA256 = "bbb"
		}
		if m.Complete {
			m.SHA256, m.Size, _ = provenance.HashFile(part)
		}
		if strings.Contains(flags, "c") {
			os.WriteFile(part, []byte(`{"id":"y"}`+"\n"), 0o644)
		}
		if err := m.Write(ManifestPath(part)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		specs   []string
		only    int
		partial bool
		shards  []int  // the parts read, in order
		missing []int  // left out under --allow-partial
		bad     string // substring of the error
	}{
		{"complete", []string{"2/3", "0/3", "1/3"}, -1, false, []int{0, 1, 2}, nil, ""},
		{"lock files beside the parts", []string{"0/2 l", "1/2 l"}, -1, false, []int{0, 1}, nil, ""},
		{"parts moved aside by --force", []string{"0/2 b", "1/2"}, -1, false, []int{0, 1}, nil, ""},
		{"missing", []string{"0/3", "2/3"}, -1, false, nil, nil, "missing shard(s) 1"},
		{"missing, allowed", []string{"0/3", "2/3"}, -1, true, []int{0, 2}, []int{1}, ""},
		{"unfinished", []string{"0/3", "1/3 u", "2/3"}, -1, false, nil, nil, "unfinished: part-00001-of-00003.jsonl not complete"},
		{"only .partial", []string{"0/2", "1/2 p"}, -1, false, nil, nil, "has only part-00001-of-00002.jsonl.partial"},
		{"part deleted", []string{"0/2", "1/2 g"}, -1, false, nil, nil, "part-00001-of-00002 is gone"},
		{"no manifest", []string{"0/2", "1/2 m"}, -1, false, nil, nil, "has no manifest"},
		{"unfinished, allowed", []string{"0/3", "1/3 u", "2/3"}, -1, true, []int{0, 2}, []int{1}, ""},
		{"leftover of another size", []string{"0/3", "1/3", "2/3", "0/2"}, -1, false, nil, nil, "foreign: part-00000-of-00002.jsonl (shard 0 of 2, the other parts are of 3)"},
		{"foreign even when allowed", []string{"0/3", "1/3", "2/3", "1/2"}, -1, true, nil, nil, "foreign"},
		{"other input", []string{"0/3", "1/3 x", "2/3"}, -1, true, nil, nil, "made from other input"},
		{"duplicated", []string{"0/2", "1/2 d"}, -1, false, nil, nil, "duplicated: shard 1 has 2 part files"},
		{"changed since written", []string{"0/3", "1/3 c", "2/3"}, -1, false, nil, nil, "changed since written: part-00001-of-00003.jsonl: sha256"},
		{"changed, allowed", []string{"0/3", "1/3 c", "2/3"}, -1, true, []int{0, 2}, []int{1}, ""},
		{"only one shard", []string{"0/3", "1/3 u", "2/3"}, 2, false, []int{2}, nil, ""},
		{"only a changed shard", []string{"0/3", "1/3 c", "2/3"}, 1, false, nil, nil, "changed since written"},
		{"only an unfinished shard", []string{"0/3", "1/3 u", "2/3"}, 1, true, nil, nil, "unfinished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Check(folder(t, tt.specs...), tt.only, tt.partial)
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("Check = %v; want an error with %q", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, p := range set.Parts {
				got = append(got, p.Shard)
			}
			if !slices.Equal(got, tt.shards) || !slices.Equal(set.Missing, tt.missing) {
				t.Errorf("parts %v missing %v; want %v and %v", got, set.Missing, tt.shards, tt.missing)
			}
		})
	}
}

func TestAuto(t *testing.T) {
	sixteen := folder(t, "0/16", "1/16")
	vars := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	rerun := []string{"SLURM_ARRAY_TASK_ID", "15", "SLURM_ARRAY_TASK_COUNT", "2", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_MAX", "15", "SLURM_ARRAY_TASK_STEP", "1"}
	tests := []struct {
		name   string
		env    []string
		shards int
		dir    string
		i, n   int
		bad    string
	}{
		{"re-run takes N from the folder", rerun, 0, sixteen, 15, 16, ""},
		{"re-run with --shards", rerun, 16, "", 15, 16, ""},
		{"SHARDS and --shards disagree", append(rerun, "SHARDS", "8"), 16, "", 0, 0, "disagree"},
		{"array size against the folder", []string{"SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "3"}, 0, sixteen, 0, 0, "the array 0-3 means 4 shards, but " + sixteen + " holds parts of 16"},
		{"SHARDS against the folder", append(rerun, "SHARDS", "8"), 0, sixteen, 0, 0, "holds parts of 16"},
		{"empty folder", rerun, 0, t.TempDir(), 0, 0, "SHARDS=N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, n, _, ok, err := Auto(vars(tt.env...), tt.shards, tt.dir)
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("Auto = %d/%d, %v; want an error with %q", i, n, err, tt.bad)
				}
				return
			}
			if err != nil || !ok || i != tt.i || n != tt.n {
				t.Fatalf("Auto = %d/%d, %v, %v; want %d/%d", i, n, ok, err, tt.i, tt.n)
			}
		})
	}
}

// The parts of a stage run per shard (the judge array) are each made from a
// different upstream part, yet form one set: their manifests key the input by
// the upstream run's input.
func TestChainedPartsAreOneSet(t *testing.T) {
	up, down := t.TempDir(), t.TempDir()
	for i := range 2 {
		part := filepath.Join(up, Name(i, 2, ".jsonl"))
		os.WriteFile(part, []byte(fmt.Sprintf(`{"id":"r%d"}`+"\n", i)), 0o644)
		m := &Manifest{Shard: i, Count: 2, Complete: true, Provenance: provenance.Provenance{Input: []provenance.Input{{Name: "req.jsonl", SHA256: "aaa"}}}}
		if err := m.Write(ManifestPath(part)); err != nil {
			t.Fatal(err)
		}
		in, err := HashInputs([]string{part})
		if err != nil {
			t.Fatal(err)
		}
		if in[0].PartsOf != "aaa" {
			t.Fatalf("input %s: PartsOf %q, want the upstream input key aaa", part, in[0].PartsOf)
		}
		out := filepath.Join(down, Name(i, 2, ".jsonl"))
		os.WriteFile(out, []byte(fmt.Sprintf(`{"id":"r%d"}`+"\n", i)), 0o644)
		dm := &Manifest{Shard: i, Count: 2, Complete: true, Provenance: provenance.Provenance{Input: in}}
		if err := dm.Write(ManifestPath(out)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Check(down, -1, false); err != nil {
		t.Errorf("the per-shard parts of one upstream set are refused: %v", err)
	}
}

// A folder named as an input (an importer's official files) is hashed by its
// files' names and contents: the same files give the same hash, a changed
// or renamed file another.
func TestHashInputsFolder(t *testing.T) {
	hash := func(files map[string]string) string {
		dir := t.TempDir()
		for name, text := range files {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ins, err := HashInputs([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		return ins[0].SHA256
	}
	base := hash(map[string]string{"a.csv": "1", "sub/b.csv": "2"})
	for _, tc := range []struct {
		files map[string]string
		same  bool
	}{
		{map[string]string{"sub/b.csv": "2", "a.csv": "1"}, true},
		{map[string]string{"a.csv": "1", "sub/b.csv": "3"}, false},
		{map[string]string{"a.csv": "1", "sub/c.csv": "2"}, false},
		{map[string]string{"a.csv": "12"}, false},
	} {
		if got := hash(tc.files); (got == base) != tc.same {
			t.Errorf("%v: same hash = %v, want %v", tc.files, got == base, tc.same)
		}
	}
}
