package parts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/provenance"
	"github.com/ifkit/ifkit/lib/stream"
)

var nameRE = regexp.MustCompile(`^part-(\d{5,})-of-(\d{5,})(\..+)$`)

// Name is the file name of shard i of n with extension ext (".jsonl.zst").
func Name(i, n int, ext string) string { return fmt.Sprintf("part-%05d-of-%05d%s", i, n, ext) }

// Parse reads a part file's base name. Manifests, FILE.partial, FILE.lock,
// FILE.bak-N (an earlier part --force moved aside) and other files beside
// the parts are not parts.
func Parse(base string) (i, n int, ext string, ok bool) {
	m := nameRE.FindStringSubmatch(base)
	if m == nil || m[3] == ManifestExt || strings.HasSuffix(m[3], ".partial") || strings.Contains(m[3], ".partial.") || strings.HasSuffix(m[3], ".lock") || strings.Contains(m[3], ".bak-") {
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

// Manifest is what part-….manifest.json holds: the part, its count of
// records and checksum, and the run's provenance.
type Manifest struct {
	Shard    int    `json:"shard"`
	Count    int    `json:"count"`
	Part     string `json:"part"`
	Records  int64  `json:"records"`
	Failed   int64  `json:"failed"`
	Usage    any    `json:"usage,omitempty"` // what an inference or judge run paid (lib/cost.Account)
	Complete bool   `json:"complete"`
	// SHA256 and Size are the part file's, as stored, once it is complete: a
	// reader checks them before it reads the part, and counts its records.
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
	provenance.Provenance
}

// InputKey identifies the input content (not its name or path) of a manifest.
func (m *Manifest) InputKey() string { return provenance.InputKey(m.Input) }

// HashInputs describes the input files by content (provenance.HashFiles); an
// input that is itself a part of a sharded run also names that run's input.
func HashInputs(files []string) ([]provenance.Input, error) {
	ins, err := provenance.HashFiles(files)
	if err != nil {
		return nil, err
	}
	for i, in := range ins {
		if _, _, _, ok := Parse(filepath.Base(in.Name)); ok && in.SHA256 != "" {
			if m, err := ReadManifest(ManifestPath(in.Name)); err == nil {
				ins[i].PartsOf = m.InputKey()
			}
		}
	}
	return ins, nil
}

// Write stores the manifest atomically (a reader sees the old or the new one).
func (m *Manifest) Write(path string) error { return WriteJSON(path, m) }

// WriteJSON stores v as indented JSON atomically (stream.WriteFile), as every
// manifest is written.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return stream.WriteFile(path, append(b, '\n'))
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
