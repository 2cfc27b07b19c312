package official

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Local is an official file a run reads from the folder of official files.
type Local struct {
	Bench string
	Path  string // in the authors' repository, slash-separated: data/meta/tasks.json
	File  string // where it is: DIR/<bench>/<path>
	Size  int64
	// Verified is true when a pin covers the file and its bytes are the
	// pinned ones; a file no pin covers (LongIns's data.zip) is used as it
	// is, unverified.
	Verified bool
}

// NotUsable is an official file a run needs that is not in the folder, or
// not with the official bytes: the error says what to do. It reads as a
// missing input file, so a program exits 3 (bad input) on it.
type NotUsable struct {
	File string
	Why  string
}

func (e *NotUsable) Error() string { return e.File + ": " + e.Why }

func (e *NotUsable) Unwrap() error {
	return &fs.PathError{Op: "open", Path: e.File, Err: fs.ErrNotExist}
}

// FetchCommand is the command that puts bench's pinned files in dir.
func FetchCommand(dir, bench string) string {
	return fmt.Sprintf("gen-context fetch-official --official %s --bench %s", dir, bench)
}

// Find is the official file at path of bench's repository in the folder
// dir, laid out as fetch-official lays it out (DIR/<bench>/<path>), for a run
// to read. A pinned file must hold the pinned bytes (Pin.Check, the check
// fetch-official makes); a file no pin covers is taken as it is. Unlike
// fetch-official, Find never deletes a file: a missing or wrong one is a
// *NotUsable that says how to get the right one.
func Find(dir, bench, path string) (Local, error) {
	l := Local{Bench: bench, Path: path, File: filepath.Join(dir, bench, filepath.FromSlash(path))}
	pin, pinned := PinOf(bench, path)
	st, err := os.Stat(l.File)
	switch {
	case err == nil && st.IsDir():
		return l, &NotUsable{l.File, "a folder, not the official file"}
	case errors.Is(err, fs.ErrNotExist) && pinned:
		return l, &NotUsable{l.File, "not there: `" + FetchCommand(dir, bench) + "` fetches it and checks it (docs/official.md)"}
	case errors.Is(err, fs.ErrNotExist):
		why := "not there, and no pin covers it"
		if Unpinned[bench] != "" {
			why = "not there: " + Advice(dir, bench)
		}
		return l, &NotUsable{l.File, why}
	case err != nil:
		return l, err
	}
	l.Size = st.Size()
	if !pinned {
		return l, nil
	}
	if err := pin.Check(l.File); err != nil {
		var m *Mismatch
		if errors.As(err, &m) {
			return l, &NotUsable{l.File, fmt.Sprintf("not the official file (its %v): `%s` replaces it", m, FetchCommand(dir, bench))}
		}
		return l, err
	}
	l.Verified = true
	return l, nil
}

// PinOf is the pin of the file at path of bench's repository, if any.
func PinOf(bench, path string) (Pin, bool) {
	for _, p := range Pins() {
		if p.Bench == bench && p.Path == path {
			return p, true
		}
	}
	return Pin{}, false
}

// Advice is Unpinned's note for bench with DIR replaced by dir: what to do
// about the official data no pin covers.
func Advice(dir, bench string) string {
	note := Unpinned[bench]
	if note == "" {
		return ""
	}
	return strings.ReplaceAll(note, "DIR/", strings.TrimSuffix(dir, "/")+"/")
}
