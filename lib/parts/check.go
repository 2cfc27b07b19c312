package parts

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/provenance"
)

// Part is one part file of a checked set.
type Part struct {
	Shard    int
	Path     string
	Manifest *Manifest
}

// Set is a folder of parts that passed Check.
type Set struct {
	Dir     string
	Count   int      // N, the number of shards
	Parts   []Part   // readable parts, in shard order
	Missing []int    // shards left out under allowPartial (missing, unfinished or changed)
	Failed  []string // why each part left out under allowPartial was
}

// Present says how many of the Count shards the set holds.
func (s *Set) Present() int { return len(s.Parts) }

// SetError says why a folder is not a complete, consistent set of parts.
type SetError struct {
	Dir        string
	Count      int
	Missing    []int
	Unfinished []string
	Changed    []string // complete parts whose file is not what their manifest says
	Foreign    []string
	Duplicated []string
}

func (e *SetError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "not a complete set of parts")
	if e.Count > 0 {
		fmt.Fprintf(&b, " of %d shards", e.Count)
	}
	if len(e.Missing) > 0 {
		ns := make([]string, len(e.Missing))
		for i, m := range e.Missing {
			ns[i] = strconv.Itoa(m)
		}
		fmt.Fprintf(&b, "; missing shard(s) %s", strings.Join(ns, ", "))
	}
	for _, l := range []struct {
		name string
		xs   []string
	}{{"unfinished", e.Unfinished}, {"changed since written", e.Changed}, {"foreign", e.Foreign}, {"duplicated", e.Duplicated}} {
		if len(l.xs) > 0 {
			fmt.Fprintf(&b, "; %s: %s", l.name, strings.Join(l.xs, "; "))
		}
	}
	if len(e.Foreign) == 0 && len(e.Duplicated) == 0 {
		b.WriteString(" (re-run those tasks, or --allow-partial to read the complete parts anyway)")
	} else {
		b.WriteString(" (move foreign or duplicated files out of the folder)")
	}
	return b.String()
}

type entry struct {
	parts    []string // part files (several: duplicated)
	manifest *Manifest
	mErr     error
	partial  string
}

// scan lists the parts, manifests and partial outputs of dir by shard count
// and shard.
func scan(dir string) (map[int]map[int]*entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byN := map[int]map[int]*entry{}
	get := func(i, n int) *entry {
		if byN[n] == nil {
			byN[n] = map[int]*entry{}
		}
		if byN[n][i] == nil {
			byN[n][i] = &entry{}
		}
		return byN[n][i]
	}
	for _, de := range des {
		name := de.Name()
		m := nameRE.FindStringSubmatch(name)
		if m == nil || de.IsDir() {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if n < 1 || i >= n {
			continue
		}
		path := filepath.Join(dir, name)
		switch ext := m[3]; {
		case ext == ManifestExt:
			e := get(i, n)
			e.manifest, e.mErr = ReadManifest(path)
		case strings.HasPrefix(ext, ManifestExt):
			// a manifest being written (stream.WriteFile)
		case strings.HasSuffix(ext, ".partial"):
			get(i, n).partial = path
		case strings.Contains(ext, ".partial.") || strings.Contains(ext, ".tmp-") || strings.HasSuffix(ext, ".lock") || strings.Contains(ext, ".bak-"):
			// journals, resume copies, manifests being written, writers' locks,
			// what --force moved aside
		default:
			e := get(i, n)
			e.parts = append(e.parts, path)
		}
	}
	return byN, nil
}

// FolderCount is the shard count of the parts (or manifests) already in dir:
// 0 when there are none, an error when they disagree.
func FolderCount(dir string) (int, error) {
	byN, err := scan(dir)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var ns []string
	n := 0
	for k := range byN {
		n = k
		ns = append(ns, strconv.Itoa(k))
	}
	if len(byN) > 1 {
		sort.Strings(ns)
		return 0, fmt.Errorf("%s holds parts of several shard counts (%s)", dir, strings.Join(ns, ", "))
	}
	return n, nil
}

// Check verifies the parts in dir as a set: all N shards present, each part
// complete by its manifest and, where the manifest has them, of its size and
// sha256 (Verify), one part per shard, one shard count and one input (by
// content hash). A reader also counts each part's records against the
// manifest's (app). With only >= 0 it checks that one shard alone (a task of
// an array over the parts). With allowPartial, missing and unfinished shards
// and parts changed since they were written are left out (listed in
// Set.Missing, with why in Set.Failed); foreign or duplicated files are
// refused either way, since no choice of parts makes them right.
func Check(dir string, only int, allowPartial bool) (*Set, error) {
	byN, err := scan(dir)
	if err != nil {
		return nil, err
	}
	if len(byN) == 0 {
		return nil, fmt.Errorf("no part files (part-IIIII-of-NNNNN.*) in this folder")
	}
	// The set's count is the one most shards have (ties: the larger), so a
	// leftover part of an earlier array size is the foreign one.
	n, best := 0, -1
	for k, es := range byN {
		if len(es) > best || len(es) == best && k > n {
			n, best = k, len(es)
		}
	}
	se := &SetError{Dir: dir, Count: n}
	for k, es := range byN {
		if k == n {
			continue
		}
		for i, e := range es {
			se.Foreign = append(se.Foreign, fmt.Sprintf("%s (shard %d of %d, the other parts are of %d)", describe(e, i, k), i, k, n))
		}
	}
	es := byN[n]
	// The input every complete part should share: the most common.
	keys := map[string]int{}
	for _, e := range es {
		if e.manifest != nil && e.manifest.Complete {
			keys[e.manifest.InputKey()]++
		}
	}
	input, most := "", 0
	for k, c := range keys {
		if c > most || c == most && k < input {
			input, most = k, c
		}
	}
	set := &Set{Dir: dir, Count: n}
	for i := range n {
		if only >= 0 && i != only {
			continue
		}
		e := es[i]
		switch {
		case e == nil || len(e.parts) == 0 && e.manifest == nil && e.partial == "":
			se.Missing = append(se.Missing, i)
			continue
		case len(e.parts) > 1:
			se.Duplicated = append(se.Duplicated, fmt.Sprintf("shard %d has %d part files (%s)", i, len(e.parts), baseNames(e.parts)))
			continue
		case e.mErr != nil:
			se.Unfinished = append(se.Unfinished, fmt.Sprintf("%s: unreadable manifest: %v", describe(e, i, n), e.mErr))
			continue
		case len(e.parts) == 0 || e.manifest == nil || !e.manifest.Complete:
			se.Unfinished = append(se.Unfinished, unfinished(e, i, n))
			continue
		}
		m := e.manifest
		switch {
		case m.Shard != i || m.Count != n:
			se.Foreign = append(se.Foreign, fmt.Sprintf("%s: its manifest says shard %d of %d", describe(e, i, n), m.Shard, m.Count))
			continue
		case m.InputKey() != input:
			se.Foreign = append(se.Foreign, fmt.Sprintf("%s: made from other input (%s) than the other parts", describe(e, i, n), inputNames(m)))
			continue
		}
		if err := Verify(e.parts[0], m.SHA256, m.Size); err != nil {
			se.Changed = append(se.Changed, fmt.Sprintf("%s: %v", describe(e, i, n), err))
			continue
		}
		set.Parts = append(set.Parts, Part{Shard: i, Path: e.parts[0], Manifest: m})
	}
	if len(se.Foreign) > 0 || len(se.Duplicated) > 0 {
		return nil, se
	}
	if len(se.Missing) > 0 || len(se.Unfinished) > 0 || len(se.Changed) > 0 {
		if !allowPartial || len(set.Parts) == 0 {
			return nil, se
		}
		set.Failed = append(append(set.Failed, se.Unfinished...), se.Changed...)
		for i := range n {
			if (only < 0 || i == only) && !hasShard(set.Parts, i) {
				set.Missing = append(set.Missing, i)
			}
		}
	}
	return set, nil
}

func hasShard(ps []Part, i int) bool {
	for _, p := range ps {
		if p.Shard == i {
			return true
		}
	}
	return false
}

func describe(e *entry, i, n int) string {
	if len(e.parts) > 0 {
		return filepath.Base(e.parts[0])
	}
	return Name(i, n, "")
}

func unfinished(e *entry, i, n int) string {
	s := describe(e, i, n)
	switch {
	case e.manifest == nil && len(e.parts) > 0:
		return s + " has no manifest"
	case e.manifest == nil:
		return s + " has only " + filepath.Base(e.partial) + " (killed or still running)"
	case len(e.parts) == 0 && e.manifest.Complete:
		return s + " is gone (its manifest says it was complete)"
	}
	m := e.manifest
	s += fmt.Sprintf(" not complete (started %s", m.Started.Format("2006-01-02 15:04:05"))
	if m.Host != "" {
		s += fmt.Sprintf(" on %s, pid %d", m.Host, m.PID)
	}
	if m.Job != "" {
		s += ", job " + m.Job
	}
	return s + ")"
}

func baseNames(ps []string) string {
	var bs []string
	for _, p := range ps {
		bs = append(bs, filepath.Base(p))
	}
	return strings.Join(bs, ", ")
}

func inputNames(m *Manifest) string {
	var s []string
	for _, in := range m.Input {
		h := in.SHA256
		if len(h) > 12 {
			h = h[:12]
		}
		s = append(s, fmt.Sprintf("%s sha256 %s", in.Name, h))
	}
	return strings.Join(s, ", ")
}

// Verify checks a file against the size and sha256 its manifest recorded
// when it was written, before anything reads it: a part cut short (even at a
// frame boundary, which decompresses cleanly), edited and re-compressed,
// emptied, or replaced by another run's file no longer matches. A manifest
// without them (an older ifkit's) leaves the record count as the check.
func Verify(path, sha string, size int64) error {
	if sha == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Size() != size {
		return fmt.Errorf("%d bytes, its manifest says %d (cut, changed or replaced after it was written)", st.Size(), size)
	}
	got, _, err := provenance.HashFile(path)
	if err != nil {
		return err
	}
	if got != sha {
		return fmt.Errorf("sha256 %.12s…, its manifest says %.12s… (changed or replaced after it was written)", got, sha)
	}
	return nil
}
