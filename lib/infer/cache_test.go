package infer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/cache"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/testbin"
)

// completions is how many completion requests the server received.
func completions(s *sim.Server) int64 {
	st := s.Stats()
	return st.ByPath["/v1/chat/completions"] + st.ByPath["/v1/completions"]
}

// sampled writes n chat requests at temperature 0 and max_tokens 16 with
// the settings of extra (`,"seed":1`), for the runs that change one.
func sampled(t *testing.T, n int, extra string) string {
	t.Helper()
	var b bytes.Buffer
	for i := range n {
		req := fmt.Sprintf(`{"messages":[{"role":"user","content":"question number %d"}],"max_tokens":16,"temperature":0%s}`, i, extra)
		if strings.HasPrefix(extra, "!") { // "!name=value" replaces a setting; {i} in it is the record's number
			name, value, _ := strings.Cut(extra[1:], "=")
			value = strings.ReplaceAll(value, "{i}", fmt.Sprint(i))
			var m map[string]any
			json.Unmarshal([]byte(fmt.Sprintf(`{"messages":[{"role":"user","content":"question number %d"}],"max_tokens":16,"temperature":0}`, i)), &m)
			var v any
			json.Unmarshal([]byte(value), &v)
			m[name] = v
			b, _ := json.Marshal(m)
			req = string(b)
		}
		fmt.Fprintf(&b, `{"id":"r%03d","request":%s}`+"\n", i, req)
	}
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readStats(t *testing.T, path string) Summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// withoutCacheMarks is a record line without what says where its answer
// came from: what two runs, one paying and one served from the cache, must
// agree on byte for byte.
func withoutCacheMarks(t *testing.T, rec *record.Record) string {
	t.Helper()
	var resp map[string]json.RawMessage
	if err := rec.Decode("response", &resp); err != nil || resp == nil {
		return string(rec.AppendJSON(nil))
	}
	for _, k := range []string{"cached", "cached_time", "cached_run"} {
		delete(resp, k)
	}
	c := rec.Clone()
	c.Set("response", resp)
	return string(c.AppendJSON(nil))
}

// TestCacheSecondRunPaysNothing: the same requests sent again, into another
// output, are answered from the cache: no request reaches the server, the
// records are those of the first run but for where their answer came from
// (the first run's time and run id), and the accounting says so.
func TestCacheSecondRunPaysNothing(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1, Reasoning: sim.ReasoningField, ReasoningLen: 4, PrefixCacheTokens: 1 << 20})
	dir, tmp := t.TempDir(), t.TempDir()
	in := sampled(t, 30, "")
	run := func(name string) ([]*record.Record, Summary, string) {
		out, stats := filepath.Join(tmp, name+".jsonl"), filepath.Join(tmp, name+".stats.json")
		code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, "--stats", stats, "-o", out, in)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		return readRecords(t, out), readStats(t, stats), stderr
	}
	first, st1, _ := run("first")
	if n := completions(s); n != 30 {
		t.Fatalf("first run: %d requests", n)
	}
	second, st2, stderr := run("second")
	if n := completions(s); n != 30 {
		t.Fatalf("second run sent %d requests", n-30)
	}
	for i := range first {
		if a, b := withoutCacheMarks(t, first[i]), withoutCacheMarks(t, second[i]); a != b {
			t.Fatalf("record %d differs:\n first  %s\n second %s", i, a, b)
		}
		var r1, r2 record.Response
		first[i].Decode("response", &r1)
		second[i].Decode("response", &r2)
		if r1.Cached || !r2.Cached || r2.CachedRun != st1.CacheRun || st1.CacheRun != st1.Cache.Run || r2.CachedTime == "" {
			t.Fatalf("record %d: first %+v, second %+v", i, r1.FromCache, r2.FromCache)
		}
	}
	if st1.Answers.Paid != 30 || st1.Answers.Cache != 0 {
		t.Fatalf("first run's answers: %+v", st1.Answers)
	}
	if st2.Answers.Paid != 0 || st2.Answers.Cache != 30 || st2.Tokens.Prompt != 0 || st2.CacheTokens != st1.Tokens || st2.Cache.Hits != 30 || st2.Cache.Misses != 0 || st2.Cache.ReadBytes == 0 {
		t.Fatalf("second run's account: %+v %+v", st2.Account, st2.Cache)
	}
	if st1.Tokens.Reasoning == 0 || st1.Tokens.Prompt == 0 || st1.Cache.Stored != 30 || st1.Cache.Misses != 30 {
		t.Fatalf("first run's account: %+v %+v", st1.Account, st1.Cache)
	}
	for _, want := range []string{"paid=0", "from_cache=30", "cache_hits=30", "cache_misses=0", "cache_read="} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %s: %s", want, stderr)
		}
	}
}

// TestCacheKeyParts: a request that differs in one sampling setting, the
// model or the salt misses, and --cache-explain names what differed.
func TestCacheKeyParts(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m", "m2"}, Skill: 1})
	dir := t.TempDir()
	const n = 6
	base := sampled(t, n, "")
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", "m", "--cache", dir, base); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name  string
		in    string
		args  []string
		sends int64
		part  string
	}{
		{"the same", base, nil, 0, ""},
		{"top_p", sampled(t, n, `,"top_p":0.9`), nil, n, "settings.top_p"},
		{"seed", sampled(t, n, `,"seed":1`), nil, n, "settings.seed"},
		{"stop", sampled(t, n, `,"stop":["\n"]`), nil, n, "settings.stop"},
		{"max_tokens", sampled(t, n, "!max_tokens=17"), nil, n, "settings.max_tokens"},
		{"temperature", sampled(t, n, "!temperature=0.7"), nil, n, "settings.temperature"},
		{"the model", base, []string{"--model", "m2"}, n, "model"},
		{"the salt", base, []string{"--cache-salt", "epoch-2"}, n, "salt"},
		{"the endpoint, when asked", base, []string{"--cache-by-endpoint"}, n, "endpoint"},
		{"streamed, the same reply", base, []string{"--stream"}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, args := tc.in, tc.args
			if !strings.Contains(strings.Join(args, " "), "--model") {
				args = append(args, "--model", "m")
			}
			stats := filepath.Join(t.TempDir(), "stats.json")
			before := completions(s)
			// read: what this case pays is not stored, so the cases stay apart.
			code, _, stderr := runBatch(t, nil, append(args, "--base-url", s.BaseURL(), "--cache", dir, "--cache-mode", "read", "--cache-explain", "--stats", stats, in)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := completions(s) - before; got != tc.sends {
				t.Fatalf("sent %d requests, want %d", got, tc.sends)
			}
			st := readStats(t, stats)
			if tc.part != "" && st.Cache.MissesBy[tc.part] != n {
				t.Fatalf("misses by part: %v, want %d of %s; %s", st.Cache.MissesBy, n, tc.part, stderr)
			}
			if tc.part != "" && !strings.Contains(stderr, "differs="+tc.part) {
				t.Fatalf("no miss explained: %s", stderr)
			}
		})
	}
	// Temperature 0.7 without a seed is one sample: asked again, the same.
	hot := sampled(t, n, "!temperature=0.7")
	for range 2 {
		if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", "m", "--cache", dir, hot); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	before := completions(s)
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", "m", "--cache", dir, "--cache-salt", "sample-2", hot); code != 0 || completions(s)-before != n {
		t.Fatalf("a new salt drew %d new samples; exit %d: %s", completions(s)-before, code, stderr)
	}
}

// TestCacheNeverServesFailures: errors, aborted replies and replies whose
// prompt the server cut are not cached; a reply cut at max_tokens is, as
// what it is.
func TestCacheNeverServesFailures(t *testing.T) {
	dir := t.TempDir()
	in := sampled(t, 8, "")
	bad := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1, FailRate: 1, Faults: sim.FaultMix{sim.Fault500: 1, sim.FaultAbort: 1}})
	code, stdout, stderr := runBatch(t, nil, "--base-url", bad.BaseURL(), "--cache", dir, "--max-retries", "0", "--max-failures", "inf", in)
	if code != 0 || bytes.Count(stdout, []byte(`"error"`)) != 8 {
		t.Fatalf("exit %d: %s\n%s", code, stdout, stderr)
	}
	good := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1})
	// A server that cuts the prompt (Ollama's manner): flagged, not cached.
	// Each prompt its own: identical calls within a run may be answered by
	// the cache once the first reply is stored, which a loaded machine
	// reaches before the last is sent.
	long := sampled(t, 8, "!messages="+`[{"role":"user","content":"question {i} `+strings.Repeat("word ", 300)+`"}]`)
	cut := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1, MaxModelLen: 100, Overflow: sim.OverflowTruncate})
	code, stdout, stderr = runBatch(t, nil, "--base-url", cut.BaseURL(), "--cache", dir, long)
	if code != 0 || bytes.Count(stdout, []byte(`"server_truncated":true`)) != 8 {
		t.Fatalf("exit %d: %s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runBatch(t, nil, "--base-url", good.BaseURL(), "--cache", dir, long); code != 0 || completions(good) != 8 {
		t.Fatalf("a server-cut reply was served from the cache: %d of 8 sent; %s", completions(good), stderr)
	}
	code, stdout, stderr = runBatch(t, nil, "--base-url", good.BaseURL(), "--cache", dir, in)
	if code != 0 || completions(good) != 16 || bytes.Contains(stdout, []byte(`"cached"`)) || !bytes.Contains(stdout, []byte(`"finish_reason":"length"`)) {
		t.Fatalf("after failures, %d of 8 sent; exit %d: %s\n%s", completions(good)-8, code, stdout, stderr)
	}
	code, stdout, _ = runBatch(t, nil, "--base-url", good.BaseURL(), "--cache", dir, in)
	if code != 0 || completions(good) != 16 || bytes.Count(stdout, []byte(`"finish_reason":"length"`)) != 8 || bytes.Count(stdout, []byte(`"cached":true`)) != 8 {
		t.Fatalf("a reply cut at max_tokens is cached as such: %d sent; %s", completions(good)-16, stdout)
	}
}

// TestCacheModes: read serves and stores nothing, write stores what is
// missing and serves nothing, refresh replaces.
func TestCacheModes(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1})
	dir := t.TempDir()
	a, b := sampled(t, 4, ""), sampled(t, 4, `,"seed":3`)
	runMode := func(mode, in string) string {
		t.Helper()
		code, stdout, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, "--cache-mode", mode, in)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		return string(stdout)
	}
	sent := func() int64 { return completions(s) }
	if runMode("read", a); sent() != 4 {
		t.Fatal("read")
	}
	if _, err := os.Stat(filepath.Join(dir, "v1")); err == nil {
		t.Fatal("read mode wrote the cache")
	}
	if runMode("write", a); sent() != 8 {
		t.Fatal("write")
	}
	if out := runMode("write", a); sent() != 12 || strings.Contains(out, `"cached"`) {
		t.Fatal("write mode served from the cache")
	}
	first := runMode("read", a)
	if sent() != 12 || strings.Count(first, `"cached":true`) != 4 {
		t.Fatalf("read after write: %d sent\n%s", sent(), first)
	}
	if runMode("readwrite", b); sent() != 16 {
		t.Fatal("readwrite")
	}
	runMode("refresh", a)
	if again := runMode("read", a); sent() != 20 || again == first {
		t.Fatalf("refresh did not replace the entries (%d sent)", sent())
	}
	if code, _, stderr := runBatch(t, nil, "--cache-mode", "sometimes", "--cache", dir, a); code != 2 || !strings.Contains(stderr, "--cache-mode") {
		t.Fatalf("bad mode: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runBatch(t, nil, "--cache-salt", "x", a); code != 2 || !strings.Contains(stderr, "needs --cache") {
		t.Fatalf("--cache-salt without --cache: exit %d: %s", code, stderr)
	}
	// IFKIT_CACHE turns it on. (A tool of its own: urfave/cli keeps a value
	// read from the environment in the flag.)
	t.Setenv(cache.EnvDir, dir)
	fresh := app.Tool{Name: "infer-batch", Flags: Flags(""), Action: Batch}
	if code, stdout, stderr := runTool(t, fresh, nil, "--base-url", s.BaseURL(), a); code != 0 || sent() != 20 || !bytes.Contains(stdout, []byte(`"cached":true`)) {
		t.Fatalf("IFKIT_CACHE: exit %d, %d sent: %s", code, sent(), stderr)
	}
}

// TestCacheCorruptEntry: an entry that is not whole is a miss with a
// warning; the reply is asked for again and stored anew.
func TestCacheCorruptEntry(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1})
	dir := t.TempDir()
	in := sampled(t, 5, "")
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, in); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var entries []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && !d.IsDir() {
			entries = append(entries, p)
		}
		return nil
	})
	b, _ := os.ReadFile(entries[0])
	os.WriteFile(entries[0], b[:len(b)/2], 0o644)
	code, stdout, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, in)
	if code != 0 || completions(s) != 6 || bytes.Count(stdout, []byte(`"cached":true`)) != 4 || !strings.Contains(stderr, "cache entry unreadable") || !strings.Contains(stderr, "cache_unreadable=1") {
		t.Fatalf("exit %d, %d sent: %s\n%s", code, completions(s), stdout, stderr)
	}
	if code, stdout, _ := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, in); code != 0 || completions(s) != 6 || bytes.Count(stdout, []byte(`"cached":true`)) != 5 {
		t.Fatalf("the entry was not stored anew: %d sent", completions(s))
	}
}

// TestCacheBatch: --batch-export leaves out what the cache answers and
// --batch-import writes it from there; import results enter the cache, and
// --batch-api sends no batch for what the cache holds.
func TestCacheBatch(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1})
	dir, tmp := t.TempDir(), t.TempDir()
	in := sampled(t, 10, "")
	half := filepath.Join(tmp, "half.jsonl")
	b, _ := os.ReadFile(in)
	lines := bytes.SplitAfter(b, []byte("\n"))
	os.WriteFile(half, bytes.Join(lines[:5], nil), 0o644)
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, half); code != 0 || completions(s) != 5 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, export, stderr := runBatch(t, nil, "--batch-export", "--model", "m", "--cache", dir, in)
	if code != 0 || bytes.Count(export, []byte("\n")) != 5 || bytes.Contains(export, []byte(`"r000"`)) || !strings.Contains(stderr, "answered_by_the_cache=5") {
		t.Fatalf("export: exit %d: %s\n%s", code, export, stderr)
	}
	reqs := filepath.Join(tmp, "batch.jsonl")
	os.WriteFile(reqs, export, 0o644)
	res, _ := runSimBatch(t, s, reqs, "/v1/chat/completions", tmp)
	code, imported, stderr := runBatch(t, nil, "--batch-import", res, "--model", "m", "--cache", dir, in)
	recs := parseLines(t, imported)
	if code != 0 || len(recs) != 10 || bytes.Count(imported, []byte(`"cached":true`)) != 5 || bytes.Contains(imported, []byte(`"error"`)) {
		t.Fatalf("import: exit %d: %s\n%s", code, imported, stderr)
	}
	// The imported results are in the cache now: an online run pays nothing.
	before := completions(s)
	if code, out, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, in); code != 0 || completions(s) != before || bytes.Count(out, []byte(`"cached":true`)) != 10 {
		t.Fatalf("after import: %d sent; exit %d: %s", completions(s)-before, code, stderr)
	}
	// --batch-api: only what the cache lacks goes in a batch.
	more := sampled(t, 14, "")
	out := filepath.Join(tmp, "api.jsonl")
	before = completions(s)
	code, _, stderr = runBatch(t, nil, "--batch-api", "--batch-poll", "20ms", "--base-url", s.BaseURL(), "--model", "m", "--cache", dir, "-o", out, more)
	recs = readRecords(t, out)
	if code != 0 || len(recs) != 14 || completions(s)-before != 4 {
		t.Fatalf("--batch-api: exit %d, %d sent: %s", code, completions(s)-before, stderr)
	}
	before = completions(s)
	if code, out, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, more); code != 0 || completions(s) != before || bytes.Count(out, []byte(`"cached":true`)) != 14 {
		t.Fatalf("after --batch-api: %d sent; exit %d: %s", completions(s)-before, code, stderr)
	}
}

// TestJudgeCacheAcrossOutputs: a judge's calls share the cache too, across
// output folders, and the judgement says the verdict came from it.
func TestJudgeCacheAcrossOutputs(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"judge-m"}, Skill: 1})
	dir := t.TempDir()
	input := `{"id":"a","response":{"text":"one"}}` + "\n" + `{"id":"b","response":{"text":"two"}}` + "\n" + `{"id":"c","kind":"deterministic"}` + "\n"
	apply := func(rec *record.Record, res *Result) error {
		return rec.Set("judgement", record.JudgeCall{Model: res.Model, Reply: res.Response.Text, FromCache: res.Response.FromCache})
	}
	for i, out := range []string{t.TempDir() + "/one/", t.TempDir() + "/two/"} {
		code, _, stderr, _ := runJudgeTool(t, apply, nil, input, "--judge-base-url", s.BaseURL(), "--cache", dir, "-o", out, "--partition-by", "kind")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if n := completions(s); n != 2 {
			t.Fatalf("run %d: %d requests in all", i+1, n)
		}
		recs := readLake(t, out)
		cached := 0
		for _, r := range recs {
			var j record.JudgeCall
			r.Decode("judgement", &j)
			if j.Cached {
				cached++
			}
		}
		if cached != 2*i {
			t.Fatalf("run %d: %d verdicts from the cache", i+1, cached)
		}
		var m struct {
			Usage struct {
				Answers struct{ Paid, Cache int64 }
			}
		}
		b, _ := os.ReadFile(filepath.Join(out, "_manifest.json"))
		if json.Unmarshal(b, &m); m.Usage.Answers.Paid != int64(2-2*i) || m.Usage.Answers.Cache != int64(2*i) {
			t.Fatalf("run %d: the manifest's usage: %s", i+1, b)
		}
	}
}

// TestDryRun: the estimate counts what would be sent, leaves out what the
// cache and an earlier output answer, and prices it; nothing is sent.
func TestDryRun(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1})
	dir, tmp := t.TempDir(), t.TempDir()
	in := sampled(t, 10, "")
	b, _ := os.ReadFile(in)
	lines := bytes.SplitAfter(b, []byte("\n"))
	first := filepath.Join(tmp, "first.jsonl")
	os.WriteFile(first, bytes.Join(lines[:3], nil), 0o644)
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--cache", dir, first); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	earlier := filepath.Join(tmp, "earlier.jsonl")
	second := filepath.Join(tmp, "second.jsonl")
	os.WriteFile(second, bytes.Join(lines[3:5], nil), 0o644)
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "-o", earlier, second); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sent := completions(s)
	stats := filepath.Join(tmp, "estimate.json")
	code, stdout, stderr := runBatch(t, nil, "--dry-run", "--base-url", s.BaseURL(), "--cache", dir, "--resume-from", earlier, "--price", "in=2,out=10", "--stats", stats, in)
	if code != 0 || len(stdout) != 0 || completions(s) != sent {
		t.Fatalf("exit %d, %d sent, stdout %q: %s", code, completions(s)-sent, stdout, stderr)
	}
	var est Estimate
	eb, _ := os.ReadFile(stats)
	json.Unmarshal(eb, &est)
	// 5 to send, each counted as the first run counted it, 16 tokens at most.
	var resp record.Response
	readRecords(t, earlier)[0].Decode("response", &resp)
	prompt := 5 * int64(resp.PromptTokensSent)
	want := Estimate{Tool: "infer-batch", Model: "m", DryRun: true, Records: 10, Calls: 5, Resume: 2, Cache: 3, Prompt: prompt, Tokenizer: "o200k_base~", OutputCeiling: 80, Price: "in=2,out=10"}
	got := est
	got.CostCeiling = nil
	if got != want || est.CostCeiling == nil || *est.CostCeiling != (float64(prompt)*2+80*10)/1e6 {
		t.Fatalf("estimate %+v (cost %v), want %+v", est, est.CostCeiling, want)
	}
	for _, w := range []string{"nothing was sent", "10: 5 to send, 3 answered by the cache, 2 answered by --resume-from", "at most 80 (max_tokens)", "cost               at most 0.0009 (in=2,out=10)"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	// Offline, with the model named: no endpoint needed.
	if code, _, stderr := runBatch(t, nil, "--dry-run", "--model", "m", in); code != 0 || !strings.Contains(stderr, "10 to send") {
		t.Fatalf("offline: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runBatch(t, nil, "--dry-run", "--model", "m", "-o", filepath.Join(tmp, "x.jsonl"), in); code != 2 || !strings.Contains(stderr, "--dry-run writes nothing") {
		t.Fatalf("-o: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(tmp, "x.jsonl")); err == nil {
		t.Fatal("a dry run wrote -o")
	}
}

// TestCacheAnswersWithoutEndpoint: with --model, a run the cache answers
// whole needs no endpoint (a rescoring after the server is gone); the
// start-up check comes with the first request to send, and fails the run as
// before when no endpoint answers.
func TestCacheAnswersWithoutEndpoint(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1})
	dir := t.TempDir()
	in := sampled(t, 6, "")
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", "m", "--cache", dir, in); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	gone := testbin.RefusedURL(t)
	code, stdout, stderr := runBatch(t, nil, "--base-url", gone, "--model", "m", "--cache", dir, in)
	if code != 0 || bytes.Count(stdout, []byte(`"cached":true`)) != 6 {
		t.Fatalf("the cache answers everything, the endpoint is gone: exit %d: %s\n%s", code, stdout, stderr)
	}
	more := sampled(t, 7, "")
	code, _, stderr = runBatch(t, nil, "--base-url", gone, "--model", "m", "--cache", dir, more)
	if code != 1 || !strings.Contains(stderr, "no endpoint answered GET /v1/models") {
		t.Fatalf("one request to send, the endpoint is gone: exit %d: %s", code, stderr)
	}
}

// TestPartManifestUsage: a shard part's manifest accounts for what its
// task paid, as a partitioned run's does.
func TestPartManifestUsage(t *testing.T) {
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1})
	dir := t.TempDir() + "/parts/"
	in := sampled(t, 10, "")
	if code, _, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--shard", "0/2", "--price", "gpu-hour=3600", "-o", dir, in); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "part-00000-of-00002"+parts.ManifestExt))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Records int64
		Usage   cost.Account
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	// gpu-hour=3600 is one per second of wall time.
	if a := m.Usage; a.Answers.Paid != m.Records || m.Records == 0 || a.Tokens.Prompt == 0 || a.Cost == nil || math.Abs(*a.Cost-a.WallS) > 1e-6 || a.Price != "gpu-hour=3600" {
		t.Fatalf("manifest: %s", b)
	}
}

// TestCacheEightWritersKill9: 8 infer-batch processes write one cache at
// once, each key asked by four of them, and 3 are killed with SIGKILL in
// the middle: the cache is left with valid entries only, and a run that
// reads it gets the server's own replies, never a torn or foreign one.
func TestCacheEightWritersKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 8 infer-batch processes")
	}
	s := startSim(t, sim.Options{Models: []string{"m"}, Skill: 1, Latency: 40 * time.Millisecond})
	dir, tmp := t.TempDir(), t.TempDir()
	const keys, each = 120, 60
	question := func(k int) string {
		return fmt.Sprintf(`{"id":"q%03d","request":{"messages":[{"role":"user","content":"question number %d"}],"max_tokens":16}}`+"\n", k, k)
	}
	var all bytes.Buffer
	for k := range keys {
		all.WriteString(question(k))
	}
	allIn := filepath.Join(tmp, "all.jsonl")
	os.WriteFile(allIn, all.Bytes(), 0o644)
	type proc struct {
		cmd    *exec.Cmd
		stderr *lockedBuf
		out    string
		kill   bool
	}
	var procs []proc
	for p := range 8 {
		var b bytes.Buffer
		for i := range each {
			b.WriteString(question((p*15 + i) % keys))
		}
		in, out := filepath.Join(tmp, fmt.Sprintf("in%d.jsonl", p)), filepath.Join(tmp, fmt.Sprintf("out%d.jsonl", p))
		os.WriteFile(in, b.Bytes(), 0o644)
		cmd, stderr := childBatch(t, "--base-url", s.BaseURL(), "--model", "m", "-j", "2", "--cache", dir, "-o", out, in)
		procs = append(procs, proc{cmd, stderr, out, p%3 == 1})
	}
	for _, p := range procs {
		if !p.kill {
			continue
		}
		waitFor(t, "10 answers in the journal", func() bool {
			_, err := os.Stat(journalName(p.out))
			return err == nil && len(journalLines(t, journalName(p.out))) >= 10
		})
		p.cmd.Process.Signal(syscall.SIGKILL)
	}
	for i, p := range procs {
		if err := p.cmd.Wait(); !p.kill && err != nil {
			t.Fatalf("writer %d: %v: %s", i, err, p.stderr.String())
		}
	}
	code, cached, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", "m", "--cache", dir, "--cache-mode", "read", allIn)
	if code != 0 || strings.Contains(stderr, "unreadable") {
		t.Fatalf("reading the cache: exit %d: %s", code, stderr)
	}
	code, fresh, stderr := runBatch(t, nil, "--base-url", s.BaseURL(), "--model", "m", allIn)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	hits, server := 0, parseLines(t, fresh)
	for i, rec := range parseLines(t, cached) {
		var got, want record.Response
		rec.Decode("response", &got)
		server[i].Decode("response", &want)
		if got.Text != want.Text || got.Usage.CompletionTokens != want.Usage.CompletionTokens {
			t.Fatalf("%s: the cache answered %q, the server %q", rec.ID(), got.Text, want.Text)
		}
		if got.Cached {
			hits++
		}
	}
	if hits < keys/2 {
		t.Fatalf("only %d of %d keys in the cache", hits, keys)
	}
	t.Logf("%d of %d keys cached by 5 whole and 3 killed writers", hits, keys)
}
