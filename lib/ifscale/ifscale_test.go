package ifscale

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/aggregate"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
)

var aggOpts = aggregate.Options{Decimals: 3}

func TestClassify(t *testing.T) {
	cases := []struct {
		text, kw string
		want     Class
	}{
		{"Our ESG score rose.", "ESG", Exact},
		{"a customer-driven plan", "customer", Exact}, // \b sits at the hyphen, as in Python
		{"the customer's view", "customer", Exact},
		{"**growth** was strong", "growth", Exact},
		{"<report>growth</report>", "growth", Exact},
		{"many customers", "customer", Modification},
		{"an investment case", "investor", Modification}, // the prefix "invest" starts "investment"
		{"the inventory", "investor", Omission},
		{"we invested heavily", "investment", Omission}, // prefix "investme" absent
		{"our investments", "investment", Modification},
		{"rois improved", "ROI", Modification}, // short words: the prefix is the whole word
		{"roi2 is a code", "ROI", Omission},    // a digit continues the word: no boundary
		{"the café closed", "caf", Omission},   // Unicode-aware \b: é is a word character
		{"the café closed", "café", Exact},
		{"naïveté", "naïve", Omission},
		{"die Straße wächst", "straße", Exact},
		{"ÉQUITY", "équity", Exact}, // lower-cased text and keyword
		{"equity_fund", "equity", Omission},
		{"", "equity", Omission},
		// str.lower of the official _evaluate_row: Σ ending a word is ς, so
		// an upper-case word matches its lower-case constraint.
		{"ΟΔΟΣ", "οδος", Exact},
		{"ΟΔΟΣ-ΟΔΟΣ", "οδος", Exact},
		{"ΟΔΟΣΑ", "οδος", Omission},
		{"the debt", " debt\x1f", Exact}, // c.strip() of _tokenise_constraints
		{"İnvest", "i̇nvest", Exact},
	}
	for _, c := range cases {
		if got := scan(c.text, c.kw); got != c.want {
			t.Errorf("scan(%q, %q) = %v, want %v", c.text, c.kw, got, c.want)
		}
		if got := NewReply(c.text).Classify(c.kw); got != c.want {
			t.Errorf("NewReply(%q).Classify(%q) = %v, want %v", c.text, c.kw, got, c.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	cases := map[string]string{"roi": "roi", "debt": "deb", "audit": "audi", "investment": "investme", "commercialization": "commercializa", "café": "caf", "esg": "esg"}
	for kw, want := range cases {
		if got := Prefix(kw); got != want {
			t.Errorf("Prefix(%q) = %q, want %q", kw, got, want)
		}
	}
}

func TestRejection(t *testing.T) {
	long := strings.Repeat("word ", 25)
	cases := []struct{ text, want string }{
		{long, ""},
		{"too short to be a report", RejectTooShort},
		{"a,b,c,d,e,f,g,h,i,j", RejectKeywordList},
		{"alpha, beta, gamma, delta, epsilon, zeta, eta, theta, iota, kappa, " + long, ""}, // the last part has spaces
		{"alpha, beta, gamma, delta, epsilon, zeta, eta, theta, iota, kappa", RejectKeywordList},
		{"alpha, beta, gamma, delta, epsilon, zeta, eta, theta, iota", RejectTooShort}, // nine parts
		// call_model in the official util.py: each part must fullmatch
		// [A-Za-z]+, so a list of accented words is not a "cheating list".
		{"café, naïve, résumé, über, façade, jalapeño, piñata, soufflé, crème, brûlée, déjà, fiancé, exposé, entrée, sauté, protégé, doppelgänger, señor, niño, mañana", ""},
		{strings.Repeat("alpha\x1c,", 9) + "alpha\x1c", RejectKeywordList}, // p.strip() removes U+001C
		{strings.Repeat("alpha\u200b,", 9) + "alpha", RejectTooShort},      // U+200B is not whitespace
		{strings.Repeat("w\x1c", 25), ""},                                  // len(content.split()) == 25
		{strings.Repeat("w\u200b ", 10), RejectTooShort},
	}
	for _, c := range cases {
		if got := Rejection(c.text); got != c.want {
			t.Errorf("Rejection(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestSampleOf(t *testing.T) {
	E, M, O := Exact, Modification, Omission
	cases := []struct {
		classes      []Class
		acc, om, mod float64
		recency      float64
	}{
		{[]Class{E, E, E}, 100, 0, 0, math.NaN()},
		{[]Class{O, E, M}, float64(1) / 3 * 100, 50, 50, 1},
		{[]Class{E, E, E, E, E, O}, float64(5) / 6 * 100, 100, 0, math.NaN()},
		{[]Class{O, E, E, E, E, E}, float64(5) / 6 * 100, 100, 0, 0},
		{[]Class{M, E, E, E, O, O}, 50, float64(2) / 3 * 100, float64(1) / 3 * 100, 2},
		// compute_metrics in the official analysis.py: no ratio below three
		// constraints, even where both buckets exist.
		{[]Class{O, E}, 50, 100, 0, math.NaN()},
		{[]Class{O}, 0, 100, 0, math.NaN()},
		{[]Class{O, E, E}, float64(2) / 3 * 100, 100, 0, 0},
	}
	for _, c := range cases {
		s := SampleOf(c.classes)
		if s.Accuracy != c.acc || s.OmissionPct != c.om || s.ModPct != c.mod || !(s.RecencyRatio == c.recency || math.IsNaN(s.RecencyRatio) && math.IsNaN(c.recency)) {
			t.Errorf("SampleOf(%v) = %+v, want acc %v om %v mod %v recency %v", c.classes, s, c.acc, c.om, c.mod, c.recency)
		}
	}
}

func TestGenerate(t *testing.T) {
	var recs []*record.Record
	err := Generate(GenOptions{Densities: []int{10, 20}, Seeds: []int{0, 1}}, func(r *record.Record) error { recs = append(recs, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	kws := func(r *record.Record) []string {
		var it Item
		if err := r.Decode("context", &it); err != nil {
			t.Fatal(err)
		}
		return it.Keywords
	}
	if a, b := kws(recs[0]), kws(recs[1]); len(a) != 10 || !slices.Equal(a, b[:10]) {
		t.Errorf("density 20 does not extend density 10 for seed 0: %v vs %v", a, b)
	}
	if slices.Equal(kws(recs[0]), kws(recs[2])) {
		t.Error("seeds 0 and 1 gave the same list")
	}
	ids := map[string]bool{}
	for _, r := range recs {
		ids[r.ID()] = true
	}
	if len(ids) != 4 {
		t.Errorf("ids are not unique: %v", ids)
	}
}

func TestGenerateNumpyCompat(t *testing.T) {
	vocab := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	var it Item
	err := Generate(GenOptions{Densities: []int{10}, Seeds: []int{0}, Vocab: vocab, VocabName: "test", NumpyCompat: true}, func(r *record.Record) error { return r.Decode("context", &it) })
	if err != nil {
		t.Fatal(err)
	}
	// RandomState(0).permutation(10) = [2, 8, 4, 9, 1, 6, 7, 3, 0, 5]
	want := []string{"a2", "a8", "a4", "a9", "a1", "a6", "a7", "a3", "a0", "a5"}
	if !slices.Equal(it.Keywords, want) {
		t.Errorf("got %v, want %v", it.Keywords, want)
	}
}

func TestGenerateErrors(t *testing.T) {
	emit := func(*record.Record) error { return nil }
	cases := []struct {
		opt  GenOptions
		want string
	}{
		{GenOptions{Densities: []int{501}, Seeds: []int{0}}, "more keywords than the vocabulary"},
		{GenOptions{Densities: []int{3}, Seeds: []int{0}, Vocab: []string{"a", "b"}, VocabName: "tiny"}, "more keywords than the vocabulary tiny has (2 terms)"},
		{GenOptions{Densities: []int{0}, Seeds: []int{0}}, "positive"},
		{GenOptions{Densities: []int{10}}, "at least one"},
	}
	for _, c := range cases {
		err := Generate(c.opt, emit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Generate(%+v) = %v, want an error containing %q", c.opt, err, c.want)
		}
	}
}

func TestDefaultVocab(t *testing.T) {
	v := DefaultVocab()
	if len(v) != 500 {
		t.Fatalf("the embedded vocabulary has %d terms, want 500", len(v))
	}
	if _, err := ParseVocab(strings.NewReader("debt\nDebt\n")); err == nil || !strings.Contains(err.Error(), "repeats") {
		t.Errorf("duplicate terms: got %v", err)
	}
	if _, err := ParseVocab(strings.NewReader("\n\n")); err == nil {
		t.Error("an empty vocabulary was accepted")
	}
}

// A vocabulary saved with a BOM (Notepad, Excel) has the same terms: a BOM
// glued to the first term would make it a word no reply ever contains.
func TestLoadVocabSkipsBOM(t *testing.T) {
	dir := t.TempDir()
	plain, bom := filepath.Join(dir, "plain.txt"), filepath.Join(dir, "bom.txt")
	os.WriteFile(plain, []byte("debt\nESG\nyield\n"), 0o644)
	os.WriteFile(bom, []byte("\xef\xbb\xbfdebt\nESG\nyield\n"), 0o644)
	a, err1 := LoadVocab(plain)
	b, err2 := LoadVocab(bom)
	if err1 != nil || err2 != nil || !slices.Equal(a, b) {
		t.Errorf("LoadVocab: %q (%v) without a BOM, %q (%v) with one", a, err1, b, err2)
	}
}

func TestPromptLayout(t *testing.T) {
	p := Prompt("Write.", []string{"ESG", "debt"})
	want := "Write.\n\n### CONSTRAINTS\n1. Include the exact word: 'ESG'.\n2. Include the exact word: 'debt'.\n"
	if p != want {
		t.Errorf("Prompt = %q, want %q", p, want)
	}
}

func TestExpander(t *testing.T) {
	tmpl := filepath.Join(t.TempDir(), "task.txt")
	os.WriteFile(tmpl, []byte("Write a memo.\n"), 0o644)
	maxTokens := 4000
	cases := []struct {
		opt       expand.Options
		template  string
		prefix    string
		maxTokens int
	}{
		{expand.Options{}, "", strings.TrimRight(defaultTask, "\n"), DefaultMaxTokens},
		{expand.Options{MaxTokens: &maxTokens}, tmpl, "Write a memo.\n\n### CONSTRAINTS\n1. Include the exact word: 'debt'.", 4000},
		// The variant shipped in samples/ for users of --template.
		{expand.Options{}, "../../samples/ifscale/task-memo.txt", "Write an internal strategy memo", DefaultMaxTokens},
	}
	for _, c := range cases {
		e, err := NewExpander(c.opt, c.template)
		if err != nil {
			t.Fatal(err)
		}
		item := record.New("x")
		item.Set("bench", Bench)
		item.Set("context", Item{Keywords: []string{"debt"}})
		var out *record.Record
		if err := e.Expand(item, func(r *record.Record) error { out = r; return nil }); err != nil {
			t.Fatal(err)
		}
		var req expand.ChatRequest
		out.Decode("request", &req)
		if len(req.Messages) != 1 || !strings.HasPrefix(req.Messages[0].Content, c.prefix) {
			t.Errorf("prompt %q, want it to start with %q", req.Messages, c.prefix)
		}
		if req.MaxTokens == nil || *req.MaxTokens != c.maxTokens || req.Temperature != nil {
			t.Errorf("request %+v: want max_tokens %d and no temperature", req, c.maxTokens)
		}
		var g Gold
		out.Decode("gold", &g)
		if !slices.Equal(g.Keywords, []string{"debt"}) {
			t.Errorf("gold %v", g)
		}
	}
	if _, err := NewExpander(expand.Options{}, filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing --template file was accepted")
	}
}

// _tokenise_constraints in the official analysis.py keeps c.strip().lower()
// of each constraint and drops the blank ones (Python's whitespace).
func TestJudgeDropsBlankConstraints(t *testing.T) {
	d := Judge("The DEBT rose; equities fell.", []string{"debt", " \x1c ", "Equity\x1f", ""})
	if d.N != 2 || d.Exact != 1 || d.Modification != 1 || len(d.Keywords) != 2 {
		t.Fatalf("detail %+v", d)
	}
	if k := d.Keywords[1]; k.Position != 2 || k.Class != "modification" {
		t.Errorf("second constraint %+v", k)
	}
}
