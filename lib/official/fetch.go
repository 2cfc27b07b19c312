package official

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/ifkit/ifkit/lib/stream"
)

// Status is what Fetch found or did for one pinned file.
type Status string

const (
	Verified   Status = "verified"   // already in place, with the pinned bytes
	Downloaded Status = "downloaded" // fetched now, with the pinned bytes
	Missing    Status = "missing"    // not in place, and not fetched
	Corrupt    Status = "corrupt"    // fetched, but not the pinned bytes: deleted
)

// Result is one pinned file after Fetch.
type Result struct {
	Pin    Pin
	File   string
	URL    string
	Status Status
	// Deleted says why a file that was already in place was deleted (it
	// failed its checksum); it was then downloaded again, or is missing.
	Deleted string
	Err     error // why it is missing or corrupt
}

// Fetcher puts pinned files in Dir.
type Fetcher struct {
	Dir string
	// Base serves the files as Base/<owner>/<repo>/<commit>/<path>: GitHubRaw,
	// or a mirror laid out like it. "" downloads nothing: Fetch only checks
	// the files in place.
	Base   string
	Client *http.Client
}

// Fetch makes p's file in Dir hold the pinned bytes. A file already in place
// (fetched before, or put there by hand) is checked, and deleted when it
// fails; a missing one is downloaded beside its place and renamed into it
// only once it verifies. Without a Base, or when the download fails, the
// result says what to download and where to put it.
func (f *Fetcher) Fetch(ctx context.Context, p Pin) Result {
	res := Result{Pin: p, File: p.File(f.Dir), URL: p.URL(GitHubRaw)}
	if f.Base != "" {
		res.URL = p.URL(f.Base)
	}
	switch err := p.Check(res.File); {
	case err == nil:
		res.Status = Verified
		return res
	case errors.As(err, new(*Mismatch)):
		res.Deleted = fmt.Sprintf("was in place, but its %v: deleted", err)
		if rerr := os.Remove(res.File); rerr != nil {
			res.Status, res.Err = Corrupt, fmt.Errorf("its %v, and it could not be deleted: %w", err, rerr)
			return res
		}
	case !os.IsNotExist(err):
		res.Status, res.Err = Missing, err
		return res
	}
	if f.Base == "" {
		res.Status, res.Err = Missing, fmt.Errorf("not in place: download %s and put it at %s", res.URL, res.File)
		return res
	}
	err := f.download(ctx, p, res.URL, res.File)
	var m *Mismatch
	switch {
	case err == nil:
		res.Status = Downloaded
	case errors.As(err, &m):
		res.Status, res.Err = Corrupt, fmt.Errorf("downloaded %s, but its %v: deleted", res.URL, m)
	default:
		res.Status, res.Err = Missing, fmt.Errorf("could not download %s (%v): download it and put it at %s", res.URL, err, res.File)
	}
	return res
}

func (f *Fetcher) download(ctx context.Context, p Pin, url, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp := file + ".download"
	var body io.Reader = resp.Body
	if p.Size >= 0 {
		// One byte past the pinned size is enough to tell it is not the file.
		body = io.LimitReader(body, p.Size+1)
	}
	return stream.WriteFileVia(file, tmp, func(w io.Writer) error {
		if _, err := io.Copy(w, body); err != nil {
			return err
		}
		return p.Check(tmp)
	})
}
