package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Provenance is the part of a manifest that describes the run.
type Provenance struct {
	// Run is the run id (RunID), set once the inputs were read: the parts of
	// one sharded run share it, since --shard only chooses which records.
	Run      string   `json:"run,omitempty"`
	Version  string   `json:"ifkit_version"`
	Tool     string   `json:"tool"`
	Command  []string `json:"command"`
	Settings []string `json:"settings"`
	Input    []Input  `json:"input"`
	// InputRuns are the runs of the partitioned folders read: the lineage.
	InputRuns []string  `json:"input_runs,omitempty"`
	Host      string    `json:"host,omitempty"`
	PID       int       `json:"pid,omitempty"`
	Job       string    `json:"slurm_job,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
}

// Input describes one input of a run by content.
type Input struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	// SHA256 is the hash of the file as stored; for an input that cannot be
	// read twice (stdin, a pipe, a FIFO) the hash of the bytes the run read,
	// empty until it read them.
	SHA256 string `json:"sha256,omitempty"`
	// PartsOf is, for an input that is itself a part of a sharded run, the
	// input key of that run: the parts of a judge array are each made from a
	// different inference part, but all from the parts of one input.
	PartsOf string `json:"parts_of,omitempty"`
}

// key is what identifies an input's content in an input key and a run id.
func (in Input) key() string {
	switch {
	case in.PartsOf != "":
		return "parts(" + in.PartsOf + ")"
	case in.SHA256 == "":
		return "stdin"
	}
	return in.SHA256
}

// InputKey identifies the input contents (not their names or paths).
func InputKey(inputs []Input) string {
	ks := make([]string, len(inputs))
	for i, in := range inputs {
		ks[i] = in.key()
	}
	return strings.Join(ks, "+")
}

// RunID is the content hash that names a run: the same input contents (their
// hashes, not their names; a part of a sharded run counts as that run's
// input), program, settings and ifkit version give the same id, so a re-run
// is recognisable and two different runs never share one. An input key
// repeated (the N parts of one folder) counts once.
func RunID(inputs []Input, tool string, settings []string, version string) string {
	h := sha256.New()
	fmt.Fprintf(h, "ifkit run\x00%s\x00%s\x00", version, tool)
	for _, s := range settings {
		fmt.Fprintf(h, "setting\x00%s\x00", s)
	}
	var seen []string
	for _, in := range inputs {
		if k := in.key(); !slices.Contains(seen, k) {
			seen = append(seen, k)
			fmt.Fprintf(h, "input\x00%s\x00", k)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// HashFiles describes the input files that can be read twice by their
// contents: a regular file is hashed as stored, a folder (the importers of
// official files take one) as its files in path order. Stdin ("-"), pipes and
// FIFOs are listed by name only, never opened here (a FIFO opened twice
// waits for a second writer; a pipe read here is lost to the run): the run
// fills in the hash of what it read.
func HashFiles(files []string) ([]Input, error) {
	var out []Input
	for _, f := range files {
		if f == "-" {
			out = append(out, Input{Name: "-"})
			continue
		}
		st, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("hashing %s: %w", f, err)
		}
		if !st.Mode().IsRegular() && !st.IsDir() {
			out = append(out, Input{Name: f})
			continue
		}
		h := sha256.New()
		n, err := hashPath(h, f, st)
		if err != nil {
			return nil, fmt.Errorf("hashing %s: %w", f, err)
		}
		out = append(out, Input{Name: f, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return out, nil
}

// hashPath adds a file's bytes to h; a folder adds each regular file under
// it, in path order, after its path relative to the folder.
func hashPath(h io.Writer, path string, st fs.FileInfo) (int64, error) {
	if !st.IsDir() {
		return hashFile(h, path)
	}
	var total int64
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%s\x00", rel)
		n, err := hashFile(h, p)
		total += n
		return err
	})
	return total, err
}

func hashFile(w io.Writer, path string) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	return io.Copy(w, fh)
}

// HashFile is the SHA-256 (hex) and size of one file as stored.
func HashFile(path string) (sha string, size int64, err error) {
	h := sha256.New()
	if size, err = hashFile(h, path); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// Host is where a run runs: the host name, the process id and, in a Slurm
// array task, the job as A_T (with "(restart R)" on a requeue).
func Host(getenv func(string) string) (host string, pid int, job string) {
	host, _ = os.Hostname()
	if job = getenv("SLURM_ARRAY_JOB_ID"); job != "" {
		job += "_" + getenv("SLURM_ARRAY_TASK_ID")
		if n := getenv("SLURM_RESTART_COUNT"); n != "" && n != "0" {
			job += " (restart " + n + ")"
		}
	}
	return host, os.Getpid(), job
}
