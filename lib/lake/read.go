package lake

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ifkit/ifkit/lib/parts"
)

// IsLake reports whether dir is a partitioned run's folder (it has a manifest).
func IsLake(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, ManifestName))
	return err == nil && st.Mode().IsRegular()
}

// WriteManifest stores the manifest atomically at the top of dir.
func WriteManifest(dir string, m *Manifest) error {
	return parts.WriteJSON(filepath.Join(dir, ManifestName), m)
}

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	var m Manifest
	if err := parts.ReadJSON(filepath.Join(dir, ManifestName), &m); err != nil {
		return nil, err
	}
	return &m, nil
}

var partRE = regexp.MustCompile(`^part-\d{5,}\.`)

// Check reads dir's manifest and returns its part files in the manifest's
// order. It refuses a run that did not finish (unless allowPartial, which
// reads the parts it completed), a listed part that is missing, and a part
// file the manifest does not list (another run's, copied in).
func Check(dir string, allowPartial bool) (*Manifest, []string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	if !m.Complete && !allowPartial {
		return nil, nil, fmt.Errorf("%s says the run %s did not finish (complete: false); re-run it, or --allow-partial to read the %d parts it completed", ManifestName, m.Run, len(m.Parts))
	}
	listed := map[string]bool{}
	var files []string
	for _, p := range m.Parts {
		f := filepath.Join(dir, filepath.FromSlash(p.Path))
		if !filepath.IsLocal(filepath.FromSlash(p.Path)) {
			return nil, nil, fmt.Errorf("%s lists %q, which is outside the folder", ManifestName, p.Path)
		}
		if _, err := os.Stat(f); err != nil {
			return nil, nil, fmt.Errorf("%s lists %s, which is missing", ManifestName, p.Path)
		}
		listed[f] = true
		files = append(files, f)
	}
	var foreign []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && partRE.MatchString(d.Name()) && !listed[p] {
			rel, _ := filepath.Rel(dir, p)
			foreign = append(foreign, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(foreign) > 0 {
		return nil, nil, fmt.Errorf("part files that %s does not list (another run's?): %s; move them out of the folder", ManifestName, strings.Join(foreign, ", "))
	}
	return m, files, nil
}
