package parts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var nameRE = regexp.MustCompile(`^part-(\d{5,})-of-(\d{5,})(\..+)$`)

// Name is the file name of shard i of n with extension ext (".jsonl.zst").
func Name(i, n int, ext string) string { return fmt.Sprintf("part-%05d-of-%05d%s", i, n, ext) }

// Parse reads a part file's base name. Manifests, FILE.partial, FILE.lock and
// other files beside the parts are not parts.
func Parse(base string) (i, n int, ext string, ok bool) {
	m := nameRE.FindStringSubmatch(base)
	if m == nil || m[3] == ManifestExt || strings.HasSuffix(m[3], ".partial") || strings.Contains(m[3], ".partial.") || strings.HasSuffix(m[3], ".lock") {
		return 0, 0, "", false
	}
	i, _ = strconv.Atoi(m[1])
	n, _ = strconv.Atoi(m[2])
	if n < 1 || i >= n {
		return 0, 0, "", false
	}
	return i, n, m[3], true
}

// ManifestExt ends every manifest's name.
const ManifestExt = ".manifest.json"

// ManifestPath is the manifest beside a part file.
func ManifestPath(part string) string {
	dir, base := filepath.Split(part)
	if i, n, _, ok := Parse(base); ok {
		return filepath.Join(dir, fmt.Sprintf("part-%05d-of-%05d%s", i, n, ManifestExt))
	}
	return part + ManifestExt
}

// Input describes one input file of the run that wrote a part.
type Input struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"` // empty for stdin
	// PartsOf is, for an input that is itself a part of a sharded run, the
	// input key of that run: the parts of a judge array are each made from a
	// different inference part, but all from the parts of one input.
	PartsOf string `json:"parts_of,omitempty"`
}

// Manifest is what part-….manifest.json holds.
type Manifest struct {
	Shard    int       `json:"shard"`
	Count    int       `json:"count"`
	Part     string    `json:"part"`
	Input    []Input   `json:"input"`
	Records  int64     `json:"records"`
	Failed   int64     `json:"failed"`
	Usage    any       `json:"usage,omitempty"` // what an inference or judge run paid (lib/cost.Account)
	Complete bool      `json:"complete"`
	Version  string    `json:"ifkit_version"`
	Tool     string    `json:"tool"`
	Command  []string  `json:"command"`
	Host     string    `json:"host,omitempty"`
	PID      int       `json:"pid,omitempty"`
	Job      string    `json:"slurm_job,omitempty"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended,omitzero"`
}

// InputKey identifies the input content (not its name or path) of a manifest.
func (m *Manifest) InputKey() string {
	var ks []string
	for _, in := range m.Input {
		if in.PartsOf != "" {
			ks = append(ks, "parts("+in.PartsOf+")")
			continue
		}
		if in.SHA256 == "" {
			ks = append(ks, "stdin")
			continue
		}
		ks = append(ks, in.SHA256)
	}
	return strings.Join(ks, "+")
}

// HashInputs describes the input files; "-" (stdin) has no size or hash.
func HashInputs(files []string) ([]Input, error) {
	var out []Input
	for _, f := range files {
		if f == "-" {
			out = append(out, Input{Name: "-"})
			continue
		}
		h := sha256.New()
		n, err := hashPath(h, f)
		if err != nil {
			return nil, fmt.Errorf("hashing %s: %w", f, err)
		}
		in := Input{Name: f, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
		if _, _, _, ok := Parse(filepath.Base(f)); ok {
			if m, err := ReadManifest(ManifestPath(f)); err == nil {
				in.PartsOf = m.InputKey()
			}
		}
		out = append(out, in)
	}
	return out, nil
}

// hashPath adds a file's bytes to h; a folder named as an input (the
// importers of official files take one) adds each file under it, in path
// order, after its path relative to the folder.
func hashPath(h io.Writer, path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if !st.IsDir() {
		return copyFile(h, path)
	}
	var total int64
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%s\x00", rel)
		n, err := copyFile(h, p)
		total += n
		return err
	})
	return total, err
}

func copyFile(w io.Writer, path string) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	return io.Copy(w, fh)
}

// Write stores the manifest atomically (a reader sees the old or the new one).
func (m *Manifest) Write(path string) error { return WriteJSON(path, m) }

// WriteJSON stores v as indented JSON atomically (through a temporary name
// and a rename), as every manifest is written.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadManifest reads one manifest.
func ReadManifest(path string) (*Manifest, error) {
	var m Manifest
	if err := ReadJSON(path, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ReadJSON reads a manifest-like JSON file into v; a syntax error names the file.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
