package bench

import (
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/urfave/cli/v2"
)

func toy(name string) Bench {
	return Bench{
		Name: name, Title: strings.ToUpper(name),
		Cells: "task", Cell: CellOf("task"),
		Generate:  app.Command{Action: func(*app.Run) error { return nil }},
		Expand:    Fixed[expand.Factory](nil),
		Judge:     Fixed[judge.Factory](nil),
		Aggregate: func(aggregate.Options) aggregate.Aggregator { return nil },
		Tables:    func([]report.Row, aggregate.TableOptions) []report.Table { return nil },
	}
}

func TestCheck(t *testing.T) {
	a, b := toy("a"), toy("b")
	if err := Check([]Bench{a, b}); err != nil {
		t.Fatal(err)
	}
	noJudge := toy("c")
	noJudge.Judge = Plug[judge.Factory]{}
	a2, b2 := toy("a"), toy("b")
	a2.Importers = map[string]aggregate.Importer{"k": nil}
	b2.Importers = map[string]aggregate.Importer{"k": nil}
	for name, bs := range map[string][]Bench{
		"listed twice": {a, toy("a")},
		"no judge":     {a, noJudge},
		"no name":      {toy("")},
		"one import":   {a2, b2},
	} {
		if err := Check(bs); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFlags(t *testing.T) {
	pick := func(b Bench) Plug[expand.Factory] { return b.Expand }
	with := func(name string, flags ...string) Bench {
		b := toy(name)
		for _, f := range flags {
			b.Expand.Flags = append(b.Expand.Flags, &cli.StringFlag{Name: f})
		}
		return b
	}
	own := []cli.Flag{&cli.BoolFlag{Name: "z"}}
	var names []string
	for _, f := range Flags(own, []Bench{with("a", "x"), with("b", "y")}, pick) {
		names = append(names, f.Names()[0])
	}
	if strings.Join(names, " ") != "z x y" {
		t.Errorf("flags %v, want the program's, then each benchmark's in list order", names)
	}
	for name, bs := range map[string][]Bench{
		"two benchmarks":              {with("a", "x"), with("b", "x")},
		"a benchmark and the program": {with("a", "z")},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("a flag declared twice was accepted")
				}
			}()
			Flags(own, bs, pick)
		})
	}
}
