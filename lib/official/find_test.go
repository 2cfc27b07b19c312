package official

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
)

// place copies a file into dir at bench/path, as fetch-official or a user
// would put it.
func place(t *testing.T, dir, bench, path string, data []byte) string {
	t.Helper()
	file := filepath.Join(dir, bench, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// A run reads an official file from the folder only when it holds the
// pinned bytes; a missing or wrong one says how to get the right one and
// reads as a missing input (exit 3), and is never deleted. A file no pin
// covers is used as it is, unverified.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	l, err := Find(dir, "ifscale", "src/inputs/pruned_rules.csv")
	var nu *NotUsable
	if !errors.As(err, &nu) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "not there: `gen-context fetch-official --official "+dir+" --bench ifscale` fetches it") {
		t.Errorf("a pinned file not there: %v, want a NotUsable naming fetch-official", err)
	}
	if l.File != filepath.Join(dir, "ifscale", "src", "inputs", "pruned_rules.csv") {
		t.Errorf("its place %s", l.File)
	}

	wrong := place(t, dir, "ifscale", "src/inputs/pruned_rules.csv", []byte("junk\n"))
	if _, err := Find(dir, "ifscale", "src/inputs/pruned_rules.csv"); !errors.As(err, &nu) || !strings.Contains(err.Error(), "not the official file (its size 5, pinned 4841)") || !strings.Contains(err.Error(), "replaces it") {
		t.Errorf("a wrong file: %v, want a NotUsable saying which check failed and how to replace it", err)
	}
	if _, err := os.Stat(wrong); err != nil {
		t.Errorf("Find deleted the wrong file: %v", err)
	}

	// LongIns's exams beyond the committed GIST ones come from the
	// authors' data.zip: used unverified when there, and when not, the
	// advice says where they come from.
	_, err = Find(dir, "longins", "data/LIST/256.json")
	if !errors.As(err, &nu) || !strings.Contains(err.Error(), "data.zip") || !strings.Contains(err.Error(), dir+"/longins/data/<MODE>/<LENGTH>.json") {
		t.Errorf("an unpinned file not there: %v, want the advice about data.zip with the folder filled in", err)
	}
	place(t, dir, "longins", "data/LIST/256.json", []byte("{}"))
	if l, err := Find(dir, "longins", "data/LIST/256.json"); err != nil || l.Verified || l.Size != 2 || l.Path != "data/LIST/256.json" {
		t.Errorf("an unpinned file there: %+v %v, want it, unverified, with its size", l, err)
	}

	// The workspace's copy of an official file verifies.
	data, err := os.ReadFile(testbin.Reference(t, "ifscale", "pruned_rules.csv"))
	if err != nil {
		t.Fatal(err)
	}
	place(t, dir, "ifscale", "src/inputs/pruned_rules.csv", data)
	if l, err := Find(dir, "ifscale", "src/inputs/pruned_rules.csv"); err != nil || !l.Verified || l.Size != 4841 {
		t.Errorf("the official vocabulary: %+v %v, want it verified", l, err)
	}
}
