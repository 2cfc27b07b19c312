package bench

import (
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/explore"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/split"
	"github.com/urfave/cli/v2"
)

// Bench is one benchmark: what it plugs into each program. The programs
// route every record by its "bench" field to the Bench of that Name.
type Bench struct {
	// Name is the records' "bench" value and gen-context's subcommand.
	Name string
	// Title is the paper's spelling of the name ("LIFBench"): the report's
	// section heading, and how messages name the benchmark.
	Title string

	// Generate is gen-context's subcommand; its Name is set from Name.
	Generate app.Command
	// Cells says what a cell of the benchmark's tables is ("length ×
	// task"), and Cell which cell a record counts in, read from fields an
	// item and the requests made from it both carry: --limit N keeps the
	// first N of each cell (limit.go), so a small run fills every cell.
	Cells string
	Cell  func(*record.Record) string
	// Expand turns an item into requests (expand-templates).
	Expand Plug[expand.Factory]
	// Split cuts a reply into one child record per check (split-subtasks);
	// a zero Plug means the records are judged whole and pass through.
	Split Plug[split.Splitter]
	// Judge scores records (judge).
	Judge Plug[judge.Factory]
	// JudgeModes are the judge's --judge modes for its checks when an LLM
	// judges them, judge.ModeLLM first; none when programs score it. The
	// judge program's help and suite.sh's list of judged benchmarks come
	// from them.
	JudgeModes []string
	// JudgePrompts are the --judge-prompt variants of its LLM judge, the
	// default first; none when it has no LLM judge or one prompt.
	JudgePrompts []string
	// Aggregate reduces judged records to the paper's metrics: tidy rows
	// and the tables laid out like the paper's (aggregate-ifs).
	Aggregate aggregate.Factory
	// Tables lay the benchmark's metric rows out as the paper's tables, the
	// models side by side: from judged records, several runs or earlier
	// rows alike (aggregate-ifs).
	Tables aggregate.Tabler
	// Design is the statistics of the metrics: the independent unit a
	// confidence interval resamples and --compare pairs, each record's
	// sufficient statistics and each row's metric from them (aggregate-ifs).
	Design aggregate.Design
	// Importers read official result files: aggregate-ifs --import KIND.
	Importers map[string]aggregate.Importer
	// Figures are the paper's figures drawn from the metric rows of this
	// benchmark (own) beside published models' (reference), for the HTML
	// report; lib/plot draws them.
	Figures func(own, reference []report.Row) []plot.Figure
	// Explore is what the report's item explorer needs to know of the
	// benchmark's records beyond the common fields (lib/explore).
	Explore explore.Hooks
	// Sim answers the benchmark's prompts in llm-sim: its solvers are
	// tried in order, after those of the benchmarks listed before it.
	Sim Plug[[]sim.Solver]
}

// Plug is what a benchmark adds to one program: flags of its own (named as
// the program shows them; a name must not clash with another benchmark's),
// and Open, which reads them from the run, refusing bad values before any
// record is read, and returns the stage's piece. A zero Plug adds nothing.
type Plug[T any] struct {
	Flags []cli.Flag
	Open  func(r *app.Run) (T, error)
}

// Fixed is a Plug without flags whose piece is v.
func Fixed[T any](v T) Plug[T] {
	return Plug[T]{Open: func(*app.Run) (T, error) { return v, nil }}
}

// FilePlug is an expand-templates Plug with one flag, naming a file its
// expander reads (templates): the file is read when the benchmark's first
// item comes, but one that cannot be opened is bad input before any work.
// newExpander gets the file's path, "" without the flag.
func FilePlug(flag *cli.StringFlag, newExpander func(expand.Options, string) (expand.Expander, error)) Plug[expand.Factory] {
	return Plug[expand.Factory]{
		Flags: []cli.Flag{flag},
		Open: func(r *app.Run) (expand.Factory, error) {
			path := r.String(flag.Name)
			if path != "" {
				f, err := os.Open(path)
				if err != nil {
					return nil, err
				}
				f.Close()
			}
			return func(opt expand.Options) (expand.Expander, error) { return newExpander(opt, path) }, nil
		},
	}
}

// Flags are a program's own flags followed by those the benchmarks add to
// it, plug picking each benchmark's Plug. A flag name declared twice (by two
// benchmarks, or by one and the program) is a mistake in the registry,
// caught when the program is built.
func Flags[T any](own []cli.Flag, bs []Bench, plug func(Bench) Plug[T]) []cli.Flag {
	out := slices.Clone(own)
	owner := map[string]string{}
	for _, f := range own {
		for _, n := range f.Names() {
			owner[n] = "the program"
		}
	}
	for _, b := range bs {
		for _, f := range plug(b).Flags {
			for _, n := range f.Names() {
				if o, dup := owner[n]; dup {
					panic(fmt.Sprintf("bench: flag --%s is declared by both %s and %s", n, o, b.Name))
				}
				owner[n] = b.Name
			}
			out = append(out, f)
		}
	}
	return out
}

// Open opens every benchmark's Plug of one program (those that have one),
// keyed by benchmark name.
func Open[T any](r *app.Run, bs []Bench, plug func(Bench) Plug[T]) (map[string]T, error) {
	out := map[string]T{}
	for _, b := range bs {
		p := plug(b)
		if p.Open == nil {
			continue
		}
		v, err := p.Open(r)
		if err != nil {
			return nil, err
		}
		out[b.Name] = v
	}
	return out, nil
}

// Check reports what makes a list of benchmarks unusable: a name missing or
// used twice, a stage missing, an importer kind claimed twice. The
// programs check their list when they are built.
func Check(bs []Bench) error {
	seen := map[string]bool{}
	kinds := map[string]string{}
	for _, b := range bs {
		switch {
		case b.Name == "" || b.Title == "":
			return fmt.Errorf("bench: a benchmark without a name or title (%q, %q)", b.Name, b.Title)
		case seen[b.Name]:
			return fmt.Errorf("bench: %s is listed twice", b.Name)
		case b.Generate.Action == nil || b.Expand.Open == nil || b.Judge.Open == nil || b.Aggregate == nil || b.Tables == nil:
			return fmt.Errorf("bench: %s lacks a generator, expander, scorer, aggregator or tables", b.Name)
		case len(b.JudgePrompts) > 0 && len(b.JudgeModes) == 0:
			return fmt.Errorf("bench: %s has judge prompts but no judge modes (JudgeModes)", b.Name)
		case b.Cell == nil || b.Cells == "":
			return fmt.Errorf("bench: %s does not say what its cells are (Cell, Cells), which --limit needs", b.Name)
		}
		seen[b.Name] = true
		for _, k := range slices.Sorted(maps.Keys(b.Importers)) {
			if o, dup := kinds[k]; dup {
				return fmt.Errorf("bench: --import %s is claimed by both %s and %s", k, o, b.Name)
			}
			kinds[k] = b.Name
		}
	}
	return nil
}

// Hooks are the benchmarks' explorer hooks, by name.
func Hooks(bs []Bench) map[string]explore.Hooks {
	out := map[string]explore.Hooks{}
	for _, b := range bs {
		out[b.Name] = b.Explore
	}
	return out
}

// Sections are the report's parts, one per benchmark with figures, in list
// order.
func Sections(bs []Bench) []plot.Section {
	var out []plot.Section
	for _, b := range bs {
		if b.Figures != nil {
			out = append(out, plot.Section{Bench: b.Name, Title: b.Title, Figures: b.Figures})
		}
	}
	return out
}
