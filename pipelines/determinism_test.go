package pipelines

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/parquet-go/parquet-go"
)

// aggregate-ifs is deterministic: the same judged records give byte-identical
// output in every format, run after run and in any order (issue 23: sums are
// correctly rounded or taken in a canonical order, lists of sources sorted),
// the run id and the creation time aside (the run id hashes the input's
// bytes, which a new order changes).
func TestAggregatesAreDeterministic(t *testing.T) {
	shortParallel(t)
	url := StartSim(t, "--skill", "0.7")
	dir := t.TempDir()
	judged := map[string]string{}
	for bench, gen := range map[string]string{
		"lifbench":     "gen-context lifbench --lengths 1k,2k",
		"ifscale":      "gen-context ifscale --densities 10,20,30,40,50,60,70,80,90,100 --seeds 0,1,2,3,4",
		"longins":      "gen-context longins --lengths 256,512",
		"eifbench":     "{ gen-context eifbench -o e.jsonl && head -40 e.jsonl; }",
		"longgenbench": "gen-context longgenbench --count 3 --scenarios diary,menu",
	} {
		out := filepath.Join(dir, bench+".jsonl")
		cmd := exec.Command("bash", "-o", "pipefail", "-c", gen+" | expand-templates | infer-batch -j 16 --max-failures inf | split-subtasks | judge --judge-base-url "+url+" --max-failures inf > "+out)
		cmd.Dir, cmd.Env = dir, Env("OPENAI_BASE_URL="+url)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", bench, err, b)
		}
		judged[bench] = twoSources(t, out)
	}
	// Rows say when they were made: SOURCE_DATE_EPOCH fixes "created"; the
	// run ids are blanked.
	aggregate := func(args ...string) []byte {
		cmd := exec.Command(Bin("aggregate-ifs"), args...)
		cmd.Env = Env("SOURCE_DATE_EPOCH=1764000000")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("aggregate-ifs %s: %v", strings.Join(args, " "), err)
		}
		return WithoutRunIDs(out)
	}
	// outputs are every output of one input, by name: the four text formats,
	// the Parquet rows (run and created left out) and the --items rows.
	outputs := func(input string) map[string][]byte {
		got := map[string][]byte{}
		for _, format := range []string{"md", "csv", "jsonl", "json"} {
			got[format] = aggregate("--format", format, input)
		}
		pq, items := input+".parquet", input+".items.jsonl"
		aggregate("--format", "parquet", "-o", pq, "--items", items, input)
		got["parquet"] = parquetRows(t, pq, "run", "created")
		b, err := os.ReadFile(items)
		if err != nil {
			t.Fatal(err)
		}
		got["items"] = WithoutRunIDs(b)
		return got
	}
	var all []string
	for _, f := range judged {
		all = append(all, f)
	}
	again := 3 // map order differs from run to run: several runs show it
	orders := 4
	if testing.Short() {
		again, orders = 1, 2 // the reversed order and one shuffle
	}
	for _, format := range []string{"md", "csv", "jsonl", "json"} {
		args := append([]string{"--format", format}, all...)
		first := aggregate(args...)
		for range again {
			if got := aggregate(args...); !bytes.Equal(got, first) {
				t.Fatalf("--format %s: two runs over the same input differ", format)
			}
		}
	}
	for _, bench := range slices.Sorted(maps.Keys(judged)) {
		want := outputs(judged[bench])
		data, _ := os.ReadFile(judged[bench])
		lines := strings.SplitAfter(string(data), "\n")
		lines = lines[:len(lines)-1]
		for p, perm := range testbin.Orders(lines, orders) {
			name := filepath.Join(dir, fmt.Sprintf("%s-order%d.jsonl", bench, p))
			if err := os.WriteFile(name, []byte(strings.Join(perm, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			got := outputs(name)
			for _, k := range slices.Sorted(maps.Keys(want)) {
				if !bytes.Equal(got[k], want[k]) {
					t.Errorf("%s, order %d (0 is reversed): %s differs from the original order's:\n%s", bench, p, k, firstDiff(want[k], got[k]))
				}
			}
		}
	}
}

// twoSources rewrites the source of every other record, so that the run's
// items come from two sources: the note naming them must not follow the
// records' order.
func twoSources(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := range lines {
		if i%2 == 1 {
			lines[i] = strings.Replace(lines[i], `"source":"`, `"source":"a second source, `, 1)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// parquetRows prints a Parquet file's rows, one per line, without the
// columns named in skip.
func parquetRows(t *testing.T, path string, skip ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	cols := f.Schema().Columns()
	rows := make([]parquet.Row, f.NumRows())
	rd := parquet.NewReader(f)
	if n, err := rd.ReadRows(rows); int64(n) != f.NumRows() {
		t.Fatalf("%s: read %d of %d rows: %v", path, n, f.NumRows(), err)
	}
	var out bytes.Buffer
	for _, row := range rows {
		for _, v := range row {
			if name := strings.Join(cols[v.Column()], "."); !slices.Contains(skip, name) {
				fmt.Fprintf(&out, "%s=%v ", name, v)
			}
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// firstDiff shows the first line where two outputs differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %.300s\n  %.300s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}
