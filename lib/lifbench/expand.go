package lifbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/expand"
	"github.com/ifkit/ifkit/lib/record"
)

// Expander turns a context item into one request per task × expression ×
// variable.
type Expander struct {
	tpl *Templates
	opt expand.Options
	// note is added to every request's source: the official templates it
	// was made with (--templates DIR).
	note string
}

// NewExpander is the expand-templates expander of the embedded templates,
// or of a templates file (--templates FILE, the official tasks.json layout).
func NewExpander(opt expand.Options, templates string) (expand.Expander, error) {
	tpl := EmbeddedTemplates()
	if templates != "" {
		var err error
		if tpl, err = LoadTemplates(templates); err != nil {
			return nil, err
		}
	}
	return &Expander{tpl: tpl, opt: opt}, nil
}

// Gold is what the scorer needs besides the prompt and the reply: the
// official record's param and label, and where the context sits in the prompt.
type Gold struct {
	Scenario   string          `json:"scenario"`
	Param      Param           `json:"param"`
	Label      json.RawMessage `json:"label"`
	InputStart string          `json:"input_start"`
	InputEnd   string          `json:"input_end"`
	Templates  string          `json:"templates"`
}

// Param is the official "param" of every task (each uses some fields).
type Param struct {
	Num      int      `json:"num,omitempty"`
	Sep      string   `json:"sep,omitempty"`
	Type     string   `json:"type,omitempty"`
	Evidence string   `json:"evidence,omitempty"`
	Options  []string `json:"options,omitempty"`

	ID          int      `json:"id,omitempty"`
	OrdID       string   `json:"ordid,omitempty"`
	Element     string   `json:"element,omitempty"`
	PreElement  string   `json:"pre_element,omitempty"`
	PostElement string   `json:"post_element,omitempty"`
	Bias        int      `json:"bias,omitempty"`
	IDArr       []int    `json:"id_arr,omitempty"`
	Elements    []string `json:"elements,omitempty"`

	InfoText string                 `json:"info_text,omitempty"`
	InfoKeys string                 `json:"info_keys,omitempty"`
	Example  string                 `json:"example,omitempty"`
	DupIdxs  [][]int                `json:"dup_idxs,omitempty"`
	DupInfos [][]map[string]*string `json:"dup_infos,omitempty"`

	RuleKey    string     `json:"rule_key,omitempty"`
	Candidates []string   `json:"candidates,omitempty"`
	Rules      string     `json:"rules,omitempty"`
	DocKeys    [][]string `json:"doc_keys,omitempty"`
}

// Expand emits the requests for one context item.
func (e *Expander) Expand(item *record.Record, emit func(*record.Record) error) error {
	var c Context
	if !item.Has("context") {
		return app.Invalidf("no \"context\" (expand-templates lifbench reads gen-context lifbench items)")
	}
	if err := item.Decode("context", &c); err != nil {
		return app.Invalidf("context: %v", err)
	}
	if err := c.check(); err != nil {
		return app.Invalidf("%v", err)
	}
	var group map[string]string
	if item.Has("group") {
		if err := item.Decode("group", &group); err != nil {
			return app.Invalidf("group: %v", err)
		}
	}
	base := item.Clone()
	base.Delete("context")
	if e.note != "" {
		if err := bench.AddToSource(base, e.note); err != nil {
			return err
		}
	}
	ctxEsc := record.Quote(c.Text)
	ctxEsc = ctxEsc[1 : len(ctxEsc)-1]
	n := 0
	for _, task := range TasksOf(c.Scenario) {
		tt, sc, ok := e.tpl.Task(task)
		if !ok {
			continue
		}
		vars, err := e.variables(task, tt, &c)
		if err != nil {
			return app.Invalidf("%s: %v", task.Name, err)
		}
		start, end := sc.Markers()
		for ins, in := range tt.Instructions {
			for vi, v := range vars {
				v = maps.Clone(v)
				if in.Bias != 0 {
					v["bias"] = in.Bias
				}
				text, err := pyFormat(in.Text, v)
				if err != nil {
					return app.Invalidf("%s expression %d: %v", task.Name, ins, err)
				}
				rec := base.Clone()
				rec.SetID(fmt.Sprintf("%s/%s/e%d/v%d", item.ID(), task.Name, ins, vi))
				rec.Set("task", task.Name)
				g := make(map[string]string, len(group)+4)
				maps.Copy(g, group)
				g["scenario"], g["length"] = c.Scenario, c.Length
				g["expression"], g["variable"] = strconv.Itoa(ins), strconv.Itoa(vi)
				rec.Set("group", g)
				rec.SetRaw("request", e.request(task, sc, ctxEsc, text))
				gold := map[string]any{"scenario": c.Scenario, "param": v, "input_start": start, "input_end": end, "templates": e.tpl.Name}
				if c.Scenario == OneDoc {
					gold["label"] = c.Label
				} else {
					gold["label"] = c.count()
				}
				if err := rec.Set("gold", gold); err != nil {
					return err
				}
				if err := emit(rec); err != nil {
					return err
				}
				n++
			}
		}
	}
	if n == 0 {
		return app.Invalidf("the templates (%s) have no task for scenario %q", e.tpl.Name, c.Scenario)
	}
	return nil
}

// request builds the request body as raw JSON, splicing the context's
// escaped text (escaped once per item) into the prompt.
func (e *Expander) request(task *Task, sc *ScenarioTemplates, ctxEsc []byte, instruction string) []byte {
	d := sc.Description
	i := strings.Index(d, "{input}")
	before, after := d[:i], strings.ReplaceAll(d[i+len("{input}"):], "{instruction}", instruction)
	b := make([]byte, 0, len(ctxEsc)+len(d)+len(instruction)+128)
	b = append(b, `{"messages":[{"role":"user","content":`...)
	q := record.Quote(before)
	b = append(b, q[:len(q)-1]...)
	b = append(b, ctxEsc...)
	q = record.Quote(after)
	b = append(b, q[1:]...)
	b = append(b, `}],"max_tokens":`...)
	mt := task.MaxTokens
	if e.opt.MaxTokens != nil {
		mt = *e.opt.MaxTokens
	}
	b = strconv.AppendInt(b, int64(mt), 10)
	temp := 0.0
	if e.opt.Temperature != nil {
		temp = *e.opt.Temperature
	}
	b = append(b, `,"temperature":`...)
	b = strconv.AppendFloat(b, temp, 'f', -1, 64)
	if e.opt.TopP != nil {
		b = append(b, `,"top_p":`...)
		b = strconv.AppendFloat(b, *e.opt.TopP, 'f', -1, 64)
	}
	return append(b, '}')
}

// count is the official list/multidoc label: how many elements or documents
// the context shows.
func (c *Context) count() int {
	if c.Scenario == List {
		return len(c.Elements)
	}
	return len(c.Docs)
}

func (c *Context) check() error {
	switch c.Scenario {
	case List:
		if len(c.Elements) <= 22 {
			return fmt.Errorf("list context has %d elements; the tasks need more than 22", len(c.Elements))
		}
	case MultiDoc:
		if len(c.Docs) < 3 {
			return fmt.Errorf("multidoc context has %d docs; the tasks need at least 3", len(c.Docs))
		}
		if len(c.DupGroups) == 0 {
			return fmt.Errorf("multidoc context has no duplicated texts (dup_groups); find_dup_text needs at least one group")
		}
		for _, g := range c.DupGroups {
			for _, i := range g {
				if i < 0 || i >= len(c.Docs) {
					return fmt.Errorf("dup_groups index %d is outside the %d docs", i, len(c.Docs))
				}
			}
		}
	case OneDoc:
		var t, f int
		for _, lt := range c.Label {
			for _, k := range lt.Items {
				if k.True {
					t++
				} else {
					f++
				}
			}
		}
		if t < 2 || f < 2 || len(c.Plain) < 2 {
			return fmt.Errorf("onedoc context needs a label with at least 2 true and 2 fake key sentences and 2 plain sentences (has %d, %d, %d)", t, f, len(c.Plain))
		}
	default:
		return fmt.Errorf("context scenario %q: want list, multidoc or onedoc", c.Scenario)
	}
	if c.Text == "" {
		return fmt.Errorf("context has no text")
	}
	return nil
}

// variables samples a task's variable sets for one context. They are the
// same for every expression of the task (so the Variable perspective of IFS
// compares like with like) and depend only on the seed, the task and the
// length.
func (e *Expander) variables(task *Task, tt *TaskTemplates, c *Context) ([]map[string]any, error) {
	r := rng(e.opt.Seed, "expand", task.Name, c.Length)
	switch task.Name {
	case "repeat", "extract":
		var pools map[string][]any
		dec := json.NewDecoder(bytes.NewReader(tt.Params))
		dec.UseNumber() // 4 stays 4, as Python's str.format writes it
		if err := dec.Decode(&pools); err != nil {
			return nil, fmt.Errorf("params: %v", err)
		}
		return sampleProduct(r, pools, 5)
	case "qa":
		return qaVariables(r, tt, c)
	case "single_query_id", "offset_query_id", "offset_query_element", "blur_offset_query_id", "blur_offset_query_element":
		return elementVariables(rng(e.opt.Seed, "positions", c.Length), c.Elements), nil
	case "multi_query_id":
		return multiVariables(r, c.Elements), nil
	case "find_dup_text":
		return dupVariables(tt, c)
	case "batch_label":
		return labelVariables(tt, c)
	}
	return nil, fmt.Errorf("unknown task")
}

// sampleProduct draws n distinct combinations from the Cartesian product of
// the pools (all of them when there are fewer).
func sampleProduct(r *rand.Rand, pools map[string][]any, n int) ([]map[string]any, error) {
	keys := make([]string, 0, len(pools))
	total := 1
	for k, v := range pools {
		if len(v) == 0 {
			return nil, fmt.Errorf("params: %q is empty", k)
		}
		keys = append(keys, k)
		total *= len(v)
	}
	sort.Strings(keys)
	var out []map[string]any
	for _, idx := range r.Perm(total)[:min(n, total)] {
		m := map[string]any{}
		for _, k := range keys {
			m[k] = pools[k][idx%len(pools[k])]
			idx /= len(pools[k])
		}
		out = append(out, m)
	}
	return out, nil
}

func qaVariables(r *rand.Rand, tt *TaskTemplates, c *Context) ([]map[string]any, error) {
	var p struct {
		Options [][]string `json:"options"`
	}
	if err := json.Unmarshal(tt.Params, &p); err != nil || len(p.Options) == 0 {
		return nil, fmt.Errorf("params: want options, a list of [yes, no] pairs")
	}
	var trues, fakes []string
	for _, lt := range c.Label {
		for _, k := range lt.Items {
			if k.True {
				trues = append(trues, k.Text)
			} else {
				fakes = append(fakes, k.Text)
			}
		}
	}
	var ev []string
	for _, pool := range [][]string{trues, fakes, c.Plain} {
		for _, i := range r.Perm(len(pool))[:2] {
			ev = append(ev, pool[i])
		}
	}
	start := r.IntN(len(p.Options))
	out := make([]map[string]any, len(ev))
	for i, s := range ev {
		out[i] = map[string]any{"evidence": s, "options": p.Options[(start+i)%len(p.Options)]}
	}
	return out, nil
}

// elementVariables picks 6 positions: 2 near the start, 2 in the middle, 2
// near the end (the official split), each with its neighbours.
func elementVariables(r *rand.Rand, el []string) []map[string]any {
	k := len(el)
	var idx []int
	for _, span := range [][2]int{{1, 11}, {11, k - 10}, {k - 10, k - 1}} {
		for _, j := range r.Perm(span[1] - span[0])[:2] {
			idx = append(idx, span[0]+j)
		}
	}
	out := make([]map[string]any, len(idx))
	for i, n := range idx {
		out[i] = map[string]any{"id": n + 1, "ordid": expand.Ordinal(n + 1), "element": el[n], "pre_element": el[n-1], "post_element": el[n+1]}
	}
	return out
}

// multiVariables picks 5 sizes in 2..10 and that many positions each.
func multiVariables(r *rand.Rand, el []string) []map[string]any {
	sizes := r.Perm(9)[:5]
	sort.Ints(sizes)
	out := make([]map[string]any, len(sizes))
	for i, s := range sizes {
		pos := r.Perm(len(el))[:s+2]
		ids := make([]int, len(pos))
		els := make([]string, len(pos))
		for j, p := range pos {
			ids[j], els[j] = p+1, el[p]
		}
		out[i] = map[string]any{"id_arr": ids, "elements": els}
	}
	return out
}

func dupVariables(tt *TaskTemplates, c *Context) ([]map[string]any, error) {
	var ps []struct {
		InfoText string `json:"info_text"`
		InfoKeys string `json:"info_keys"`
		Example  string `json:"example"`
	}
	if err := json.Unmarshal(tt.Params, &ps); err != nil || len(ps) == 0 {
		return nil, fmt.Errorf("params: want a list of {info_text, info_keys, example}")
	}
	var out []map[string]any
	for _, p := range ps {
		keys := strings.Fields(p.InfoKeys)
		var infos [][]map[string]*string
		for _, g := range c.DupGroups {
			var grp []map[string]*string
			for _, i := range g {
				m := map[string]*string{}
				for _, k := range keys {
					m[k] = c.Docs[i].Field(k)
				}
				grp = append(grp, m)
			}
			infos = append(infos, grp)
		}
		out = append(out, map[string]any{"info_text": p.InfoText, "info_keys": p.InfoKeys, "example": p.Example, "dup_idxs": c.DupGroups, "dup_infos": infos})
	}
	return out, nil
}

func labelVariables(tt *TaskTemplates, c *Context) ([]map[string]any, error) {
	var ps []struct {
		RuleKey    string   `json:"rule_key"`
		Candidates []string `json:"candidates"`
		Rules      string   `json:"rules"`
	}
	if err := json.Unmarshal(tt.Params, &ps); err != nil || len(ps) == 0 {
		return nil, fmt.Errorf("params: want a list of {rule_key, candidates, rules}")
	}
	keys := make([][]string, len(c.Docs))
	for i := range c.Docs {
		keys[i] = c.Docs[i].Keys()
	}
	var out []map[string]any
	for _, p := range ps {
		if len(p.Candidates) != 4 {
			return nil, fmt.Errorf("params: batch_label wants 4 candidates, got %d", len(p.Candidates))
		}
		out = append(out, map[string]any{"rule_key": p.RuleKey, "candidates": p.Candidates, "rules": p.Rules, "doc_keys": keys})
	}
	return out, nil
}
