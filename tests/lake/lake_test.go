// Package lake checks ifkit's lake outputs the way users read them: with
// DuckDB. Partitioned folders must give their partition columns and counts,
// metric rows the one schema with typed numeric dimensions, Parquet files the
// declared types, and the rows of two runs must stay apart by run.
package lake

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/ifkit/ifkit/lib/testprograms"
)

func TestMain(m *testing.M) { testprograms.Main(m) }

// run runs one of ifkit's programs in dir and fails the test unless it exits 0.
func run(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(testbin.Dir, args[0]), args[1:]...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// query runs SQL in an in-memory DuckDB whose working folder is dir and
// returns every row as strings (NULL as "NULL").
func query(t *testing.T, dir, q string) [][]string {
	t.Helper()
	t.Chdir(dir)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = fmt.Sprint(v)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func want(t *testing.T, what string, got, exp [][]string) {
	t.Helper()
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, exp)
	}
}

// A partitioned folder read with a glob gives the partition columns, values
// decoded (a model name with "/" and a space, NULL for a record without the
// field), and exactly the records of each partition.
func TestPartitionedFolder(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := range 7 {
		fmt.Fprintf(&in, `{"id":"a%d","model":"org/m a","group":{"length":"4k"}}`+"\n", i)
	}
	for i := range 3 {
		fmt.Fprintf(&in, `{"id":"b%d","model":"plain","group":{"length":"8k"}}`+"\n", i)
	}
	in.WriteString(`{"id":"u","group":{"length":"8k"}}` + "\n")
	run(t, dir, in.String(), "split-subtasks", "-o", "lake/", "--partition-by", "model,group.length")
	want(t, "counts per partition",
		query(t, dir, `SELECT model, "group.length", count(*) FROM read_json('lake/**/*.jsonl.zst', hive_partitioning = true) GROUP BY ALL ORDER BY ALL`),
		[][]string{{"org/m a", "4k", "7"}, {"plain", "8k", "3"}, {"NULL", "8k", "1"}})
	// the manifest is JSON DuckDB reads too: its counts agree with the parts
	want(t, "manifest against the parts",
		query(t, dir, `WITH m AS (SELECT p.path AS path, p.records AS records FROM (SELECT unnest(parts) AS p FROM read_json('lake/_manifest.json'))),
			f AS (SELECT replace(filename, 'lake/', '') AS path, count(*) AS n FROM read_json('lake/**/*.jsonl.zst', filename = true) GROUP BY ALL)
			SELECT path, m.records, f.n FROM m FULL JOIN f USING (path) ORDER BY 1`),
		[][]string{
			{"model=__HIVE_DEFAULT_PARTITION__/group.length=8k/part-00000.jsonl.zst", "1", "1"},
			{"model=org%2Fm%20a/group.length=4k/part-00000.jsonl.zst", "7", "7"},
			{"model=plain/group.length=8k/part-00000.jsonl.zst", "3", "3"},
		})
}

// judgedRuns writes two judged runs of one model (different replies) as
// partitioned folders run1/ and run2/.
func judgedRuns(t *testing.T, dir string) {
	items := run(t, dir, "", "gen-context", "ifscale", "--densities", "10,20", "--seeds", "0,1")
	reqs := run(t, dir, items, "expand-templates")
	for i, text := range []string{"deadline channel railcar", "governance"} {
		var answered strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(reqs), "\n") {
			fmt.Fprintf(&answered, `%s,"model":"org/m","response":{"text":%q,"finish_reason":"stop","usage":{"prompt_tokens":1,"completion_tokens":2}}}`+"\n", strings.TrimSuffix(line, "}"), text)
		}
		run(t, dir, answered.String(), "judge", "-o", fmt.Sprintf("run%d/", i+1), "--partition-by", "model")
	}
}

// The metric rows as Parquet load with the declared types; every row has
// the core columns, IFScale's density is a number, and the rows of two
// runs of one model stay apart by run.
func TestMetricRowsParquet(t *testing.T) {
	dir := t.TempDir()
	judgedRuns(t, dir)
	run(t, dir, "", "aggregate-ifs", "--format", "parquet", "-o", "rows.parquet", "--items", "items.parquet", "run1/", "run2/")
	run(t, dir, "", "aggregate-ifs", "--format", "parquet", "-o", "one.parquet", "run1/")

	types := query(t, dir, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM 'rows.parquet') ORDER BY 1`)
	wantTypes := map[string]string{
		"bench": "VARCHAR", "model": "VARCHAR", "metric": "VARCHAR", "value": "DOUBLE", "unit": "VARCHAR",
		"n": "BIGINT", "n_failed": "BIGINT", "n_truncated": "BIGINT", "cut_check": "VARCHAR", "n_reasoning_unfinished": "BIGINT", "run": "VARCHAR", "ifkit_version": "VARCHAR",
		"created": "TIMESTAMP WITH TIME ZONE", "length_tokens": "BIGINT", "density": "DOUBLE", "depth": "DOUBLE",
		"position": "DOUBLE", "seed": "BIGINT", "ci_low": "DOUBLE", "ci_high": "DOUBLE", "ci_level": "DOUBLE",
		"ci_method": "VARCHAR", "ci_unit": "VARCHAR", "n_units": "BIGINT",
	}
	got := map[string]string{}
	for _, r := range types {
		got[r[0]] = r[1]
	}
	for col, typ := range wantTypes {
		if got[col] != typ {
			t.Errorf("rows.parquet column %s: %q, want %s", col, got[col], typ)
		}
	}
	want(t, "rows missing a core column or density",
		query(t, dir, `SELECT count(*) FROM 'rows.parquet' WHERE bench IS NULL OR model IS NULL OR metric IS NULL
			OR n IS NULL OR n_failed IS NULL OR n_truncated IS NULL OR n_reasoning_unfinished IS NULL OR run IS NULL OR ifkit_version <> '`+testbin.Version+`'
			OR created IS NULL OR (bench = 'ifscale' AND density IS NULL)`),
		[][]string{{"0"}})
	want(t, "densities sort as numbers",
		query(t, dir, `SELECT DISTINCT density FROM 'rows.parquet' ORDER BY density`),
		[][]string{{"10"}, {"20"}})
	// two runs of one model: each run's rows are exactly the rows of a
	// one-run aggregate, never pooled
	want(t, "rows per run",
		query(t, dir, `SELECT count(DISTINCT run), min(c), max(c), (SELECT count(*) FROM 'one.parquet') FROM
			(SELECT run, count(*) AS c FROM 'rows.parquet' WHERE model = 'org/m' GROUP BY run)`),
		[][]string{{"2", rowCount(t, dir), rowCount(t, dir), rowCount(t, dir)}})
	want(t, "run1's rows as a one-run aggregate",
		query(t, dir, `SELECT count(*) FROM ((SELECT metric, density, value, run FROM 'one.parquet')
			EXCEPT (SELECT metric, density, value, run FROM 'rows.parquet'))`),
		[][]string{{"0"}})
	want(t, "the run is the partitioned folder's",
		query(t, dir, `SELECT count(*) FROM 'rows.parquet' WHERE run NOT IN (SELECT run FROM read_json(['run1/_manifest.json', 'run2/_manifest.json']))`),
		[][]string{{"0"}})

	// items: one typed row per judged record, by run
	want(t, "items.parquet types",
		query(t, dir, `SELECT column_name, column_type FROM (DESCRIBE SELECT id, score, failed, truncated, density, seed FROM 'items.parquet')`),
		[][]string{{"id", "VARCHAR"}, {"score", "DOUBLE"}, {"failed", "BOOLEAN"}, {"truncated", "BOOLEAN"}, {"density", "DOUBLE"}, {"seed", "BIGINT"}})
	want(t, "items per run",
		query(t, dir, `SELECT count(*), count(DISTINCT run), count(DISTINCT id), count(score) FROM 'items.parquet'`),
		[][]string{{"8", "2", "4", "8"}})
}

func rowCount(t *testing.T, dir string) string {
	t.Helper()
	return query(t, dir, `SELECT count(*) FROM 'one.parquet'`)[0][0]
}

// The CSV folder loads table by table; the JSONL rows and items read as the
// Parquet ones do.
func TestTablesAndJSONL(t *testing.T) {
	dir := t.TempDir()
	judgedRuns(t, dir)
	run(t, dir, "", "aggregate-ifs", "--format", "csv", "-o", "tables/", "run1/")
	run(t, dir, "", "aggregate-ifs", "--format", "jsonl", "-o", "rows.jsonl", "--items", "items.jsonl", "run1/")
	for _, r := range query(t, dir, `SELECT file FROM read_json('tables/_tables.json')`) {
		if n := query(t, dir, fmt.Sprintf(`SELECT count(*) FROM read_csv('tables/%s', header = true)`, r[0]))[0][0]; n == "0" {
			t.Errorf("tables/%s: no rows", r[0])
		}
	}
	want(t, "JSONL rows",
		query(t, dir, `SELECT count(*) > 0, count(*) FILTER (WHERE bench IS NULL OR model IS NULL OR metric IS NULL OR unit IS NULL OR n IS NULL OR n_failed IS NULL OR n_truncated IS NULL OR n_reasoning_unfinished IS NULL OR run IS NULL OR ifkit_version IS NULL OR created IS NULL) FROM read_json('rows.jsonl')`),
		[][]string{{"true", "0"}})
	want(t, "JSONL items",
		query(t, dir, `SELECT count(*), count(DISTINCT run) FROM read_json('items.jsonl')`),
		[][]string{{"4", "1"}})
}

// Every statement of recipes/duckdb.sql runs on a lake laid out as it says
// (judged runs of three benchmarks, their metric rows, imported official
// numbers), so the recipes stay true.
func TestRecipes(t *testing.T) {
	sqlText, err := os.ReadFile("../../recipes/duckdb.sql")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	judgedRuns(t, dir)
	for _, d := range []string{"lake/judged", "lake/rows", "lake/official"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []string{"run1", "run2"} {
		if err := os.Rename(filepath.Join(dir, r), filepath.Join(dir, "lake/judged", r)); err != nil {
			t.Fatal(err)
		}
	}
	// LIFBench and LongGenBench, answered with one short reply each
	var answered strings.Builder
	for _, gen := range [][]string{{"lifbench", "--lengths", "4k", "--scenarios", "list"}, {"longgenbench", "--count", "2", "--scenarios", "diary"}} {
		reqs := run(t, dir, run(t, dir, "", append([]string{"gen-context"}, gen...)...), "expand-templates")
		for _, line := range strings.Split(strings.TrimSpace(reqs), "\n") {
			fmt.Fprintf(&answered, `%s,"model":"org/m","response":{"text":"1. yes\n2. no","finish_reason":"stop"}}`+"\n", strings.TrimSuffix(line, "}"))
		}
	}
	split := run(t, dir, answered.String(), "split-subtasks")
	run(t, dir, split, "judge", "-o", "lake/judged/other/", "--partition-by", "model,bench")
	run(t, dir, "", "aggregate-ifs", "--format", "parquet", "-o", "lake/rows/all.parquet", "lake/judged/run1/", "lake/judged/run2/", "lake/judged/other/")
	csv := "model,num_rules,seed,accuracy,omission_pct,modification_pct,recency_ratio,latency\n" +
		"org/m,10,0,50,30,20,1,2\norg/m,10,1,60,30,10,1,2\norg/m,20,0,40,40,20,1,2\norg/m,20,1,30,50,20,1,2\n"
	if err := os.WriteFile(filepath.Join(dir, "per_sample.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "", "aggregate-ifs", "--import", "ifscale-per-sample", "--format", "parquet", "-o", "lake/official/ifscale.parquet", "per_sample.csv")

	var stmts []string
	for _, stmt := range strings.Split(string(sqlText), ";") {
		if strings.TrimSpace(stripComments(stmt)) != "" {
			stmts = append(stmts, stmt)
		}
	}
	if len(stmts) != 5 {
		t.Fatalf("recipes/duckdb.sql: %d statements, want the five recipes", len(stmts))
	}
	results := make([][][]string, len(stmts))
	for i, stmt := range stmts {
		results[i] = query(t, dir, stmt)
	}
	for i := range 4 { // the fifth writes files, checked below
		if len(results[i]) == 0 {
			t.Errorf("recipe %d returned no rows:\n%s", i+1, stmts[i])
		}
	}
	want(t, "judged records as partitioned Parquet, by run",
		query(t, dir, `SELECT count(*), count(DISTINCT run), count(*) FILTER (WHERE run IS NULL) FROM read_parquet('lake/judged-parquet/**/*.parquet')`),
		[][]string{{fmt.Sprint(8 + strings.Count(split, "\n")), "3", "0"}})
}
func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
