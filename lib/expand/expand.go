package expand

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
)

// Options are the expand-templates flags every benchmark reads (a
// benchmark's own flags are its business: lib/bench). Pointers are nil when
// the flag was not given, so each benchmark keeps its official defaults.
type Options struct {
	Temperature *float64
	TopP        *float64
	MaxTokens   *int
	Seed        uint64
	// ReasoningBudget is added to every request's max_tokens, after the
	// benchmark (or --max-tokens) set it: room for the trace of a model
	// that thinks before it answers (--reasoning-budget; 0: none).
	ReasoningBudget int
}

// Expander emits the requests for one item.
type Expander interface {
	Expand(item *record.Record, emit func(*record.Record) error) error
}

// Factory builds a benchmark's expander once, on its first item (so template
// files are read once and only when needed).
type Factory func(Options) (Expander, error)

// Run expands every input item. Items that carry "error" pass through.
func Run(r *app.Run, reg map[string]Factory, opt Options) error {
	built := map[string]Expander{}
	return r.FlatMap(func(item *record.Record, emit func(*record.Record) error) error {
		if item.Errored() {
			return emit(item)
		}
		bench := item.String("bench")
		e, ok := built[bench]
		if !ok {
			f, known := reg[bench]
			if !known {
				return app.Invalidf("bench %q: expand-templates knows %s", bench, names(reg))
			}
			var err error
			if e, err = f(opt); err != nil {
				return err
			}
			built[bench] = e
		}
		if n := opt.ReasoningBudget; n > 0 {
			write := emit
			emit = func(rec *record.Record) error {
				if err := addBudget(rec, n); err != nil {
					return err
				}
				return write(rec)
			}
		}
		return e.Expand(item, emit)
	})
}

// addBudget raises a request's max_tokens by n (every request has one: the
// benchmark's) and says so in the record (record.BudgetField). The request's other
// fields keep their bytes: a 455 KB prompt is not decoded.
func addBudget(rec *record.Record, n int) error {
	req, err := record.Object(rec.Raw("request"))
	if err != nil {
		return app.Invalidf("request: %v", err)
	}
	mt, err := strconv.Atoi(string(req.Raw("max_tokens")))
	if err != nil {
		return app.Invalidf("request.max_tokens %s: --reasoning-budget adds to an integer", req.Raw("max_tokens"))
	}
	req.Set("max_tokens", mt+n)
	rec.SetRaw("request", req.AppendJSON(nil))
	return rec.Set(record.BudgetField, n)
}

func names[V any](m map[string]V) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
