package aggregate

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/cost"
	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/stream"
)

// Aggregator accumulates one benchmark's judged records. It sees every record
// of its bench, including those that carry "error" from an earlier stage: it
// must count them (as failed samples) and say how it treated them.
type Aggregator interface {
	Add(rec *record.Record) error
	Result() (*Result, error)
}

// Result is what an aggregator (or an importer of official files) produces:
// the metric rows, and what only the records can tell about them. The
// tables are laid out from the rows (Tabler), so that tables made from
// records, from several runs or from earlier rows (--import rows) are one
// layout with the models side by side.
type Result struct {
	Rows []report.Row
	// Notes go under the tables of the result's benchmark: by table title,
	// "" for every table.
	Notes map[string][]string
	// Counted gives the notes that count the records a table is made from
	// (report.Table.Scope: one mode, one model), asked once per table; nil
	// for none.
	Counted func(scope map[string]string) []string
}

// Note adds a note under the table titled title ("" for every table).
func (res *Result) Note(title, note string) {
	if res.Notes == nil {
		res.Notes = map[string][]string{}
	}
	if !slices.Contains(res.Notes[title], note) {
		res.Notes[title] = append(res.Notes[title], note)
	}
}

// Tabler lays a benchmark's metric rows out as its paper's tables, the
// models of the rows side by side (bench.Bench.Tables). The rows of a model
// with several runs come named apart (report.ApartByRun).
type Tabler func(rows []report.Row, opt TableOptions) []report.Table

// TableOptions are what a Tabler needs besides the rows.
type TableOptions struct {
	Decimals int
	// Failed is the --failed policy the rows were made under; "" when it is
	// not known (rows read with --import rows).
	Failed string
	// Resamples and Seed made the rows' intervals (0: not made now, read
	// back), for the tables' notes.
	Resamples int
	Seed      uint64
}

// Options are the aggregate-ifs flags a benchmark may read.
type Options struct {
	Decimals  int    // digits in tables
	Failed    string // FailedOfficial (also ""), or FailedExclude
	HTML      string // --html: also write the report page here
	Reference string // --reference: metric rows of published models for the page
	Items     string // --items: also write one row per scored record here
	Table     string // --table: the one table --format csv writes
	// ExcludeTruncated leaves out records whose prompt the server cut
	// (--exclude-truncated).
	ExcludeTruncated bool
	// CI is CIBootstrap (also "") or CINone (--ci); CILevel, Bootstrap and
	// Seed set the intervals (--ci-level, --bootstrap, --seed).
	CI        string
	CILevel   float64
	Bootstrap int
	Seed      uint64
	// Compare names the baseline model or run of the paired comparisons
	// (--compare), Correction their adjustment (--correction), Flips where
	// the items whose score changed are written (--flips).
	Compare, Correction, Flips string
	// Price and JudgePrice are the per-token prices the notes cost the
	// replies and the judge's calls at (--price, --judge-price).
	Price, JudgePrice cost.Price
	// HTMLContexts is what the page's item explorer keeps of each long
	// context (--html-contexts: lib/explore).
	HTMLContexts string
}

// Policies for records that failed before they could be scored (--failed).
// Official: what the benchmark's own code does with them (each
// docs/<bench>.md says what that is; mostly a failed record scores 0 on
// everything it would have been scored on). Exclude: leave them out of every
// metric. Either way every row counts them in n_failed.
const (
	FailedOfficial = "official"
	FailedExclude  = "exclude"
)

// ExcludeFailed reports whether failed records are left out of the metrics.
func (o Options) ExcludeFailed() bool { return o.Failed == FailedExclude }

// Factory makes a fresh aggregator.
type Factory func(Options) Aggregator

// Importer reads official result files into a Result (--import KIND FILE...).
type Importer func(files []string, opt Options) (*Result, error)

// Registry lists what each benchmark provides.
type Registry struct {
	Aggregators map[string]Factory
	Importers   map[string]Importer
	Tables      map[string]Tabler
	Designs     map[string]Design
	Titles      map[string]string // the papers' spelling of the benchmarks' names
	// Judged are the benchmarks an LLM judges: a record of one that names
	// no judge (judged before judge_model) is its model's judge's (judges).
	Judged map[string]bool
	// Order is the benchmarks' order in the report (the registry's, as
	// the page's sections); one it does not name comes after, by name.
	Order []string
	// Page makes the HTML report (--html): the figures are the
	// benchmarks', drawn by lib/plot from the rows; its item explorer
	// (lib/explore) holds the records.
	Page func(opt Options) Page
}

// Page is the --html report being made: it is given every record read (a
// record's run is "" for this run's own), then writes the page from the
// rows, the reference rows and the provenance (whose Run is this run's id).
type Page interface {
	Add(rec *record.Record, run string)
	Write(w io.Writer, rows, reference []report.Row, prov *Provenance) error
}

// Formats accepted by --format.
var Formats = []string{"md", "csv", "jsonl", "json", "parquet"}

// Run reads all records, or with importKind the official files named as
// arguments, and writes the report; with rowsPath it also writes the tidy
// rows there, so a pipeline gets tables and rows from one pass over its data.
func Run(r *app.Run, reg Registry, format, importKind, rowsPath string, opt Options) error {
	if err := checkFlags(r, format, importKind, rowsPath, &opt); err != nil {
		return err
	}
	reference, err := readReference(opt.Reference) // before the records: a bad file fails fast
	if err != nil {
		return err
	}
	var page Page
	if opt.HTML != "" && reg.Page != nil {
		page = reg.Page(opt)
	}
	prov := NewProvenance()
	var in *input
	if importKind != "" {
		in, err = readImport(r, reg, importKind, opt)
	} else {
		// Left out of the tables or not, a record read and an item of the
		// page.
		in, err = readRecords(r, reg, opt, func(rec *record.Record, run string) {
			prov.Add(rec, run)
			if page != nil {
				page.Add(rec, run)
			}
		})
	}
	if err != nil {
		return err
	}
	if in.judged != nil {
		prov.nameJudges(in.judged)
	}
	own, err := r.RunID()
	if err != nil {
		return err
	}
	prov.Fill(own, app.Version, r.Created().Format(time.RFC3339))
	rows := in.stamp(own, r.Created())
	if opt.CI != CINone {
		intervals(reg.Designs, rows, in.arms, opt, r.Log.Warn)
	}
	topt := TableOptions{Decimals: opt.Decimals, Failed: opt.Failed, Resamples: opt.Bootstrap, Seed: opt.Seed}
	if importKind != "" {
		topt.Failed, topt.Resamples = "", 0
	}
	out := output{tables: layOut(reg.Tables, reg.Order, rows, in.results, in.runs, in.judges, topt), metrics: rows, rows: rows, items: in.items, reference: reference, page: page, prov: prov}
	if opt.Compare != "" {
		ps, err := pairs(in.arms, opt.Compare)
		if err != nil {
			return err
		}
		cs := compare(reg.Designs, rows, ps, opt)
		out.tables = append(out.tables, comparisonTables(cs, reg, opt)...)
		if opt.Flips != "" {
			if err := writeTable(opt.Flips, flipTable(ps)); err != nil {
				return err
			}
		}
		// The page draws the metrics; the comparisons are rows of their own.
		out.metrics = slices.Clip(rows)
		res := &Result{Rows: comparisonRows(cs, reg.Designs, opt)}
		stamp(res, own, r.Created())
		out.rows = append(out.metrics, res.Rows...)
	}
	return out.write(r, reg, format, rowsPath, opt)
}

// input is what aggregate-ifs read: a result per input run, benchmark and
// judge (runs[i] and judges[i] those of results[i], run "" for this run's
// own), the scored records for --items, the arms the intervals and
// comparisons resample, and the judges of each model's records.
type input struct {
	results []*Result
	runs    []string
	judges  []string
	items   []Scored
	arms    map[armKey]*arm
	judged  *judges
}

// readImport reads official result files (or earlier rows) with the
// importer of kind.
func readImport(r *app.Run, reg Registry, kind string, opt Options) (*input, error) {
	imp, ok := reg.Importers[kind]
	if !ok {
		return nil, app.Usagef("--import %q: want one of %s", kind, strings.Join(keys(reg.Importers), ", "))
	}
	res, err := imp(r.Args().Slice(), opt)
	if err != nil {
		return nil, err
	}
	return &input{results: []*Result{res}, arms: map[armKey]*arm{}}, nil
}

// aggKey is what records are aggregated apart by: run, benchmark and judge.
type aggKey struct{ run, bench, judge string }

// readRecords aggregates the judged records, each run, benchmark and judge
// apart (the judges of a model with several are named apart: judges);
// read is given every record as it is read, left out of the tables or not
// ("" run: this run's own).
func readRecords(r *app.Run, reg Registry, opt Options, read func(rec *record.Record, run string)) (*input, error) {
	in := &input{arms: map[armKey]*arm{}, judged: newJudges(reg.Judged)}
	aggs := map[aggKey]Aggregator{}
	seen := map[aggKey]*marks{}
	take := func(rec *record.Record, k aggKey) error {
		// The aggregator is made before the record can be left out, so
		// that a bench whose every record is left out still has its
		// tables, saying why they are empty.
		a, ok := aggs[k]
		if !ok {
			f := reg.Aggregators[k.bench]
			a = f(opt)
			aggs[k] = a
			seen[k] = newMarks(f, opt)
		}
		if seen[k].add(rec) {
			return nil
		}
		if opt.Items != "" {
			s := ScoredOf(rec, k.run)
			s.Judge = k.judge // a held record's, resolved
			in.items = append(in.items, s)
		}
		if err := a.Add(rec); err != nil {
			return app.Invalid(err)
		}
		if opt.CI != CINone || opt.Compare != "" {
			return in.addToArm(reg.Designs[k.bench], rec, k, opt)
		}
		return nil
	}
	err := r.Records(func(rec *record.Record) error {
		bench := rec.String("bench")
		if _, known := reg.Aggregators[bench]; !known {
			return app.Invalidf("bench %q has no aggregator (known: %s)", bench, strings.Join(keys(reg.Aggregators), ", "))
		}
		// Records of two runs (partitioned folders with their own run id)
		// are never pooled: each run is aggregated apart.
		run := r.InputRun()
		read(rec, run)
		file, line := r.Place()
		if in.judged.add(rec, run, file, line) {
			return nil
		}
		return take(rec, aggKey{run, bench, JudgeOf(rec)})
	})
	if err != nil {
		return nil, err
	}
	if err := in.judged.resolve(); err != nil {
		return nil, err
	}
	for _, h := range in.judged.held {
		if err := take(h.rec, aggKey{h.run, h.rec.String("bench"), h.judge}); err != nil {
			return nil, h.fail(err)
		}
	}
	in.judged.held = nil
	ks := slices.Collect(maps.Keys(aggs))
	slices.SortFunc(ks, func(a, b aggKey) int {
		return cmp.Or(strings.Compare(a.run, b.run), strings.Compare(a.bench, b.bench), strings.Compare(a.judge, b.judge))
	})
	for _, k := range ks {
		res, err := aggs[k].Result()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.bench, err)
		}
		seen[k].mark(res, opt)
		if c := seen[k].cut; c.excluded && c.allCut() && len(res.Rows) == 0 {
			r.Log.Warn("every record was left out (--exclude-truncated): the server cut every prompt; no table", "bench", k.bench, "records", len(c.sent))
		}
		in.judged.name(res, k)
		in.results = append(in.results, res)
		in.runs = append(in.runs, k.run)
		in.judges = append(in.judges, k.judge)
	}
	in.judged.nameArms(in.arms)
	for i := range in.items {
		it := &in.items[i]
		it.Model = in.judged.label(it.Bench, it.Model, it.Run, it.Judge)
	}
	return in, nil
}

// addToArm adds a record to its model's arm (of its run, benchmark and
// judge) as the benchmark's design resamples it; a benchmark without a
// design has none.
func (in *input) addToArm(d Design, rec *record.Record, ak aggKey, opt Options) error {
	if d.Item == nil {
		return nil
	}
	it, ok, err := d.Item(rec, opt)
	if err != nil {
		return app.Invalid(err)
	}
	if !ok {
		return nil
	}
	k := armKey{ak.run, ak.bench, ModelOf(rec), ak.judge}
	if in.arms[k] == nil {
		in.arms[k] = &arm{run: k.run, bench: k.bench, model: k.model}
	}
	ai := armItem{id: rec.ID(), Item: it}
	if opt.Flips != "" {
		s := ScoredOf(rec, ak.run)
		s.Judge = ak.judge
		ai.scored = &s
	}
	in.arms[k].items = append(in.arms[k].items, ai)
	return nil
}

// stamp gives every result's rows their provenance (own is this run's id,
// for the records of no input run), names the arms' and items' runs as the
// rows do, and returns the rows.
func (in *input) stamp(own string, created time.Time) []report.Row {
	var rows []report.Row
	for i, res := range in.results {
		run := own
		if i < len(in.runs) && in.runs[i] != "" {
			run = in.runs[i]
		}
		stamp(res, run, created)
		rows = append(rows, res.Rows...)
		if i < len(in.runs) {
			in.runs[i] = run
		}
	}
	for k, a := range in.arms {
		if k.run == "" {
			delete(in.arms, k)
			k.run, a.run = own, own
			in.arms[k] = a
			for _, it := range a.items {
				if it.scored != nil {
					it.scored.Run = own
				}
			}
		}
	}
	for i := range in.items {
		if in.items[i].Run == "" {
			in.items[i].Run = own
		}
	}
	// One row per record in id order, whatever order the records came in.
	slices.SortFunc(in.items, func(a, b Scored) int {
		return cmp.Or(strings.Compare(a.Run, b.Run), strings.Compare(a.Bench, b.Bench), strings.Compare(a.ID, b.ID), strings.Compare(a.Model, b.Model))
	})
	return rows
}

// output is what aggregate-ifs writes: the tables, every row (comparisons
// included), the metric rows the page draws, the scored records, the
// published rows drawn beside them, the page (with --html) and where the
// data came from.
type output struct {
	tables        []report.Table
	rows, metrics []report.Row
	items         []Scored
	reference     []report.Row
	page          Page
	prov          *Provenance
}

func (o output) write(r *app.Run, reg Registry, format, rowsPath string, opt Options) error {
	if rowsPath != "" {
		if err := writeRows(rowsPath, o.rows); err != nil {
			return err
		}
	}
	if opt.HTML != "" {
		if err := writePage(o.page, opt.HTML, o.metrics, o.reference, o.prov); err != nil {
			return err
		}
	}
	if opt.Items != "" {
		if err := writeTable(opt.Items, itemTable(o.items)); err != nil {
			return err
		}
	}
	w := r.TextWriter()
	switch {
	case r.OutputDir() != "":
		return writeCSVFolder(r.OutputDir(), o.tables)
	case opt.Table != "":
		return writeOneTable(r, w, o.tables, opt.Table)
	}
	switch format {
	case "parquet":
		return report.WriteParquet(r.BinaryWriter(), report.MetricTable(o.rows))
	case "md":
		// Where the data came from first, as the page shows it.
		tables := o.tables
		if t := o.prov.Table(o.metrics); len(t.Rows) > 0 {
			tables = append([]report.Table{t}, tables...)
		}
		return report.WriteMarkdown(w, tables)
	case "csv":
		return report.WriteCSV(w, o.tables)
	case "jsonl":
		return report.WriteJSONL(w, o.rows)
	default:
		return report.WriteJSON(w, o.rows, o.tables)
	}
}

func writeRows(path string, rows []report.Row) error {
	o, err := stream.Create(path, stream.ByExtension(path), nil)
	if err != nil {
		return err
	}
	if err := report.WriteJSONL(o, rows); err != nil {
		o.Abandon()
		return err
	}
	return o.Close()
}

// SimulatorNote is added to every table built from llm-sim replies.
const SimulatorNote = "These replies came from llm-sim, a test double: the numbers describe the simulator, not a model."

// fromSimulator reports whether llm-sim answered the record (its
// system_fingerprint).
func fromSimulator(rec *record.Record) bool {
	if !rec.Has("response") {
		return false
	}
	var resp struct {
		Fingerprint string `json:"system_fingerprint"`
	}
	return rec.Decode("response", &resp) == nil && resp.Fingerprint == sim.Fingerprint
}

// truncation counts one benchmark's records whose prompt the server cut
// (ServerTruncated): their replies answer a shorter prompt than the
// benchmark's, so every table of the benchmark says how many there were and
// whether they are in it, among the records the table is made from
// (report.Table.Scope: a per-mode table counts its own). It also says how
// well the others were checked (CutCheck): where a cut could not have been
// seen, every table's note and every row's cut_check say "cuts not checked"
// or "cuts under N % not detectable", never a plain count of none. A table
// whose records were all checked exactly and none cut says nothing. The
// children split-subtasks makes of one reply count once, as their parent:
// the count is of prompts sent.
type truncation struct {
	sent     map[string]*sent
	excluded bool
}

// sent is what a table's note needs of one prompt sent.
type sent struct {
	model  string
	group  map[string]string
	cut    bool
	check  cuts.Check // "" when the record has no reply
	margin float64
}

func newTruncation(excluded bool) *truncation {
	return &truncation{sent: map[string]*sent{}, excluded: excluded}
}

// add counts a record and reports whether it is to be left out.
func (t *truncation) add(rec *record.Record) bool {
	id := sentKey(rec)
	s := t.sent[id]
	if s == nil {
		s = &sent{model: ModelOf(rec)}
		rec.Decode("group", &s.group)
		s.check, s.margin = CutCheck(rec)
		t.sent[id] = s
	}
	if !ServerTruncated(rec) {
		return false
	}
	s.cut = true
	return t.excluded
}

// in reports whether a prompt is among a table's records.
func (s *sent) in(scope map[string]string) bool {
	for k, v := range scope {
		if k == "model" && s.model != v || k != "model" && s.group[k] != v {
			return false
		}
	}
	return true
}

// checks sums up the prompts in scope: how many, how many cut, and of the
// replies not found cut, how many were not checked and how many only
// against a calibrated margin (the widest of which is margin).
type checks struct {
	n, replies, cut, unchecked, calibrated int
	margin                                 float64
}

func (t *truncation) count(scope map[string]string) checks {
	var c checks
	for _, s := range t.sent {
		if !s.in(scope) {
			continue
		}
		c.n++
		if s.check != "" || s.cut {
			c.replies++
		}
		switch {
		case s.cut:
			c.cut++
		case s.check == cuts.Unchecked:
			c.unchecked++
		case s.check == cuts.Calibrated:
			c.calibrated++
			c.margin = max(c.margin, s.margin)
		}
	}
	return c
}

// label is what a row says of the checks (report.Row.CutCheck).
func (c checks) label() string {
	switch {
	case c.unchecked > 0:
		return "cuts not checked"
	case c.calibrated > 0:
		return fmt.Sprintf("cuts under %.0f %% not detectable", math.Ceil(100*c.margin))
	case c.replies > 0:
		return string(cuts.Exact)
	}
	return ""
}

// mark says, on every row, how well its model's records were checked, and
// has each table count the cuts among its own records (notes).
func (t *truncation) mark(res *Result) {
	res.Counted = t.notes
	for i := range res.Rows {
		res.Rows[i].CutCheck = t.count(map[string]string{"model": res.Rows[i].Model}).label()
	}
}

// notes are what a table made from the records in scope says of their cuts.
func (t *truncation) notes(scope map[string]string) []string {
	var out []string
	c := t.count(scope)
	if c.cut > 0 {
		note := fmt.Sprintf("Server-truncated: %d of %d records had their prompt cut by the server (response.server_truncated); ", c.cut, c.n)
		if t.excluded {
			note += "they are left out of this table (--exclude-truncated)."
		} else {
			note += "they are counted here as answered, though they answer a shorter prompt (--exclude-truncated leaves them out)."
		}
		out = append(out, note)
	}
	switch {
	case c.unchecked > 0:
		out = append(out, fmt.Sprintf("Server-truncated: cuts not checked on %d of %d records (the server reported no usage, or infer-batch's estimate of the prompts was not calibrated against its counts): a prompt cut by less than a quarter may be among them; infer-batch's summary says how to check exactly.", c.unchecked, c.n))
	case c.calibrated > 0:
		out = append(out, fmt.Sprintf("Server-truncated: cuts under %.0f %% of a prompt not detectable on %d of %d records (infer-batch's estimate, calibrated against the server's counts); an exact count (--tokenizer server, or the model's tokenizer.json) detects any.", math.Ceil(100*c.margin), c.calibrated, c.n))
	}
	return out
}

// allCut reports whether the server cut every prompt sent.
func (t *truncation) allCut() bool {
	for _, s := range t.sent {
		if !s.cut {
			return false
		}
	}
	return len(t.sent) > 0
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// inOrder are m's keys, those order names first and in its order, the
// others after them by name.
func inOrder[V any](order []string, m map[string]V) []string {
	var ks []string
	for _, k := range order {
		if _, ok := m[k]; ok {
			ks = append(ks, k)
		}
	}
	for _, k := range keys(m) {
		if !slices.Contains(order, k) {
			ks = append(ks, k)
		}
	}
	return ks
}

func keys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// checkFlags refuses, before any record is read, flag values and
// combinations that cannot work; it fills the --failed default.
func checkFlags(r *app.Run, format, importKind, rowsPath string, opt *Options) error {
	if !contains(Formats, format) {
		return app.Usagef("--format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	if r.IsSet("html-contexts") && opt.HTML == "" {
		return app.Usagef("--html-contexts shapes the --html page's item explorer: give --html FILE too")
	}
	if opt.Reference != "" && opt.HTML == "" {
		return app.Usagef("--reference draws published models in the --html figures: give --html FILE too")
	}
	if err := checkCI(opt); err != nil {
		return err
	}
	if opt.Decimals < 0 || opt.Decimals > 12 {
		return app.Usagef("--decimals %d: want 0 to 12", opt.Decimals)
	}
	if err := choose("failed", &opt.Failed, FailedOfficial, FailedExclude); err != nil {
		return err
	}
	if r.OutputDir() != "" && format != "csv" {
		return app.Usagef("-o %s/ writes one CSV file per table: it goes with --format csv (for --format %s give -o FILE)", r.OutputDir(), format)
	}
	if opt.Table != "" && (format != "csv" || r.OutputDir() != "") {
		return app.Usagef("--table picks the one table of --format csv -o FILE (or stdout)")
	}
	if format == "parquet" && r.BinaryToTerminal() {
		return app.Usagef("--format parquet writes a binary file: give -o FILE.parquet (or redirect stdout)")
	}
	if err := r.ClaimFile("rows", rowsPath); err != nil {
		return err
	}
	if err := r.ClaimFile("items", opt.Items); err != nil {
		return err
	}
	if err := r.ClaimFile("html", opt.HTML); err != nil {
		return err
	}
	if opt.Items != "" && importKind != "" {
		return app.Usagef("--items writes the scored records: official result files (--import) have none")
	}
	if err := choose("correction", &opt.Correction, CorrectionHolm, CorrectionBH); err != nil {
		return err
	}
	if opt.Flips != "" && opt.Compare == "" {
		return app.Usagef("--flips lists the items whose score changed between the models --compare compares: give --compare MODEL too")
	}
	if opt.Compare != "" && importKind != "" {
		return app.Usagef("--compare pairs the models' answers item by item: it needs judged records, not --import %s", importKind)
	}
	if err := r.ClaimFile("flips", opt.Flips); err != nil {
		return err
	}
	return nil
}

// choose fills an unset flag whose value is one of want with its default,
// the first, and refuses any other value.
func choose(flag string, v *string, want ...string) error {
	switch {
	case *v == "":
		*v = want[0]
	case !slices.Contains(want, *v):
		return app.Usagef("--%s %q: want %s (the default) or %s", flag, *v, want[0], strings.Join(want[1:], " or "))
	}
	return nil
}
