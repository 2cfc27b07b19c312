package lake

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/provenance"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"qwen2.5-72b-instruct", "qwen2.5-72b-instruct"},
		{"meta-llama/Llama-3.1-8B", "meta-llama%2FLlama-3.1-8B"},
		{"a b=c%d", "a%20b%3Dc%25d"},
		{`x:y?"*'#\{[]^`, "x%3Ay%3F%22%2A%27%23%5C%7B%5B%5D%5E"},
		{"tab\there\n", "tab%09here%0A"},
		{"日本", "日本"},
		{"a\xffb\xe6\x97", "a%FFb%E6%97"}, // not UTF-8: the folder name must be
		{"", ""},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzEscapeRoundTrip(f *testing.F) {
	for _, s := range []string{"org/model", "a b=c%d", "..", "%zz", "\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if strings.ContainsAny(e, "/= ") || !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q keeps a separator or bytes that are not UTF-8", s, e)
		}
		back, err := url.PathUnescape(e) // as readers decode %XX
		if err != nil || back != s {
			t.Fatalf("PathUnescape(Escape(%q)) = %q, %v", s, back, err)
		}
	})
}

func TestParseKeys(t *testing.T) {
	for _, tc := range []struct {
		spec, want, bad string
	}{
		{"model", "model", ""},
		{"bench, model,group.length", "bench,model,group.length", ""},
		{"", "", "want FIELD"},
		{"model,", "", "want FIELD"},
		{"a/b", "", "want FIELD"},
		{"group.", "", "want FIELD"},
		{"x.y", "", "want FIELD"},
		{"model,model", "", "model twice"},
	} {
		keys, err := ParseKeys(tc.spec)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("ParseKeys(%q) = %v, %v; want an error with %q", tc.spec, keys, err, tc.bad)
			}
			continue
		}
		if err != nil || strings.Join(Names(keys), ",") != tc.want {
			t.Errorf("ParseKeys(%q) = %v, %v; want %s", tc.spec, Names(keys), err, tc.want)
		}
	}
}

func TestKeyValue(t *testing.T) {
	keys, _ := ParseKeys("model,group.length")
	for _, tc := range []struct {
		line    string
		model   string
		length  string
		present [2]bool
		bad     string
	}{
		{`{"id":"a","model":"m","group":{"length":"4k"}}`, "m", "4k", [2]bool{true, true}, ""},
		{`{"id":"a"}`, "", "", [2]bool{false, false}, ""},
		{`{"id":"a","model":null,"group":{"length":""}}`, "", "", [2]bool{false, false}, ""},
		{`{"id":"a","model":7}`, "", "", [2]bool{}, "not a string"},
		{`{"id":"a","group":{"length":4096}}`, "", "", [2]bool{}, "not a string"},
		{`{"id":"a","group":[1]}`, "", "", [2]bool{}, "not an object"},
	} {
		rec, err := record.Parse([]byte(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		var got [2]string
		var present [2]bool
		var firstErr error
		for i, k := range keys {
			v, ok, err := k.Value(rec)
			got[i], present[i] = v, ok
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}
		if tc.bad != "" {
			if firstErr == nil || !strings.Contains(firstErr.Error(), tc.bad) {
				t.Errorf("%s: err %v, want %q", tc.line, firstErr, tc.bad)
			}
			continue
		}
		if firstErr != nil || got != [2]string{tc.model, tc.length} || present != tc.present {
			t.Errorf("%s: %q %v %v", tc.line, got, present, firstErr)
		}
	}
}

// More partitions than MaxOpen in mixed order, past the hold limit: parts
// rotate, every record lands once in its partition's folder, no hidden file
// is left, and Check lists exactly the parts.
func TestWriterRotatesAndChecks(t *testing.T) {
	dir := t.TempDir()
	keys, _ := ParseKeys("model")
	w := Create(dir, keys, stream.Zstd, ".jsonl.zst")
	w.holdLimit = 64
	const models, per = MaxOpen + 4, 3
	for round := range per {
		for m := range models {
			rec := record.New(fmt.Sprintf("r%d-%d", m, round))
			rec.Set("model", fmt.Sprintf("org/m%02d", m))
			if err := w.Write(rec, rec.AppendJSON); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ps := w.Parts()
	if len(ps) <= models {
		t.Errorf("%d parts for %d partitions: want some rotated", len(ps), models)
	}
	byModel := map[string]int64{}
	for _, p := range ps {
		byModel[*p.Partition["model"]] += p.Records
		if !strings.HasPrefix(p.Path, "model=org%2Fm") {
			t.Errorf("part %s", p.Path)
		}
	}
	for m := range models {
		if n := byModel[fmt.Sprintf("org/m%02d", m)]; n != per {
			t.Errorf("model %d: %d records, want %d", m, n, per)
		}
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if strings.HasPrefix(d.Name(), ".") {
			t.Errorf("hidden file left: %s", p)
		}
		return nil
	})
	m := &Manifest{Provenance: provenance.Provenance{Run: "r1"}, Parts: ps, Records: w.Records(), Complete: true, PartitionBy: Names(keys)}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	_, files, _, err := Check(dir, false)
	if err != nil || len(files) != len(ps) {
		t.Fatalf("Check: %d files, %v", len(files), err)
	}

	// what Check refuses
	m.Complete = false
	WriteManifest(dir, m)
	if _, _, _, err := Check(dir, false); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("unfinished run: %v", err)
	}
	if _, _, _, err := Check(dir, true); err != nil {
		t.Errorf("unfinished run, allowPartial: %v", err)
	}
	m.Complete = true
	WriteManifest(dir, m)
	foreign := filepath.Join(dir, "model=x", "part-00000.jsonl.zst")
	os.MkdirAll(filepath.Dir(foreign), 0o755)
	os.WriteFile(foreign, nil, 0o644)
	if _, _, _, err := Check(dir, false); err == nil || !strings.Contains(err.Error(), "model=x/part-00000.jsonl.zst") {
		t.Errorf("foreign part: %v", err)
	}
	os.Remove(foreign)
	// a part changed since it was written: refused, or left out under allowPartial
	first := filepath.Join(dir, filepath.FromSlash(ps[0].Path))
	b, _ := os.ReadFile(first)
	os.WriteFile(first, b[:len(b)-1], 0o644)
	if _, _, _, err := Check(dir, false); err == nil || !strings.Contains(err.Error(), ps[0].Path+": ") || !strings.Contains(err.Error(), "bytes, its manifest says") {
		t.Errorf("changed part: %v", err)
	}
	if _, files, failed, err := Check(dir, true); err != nil || len(files) != len(ps)-1 || len(failed) != 1 {
		t.Errorf("changed part, allowPartial: %d files, failed %q, %v", len(files), failed, err)
	}
	os.WriteFile(first, b, 0o644)
	os.Remove(first)
	if _, _, _, err := Check(dir, false); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing part: %v", err)
	}
}

// Records alternating among more partitions than MaxOpen (40, round
// robin) keep at most MaxOpen parts open at any time and do not write a part
// per record: with the hold limit in force, one part per partition; with a
// small one, each part started holds at least limit / partitions bytes, so
// the parts are bounded by MaxOpen + partitions + bytes × partitions / limit.
// Every record lands once, in order, in its partition; after Abandon the
// held records are in hidden parts too.
func TestWriterManyPartitionsBounded(t *testing.T) {
	const partitions, rounds = 40, 30
	keys, _ := ParseKeys("model")
	for _, tc := range []struct {
		name    string
		limit   int
		abandon bool
	}{
		{"held in memory", HoldLimit, false},
		{"past a small limit", 4 << 10, false},
		{"abandoned", 4 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w := Create(dir, keys, stream.Zstd, ".jsonl.zst")
			w.holdLimit = tc.limit
			bytes := 0
			for round := range rounds {
				for m := range partitions {
					rec := record.New(fmt.Sprintf("r%02d-%02d", m, round))
					rec.Set("model", fmt.Sprintf("m%02d", m))
					bytes += len(rec.AppendJSON(nil)) + 1
					if err := w.Write(rec, rec.AppendJSON); err != nil {
						t.Fatal(err)
					}
					if n := len(hiddenParts(t, dir)); n > MaxOpen {
						t.Fatalf("after %s: %d parts open, want at most %d", rec.ID(), n, MaxOpen)
					}
				}
			}
			files := map[string][]string{} // partition -> its part files
			if tc.abandon {
				if err := w.Abandon(); err != nil {
					t.Fatal(err)
				}
				for _, f := range hiddenParts(t, dir) {
					rel, _ := filepath.Rel(dir, f)
					files[filepath.Dir(rel)] = append(files[filepath.Dir(rel)], f)
				}
				for _, p := range w.Parts() { // completed before the stop
					files[path.Dir(p.Path)] = append(files[path.Dir(p.Path)], filepath.Join(dir, filepath.FromSlash(p.Path)))
				}
			} else {
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if h := hiddenParts(t, dir); len(h) > 0 {
					t.Errorf("hidden parts left: %v", h)
				}
				ps := w.Parts()
				for _, p := range ps {
					folder := path.Dir(p.Path)
					files[folder] = append(files[folder], filepath.Join(dir, filepath.FromSlash(p.Path)))
				}
				bound := MaxOpen + partitions + bytes*partitions/tc.limit
				if tc.limit == HoldLimit {
					bound = partitions
				}
				if len(ps) > bound || w.Records() != partitions*rounds {
					t.Errorf("%d parts, %d records; want at most %d parts (%d bytes), %d records", len(ps), w.Records(), bound, bytes, partitions*rounds)
				}
				t.Logf("%d parts for %d records in %d partitions", len(ps), w.Records(), partitions)
			}
			if len(files) != partitions {
				t.Fatalf("%d partitions written, want %d", len(files), partitions)
			}
			for folder, fs := range files {
				// in part order: part-00000 before .part-00001….partial
				slices.SortFunc(fs, func(a, b string) int {
					return strings.Compare(strings.TrimPrefix(filepath.Base(a), "."), strings.TrimPrefix(filepath.Base(b), "."))
				})
				var ids []string
				for _, f := range fs {
					ids = append(ids, readIDs(t, f)...)
				}
				m := strings.TrimPrefix(folder, "model=m")
				for round := range rounds {
					if want := fmt.Sprintf("r%s-%02d", m, round); round >= len(ids) || ids[round] != want {
						t.Fatalf("%s: records %v, want r%s-00 … r%s-%02d in order", folder, ids, m, m, rounds-1)
					}
				}
				if len(ids) != rounds {
					t.Errorf("%s: %d records, want %d", folder, len(ids), rounds)
				}
			}
		})
	}
}

// hiddenParts lists the parts being written (or abandoned) under dir.
func hiddenParts(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".part-") && strings.HasSuffix(d.Name(), ".partial") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func readIDs(t *testing.T, file string) []string {
	t.Helper()
	in, err := stream.Open(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var ids []string
	for {
		line, _, err := in.Next()
		if err == io.EOF {
			return ids
		}
		if err != nil {
			t.Fatal(err)
		}
		rec, err := record.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID())
	}
}

// A symbolic link planted at a partition folder's name (in a shared folder,
// while the run writes) is refused, never followed: no part lands outside
// the run's folder.
func TestWriterRefusesPlantedLinks(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	keys, _ := ParseKeys("model")
	w := Create(dir, keys, stream.None, ".jsonl")
	a := record.New("a")
	a.Set("model", "a")
	if err := w.Write(a, a.AppendJSON); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "model=b")); err != nil {
		t.Fatal(err)
	}
	b := record.New("b")
	b.Set("model", "b")
	if err := w.Write(b, b.AppendJSON); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Write through a planted link: %v", err)
	}
	w.Abandon()
	if des, _ := os.ReadDir(elsewhere); len(des) > 0 {
		t.Errorf("a part was written through the link: %v", des)
	}
}

// Every value gets a folder of its own that fits in a file name: a long
// value is cut and ends in a hash (the run failed at it, after paying for the
// answers before), values that differ only in letter case get two names that
// differ otherwise too (one folder on macOS and Windows), and a value spelled
// like the default partition's name does not share its folder.
func TestFolderNames(t *testing.T) {
	keys, _ := ParseKeys("model,bench")
	var nm namer
	folder := func(model string, present bool) string {
		rel, vals := nm.folder(keys, []string{model, "b"}, []bool{present, true})
		if present && *vals["model"] != model || !present && vals["model"] != nil {
			t.Errorf("values %v for %q", vals, model)
		}
		return rel
	}
	long := strings.Repeat("ü", 200) // 400 bytes
	seen := map[string]string{}
	for _, c := range []struct {
		model   string
		present bool
		want    string // a regular expression
	}{
		{"Qwen", true, `^model=Qwen/bench=b$`},
		{"qwen", true, `^model=qwen~[0-9a-f]{16}/bench=b$`},
		{"QWEN", true, `^model=QWEN~[0-9a-f]{16}/bench=b$`},
		{"__hive_default_partition__", true, `^model=__hive_default_partition__~[0-9a-f]{16}/bench=b$`},
		{"", false, `^model=__HIVE_DEFAULT_PARTITION__/bench=b$`},
		{long, true, `^model=(ü)+~[0-9a-f]{16}/bench=b$`},
		{long + "x", true, `^model=(ü)+~[0-9a-f]{16}/bench=b$`},
		{strings.Repeat("/", 100), true, `^model=(%2F)+~[0-9a-f]{16}/bench=b$`},
		{"caf\u00e9", true, `^model=café/bench=b$`},
		{"cafe\u0301", true, `^model=cafe\x{301}~[0-9a-f]{16}/bench=b$`},
	} {
		got := folder(c.model, c.present)
		if !regexp.MustCompile(c.want).MatchString(got) {
			t.Errorf("%.20q: folder %q, want %s", c.model, got, c.want)
		}
		for _, seg := range strings.Split(got, "/") {
			if len(seg) > MaxName {
				t.Errorf("%.20q: %d bytes in a folder name", c.model, len(seg))
			}
		}
		fold := fold(got)
		if other, ok := seen[fold]; ok {
			t.Errorf("%.20q and %.20q share the folder %q on a case-insensitive file system", c.model, other, got)
		}
		seen[fold] = c.model
		if again := folder(c.model, c.present); again != got {
			t.Errorf("%.20q: %q, then %q", c.model, got, again)
		}
	}
}
