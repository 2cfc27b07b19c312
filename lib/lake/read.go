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

// Listed is a part that passed Check: its file and the records its
// manifest says it holds, which a reader counts.
type Listed struct {
	File    string
	Records int64
}

// Check reads dir's manifest and returns its parts in the manifest's order.
// It refuses a run that did not finish (unless allowPartial, which reads the
// parts it completed), a part file the manifest does not list (another
// run's, copied in), and a listed part that is missing or not of the size
// and sha256 the manifest recorded (parts.Verify): allowPartial leaves those
// out and says why in failed.
func Check(dir string, allowPartial bool) (m *Manifest, files []Listed, failed []string, err error) {
	if m, err = ReadManifest(dir); err != nil {
		return nil, nil, nil, err
	}
	if !m.Complete && !allowPartial {
		return nil, nil, nil, fmt.Errorf("%s says the run %s did not finish (complete: false); re-run it, or --allow-partial to read the %d parts it completed", ManifestName, m.Run, len(m.Parts))
	}
	listed := map[string]bool{}
	for _, p := range m.Parts {
		f := filepath.Join(dir, filepath.FromSlash(p.Path))
		if !filepath.IsLocal(filepath.FromSlash(p.Path)) {
			return nil, nil, nil, fmt.Errorf("%s lists %q, which is outside the folder", ManifestName, p.Path)
		}
		listed[f] = true
		if _, err := os.Stat(f); err != nil {
			failed = append(failed, fmt.Sprintf("%s lists %s, which is missing", ManifestName, p.Path))
			continue
		}
		if err := parts.Verify(f, p.SHA256, p.Size); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", p.Path, err))
			continue
		}
		files = append(files, Listed{File: f, Records: p.Records})
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
		return nil, nil, nil, err
	}
	if len(foreign) > 0 {
		return nil, nil, nil, fmt.Errorf("part files that %s does not list (another run's?): %s; move them out of the folder", ManifestName, strings.Join(foreign, ", "))
	}
	if len(failed) > 0 && !allowPartial {
		return nil, nil, nil, fmt.Errorf("%s (re-run the run into a new folder, or --allow-partial to read the parts that pass)", strings.Join(failed, "; "))
	}
	return m, files, failed, nil
}
