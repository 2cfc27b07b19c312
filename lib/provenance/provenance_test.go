package provenance

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRunID(t *testing.T) {
	in := []Input{{Name: "a", SHA256: "aa"}}
	renamed := []Input{{Name: "b", SHA256: "aa"}}
	base := RunID(in, "judge", []string{"rubric=x"}, "v1")
	if RunID(renamed, "judge", []string{"rubric=x"}, "v1") != base {
		t.Error("the input's name changed the id")
	}
	if RunID([]Input{{Name: "p0", SHA256: "p0", PartsOf: "aa"}, {Name: "p1", SHA256: "p1", PartsOf: "aa"}}, "judge", nil, "v1") !=
		RunID([]Input{{Name: "p1", SHA256: "p1", PartsOf: "aa"}}, "judge", nil, "v1") {
		t.Error("parts of one sharded run are not one input")
	}
	for _, other := range []string{
		RunID([]Input{{SHA256: "ab"}}, "judge", []string{"rubric=x"}, "v1"),
		RunID(in, "split-subtasks", []string{"rubric=x"}, "v1"),
		RunID(in, "judge", []string{"rubric=y"}, "v1"),
		RunID(in, "judge", []string{"rubric=x"}, "v2"),
	} {
		if other == base {
			t.Error("a different input, program, setting or version gave the same id")
		}
	}
}

// A FIFO among the inputs is listed, never opened: opening it a second time
// would wait for a writer that never comes.
func TestHashFilesLeavesFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	plain := filepath.Join(dir, "plain.jsonl")
	os.WriteFile(plain, []byte("{}\n"), 0o644)
	ins, err := HashFiles([]string{plain, fifo, "-"})
	if err != nil {
		t.Fatal(err)
	}
	if ins[0].SHA256 == "" || ins[0].Size != 3 || ins[1].SHA256 != "" || ins[1].Name != fifo || ins[2].Name != "-" {
		t.Errorf("HashFiles = %+v", ins)
	}
}
