package cache

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ifkit/ifkit/lib/stream"
)

// Mode says whether a run reads the cache, writes it, or both.
type Mode string

const (
	ReadWrite Mode = "readwrite" // serve hits, store the replies of misses
	Read      Mode = "read"      // serve hits, store nothing (a shared cache one may not change)
	Write     Mode = "write"     // serve nothing, store the replies the cache lacks
	Refresh   Mode = "refresh"   // serve nothing, store every reply, replacing older ones
)

// Modes lists the modes as --cache-mode takes them.
var Modes = []Mode{ReadWrite, Read, Write, Refresh}

// Reads reports whether hits are served.
func (m Mode) Reads() bool { return m == ReadWrite || m == Read }

// Writes reports whether replies are stored.
func (m Mode) Writes() bool { return m != Read }

// Options configure a cache.
type Options struct {
	Dir        string
	Mode       Mode
	Salt       string        // --cache-salt: a new salt draws new samples
	ByEndpoint bool          // the endpoint's URL is part of the key
	MaxSize    int64         // bytes on disk; 0: no limit
	MaxAge     time.Duration // 0: no limit
	Explain    bool          // say, for a miss, which part of the key differed
}

// Enabled reports whether a cache was asked for.
func (o Options) Enabled() bool { return o.Dir != "" }

// Cache is one run's view of a cache folder. It is safe for concurrent use.
type Cache struct {
	opt  Options
	root string // DIR/v1
	log  *slog.Logger
	run  string
	tool string
	now  func() time.Time

	hits, misses, expired, corrupt, stored, readBytes, writtenBytes atomic.Int64
	sinceSweep                                                      atomic.Int64
	sweeping                                                        atomic.Bool
	sweeps                                                          sync.WaitGroup
	evictMu                                                         sync.Mutex
	evicted, evictedBytes                                           int64
	dirs                                                            sync.Map // shard folders made by this run

	explain *index // --cache-explain; nil otherwise
}

// Open opens (creating it when missing) the cache folder. run names the
// run whose replies it stores (the records say which run paid for a reply),
// tool the program.
func Open(opt Options, tool string, log *slog.Logger) (*Cache, error) {
	if opt.Mode == "" {
		opt.Mode = ReadWrite
	}
	root := filepath.Join(opt.Dir, "v1")
	if opt.Mode.Writes() {
		if err := os.MkdirAll(root, 0o777); err != nil {
			return nil, fmt.Errorf("--cache %s: %w", opt.Dir, err)
		}
	} else if st, err := os.Stat(opt.Dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--cache %s: not a folder (--cache-mode read creates nothing)", opt.Dir)
	}
	c := &Cache{opt: opt, root: root, log: log, tool: tool, run: newRunID(), now: time.Now}
	if opt.Explain && opt.Mode.Reads() {
		c.explain = &index{}
	}
	return c, nil
}

// newRunID is a random name for this run, in every entry it stores.
func newRunID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run is the name this run's entries carry.
func (c *Cache) Run() string { return c.run }

// Mode is the cache's mode.
func (c *Cache) Mode() Mode { return c.opt.Mode }

// Salt and ByEndpoint are the parts of the key that come from the options.
func (c *Cache) Salt() string     { return c.opt.Salt }
func (c *Cache) ByEndpoint() bool { return c.opt.ByEndpoint }

func (c *Cache) path(sum string) string { return filepath.Join(c.root, sum[:2], sum+".zst") }

// Get returns the entry of k, or nil and why there is none: no file
// (""), an entry older than --cache-max-age (Expired), or a file that is
// not a valid entry (Unreadable, logged). It counts nothing: the caller
// says with Served whether it used the entry, or with Missed that it did not.
func (c *Cache) Get(k Key) (*Entry, string) {
	sum := k.Sum()
	p := c.path(sum)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		c.bad(p, err)
		return nil, Unreadable
	}
	e, err := decodeEntry(b, sum)
	if err != nil {
		c.bad(p, err)
		return nil, Unreadable
	}
	if c.opt.MaxAge > 0 && c.now().Sub(e.Time) > c.opt.MaxAge {
		c.expired.Add(1)
		return nil, Expired
	}
	c.readBytes.Add(int64(len(b)))
	return e, ""
}

// Why a key's entry was not served, besides a part of the key (Why.Part).
const (
	Expired    = "expired"    // older than --cache-max-age
	Unreadable = "unreadable" // not a valid entry
)

// bad logs an unreadable entry: the first five in full, the rest counted.
func (c *Cache) bad(path string, err error) {
	if n := c.corrupt.Add(1); n <= 5 {
		c.log.Warn("cache entry unreadable: taken as a miss (the reply is asked for again and, when the mode writes, stored anew)", "file", path, "err", err.Error())
	}
}

// Served counts a hit: the entry answered a record.
func (c *Cache) Served() { c.hits.Add(1) }

// Missed counts a miss of k; found is what Get said. With --cache-explain
// it says why the key missed (Why).
func (c *Cache) Missed(k Key, found string) Why {
	c.misses.Add(1)
	if c.explain == nil {
		return Why{}
	}
	if found != "" {
		return c.explain.count(Why{Part: found})
	}
	return c.explain.count(c.explain.nearest(c, k))
}

// Put stores a reply under k: a whole entry, or nothing. In Write mode an
// existing entry is kept.
func (c *Cache) Put(k Key, payload []byte) error {
	sum := k.Sum()
	p := c.path(sum)
	if c.opt.Mode == Write {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
	}
	h := &Header{Format: format, Sum: sum, Key: k, Time: c.now().UTC(), Run: c.run, Tool: c.tool}
	b, err := encodeEntry(h, payload)
	if err != nil {
		return err
	}
	if err := c.writeFile(p, b); err != nil {
		return err
	}
	c.stored.Add(1)
	c.writtenBytes.Add(int64(len(b)))
	if c.explain != nil {
		c.explain.add(k)
	}
	c.maybeSweep(int64(len(b)))
	return nil
}

// writeFile writes b to path by way of a temporary file of a unique name in
// the same folder, synced and renamed into place (stream.WriteFileVia):
// readers on any node see all of it or nothing. The
// files are made 0666 and the folders 0777 less the umask, so a group that
// shares a cache (umask 002, a setgid folder) can read and write it.
func (c *Cache) writeFile(path string, b []byte) error {
	dir := filepath.Dir(path)
	if _, ok := c.dirs.Load(dir); !ok {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return err
		}
		c.dirs.Store(dir, true)
	}
	var r [6]byte
	rand.Read(r[:])
	tmp := filepath.Join(dir, tmpPrefix+hex.EncodeToString(r[:]))
	return stream.WriteFileVia(path, tmp, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// tmpPrefix starts the name of an entry being written. A writer killed
// between creating and renaming it leaves one; the sweep removes those an
// hour old.
const tmpPrefix = ".tmp-"

// Stats are the cache's counts for the summary and --stats.
type Stats struct {
	Dir          string           `json:"dir"`
	Mode         Mode             `json:"mode"`
	Run          string           `json:"run"`
	Hits         int64            `json:"hits"`
	Misses       int64            `json:"misses"`
	Expired      int64            `json:"expired,omitempty"` // entries found older than --cache-max-age (misses too)
	Corrupt      int64            `json:"corrupt,omitempty"` // unreadable entries (misses too)
	Stored       int64            `json:"stored"`
	ReadBytes    int64            `json:"read_bytes"`
	WrittenBytes int64            `json:"written_bytes"`
	Evicted      int64            `json:"evicted,omitempty"`
	EvictedBytes int64            `json:"evicted_bytes,omitempty"`
	MissesBy     map[string]int64 `json:"misses_by,omitempty"` // --cache-explain: the part of the key that differed
}

// Stats returns the counts so far.
func (c *Cache) Stats() Stats {
	c.evictMu.Lock()
	ev, evb := c.evicted, c.evictedBytes
	c.evictMu.Unlock()
	s := Stats{Dir: c.opt.Dir, Mode: c.opt.Mode, Run: c.run, Hits: c.hits.Load(), Misses: c.misses.Load(), Expired: c.expired.Load(), Corrupt: c.corrupt.Load(),
		Stored: c.stored.Load(), ReadBytes: c.readBytes.Load(), WrittenBytes: c.writtenBytes.Load(), Evicted: ev, EvictedBytes: evb}
	if c.explain != nil {
		s.MissesBy = c.explain.counts()
	}
	return s
}

// Close waits for a sweep under way and, when this run stored entries and
// a limit is set, sweeps once more: the writer keeps the cache within its
// limits.
func (c *Cache) Close() error {
	c.sweeps.Wait()
	if c.stored.Load() == 0 || c.opt.MaxSize <= 0 && c.opt.MaxAge <= 0 {
		return nil
	}
	return c.sweep()
}
