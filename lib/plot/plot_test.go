package plot_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/benches"
	"github.com/ifkit/ifkit/lib/lifbench"
	"github.com/ifkit/ifkit/lib/plot"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/stream"
)

var sections = bench.Sections(benches.All)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current figures")

// rows.jsonl holds the metric rows of `make demo` (both simulated models,
// all five benchmarks); reference.jsonl stands for published rows
// (a renamed, rescaled copy: only the format matters here).
func readRows(t *testing.T, name string) []report.Row {
	t.Helper()
	in, err := stream.Open(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rows, err := report.ReadRows(in)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Items are the figures issue 14 asks for, one per item.
var items = []string{
	"lifbench-ars-length", "lifbench-ars-task", "lifbench-ifp", "lifbench-ifs",
	"ifscale-accuracy", "ifscale-errors", "ifscale-primacy",
	"longins-f1-length", "longins-depth-heat",
	"longgenbench-cr-stic", "longgenbench-position", "longgenbench-check-type",
	"eifbench-levels", "eifbench-sub-instructions", "eifbench-constraints",
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lib/plot -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("figure data differs from %s (if the change is meant, rerun with -update and review the diff)", path)
	}
}

func TestFigureData(t *testing.T) {
	figs := plot.Build(readRows(t, "rows.jsonl"), readRows(t, "reference.jsonl"), sections)
	var ids []string
	for _, f := range figs {
		ids = append(ids, f.ID)
	}
	if strings.Join(ids, " ") != strings.Join(items, " ") {
		t.Errorf("figures %v, want %v", ids, items)
	}
	b, err := json.MarshalIndent(figs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "figures.golden.json", append(b, '\n'))
}

// withNums gives every row the numeric dimensions the metric-row schema
// writes (as branch i15-official's aggregators will), computed from its
// string dims in the units the schema uses.
func withNums(rows []report.Row) []report.Row {
	out := make([]report.Row, len(rows))
	for i, r := range rows {
		r.Nums = map[string]float64{}
		set := func(key string, v float64, ok bool) {
			if ok {
				r.Nums[key] = v
			}
		}
		switch r.Bench {
		case "lifbench":
			if ls, err := lifbench.ParseLengths(r.Dims["length"]); err == nil && len(ls) == 1 {
				set("length_tokens", float64(ls[0].Tokens), true)
			}
		case "longins":
			v, ok := plot.Atof(r.Dims["length"])
			set("length_tokens", v, ok)
			v, ok = plot.Atof(r.Dims["depth"])
			set("depth", v, ok)
		case "ifscale":
			v, ok := plot.Atof(r.Dims["density"])
			set("density", v, ok)
		case "longgenbench":
			// the middle of the bucket "10-20%", as a fraction of the output
			lo, hi, ok := strings.Cut(strings.TrimSuffix(r.Dims["position"], "%"), "-")
			a, okA := plot.Atof(lo)
			b, okB := plot.Atof(hi)
			set("position", (a+b)/200, ok && okA && okB)
		}
		out[i] = r
	}
	return out
}

func TestNumsGiveTheSameFigures(t *testing.T) {
	rows := readRows(t, "rows.jsonl")
	want, _ := json.Marshal(plot.Build(rows, nil, sections))
	got, _ := json.Marshal(plot.Build(withNums(rows), nil, sections))
	if !bytes.Equal(got, want) {
		t.Error("figures from Row.Nums differ from figures from the string dims")
	}
}

func page(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := plot.WriteHTML(&b, readRows(t, "rows.jsonl"), readRows(t, "reference.jsonl"), sections, plot.Page{Reference: "reference.jsonl", Decimals: 3}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var figureRe = regexp.MustCompile(`(?s)<figure id="([^"]+)" data-item="[^"]+">(.*?)</figure>`)

func TestHTMLStructure(t *testing.T) {
	doc := string(page(t))
	for _, bad := range []string{"://", "<script", "@import", "url(", "<link", "<img", "<iframe"} {
		if i := strings.Index(doc, bad); i >= 0 {
			t.Errorf("page has %q (it must load nothing): …%s…", bad, doc[max(0, i-60):min(len(doc), i+60)])
		}
	}
	got := map[string]string{}
	for _, m := range figureRe.FindAllStringSubmatch(doc, -1) {
		if _, dup := got[m[1]]; dup {
			t.Errorf("figure %s appears twice", m[1])
		}
		got[m[1]] = m[2]
	}
	for i, id := range items {
		body, ok := got[id]
		if !ok {
			t.Errorf("no figure %s", id)
			continue
		}
		for _, want := range []string{"<svg", "</svg>", "<figcaption><strong>Figure " + strconv.Itoa(i+1) + ".", "n = ", " failed, ", " cut by the server", "Replies from llm-sim", "<table>", "</table>"} {
			if !strings.Contains(body, want) {
				t.Errorf("figure %s has no %q", id, want)
			}
		}
	}
	if len(got) != len(items) {
		t.Errorf("%d figures, want %d", len(got), len(items))
	}
	// Published rows are drawn (and listed) in the figures of their benchmarks only.
	for id, body := range got {
		has := strings.Contains(body, "published-model (published)")
		if want := strings.HasPrefix(id, "lifbench") || strings.HasPrefix(id, "ifscale"); has != want {
			t.Errorf("figure %s: published series present = %v, want %v", id, has, want)
		}
	}
}

// The same rows give the same page, byte for byte: reports diff cleanly.
func TestHTMLDeterministic(t *testing.T) {
	if !bytes.Equal(page(t), page(t)) {
		t.Error("two pages from the same rows differ")
	}
}

func TestEmptyPage(t *testing.T) {
	var b bytes.Buffer
	if err := plot.WriteHTML(&b, nil, nil, sections, plot.Page{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "nothing to draw") {
		t.Errorf("empty page does not say so:\n%s", b.String())
	}
}

// The README's figure (docs/figures/ifscale-accuracy.svg) is drawn from the
// IFScale rows of `make demo` (demo-rows.jsonl.zst, with their confidence
// intervals); -update redraws it.
func TestREADMEFigure(t *testing.T) {
	for _, f := range plot.Build(readRows(t, "demo-rows.jsonl.zst"), nil, sections) {
		if f.ID != "ifscale-accuracy" {
			continue
		}
		svg, err := plot.Document(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.Contains(svg, []byte(`xmlns="http://www.w3.org/2000/svg"`)) {
			t.Error("a standalone SVG needs its prolog and namespace")
		}
		path := filepath.Join("..", "..", "docs", "figures", "ifscale-accuracy.svg")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, svg, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(svg, want) {
			t.Errorf("%s is not the current drawing of the demo's IFScale rows (rerun with -update): %v", path, err)
		}
		return
	}
	t.Fatal("no ifscale-accuracy figure")
}

func TestRoundTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 500, "0 100 200 300 400 500"},
		{0, 100, "0 20 40 60 80 100"},
		{0, 700, "0 200 400 600"},
	} {
		var labels []string
		for _, tk := range plot.RoundTicks(tc.lo, tc.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("plot.RoundTicks(%v, %v) labels %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// Model names are text everywhere: in the SVG, the captions and the tables.
func TestHTMLEscapesNames(t *testing.T) {
	rows := []report.Row{{Bench: "ifscale", Model: `<b>m&"x</b>`, Metric: "accuracy", Dims: map[string]string{"density": "10"}, Value: 90, N: 2}}
	var b bytes.Buffer
	if err := plot.WriteHTML(&b, rows, nil, sections, plot.Page{Decimals: 1}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<b>m") {
		t.Error("a model name was written as markup")
	}
	if !strings.Contains(b.String(), "&lt;b&gt;m&amp;") {
		t.Error("the escaped model name is missing")
	}
}

// testdata/schema-rows.jsonl.zst is what aggregate-ifs writes today for the
// demo's sim-strong run of each benchmark (rows in the one schema: numeric
// dimensions in Nums, LongGenBench's rows per check type without a position,
// its tenths labelled by position_range). rows.jsonl predates that schema, so
// it alone cannot show a figure the current rows leave empty.
func TestSchemaRowsDrawEveryFigure(t *testing.T) {
	figs := plot.Build(readRows(t, "schema-rows.jsonl.zst"), nil, sections)
	var ids []string
	for _, f := range figs {
		ids = append(ids, f.ID)
		if !plot.HasData(f) {
			t.Errorf("%s: nothing to draw from the aggregators' rows", f.ID)
		}
		if f.ID != "longgenbench-position" {
			continue
		}
		labels := map[string]bool{}
		for _, p := range f.Panels[0].Series[0].Points {
			labels[p.Label] = true
		}
		if len(labels) != 10 || labels[""] {
			t.Errorf("%s: point labels %v, want the ten position_range labels", f.ID, labels)
		}
	}
	if strings.Join(ids, " ") != strings.Join(items, " ") {
		t.Errorf("figures %v, want %v", ids, items)
	}
}

// Two runs of one model (a lake read whole) are two series, each with its
// own run's n, not both runs' points on one line with their n summed.
func TestRunsOfOneModelApart(t *testing.T) {
	one := readRows(t, "schema-rows.jsonl.zst")
	two := slices.Clone(one)
	for _, r := range one {
		r.Run = "other"
		two = append(two, r)
	}
	single, double := plot.Build(one, nil, sections), plot.Build(two, nil, sections)
	for i, f := range double {
		if got, want := len(f.Counts), 2*len(single[i].Counts); got != want {
			t.Errorf("%s: %d counts, want %d", f.ID, got, want)
		}
		for j, c := range f.Counts {
			if c.N != single[i].Counts[j%len(single[i].Counts)].N {
				t.Errorf("%s: %s n = %d, want one run's %d", f.ID, c.Model, c.N, single[i].Counts[0].N)
			}
		}
		for p := range f.Panels {
			if f.Panels[p].Heat != nil {
				continue
			}
			if got, want := len(f.Panels[p].Series), 2*len(single[i].Panels[p].Series); got != want {
				t.Errorf("%s panel %d: %d series, want %d", f.ID, p, got, want)
			}
		}
	}
}

var tableRe = regexp.MustCompile(`(?s)<table>(.*?)</table>`)

// Each line panel's table has a row per x value. Rows in the one schema
// carry some x values only as numbers (EifBench's sub_instructions and
// constraints_per_sub), and points without a label once fell into one row
// with an empty label.
func TestLineTablesHaveARowPerX(t *testing.T) {
	rows := readRows(t, "schema-rows.jsonl.zst")
	var b bytes.Buffer
	if err := plot.WriteHTML(&b, rows, nil, sections, plot.Page{Decimals: 3}); err != nil {
		t.Fatal(err)
	}
	bodies := map[string]string{}
	for _, m := range figureRe.FindAllStringSubmatch(b.String(), -1) {
		bodies[m[1]] = m[2]
	}
	for _, f := range plot.Build(rows, nil, sections) {
		if f.Panels[0].Kind != "lines" {
			continue
		}
		tables := tableRe.FindAllStringSubmatch(bodies[f.ID], -1)
		if len(tables) != len(f.Panels) {
			t.Errorf("%s: %d tables for %d panels", f.ID, len(tables), len(f.Panels))
			continue
		}
		for i, p := range f.Panels {
			xs := map[float64]bool{}
			for _, s := range p.Series {
				for _, pt := range s.Points {
					xs[pt.X] = true
				}
			}
			got := strings.Count(tables[i][1], `<tr><td class="s">`)
			if got != len(xs) || strings.Contains(tables[i][1], `<td class="s"></td>`) {
				t.Errorf("%s panel %d: %d table rows (empty label: %v), want one per x (%d)", f.ID, i, got, strings.Contains(tables[i][1], `<td class="s"></td>`), len(xs))
			}
		}
	}
}

// A caption counts the prompts the server cut, and where a cut could not
// have been seen it says so (the weakest check among the model's rows),
// never "0 cut by the server".
func TestCaptionSaysWhatWasChecked(t *testing.T) {
	rows := func(checks ...string) []report.Row {
		var out []report.Row
		for i, c := range checks {
			out = append(out, report.Row{Model: "m", Metric: "x", N: 10, NTruncated: i, CutCheck: c})
		}
		return out
	}
	all := func(report.Row) bool { return true }
	for _, tc := range []struct {
		rows []report.Row
		want string
	}{
		{rows("exact", "exact"), "1 cut by the server"},
		{rows("exact", "cuts under 4 % not detectable", "cuts under 12 % not detectable"), "3 cut by the server (cuts under 12 % not detectable)"},
		{rows("cuts not checked"), "cuts not checked"},
		{rows("cuts under 4 % not detectable", "cuts not checked"), "1 cut by the server (cuts not checked)"},
		{rows(""), "0 cut by the server"}, // rows from before the column: as they said
	} {
		c := plot.Tally(tc.rows, nil, all, nil)
		got := plot.Caption(plot.Figure{Measured: "x", NUnit: "items", Counts: c})
		if !strings.Contains(got, "n = ") || !strings.Contains(got, ", "+tc.want+".") {
			t.Errorf("%v: caption %q, want %q", tc.rows, got, tc.want)
		}
		if tc.want == "cuts not checked" && strings.Contains(got, "0 cut") {
			t.Errorf("caption %q claims 0 cut", got)
		}
	}
}
