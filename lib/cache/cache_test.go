package cache

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const writerEnv = "IFKIT_CACHE_TEST_WRITER"

// TestMain lets TestConcurrentWritersKill9 run this binary as a writer.
func TestMain(m *testing.M) {
	if dir := os.Getenv(writerEnv); dir != "" {
		os.Exit(writer(dir))
	}
	os.Exit(m.Run())
}

// writer stores, in turn, one of the keys every writer shares and one of
// its own, each with a payload made from its name (large, so a kill often
// lands inside a write), and says on stdout how many it stored.
func writer(dir string) int {
	c, err := Open(Options{Dir: dir, Mode: Refresh}, "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for n := 0; n < 2*testKeys; n++ {
		for _, name := range []string{fmt.Sprint("shared ", n%testKeys), fmt.Sprintf("writer %d: %d", os.Getpid(), n)} {
			if err := c.Put(testKey(name), testPayload(name)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fmt.Println("stored", n+1)
	}
	return 0
}

const testKeys = 40

func testKey(name string) Key {
	k, err := NewKey("/chat/completions", fmt.Appendf(nil, `{"messages":[{"role":"user","content":%q}],"temperature":0,"max_tokens":64}`, name))
	if err != nil {
		panic(err)
	}
	k.Model = "m"
	return k
}

// testPayload is about 100 KB that compress to half: a kill -9 often
// lands inside a write.
func testPayload(name string) []byte {
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	var b strings.Builder
	for range 25_000 {
		fmt.Fprintf(&b, "%04x", rng.Uint32()&0xffff)
	}
	out, _ := json.Marshal(map[string]any{"name": name, "text": b.String()})
	return out
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func open(t *testing.T, o Options, log *slog.Logger) *Cache {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if log == nil {
		log = quiet()
	}
	c, err := Open(o, "test", log)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func key(t *testing.T, body string) Key {
	t.Helper()
	k, err := NewKey("/chat/completions", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	k.Model = "m"
	return k
}

// TestKeyCanonical: what does not change the request does not change the
// key; each thing that does, does.
func TestKeyCanonical(t *testing.T) {
	base := `{"model":"m","messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":64,"seed":9007199254740993,"stop":["\n"]}`
	same := []string{
		"{\n  \"stop\": [\"\\n\"], \"seed\": 9007199254740993, \"max_tokens\": 64.0,\n  \"top_p\": 1e0, \"temperature\": 0.70,\n  \"messages\": [{\"content\": \"Say \\u0068i\", \"role\": \"user\"}]}",
		`{"model":"other","messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":64,"seed":9007199254740993,"stop":["\n"],"stream":true,"stream_options":{"include_usage":true}}`,
	}
	differ := map[string]string{
		"prompt":      `{"messages":[{"role":"user","content":"Say hi!"}],"temperature":0.7,"top_p":1,"max_tokens":64,"seed":9007199254740993,"stop":["\n"]}`,
		"role":        `{"messages":[{"role":"system","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":64,"seed":9007199254740993,"stop":["\n"]}`,
		"temperature": `{"messages":[{"role":"user","content":"Say hi"}],"temperature":0,"top_p":1,"max_tokens":64,"seed":9007199254740993,"stop":["\n"]}`,
		"top_p":       `{"messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":0.9,"max_tokens":64,"seed":9007199254740993,"stop":["\n"]}`,
		"max_tokens":  `{"messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":65,"seed":9007199254740993,"stop":["\n"]}`,
		"seed":        `{"messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":64,"seed":9007199254740992,"stop":["\n"]}`,
		"stop":        `{"messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":64,"seed":9007199254740993,"stop":["\n\n"]}`,
		"no seed":     `{"messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":64,"stop":["\n"]}`,
		"new setting": `{"messages":[{"role":"user","content":"Say hi"}],"temperature":0.7,"top_p":1,"max_tokens":64,"seed":9007199254740993,"stop":["\n"],"presence_penalty":0.5}`,
	}
	want := key(t, base).Sum()
	for _, b := range same {
		if got := key(t, b).Sum(); got != want {
			t.Errorf("%s: key %s, want the base's %s", b, got, want)
		}
	}
	for what, b := range differ {
		if key(t, b).Sum() == want {
			t.Errorf("changing %s kept the key", what)
		}
	}
	k := key(t, base)
	for what, change := range map[string]func(*Key){
		"model":    func(k *Key) { k.Model = "m2" },
		"salt":     func(k *Key) { k.Salt = "epoch-2" },
		"endpoint": func(k *Key) { k.Endpoint = "http://gpu2:8000/v1" },
		"path":     func(k *Key) { k.Path = "/completions" },
	} {
		k2 := k
		change(&k2)
		if k2.Sum() == want {
			t.Errorf("changing the %s kept the key", what)
		}
	}
	// Length-prefixed parts: moving text from one part to the next is
	// another key.
	a, b := Key{Model: "ab", Salt: ""}, Key{Model: "a", Endpoint: "b"}
	if a.Sum() == b.Sum() {
		t.Error("parts are not delimited")
	}
	for _, bad := range []string{`{"max_tokens":4}`, `[1]`, `{"messages":[1,}`} {
		if _, err := NewKey("/chat/completions", []byte(bad)); err == nil {
			t.Errorf("NewKey(%s): no error", bad)
		}
	}
}

func TestPutGetModes(t *testing.T) {
	dir := t.TempDir()
	k := key(t, `{"messages":[{"role":"user","content":"q"}]}`)
	rw := open(t, Options{Dir: dir, Mode: ReadWrite}, nil)
	if e, found := rw.Get(k); e != nil || found != "" {
		t.Fatalf("empty cache: %v %q", e, found)
	}
	if err := rw.Put(k, []byte(`{"text":"one"}`)); err != nil {
		t.Fatal(err)
	}
	e, _ := rw.Get(k)
	if e == nil || string(e.Payload) != `{"text":"one"}` || e.Run != rw.Run() || e.Key.Model != "m" || e.Tool != "test" {
		t.Fatalf("got %+v", e)
	}
	// write keeps what is there; refresh replaces it.
	if err := open(t, Options{Dir: dir, Mode: Write}, nil).Put(k, []byte(`{"text":"two"}`)); err != nil {
		t.Fatal(err)
	}
	if e, _ := rw.Get(k); string(e.Payload) != `{"text":"one"}` {
		t.Fatalf("write mode replaced an entry: %s", e.Payload)
	}
	if err := open(t, Options{Dir: dir, Mode: Refresh}, nil).Put(k, []byte(`{"text":"three"}`)); err != nil {
		t.Fatal(err)
	}
	if e, _ := rw.Get(k); string(e.Payload) != `{"text":"three"}` {
		t.Fatalf("refresh did not replace the entry: %s", e.Payload)
	}
	// read creates nothing, and needs the folder.
	if _, err := Open(Options{Dir: filepath.Join(dir, "none"), Mode: Read}, "test", quiet()); err == nil {
		t.Error("read mode opened a missing folder")
	}
	// An entry past --cache-max-age is not served.
	old := open(t, Options{Dir: dir, MaxAge: time.Hour}, nil)
	old.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if e, found := old.Get(k); e != nil || found != Expired {
		t.Fatalf("expired entry: %v %q", e, found)
	}
	// Nothing but entries in the shard folders.
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	if sum := k.Sum(); len(names) != 1 || names[0] != "/v1/"+sum[:2]+"/"+sum+".zst" {
		t.Fatalf("files: %v", names)
	}
}

// TestCorruptEntryIsAMiss: a file that is not a whole, valid entry of its
// own key is a miss with a warning, never a reply.
func TestCorruptEntryIsAMiss(t *testing.T) {
	k := key(t, `{"messages":[{"role":"user","content":"q"}]}`)
	other := key(t, `{"messages":[{"role":"user","content":"another"}]}`)
	for name, spoil := range map[string]func(t *testing.T, c *Cache, path string){
		"flipped byte": func(t *testing.T, c *Cache, p string) {
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x40
			os.WriteFile(p, b, 0o644)
		},
		"truncated": func(t *testing.T, c *Cache, p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-5], 0o644)
		},
		"empty": func(t *testing.T, c *Cache, p string) { os.WriteFile(p, nil, 0o644) },
		"another key's entry": func(t *testing.T, c *Cache, p string) {
			if err := c.Put(other, []byte(`{"text":"not yours"}`)); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(c.path(other.Sum()))
			os.WriteFile(p, b, 0o644)
		},
		"not zstd": func(t *testing.T, c *Cache, p string) { os.WriteFile(p, []byte(`{"text":"plain"}`), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			c := open(t, Options{Explain: true}, slog.New(slog.NewTextHandler(&log, nil)))
			if err := c.Put(k, []byte(`{"text":"right"}`)); err != nil {
				t.Fatal(err)
			}
			spoil(t, c, c.path(k.Sum()))
			e, found := c.Get(k)
			if e != nil || found != Unreadable {
				t.Fatalf("got %+v (%q)", e, found)
			}
			if w := c.Missed(k, found); w.Part != Unreadable {
				t.Errorf("why: %+v", w)
			}
			if !strings.Contains(log.String(), "cache entry unreadable") || c.Stats().Corrupt != 1 {
				t.Errorf("no warning: %s", log.String())
			}
			// A reply stored again replaces it.
			if err := c.Put(k, []byte(`{"text":"right"}`)); err != nil {
				t.Fatal(err)
			}
			if e, _ := c.Get(k); e == nil || string(e.Payload) != `{"text":"right"}` {
				t.Fatalf("after storing again: %+v", e)
			}
		})
	}
}

// TestConcurrentWritersKill9: 8 processes write one cache at once, 3 of
// them are killed with SIGKILL while they write, and this process reads
// the shared keys all the while: it never reads a torn entry, and what is
// left is only valid entries, each holding its own key's reply, and
// temporary files that no reader takes for an entry.
func TestConcurrentWritersKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 8 writer processes")
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kill := i%3 == 0 // 0, 3, 6
		wg.Go(func() {
			s := bufio.NewScanner(out)
			for s.Scan() {
				// Killed in its second round, while the others replace
				// the shared entries too.
				if kill && s.Text() == fmt.Sprint("stored ", testKeys+i*3+1) {
					cmd.Process.Signal(syscall.SIGKILL)
				}
			}
			err := cmd.Wait()
			if kill != (err != nil) {
				t.Errorf("writer %d (kill %v): %v; %s", i, kill, err, stderr.String())
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	c := open(t, Options{Dir: dir}, nil)
	reads := 0
	for stop := false; !stop; {
		select {
		case <-done:
			stop = true
		default:
		}
		for i := range testKeys {
			name := fmt.Sprint("shared ", i)
			e, found := c.Get(testKey(name))
			reads++
			if found == Unreadable || e != nil && string(e.Payload) != string(testPayload(name)) {
				t.Fatalf("read %q while it was written: %q", name, found)
			}
		}
	}
	entries, temporary := 0, 0
	err := filepath.WalkDir(filepath.Join(dir, "v1"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			temporary++
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		e, err := decodeEntry(b, strings.TrimSuffix(name, ".zst"))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		entries++
		var v struct{ Name string }
		json.Unmarshal(e.Payload, &v)
		if e.Sum != testKey(v.Name).Sum() || string(e.Payload) != string(testPayload(v.Name)) {
			t.Errorf("entry %s holds another key's reply (%q)", e.Sum, v.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range testKeys {
		if e, found := c.Get(testKey(fmt.Sprint("shared ", i))); e == nil {
			t.Errorf("shared key %d: %q", i, found)
		}
	}
	t.Logf("%d entries, %d temporary files of killed writers, %d reads while they wrote", entries, temporary, reads)
}

func TestEvictOldestFirst(t *testing.T) {
	dir := t.TempDir()
	c := open(t, Options{Dir: dir}, nil)
	var sizes []int64
	base := time.Now().Add(-10 * time.Hour)
	for i := range 6 {
		k := testKey(fmt.Sprint(i))
		if err := c.Put(k, []byte(fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 1000*(i+1))))); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(c.path(k.Sum()))
		sizes = append(sizes, st.Size())
		// Written an hour apart, the first oldest.
		mod := base.Add(time.Duration(i) * time.Hour)
		os.Chtimes(c.path(k.Sum()), mod, mod)
	}
	shard := filepath.Dir(c.path(testKey("0").Sum()))
	stale, fresh := filepath.Join(shard, tmpPrefix+"stale"), filepath.Join(shard, tmpPrefix+"fresh")
	os.WriteFile(stale, []byte("torn"), 0o644)
	os.WriteFile(fresh, []byte("being written"), 0o644)
	os.Chtimes(stale, base, base)

	// Keep the newest three by size; nothing is older than the age limit
	// but the first.
	limit := sizes[3] + sizes[4] + sizes[5]
	ev := open(t, Options{Dir: dir, MaxSize: limit, MaxAge: 9*time.Hour + 30*time.Minute}, nil)
	if err := ev.sweep(); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		_, err := os.Stat(c.path(testKey(fmt.Sprint(i)).Sum()))
		if kept := err == nil; kept != (i >= 3) {
			t.Errorf("entry %d (written %dh ago): kept %v", i, 10-i, kept)
		}
	}
	if st := ev.Stats(); st.Evicted != 3 || st.EvictedBytes != sizes[0]+sizes[1]+sizes[2] {
		t.Errorf("stats: %+v", st)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a killed writer's temporary file an hour old was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a live writer's temporary file was removed")
	}
}

// TestWriterEvicts: the run that writes keeps the cache within its limit,
// at its end (Close) and while it writes.
func TestWriterEvicts(t *testing.T) {
	dir := t.TempDir()
	c := open(t, Options{Dir: dir, MaxSize: 1 << 20}, nil)
	for i := range testKeys {
		if err := c.Put(testKey(fmt.Sprint(i)), testPayload(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var total int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && !d.IsDir() {
			st, _ := d.Info()
			total += st.Size()
		}
		return nil
	})
	if total > 1<<20 || c.Stats().Evicted == 0 {
		t.Fatalf("%d bytes left, %+v", total, c.Stats())
	}
	// A reader never evicts.
	r := open(t, Options{Dir: dir, Mode: Read, MaxSize: 1}, nil)
	if err := r.Close(); err != nil || r.Stats().Evicted != 0 {
		t.Fatalf("a read-only run evicted: %v %+v", err, r.Stats())
	}
}

func TestExplain(t *testing.T) {
	dir := t.TempDir()
	c := open(t, Options{Dir: dir}, nil)
	const req = `{"messages":[{"role":"user","content":"q"}],"temperature":0,"max_tokens":64}`
	if err := c.Put(key(t, req), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	x := open(t, Options{Dir: dir, Explain: true}, nil)
	for _, tc := range []struct {
		body  string
		model string
		salt  string
		part  string
	}{
		{req, "m2", "", "model"},
		{req, "m", "epoch-2", "salt"},
		{`{"messages":[{"role":"user","content":"q"}],"temperature":0.7,"max_tokens":64}`, "m", "", "settings.temperature"},
		{`{"messages":[{"role":"user","content":"q"}],"temperature":0}`, "m", "", "settings.max_tokens"},
		{`{"messages":[{"role":"user","content":"q"}],"temperature":0,"max_tokens":64,"seed":1}`, "m", "", "settings.seed"},
		{`{"messages":[{"role":"user","content":"q2"}],"temperature":0,"max_tokens":64}`, "m", "", "prompt"},
		{req, "m3", "s", "model,salt"},
	} {
		k := key(t, tc.body)
		k.Model, k.Salt = tc.model, tc.salt
		if e, _ := x.Get(k); e != nil {
			t.Fatalf("%s: hit", tc.part)
		}
		if w := x.Missed(k, ""); w.Part != tc.part {
			t.Errorf("want %s, got %+v", tc.part, w)
		}
	}
	if got := x.Stats().MissesBy; got["model"] != 1 || got["prompt"] != 1 {
		t.Errorf("misses by part: %v", got)
	}
	// An entry this run stores counts for the next miss.
	k := key(t, `{"messages":[{"role":"user","content":"new"}]}`)
	x.Put(k, []byte(`{}`))
	k.Model = "other"
	if w := x.Missed(k, ""); w.Part != "model" {
		t.Errorf("after storing: %+v", w)
	}
	if w := open(t, Options{Explain: true}, nil).Missed(k, ""); w.Part != "empty" {
		t.Errorf("empty cache: %+v", w)
	}
}

// FuzzDecodeEntry: whatever an entry file holds, reading it never panics,
// and it is a reply only when it is a whole entry of the key it is read for.
func FuzzDecodeEntry(f *testing.F) {
	k := Key{Model: "m", Path: "/chat/completions", Prompt: "ab", Settings: json.RawMessage(`{}`)}
	good, err := encodeEntry(&Header{Format: format, Sum: k.Sum(), Key: k, Run: "r"}, []byte(`{"text":"hi"}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeEntry(b, k.Sum())
		if err == nil && (e.Key.Sum() != k.Sum() || !json.Valid(e.Payload)) {
			t.Fatalf("accepted %+v", e)
		}
	})
}
