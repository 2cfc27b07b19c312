package programs

import (
	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/explore"
	"github.com/urfave/cli/v2"
)

// AggregateIFS is aggregate-ifs: the benchmarks' aggregators and importers,
// and the report page with their figures.
func AggregateIFS(bs []bench.Bench) app.Tool {
	check(bs)
	reg := aggregate.Registry{
		Aggregators: map[string]aggregate.Factory{},
		Importers:   map[string]aggregate.Importer{"rows": aggregate.ImportRows},
		Tables:      map[string]aggregate.Tabler{},
		Designs:     map[string]aggregate.Design{},
		Titles:      map[string]string{},
		Judged:      map[string]bool{},
	}
	for _, b := range bs {
		reg.Aggregators[b.Name] = b.Aggregate
		reg.Tables[b.Name] = b.Tables
		reg.Designs[b.Name] = b.Design
		reg.Titles[b.Name] = b.Title
		reg.Order = append(reg.Order, b.Name)
		reg.Judged[b.Name] = len(b.JudgeModes) > 0
		for kind, imp := range b.Importers {
			if _, dup := reg.Importers[kind]; dup {
				panic("programs: --import " + kind + " is aggregate-ifs' own")
			}
			reg.Importers[kind] = imp
		}
	}
	sections := bench.Sections(bs)
	hooks := bench.Hooks(bs)
	reg.Page = func(opt aggregate.Options) aggregate.Page {
		return explore.New(sections, hooks, explore.Options{Contexts: opt.HTMLContexts, Decimals: opt.Decimals, Reference: opt.Reference})
	}
	return app.Tool{
		Name:      "aggregate-ifs",
		Usage:     "compute each benchmark's metrics from judged records, per model",
		ArgsUsage: "[FILE...]",
		Description: `Tables laid out like the papers' (Markdown or CSV), or tidy rows, one metric
value per line (--format jsonl), ready for DuckDB or Spark. Records that failed
in an earlier stage are counted, and each table says how they were treated.
--import KIND reads official result files (the FILE arguments) instead of records.
Every row carries its provenance: run (the id of the partitioned run its records
came from, else this run's), ifkit_version and created; records of two runs are
aggregated apart. --format parquet writes the rows typed (docs/lake.md);
--items FILE (.jsonl or .parquet) one row per scored record; --format csv
writes one plain table with --table NAME, or a folder of them with -o DIR/.
--html FILE also writes one self-contained page with the papers' figures;
--reference adds published models (rows from --import) to its figures.

Example:
  judge judged.jsonl.zst | aggregate-ifs --format md
  aggregate-ifs --import ifscale-per-sample per_sample.csv
  aggregate-ifs --format parquet -o rows.parquet --items items.parquet judged/
  aggregate-ifs --html report.html --reference published.jsonl judged.jsonl.zst`,
		TextOutput:  true,
		Answerer:    aggregate.Answerer,
		OutputFlags: []string{"format", "rows", "items", "table", "decimals", "html", "reference", "flips", "html-contexts"},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "md", Usage: "md, csv, jsonl (tidy rows), json or parquet (typed rows)"},
			&cli.StringFlag{Name: "import", Usage: "read official result files of `KIND` (given as FILE arguments) instead of records"},
			&cli.StringFlag{Name: "rows", Usage: "also write the tidy rows (JSONL, one metric value per line) to `FILE`, in the same pass"},
			&cli.StringFlag{Name: "items", Usage: "also write one row per scored record (id, bench, model, task, run, score, verdict, failed, truncated, group keys) to `FILE`: Parquet for .parquet, else JSON Lines"},
			&cli.StringFlag{Name: "table", Usage: "with --format csv: write only the table `NAME` (its title in lower case with dashes), as a plain CSV"},
			&cli.IntFlag{Name: "decimals", Value: 3, Usage: "digits after the point in tables"},
			&cli.StringFlag{Name: "failed", Value: aggregate.FailedOfficial, Usage: "records that failed before scoring: `POLICY` official (as each benchmark's own code: mostly scored 0, see docs/<bench>.md) or exclude (left out); n_failed counts them either way"},
			&cli.StringFlag{Name: "html", Usage: "also write one self-contained HTML report with the papers' figures (SVG) to `FILE`"},
			&cli.StringFlag{Name: "reference", Usage: "draw the published models of `FILE` (metric rows from --import ... --format jsonl) in the --html figures"},
			&cli.StringFlag{Name: "html-contexts", Value: explore.ContextsAuto, Usage: "what the --html page's item explorer keeps of each distinct long context: `MODE` auto (whole while the page has room, else excerpts around what each item asks), full (always whole) or excerpts"},
			&cli.BoolFlag{Name: "exclude-truncated", Usage: "leave out records whose prompt the server truncated (response.server_truncated); every table says how many there were either way"},
			&cli.StringFlag{Name: "ci", Value: aggregate.CIBootstrap, Usage: "confidence intervals on every metric: `METHOD` bootstrap (resampling each benchmark's independent unit: docs/metrics.md) or none"},
			&cli.Float64Flag{Name: "ci-level", Value: aggregate.DefaultCILevel, Usage: "the intervals' confidence `LEVEL`"},
			&cli.IntFlag{Name: "bootstrap", Value: aggregate.DefaultBootstrap, Usage: "`N` resamples per interval"},
			&cli.Uint64Flag{Name: "seed", Usage: "the resampling's `SEED`: the same seed, the same intervals"},
			&cli.StringFlag{Name: "compare", Usage: "compare every other model (or run) of the input with the baseline `MODEL` (or run id), item by item on what both answered: differences with paired intervals, p-values, verdicts and the minimum detectable difference"},
			&cli.StringFlag{Name: "correction", Value: aggregate.CorrectionHolm, Usage: "--compare's adjustment for the number of comparisons in a table: `METHOD` holm or bh (Benjamini–Hochberg)"},
			&cli.StringFlag{Name: "price", Usage: "cost the replies at `PRICES` per million tokens, in=P,out=P[,cached=P], in the tables' notes (what this run paid; a GPU-hour price needs the run's wall time: infer-batch --price gives that cost)"},
			&cli.StringFlag{Name: "judge-price", Usage: "cost the LLM judge's calls (judgement.judge.usage) at `PRICES`, as --price"},
			&cli.StringFlag{Name: "flips", Usage: "with --compare, also write one row per item whose score changed (id, task, group, both scores, both replies' tokens) to `FILE`: Parquet for .parquet, else JSON Lines"},
		},
		Action: func(r *app.Run) error {
			if err := explore.CheckContexts(r.String("html-contexts")); err != nil {
				return err
			}
			opt := aggregate.Options{Decimals: r.Int("decimals"), Failed: r.String("failed"), HTML: r.String("html"), Reference: r.String("reference"), Items: r.String("items"), Table: r.String("table"), ExcludeTruncated: r.Bool("exclude-truncated"),
				CI: r.String("ci"), CILevel: r.Float64("ci-level"), Bootstrap: r.Int("bootstrap"), Seed: r.Uint64("seed"),
				Compare: r.String("compare"), Correction: r.String("correction"), Flips: r.String("flips"), HTMLContexts: r.String("html-contexts")}
			var err error
			if opt.Price, err = tokenPrice(r, "price"); err != nil {
				return err
			}
			if opt.JudgePrice, err = tokenPrice(r, "judge-price"); err != nil {
				return err
			}
			return aggregate.Run(r, reg, r.String("format"), r.String("import"), r.String("rows"), opt)
		},
	}
}

// tokenPrice reads a per-token price flag: a report has tokens but not the
// wall time a GPU-hour price is paid by.
func tokenPrice(r *app.Run, flag string) (cost.Price, error) {
	p, err := cost.ParsePrice(r.String(flag))
	switch {
	case err != nil:
		return p, app.Usagef("--%s: %v", flag, err)
	case p.Set() && !p.PerToken():
		return p, app.Usagef("--%s %s: aggregate-ifs costs tokens (in=P,out=P); a GPU-hour price needs the run's wall time, which infer-batch --price uses", flag, p)
	}
	return p, nil
}
