package expand

import (
	"sort"
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
		return e.Expand(item, emit)
	})
}

func names[V any](m map[string]V) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
