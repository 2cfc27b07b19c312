-- Typical questions over an ifkit lake, one DuckDB statement each
-- (docs/lake.md describes the layout). Run from the folder that holds lake/:
--   duckdb < recipes/duckdb.sql
-- tests/lake runs every statement of this file on a lake made by the tools.
--
-- lake/judged/RUN/      one partitioned run each: judge -o lake/judged/RUN/ --partition-by model
-- lake/rows/*.parquet   metric rows: aggregate-ifs --format parquet -o lake/rows/NAME.parquet
-- lake/official/*.parquet  published numbers: aggregate-ifs --import KIND FILE --format parquet -o ...

-- 1. LIFBench ARS by context length, per model and run (length is the label,
--    length_tokens the number it sorts by).
SELECT model, run, length, length_tokens, round(value, 3) AS ars, n, n_failed
FROM read_parquet('lake/rows/*.parquet', union_by_name = true)
WHERE bench = 'lifbench' AND metric = 'ARS' AND task = 'overall' AND length <> 'all'
ORDER BY model, run, length_tokens, length;

-- 2. IFScale accuracy against instruction density (density is a number: 10 < 50 < 100).
SELECT model, run, density, value AS accuracy, unit, n, n_failed
FROM read_parquet('lake/rows/*.parquet', union_by_name = true)
WHERE bench = 'ifscale' AND metric = 'accuracy'
ORDER BY model, run, density;

-- 3. LongGenBench: how accuracy decays with the position of the instruction
--    in the output (position is the start of the range, 0 to 1).
SELECT model, run, position, value AS accuracy, n
FROM read_parquet('lake/rows/*.parquet', union_by_name = true)
WHERE bench = 'longgenbench' AND metric = 'accuracy' AND type = 'all' AND position IS NOT NULL
ORDER BY model, run, position;

-- 4. Our numbers next to the published ones (imported with --import), by
--    model and density: both rows say their unit, so a mismatch shows.
SELECT o.model, o.density, o.value AS official, m.value AS ours, round(m.value - o.value, 2) AS diff, m.unit, m.run
FROM read_parquet('lake/official/*.parquet', union_by_name = true) AS o
JOIN read_parquet('lake/rows/*.parquet', union_by_name = true) AS m
  ON m.bench = o.bench AND m.model = o.model AND m.metric = o.metric AND m.density = o.density
WHERE o.bench = 'ifscale' AND o.metric = 'accuracy'
ORDER BY o.model, o.density, m.run;

-- 5. Judged runs as partitioned Parquet, each record with the run id from
--    its folder's _manifest.json (records themselves do not carry it).
COPY (
  SELECT j.* EXCLUDE (filename), m.run
  FROM read_json('lake/judged/*/**/*.jsonl.zst', union_by_name = true, filename = true) AS j
  JOIN (SELECT run, parse_dirpath(filename) || '/' AS dir
        FROM read_json('lake/judged/*/_manifest.json', filename = true)) AS m
    ON starts_with(j.filename, m.dir)
) TO 'lake/judged-parquet' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (run, model), OVERWRITE_OR_IGNORE);
