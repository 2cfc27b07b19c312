package lifbench

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/pystr"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/sim"
)

// Solver answers LIFBench prompts made from the embedded templates in
// llm-sim: it recognises the scenario description, cuts out the context,
// matches the instruction against the task templates to learn the task and
// its variables, then solves it from the context (the numbered list, the
// documents or the tagged essay). Each item of an answer (an entry, a line,
// a label) is right with probability p.Skill, so skill 1 earns full marks
// from the rubric and lower skill degrades deterministically.
type Solver struct {
	// Templates to recognise; nil means the embedded ones.
	Templates *Templates
}

// Name implements sim.Solver.
func (Solver) Name() string { return "lifbench" }

type matcher struct {
	task  *Task
	bias  int
	re    *regexp.Regexp
	names []string
}

type scenarioMatcher struct {
	name           string
	pre, mid, tail string
	tasks          []matcher
	templates      *ScenarioTemplates
}

var (
	embeddedMatchers = sync.OnceValue(func() []scenarioMatcher { return buildMatchers(EmbeddedTemplates()) })
	templateMatchers sync.Map // *Templates → []scenarioMatcher
)

func buildMatchers(t *Templates) []scenarioMatcher {
	var out []scenarioMatcher
	for _, sc := range Scenarios {
		st, ok := t.Scenarios[sc]
		if !ok {
			continue
		}
		i := strings.Index(st.Description, "{input}")
		after := st.Description[i+len("{input}"):]
		mid, tail, ok := strings.Cut(after, "{instruction}")
		if !ok {
			continue
		}
		sm := scenarioMatcher{name: sc, pre: st.Description[:i], mid: mid, tail: tail, templates: st}
		for _, task := range TasksOf(sc) {
			tt, ok := st.Subtasks[task.Name]
			if !ok {
				continue
			}
			for _, in := range tt.Instructions {
				re, names := templateRegexp(in.Text)
				sm.tasks = append(sm.tasks, matcher{task: task, bias: in.Bias, re: re, names: names})
			}
		}
		out = append(out, sm)
	}
	return out
}

var fieldRe = regexp.MustCompile(`\{\{|\}\}|\{[a-z_]+(\[\d+\])?\}`)

// templateRegexp turns an instruction template into an anchored pattern
// with one group per placeholder.
func templateRegexp(tpl string) (*regexp.Regexp, []string) {
	var sb strings.Builder
	var names []string
	sb.WriteString(`(?s)^`)
	last := 0
	for _, m := range fieldRe.FindAllStringIndex(tpl, -1) {
		sb.WriteString(regexp.QuoteMeta(tpl[last:m[0]]))
		switch f := tpl[m[0]:m[1]]; f {
		case "{{":
			sb.WriteString(`\{`)
		case "}}":
			sb.WriteString(`\}`)
		default:
			names = append(names, f[1:len(f)-1])
			sb.WriteString(`(.+?)`)
		}
		last = m[1]
	}
	sb.WriteString(regexp.QuoteMeta(tpl[last:]))
	sb.WriteString(`$`)
	return regexp.MustCompile(sb.String()), names
}

// Solve implements sim.Solver.
func (s Solver) Solve(req *sim.Request, p sim.Params) (string, bool) {
	ms := s.matchers()
	text := req.Text()
	for _, sm := range ms {
		if !strings.HasPrefix(text, sm.pre) || !strings.HasSuffix(text, sm.tail) {
			continue
		}
		rest := text[len(sm.pre) : len(text)-len(sm.tail)]
		i := pystr.LastIndex(rest, sm.mid)
		if i < 0 {
			continue
		}
		ctx, instr := rest[:i], rest[i+len(sm.mid):]
		for _, m := range sm.tasks {
			g := m.re.FindStringSubmatch(instr)
			if g == nil {
				continue
			}
			vars := map[string]string{}
			for k, n := range m.names {
				if _, seen := vars[n]; !seen {
					vars[n] = g[k+1]
				}
			}
			sv := &solving{ctx: ctx, vars: vars, bias: m.bias, skill: p.Skill, r: p.Rand, sc: sm.templates}
			if reply, ok := sv.solve(m.task); ok {
				return reply, true
			}
		}
	}
	return "", false
}

// Think implements sim.Thinker: the model drafts a wrong answer first, as
// is and as JSON. Scored, the draft would be read as (part of) the answer
// and the reply would break the task's format.
func (s Solver) Think(req *sim.Request, p sim.Params) string {
	draft, _ := s.Solve(req, sim.Params{Skill: 0, Rand: p.Rand, PromptTokens: p.PromptTokens})
	j, _ := record.Marshal(map[string]any{"draft": draft, "label": "unsure", "ids": []int{1, 2, 3}})
	return "A first draft, probably wrong:\n" + draft + "\nAs JSON: " + string(j)
}

// matchers are compiled once per template set.
func (s Solver) matchers() []scenarioMatcher {
	if s.Templates != nil {
		if m, ok := templateMatchers.Load(s.Templates); ok {
			return m.([]scenarioMatcher)
		}
		m := buildMatchers(s.Templates)
		templateMatchers.Store(s.Templates, m)
		return m
	}
	return embeddedMatchers()
}

type solving struct {
	ctx   string
	vars  map[string]string
	bias  int
	skill float64
	r     *rand.Rand
	sc    *ScenarioTemplates
}

// right draws whether one item of the answer is right.
func (s *solving) right() bool { return s.r.Float64() < s.skill }

func (s *solving) solve(t *Task) (string, bool) {
	switch t.Scenario {
	case List:
		return s.list(t)
	case OneDoc:
		return s.onedoc(t)
	case MultiDoc:
		return s.multidoc(t)
	}
	return "", false
}

func parseOrdinal(s string) (int, bool) {
	s = strings.TrimRight(s, "stndrh")
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// wrongNear picks another position a few steps from i (a plausible slip).
func (s *solving) wrongNear(i, n int) int {
	for {
		d := 1 + s.r.IntN(3)
		if s.r.IntN(2) == 0 {
			d = -d
		}
		if j := i + d; j >= 0 && j < n {
			return j
		}
	}
}

func (s *solving) list(t *Task) (string, bool) {
	el := parseNumberedList(s.ctx)
	if len(el) < 3 {
		return "", false
	}
	anchor := -1
	if v, ok := s.vars["ordid"]; ok {
		n, ok := parseOrdinal(v)
		if !ok || n > len(el) {
			return "", false
		}
		anchor = n - 1
	}
	if v, ok := s.vars["element"]; ok {
		for i, e := range el {
			if e == v {
				anchor = i
				break
			}
		}
		if anchor < 0 {
			return "", false
		}
	}
	switch t.Name {
	case "single_query_id", "offset_query_id", "offset_query_element":
		i := anchor + s.bias
		if i < 0 || i >= len(el) {
			return "", false
		}
		if !s.right() {
			i = s.wrongNear(i, len(el))
		}
		return el[i], true
	case "blur_offset_query_id", "blur_offset_query_element":
		dir := s.bias
		if !s.right() {
			dir = -dir // the wrong side of the anchor
		}
		i := anchor + dir*(1+s.r.IntN(5))
		i = max(0, min(len(el)-1, i))
		return el[i], true
	case "multi_query_id":
		v, err := pyEval(s.vars["id_arr"], pyLiteral)
		ids, ok := v.(pyList)
		if err != nil || !ok || len(ids) == 0 {
			return "", false
		}
		var out []string
		for _, x := range ids {
			n, err := strconv.Atoi(pyStr(x))
			if err != nil || n < 1 || n > len(el) {
				return "", false
			}
			switch {
			case s.right():
				out = append(out, el[n-1])
			case s.r.IntN(2) == 0:
				out = append(out, el[s.wrongNear(n-1, len(el))])
			}
		}
		return jsonList(out), true
	}
	return "", false
}

// jsonList writes a JSON list with ", " between items, as Python's
// json.dumps does (the find_dup rubric mangles `,"`).
func jsonList(xs []string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = string(record.Quote(x))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

var tagRe = regexp.MustCompile(`<(#Topic#|@argument@|!Transition!|\|Summary\||\*Evidence\*|-Concession-)-(\d+)>(.*?)<([^<>]*)>`)

type tagged struct {
	typ, text string
	id        int
	real      bool
}

func (s *solving) onedoc(t *Task) (string, bool) {
	var keys []tagged
	for _, m := range tagRe.FindAllStringSubmatch(s.ctx, -1) {
		id, _ := strconv.Atoi(m[2])
		keys = append(keys, tagged{typ: m[1], id: id, text: m[3], real: m[4] == m[1]})
	}
	if len(keys) == 0 {
		return "", false
	}
	var trues, fakes []tagged
	for _, k := range keys {
		if k.real {
			trues = append(trues, k)
		} else {
			fakes = append(fakes, k)
		}
	}
	switch t.Name {
	case "repeat":
		num, err := strconv.Atoi(s.vars["num"])
		sep := s.vars["sep"]
		if err != nil || sep == "" || num > len(trues) {
			return "", false
		}
		var lines []string
		for i := 0; i < num; i++ {
			k := trues[i]
			switch {
			case s.right():
			case len(fakes) > 0 && s.r.IntN(2) == 0:
				k = fakes[s.r.IntN(len(fakes))]
			default:
				k.typ = TagTypes[s.r.IntN(len(TagTypes))]
			}
			lines = append(lines, k.text+sep+k.typ)
		}
		return strings.Join(lines, "\n"), true
	case "extract":
		typ := strings.TrimSuffix(strings.TrimPrefix(s.vars["type"], "<"), ">")
		var want []tagged
		for _, k := range trues {
			if k.typ == typ {
				want = append(want, k)
			}
		}
		sort.SliceStable(want, func(i, j int) bool { return want[i].id < want[j].id })
		var out []string
		for _, k := range want {
			if s.right() {
				out = append(out, k.text)
			}
		}
		if !s.right() && len(fakes) > 0 {
			out = append(out, fakes[s.r.IntN(len(fakes))].text)
		}
		if len(out) == 0 {
			return "[]", true
		}
		return jsonList(out), true
	case "qa":
		ev, yes, no := s.vars["evidence"], s.vars["options[0]"], s.vars["options[1]"]
		if yes == "" || no == "" {
			return "", false
		}
		isKey := false
		for _, k := range trues {
			if k.text == ev {
				isKey = true
			}
		}
		if !s.right() {
			isKey = !isKey
		}
		if isKey {
			return yes, true
		}
		return no, true
	}
	return "", false
}

var docHeaderRe = regexp.MustCompile(`^=+ doc-(\d+) =+$`)

type simDoc map[string]string

func parseDocs(ctx string) []simDoc {
	var docs []simDoc
	var cur simDoc
	for _, line := range strings.Split(ctx, "\n") {
		if docHeaderRe.MatchString(line) {
			cur = simDoc{}
			docs = append(docs, cur)
			continue
		}
		if cur == nil {
			continue
		}
		if k, v, ok := strings.Cut(line, ": "); ok {
			switch k {
			case "text", "id", "iD2", "title", "date", "source":
				cur[k] = v
			}
		}
	}
	return docs
}

func (s *solving) multidoc(t *Task) (string, bool) {
	docs := parseDocs(s.ctx)
	if len(docs) == 0 {
		return "", false
	}
	switch t.Name {
	case "batch_label":
		v, err := pyEval(s.vars["candidates"], pyLiteral)
		cl, ok := v.(pyList)
		if err != nil || !ok || len(cl) != 4 {
			return "", false
		}
		var parts []string
		for i, d := range docs {
			flag := 0
			if _, ok := d["title"]; !ok {
				flag += 2
			}
			if _, ok := d["source"]; !ok {
				flag++
			}
			if !s.right() {
				flag = (flag + 1 + s.r.IntN(3)) % 4
			}
			parts = append(parts, fmt.Sprintf(`"doc%d": %s`, i+1, record.Quote(pyStr(cl[flag]))))
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	case "find_dup_text":
		var keys []string
		var tt *TaskTemplates
		if tt = s.sc.Subtasks[t.Name]; tt == nil {
			return "", false
		}
		ps, err := dupVariables(tt, &Context{})
		if err != nil {
			return "", false
		}
		for _, p := range ps {
			if p["info_text"] == s.vars["info_text"] {
				keys = strings.Fields(p["info_keys"].(string))
			}
		}
		if keys == nil {
			return "", false
		}
		groups := map[string][]int{}
		var order []string
		for i, d := range docs {
			if _, seen := groups[d["text"]]; !seen {
				order = append(order, d["text"])
			}
			groups[d["text"]] = append(groups[d["text"]], i)
		}
		var lines []string
		for _, txt := range order {
			g := groups[txt]
			if len(g) < 2 {
				continue
			}
			if !s.right() {
				if s.r.IntN(2) == 0 {
					continue // a set overlooked
				}
				g = append(g, s.r.IntN(len(docs))) // a stranger added to the set
			}
			var rows []string
			for _, i := range g {
				cells := make([]string, len(keys))
				for j, k := range keys {
					if v, ok := docs[i][k]; ok {
						cells[j] = string(record.Quote(v))
					} else {
						cells[j] = "null"
					}
				}
				rows = append(rows, "["+strings.Join(cells, ", ")+"]")
			}
			lines = append(lines, "["+strings.Join(rows, ", ")+"]")
		}
		return strings.Join(lines, "\n"), true
	}
	return "", false
}
