package cache

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/bytesize"
)

// tmpAge is how old a temporary file must be before a sweep takes it for a
// killed writer's: a live writer renames its file within seconds.
const tmpAge = time.Hour

// maybeSweep starts a sweep in the background once this run has written a
// tenth of --cache-max-size since the last one, so a long run keeps the
// cache near its limit and not only at its end. One at a time.
func (c *Cache) maybeSweep(n int64) {
	if c.opt.MaxSize <= 0 || c.sinceSweep.Add(n) < c.opt.MaxSize/10 || !c.sweeping.CompareAndSwap(false, true) {
		return
	}
	c.sinceSweep.Store(0)
	c.sweeps.Go(func() {
		defer c.sweeping.Store(false)
		if err := c.sweep(); err != nil {
			c.log.Warn("cache eviction failed", "dir", c.opt.Dir, "err", err.Error())
		}
	})
}

type file struct {
	path string
	size int64
	mod  time.Time
}

// sweep evicts: the temporary files of killed writers, the entries older
// than --cache-max-age, then the oldest entries (by when they were written)
// until the entries fit --cache-max-size. Writers on other nodes may sweep
// at the same time: an entry removed twice or read while it is removed is
// only a miss, so no lock is needed.
func (c *Cache) sweep() error {
	now := c.now()
	var entries []file
	var total int64
	shards, err := os.ReadDir(c.root)
	if err != nil {
		return err
	}
	var gone []file
	for _, sh := range shards {
		dir := filepath.Join(c.root, sh.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			continue // not a folder, or removed meanwhile
		}
		for _, de := range files {
			info, err := de.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			f := file{filepath.Join(dir, de.Name()), info.Size(), info.ModTime()}
			switch {
			case strings.HasPrefix(de.Name(), tmpPrefix):
				if now.Sub(f.mod) > tmpAge {
					gone = append(gone, f)
				}
			case !strings.HasSuffix(de.Name(), ".zst"):
			case c.opt.MaxAge > 0 && now.Sub(f.mod) > c.opt.MaxAge:
				gone = append(gone, f)
			default:
				entries = append(entries, f)
				total += f.size
			}
		}
	}
	if c.opt.MaxSize > 0 && total > c.opt.MaxSize {
		slices.SortFunc(entries, func(a, b file) int {
			return cmp.Or(a.mod.Compare(b.mod), strings.Compare(a.path, b.path))
		})
		for _, f := range entries {
			if total <= c.opt.MaxSize {
				break
			}
			gone = append(gone, f)
			total -= f.size
		}
	}
	var n, freed int64
	for _, f := range gone {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if !strings.HasPrefix(filepath.Base(f.path), tmpPrefix) {
			n++
			freed += f.size
		}
	}
	if n > 0 {
		c.evictMu.Lock()
		c.evicted += n
		c.evictedBytes += freed
		c.evictMu.Unlock()
		c.log.Info("cache: oldest entries evicted", "dir", c.opt.Dir, "entries", n, "freed", bytesize.Approx(freed), "left", bytesize.Approx(total), "max_size", bytesize.Approx(c.opt.MaxSize), "max_age", c.opt.MaxAge.String())
	}
	return nil
}
