package official

import (
	"bufio"
	"crypto/sha1"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// GitHubRaw serves a repository's file at a commit as
// GitHubRaw/<owner>/<repo>/<commit>/<path>.
const GitHubRaw = "https://raw.githubusercontent.com"

// Pin is one official file at a pinned commit.
type Pin struct {
	Bench  string
	Repo   string // owner/name on GitHub
	Commit string
	Path   string // in the repository, slash-separated
	Blob   string // git blob id: sha1 of "blob <size>\x00" and the content; known for every file
	Size   int64  // -1 when unknown
	SHA256 string // "" when unknown
}

// ID names the file as reports do: <bench>/<path>.
func (p Pin) ID() string { return p.Bench + "/" + p.Path }

// File is where the file belongs in the folder dir.
func (p Pin) File(dir string) string {
	return filepath.Join(dir, p.Bench, filepath.FromSlash(p.Path))
}

// URL is where base (GitHubRaw or a mirror laid out like it) serves the file.
func (p Pin) URL(base string) string {
	return strings.TrimSuffix(base, "/") + "/" + p.Repo + "/" + p.Commit + "/" + p.Path
}

//go:embed pins.tsv
var pinsTSV string

// Pins is the table of pinned files, in its order.
func Pins() []Pin {
	var pins []Pin
	for n, line := range strings.Split(pinsTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "bench\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			panic(fmt.Sprintf("lib/official/pins.tsv:%d: %d fields, want 7", n+1, len(f)))
		}
		p := Pin{Bench: f[0], Repo: f[1], Commit: f[2], Path: f[3], Blob: f[4], Size: -1, SHA256: f[6]}
		if f[5] != "" {
			size, err := strconv.ParseInt(f[5], 10, 64)
			if err != nil {
				panic(fmt.Sprintf("lib/official/pins.tsv:%d: size %q", n+1, f[5]))
			}
			p.Size = size
		}
		pins = append(pins, p)
	}
	return pins
}

// Benches are the benchmarks with pinned files, in the table's order.
func Benches() []string {
	var bs []string
	for _, p := range Pins() {
		if len(bs) == 0 || bs[len(bs)-1] != p.Bench {
			bs = append(bs, p.Bench)
		}
	}
	return bs
}

// Unpinned says, per benchmark, what official data no pin covers and why.
var Unpinned = map[string]string{
	"longins": "LongIns's full data (the GIST, LIST and LIMT exams at every length) is data.zip on the authors' Google Drive, " +
		"linked from the README of github.com/Ins-Bench/LongIns-Bench; no checksum of it is published and Drive does not " +
		"serve it to a program, so it can be neither pinned nor fetched. Download it by hand and put its exams at " +
		"DIR/longins/data/<MODE>/<LENGTH>.json (e.g. data/LIST/1024.json): the GIST files once committed to the " +
		"repository are pinned and verified here, the others are used as they are, unverified.",
}

// Mismatch is a file whose bytes are not the pinned ones.
type Mismatch struct {
	What      string // "size", "sha256" or "git blob id"
	Got, Want string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("%s %s, pinned %s", m.What, m.Got, m.Want)
}

// Check verifies file against the pin: the size where known, then the
// sha256 where known, else the git blob id. A *Mismatch says which differs.
func (p Pin) Check(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if p.Size >= 0 && st.Size() != p.Size {
		return &Mismatch{"size", strconv.FormatInt(st.Size(), 10), strconv.FormatInt(p.Size, 10)}
	}
	h, what, want := sha256.New(), "sha256", p.SHA256
	if want == "" {
		h, what, want = sha1.New(), "git blob id", p.Blob
		fmt.Fprintf(h, "blob %d\x00", st.Size())
	}
	if _, err := io.Copy(h, bufio.NewReaderSize(f, 1<<20)); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return &Mismatch{what, got, want}
	}
	return nil
}
