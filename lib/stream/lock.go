package stream

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// LockName is the lock file that makes one process the owner of an output
// FILE (and of FILE.partial, its journal and resume copies) for a whole run.
func LockName(path string) string { return path + ".lock" }

// ErrLocked is returned by Lock when another process owns the output.
var ErrLocked = errors.New("is being written by another process")

// Lock takes the output's lock (flock, non-blocking) for the life of the
// process: a second writer of the same output — a requeued Slurm task that
// starts while the first attempt drains, a user's second terminal — fails at
// once instead of renaming or truncating the first writer's files. The lock
// file holds the owner's PID so the refusal can name it. unlock removes it.
//
// The kernel drops a flock when its holder dies, so a kill -9 never leaves a
// stale lock: the file left behind is simply locked again by the next run.
func Lock(path string) (unlock func(), err error) {
	name := LockName(path)
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return nil, fmt.Errorf("-o %s: cannot create its lock file: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			holder := readPID(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("-o %s %w%s (lock %s): wait for it to finish or stop it first", path, ErrLocked, holder, name)
			}
			return nil, fmt.Errorf("-o %s: lock %s: %w", path, name, err)
		}
		// The previous owner may have removed the file between our open and
		// our flock: then we hold a lock nobody else can see, so start over.
		fst, ferr := f.Stat()
		pst, perr := os.Lstat(name)
		if ferr != nil || perr != nil || !os.SameFile(fst, pst) {
			f.Close()
			continue
		}
		f.Truncate(0)
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		return func() { os.Remove(name); f.Close() }, nil
	}
}

func readPID(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if pid := strings.TrimSpace(string(b[:n])); pid != "" {
		return " (PID " + pid + ")"
	}
	return ""
}
