package stream

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLock(t *testing.T) {
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	unlock, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	// flock is per open file, so a second Lock in this process is a second writer.
	_, err = Lock(out)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "PID "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Lock: %v, want ErrLocked naming PID %d", err, os.Getpid())
	}
	unlock()
	if _, err := os.Stat(LockName(out)); !os.IsNotExist(err) {
		t.Errorf("unlock left %s: %v", LockName(out), err)
	}
	unlock, err = Lock(out)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock()

	// A lock file a killed run left behind is not held by anyone.
	os.WriteFile(LockName(out), []byte("999999\n"), 0o644)
	if unlock, err = Lock(out); err != nil {
		t.Fatalf("Lock over a stale lock file: %v", err)
	}
	unlock()

	// Never through a symlink someone planted at the lock's name.
	target := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(target, []byte("keep"), 0o644)
	os.Symlink(target, LockName(out))
	if _, err := Lock(out); err == nil {
		t.Error("Lock followed a symlink at the lock file's name")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the symlink's target was written: %q", b)
	}
}
