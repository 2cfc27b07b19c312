package lifbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/record"
)

// Rubric names written to judgement.rubric.
const (
	RubricOfficial = "lifbench-official/1"
	RubricStrict   = "lifbench-strict/1"
)

// Scorer is the LIFEval rubric. The official rubric reproduces the official
// scorer (evaluation/EvaluateFunc.py) rule by rule, quirks included; strict
// fixes its known bugs: the repeat "ori" point that is always awarded, the
// extract "order" point that is always full, the repeat format check that
// looks at the whole reply instead of the line, and the early returns of the
// list scorers that leave the total at 0 although points were earned.
type Scorer struct {
	strict bool
}

// NewScorer is the judge factory (--rubric official|strict).
func NewScorer(opt judge.Options) (judge.Scorer, error) {
	switch opt.Rubric {
	case "", "official":
		return &Scorer{}, nil
	case "strict":
		return &Scorer{strict: true}, nil
	}
	return nil, app.Usagef("--rubric %q: LIFBench has official and strict", opt.Rubric)
}

// Parse is never called: LIFEval needs no judge model.
func (s *Scorer) Parse(rec *record.Record, _ string) (*record.Judgement, error) {
	return nil, fmt.Errorf("record %q: LIFBench is scored by its rubric, not by a judge model", rec.ID())
}

// Prepare scores one record.
func (s *Scorer) Prepare(rec *record.Record) (judge.Decision, error) {
	name := rec.String("task")
	task, ok := TaskByName(name)
	if !ok {
		return judge.Decision{}, app.Invalidf("unknown lifbench task %q", name)
	}
	var g Gold
	if !rec.Has("gold") {
		return judge.Decision{}, app.Invalidf("no \"gold\" (records come from expand-templates)")
	}
	if err := rec.Decode("gold", &g); err != nil {
		return judge.Decision{}, app.Invalidf("gold: %v", err)
	}
	var resp record.Response
	if !rec.Has("response") {
		return judge.Decision{}, app.Invalidf("no \"response\" and no \"error\" (run infer-batch first)")
	}
	if err := rec.Decode("response", &resp); err != nil {
		return judge.Decision{}, app.Invalidf("response: %v", err)
	}
	// Only the list and find_dup rubrics read the context from the prompt;
	// the others skip decoding it.
	var prompt string
	if task.Scenario == List || task.Name == "find_dup_text" {
		var err error
		if prompt, err = promptOf(rec); err != nil {
			return judge.Decision{}, app.Invalidf("%v", err)
		}
	}
	j, err := Score(task, prompt, resp.Text, &g, s.strict)
	if err != nil {
		return judge.Decision{}, app.Invalidf("%v", err)
	}
	return judge.Decision{Judgement: j}, nil
}

// promptOf is the text sent: the last user message, or the completions prompt.
func promptOf(rec *record.Record) (string, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Prompt *string `json:"prompt"`
	}
	if !rec.Has("request") {
		return "", fmt.Errorf("no \"request\": the list and multidoc rubrics read the context from the prompt")
	}
	if err := rec.Decode("request", &req); err != nil {
		return "", fmt.Errorf("request: %v", err)
	}
	if req.Prompt != nil {
		return *req.Prompt, nil
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		if s, ok := unquote(m.Content); ok {
			return s, nil
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := record.Unmarshal(m.Content, &parts); err != nil {
			return "", fmt.Errorf("request: user message content: %v", err)
		}
		var texts []string
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", fmt.Errorf("request has no user message")
}

// points accumulates raw scores in the task's point order.
type points map[string]float64

// Score applies the task's rubric to a reply.
func Score(task *Task, prompt, output string, g *Gold, strict bool) (*record.Judgement, error) {
	var (
		p     points
		early bool // the official scorer returned before computing its total
		err   error
	)
	c := &scoring{prompt: prompt, out: output, g: g, strict: strict}
	switch task.Name {
	case "single_query_id", "offset_query_id", "offset_query_element":
		p, early, err = c.labelEqual()
	case "multi_query_id":
		p, err = c.multi()
	case "blur_offset_query_id", "blur_offset_query_element":
		p, early, err = c.blur()
	case "repeat":
		p, err = c.repeat()
	case "extract":
		p, early, err = c.extract()
	case "qa":
		p, err = c.qa()
	case "batch_label":
		p, err = c.batchLabel()
	case "find_dup_text":
		p, err = c.findDup()
	default:
		err = fmt.Errorf("no rubric for task %q", task.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", task.Name, err)
	}
	j := &record.Judgement{Rubric: RubricOfficial}
	if strict {
		j.Rubric = RubricStrict
	}
	var sum float64
	for _, ps := range task.Points {
		v := p[ps.Name]
		sum += v
		j.Points = append(j.Points, record.Point{Name: ps.Name, Score: v / ps.Max, Max: ps.Max, Capabilities: ps.Capabilities})
	}
	switch {
	case task.Name == "extract" && early:
		j.Score = 1 // the "[]" answer for a type with no sentences
		for i := range j.Points {
			j.Points[i].Score = 1
		}
	case early && !strict:
		j.Score = 0
	default:
		j.Score = sum / task.Total()
	}
	return j, nil
}

type scoring struct {
	prompt, out string
	g           *Gold
	strict      bool
}

func (c *scoring) k() (int, error) {
	var k int
	if err := json.Unmarshal(c.g.Label, &k); err != nil {
		return 0, fmt.Errorf("gold label: want the number of items shown: %v", err)
	}
	return k, nil
}

func (c *scoring) label() (Label, error) {
	var l Label
	if err := json.Unmarshal(c.g.Label, &l); err != nil {
		return nil, fmt.Errorf("gold label: want the key sentences by type: %v", err)
	}
	return l, nil
}

// inputText is the official get_input_text: the part of the prompt after
// the last start marker, cut at the first end marker, stripped.
func inputText(prompt, start, end string) (string, error) {
	r := prompt
	if start != "" {
		// The text after the last start marker, found scanning forward
		// (strings.LastIndex is bytewise and slow on long prompts).
		for i := strings.Index(r, start); i >= 0; i = strings.Index(r, start) {
			r = r[i+len(start):]
		}
	}
	if end != "" {
		if i := strings.Index(r, end); i >= 0 {
			r = r[:i]
		}
	}
	if r == "" {
		return "", fmt.Errorf("no context between the markers %q and %q in the prompt", start, end)
	}
	return pyStrip(r), nil
}

// parseNumberedList is the official parse_oredered_input_list_text: entries
// found by looking for "\n1. ", "\n2. ", … in turn.
func parseNumberedList(text string) []string {
	t := "\n" + pyStrip(text)
	var idxs []int
	tag := make([]byte, 0, 16)
	for p := 1; ; p++ {
		from := 0
		if len(idxs) > 0 {
			from = idxs[len(idxs)-1]
		}
		tag = append(strconv.AppendInt(append(tag[:0], '\n'), int64(p), 10), '.', ' ')
		i := strings.Index(t[from:], string(tag))
		if i < 0 {
			break
		}
		idxs = append(idxs, from+i)
	}
	out := make([]string, 0, len(idxs))
	for n, i := range idxs {
		j := len(t)
		if n+1 < len(idxs) {
			j = idxs[n+1]
		}
		seg := t[i:j]
		if _, after, ok := strings.Cut(seg, ". "); ok {
			seg = after
		}
		out = append(out, seg)
	}
	return out
}

// lastList keeps the most recently parsed list: consecutive records of a
// run share their context (342 prompts per length use the same list), and
// comparing the text is much cheaper than parsing it again.
var lastList struct {
	sync.Mutex
	text string
	list []string
}

func (c *scoring) list() ([]string, error) {
	in, err := inputText(c.prompt, c.g.InputStart, c.g.InputEnd)
	if err != nil {
		return nil, err
	}
	lastList.Lock()
	defer lastList.Unlock()
	if in == lastList.text {
		return lastList.list, nil
	}
	l := parseNumberedList(in)
	if len(l) == 0 {
		return nil, fmt.Errorf("no numbered list in the prompt")
	}
	lastList.text, lastList.list = in, l
	return l, nil
}

func lengthRange(xs []string) (int, int) {
	lo, hi := -1, 0
	for _, x := range xs {
		n := pyLen(x)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return lo, hi
}

// labelEqual is judge_label_equal_output (single, offset_id, offset_element).
func (c *scoring) labelEqual() (points, bool, error) {
	p := points{}
	out := pyStrip(c.out)
	var expected string
	switch c.g.Param.Bias {
	case 0:
		expected = c.g.Param.Element
	case 1:
		expected = c.g.Param.PostElement
	case -1:
		expected = c.g.Param.PreElement
	default:
		return nil, false, fmt.Errorf("gold param bias %d: want -1, 0 or 1", c.g.Param.Bias)
	}
	list, err := c.list()
	if err != nil {
		return nil, false, err
	}
	if out == "" {
		return p, true, nil
	}
	if lo, hi := lengthRange(list); lo <= pyLen(out) && pyLen(out) <= hi {
		p["format"] = 0.2
	}
	count := 0
	exact := false
	for _, e := range list {
		count += strings.Count(out, e)
		exact = exact || e == out
	}
	switch {
	case count == 0:
		return p, true, nil
	case count == 1:
		p["ori"] = 1
		if exact {
			p["format"] += 0.8
		} else {
			p["format"] += 0.3
		}
	default:
		p["ori"] = 1
	}
	switch {
	case strings.Contains(out, expected):
		p["correct"] = 2
	case float64(editDistance(expected, out)) <= float64(pyLen(expected))/6+3:
		p["correct"] = 1
	}
	return p, false, nil
}

// jsonListFormat scores "is the reply a JSON list (of strings)", whole or
// between its outermost brackets, as the multi and extract scorers do.
// It returns the score and the parsed length (-1 when nothing parsed).
func jsonListFormat(out string, whole, wholeMixed, inner, innerMixed, notList float64, emptyOK bool) (float64, int) {
	try := func(s string, full, mixed float64) (float64, int, bool) {
		v, ok := pyLoads(s)
		if !ok {
			return 0, -1, false
		}
		xs, isList, allStr := isStrList(v)
		if !isList {
			return notList, -1, true
		}
		if allStr || (emptyOK && len(xs) == 0) {
			return full, len(xs), true
		}
		return mixed, len(xs), true
	}
	if f, n, ok := try(out, whole, wholeMixed); ok {
		return f, n
	}
	sub := pySlice(out, pyFind(out, "["), pyRFind(out, "]")+1)
	if f, n, ok := try(sub, inner, innerMixed); ok {
		return f, n
	}
	return 0, -1
}

// multi is judge_labels_equal_outputs.
func (c *scoring) multi() (points, error) {
	p := points{}
	expected := c.g.Param.Elements
	if len(expected) == 0 {
		return nil, fmt.Errorf("gold param has no elements")
	}
	out := pyStrip(c.out)
	list, err := c.list()
	if err != nil {
		return nil, err
	}
	if out == "" {
		return p, nil
	}
	f, n := jsonListFormat(out, 2, 1.5, 1.5, 1.0, 0.5, false)
	p["format"] = f
	if n < 0 {
		n = 0
		for _, e := range list {
			n += strings.Count(out, e)
		}
	}
	N := len(expected)
	if n == N {
		p["num"] = 1
	}
	p["num"] += max(0, 1-abs(float64(n-N))/float64(N)) * 2
	decoded, err := unicodeEscape(out)
	if err != nil {
		decoded = out // the official scorer raises here
	}
	var found []string
	for _, e := range expected {
		if strings.Contains(decoded, e) {
			found = append(found, e)
		}
	}
	p["correct"] = float64(len(found)) / float64(N) * 3
	if len(found) <= 1 {
		p["order"] = 1
	} else {
		p["order"] = 2
		pos := 0
		for _, e := range found {
			t := strings.Index(decoded, e)
			if t < pos {
				p["order"] = 0
				break
			}
			pos = t
		}
	}
	return p, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// blur is judge_list_input_blur_offset_query.
func (c *scoring) blur() (points, bool, error) {
	p := points{}
	out := pyStrip(c.out)
	anchor := c.g.Param.ID - 1
	list, err := c.list()
	if err != nil {
		return nil, false, err
	}
	if out == "" {
		return p, true, nil
	}
	if lo, hi := lengthRange(list); lo <= pyLen(out) && pyLen(out) <= hi {
		p["format"] = 0.2
	}
	var in []int
	for i, e := range list {
		if strings.Contains(out, e) {
			in = append(in, i)
		}
	}
	switch len(in) {
	case 0:
		return p, true, nil
	case 1:
		if out == list[in[0]] {
			p["format"] += 0.8
		} else {
			p["format"] += 0.3
		}
	}
	p["ori"] = 1
	strictly, loosely := true, true
	for _, i := range in {
		if c.g.Param.Bias == 1 {
			strictly, loosely = strictly && i > anchor, loosely && i >= anchor
		} else {
			strictly, loosely = strictly && i < anchor, loosely && i <= anchor
		}
	}
	switch {
	case strictly:
		p["position"] = 3
	case loosely:
		p["position"] = 1
	}
	return p, false, nil
}

// repeat is judge_onedoc_repeat.
func (c *scoring) repeat() (points, error) {
	p := points{}
	lab, err := c.label()
	if err != nil {
		return nil, err
	}
	out := pyStrip(c.out)
	sep, num := c.g.Param.Sep, c.g.Param.Num
	if sep == "" || num <= 0 {
		return nil, fmt.Errorf("gold param: want sep and num")
	}
	if out == "" {
		return p, nil
	}
	// The official scorer removes newlines inside matched key sentences from
	// both the reply and its (copied) label.
	texts := map[string][]string{}
	hit, fake := 0, 0
	for _, lt := range lab {
		for _, k := range lt.Items {
			t := k.Text
			if strings.Contains(out, t) {
				hit++
				if !k.True {
					fake++
				}
				if strings.Contains(t, "\n") {
					pure := strings.ReplaceAll(t, "\n", "")
					out = strings.ReplaceAll(out, t, pure)
					t = pure
				}
			}
			texts[lt.Type] = append(texts[lt.Type], t)
		}
	}
	if hit > 0 || !c.strict {
		p["ori"] = 1
	}
	for _, a := range TagTypes {
		if strings.Contains(out, a) {
			p["ori"]++
			break
		}
	}
	p["hit"] = min(1, (float64(hit)-0.5*float64(fake))/float64(num)) * 2
	if num == 1 || strings.Contains(out, "\n") {
		p["format"] += 0.5
	}
	if strings.Contains(out, sep) {
		p["format"] += 0.5
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	nsep := strings.Count(out, sep)
	for _, ok := range []bool{nsep == num, len(lines) == num, hit == num} {
		if ok {
			p["num"]++
		}
	}
	agree := 0
	for _, ok := range []bool{nsep == len(lines), nsep == hit, hit == len(lines)} {
		if ok {
			agree++
		}
	}
	p["num"] += float64(agree) / 3
	good, total := 0, 0
	for _, l := range lines {
		where := out
		if c.strict {
			where = l
		}
		if !strings.Contains(where, sep) {
			continue
		}
		total++
		if len(strings.Split(l, sep)) == 2 {
			good++
		}
	}
	p["format"] += min(1, float64(good)/float64(max(total, num))) * 2
	correct := 0
	for _, l := range lines {
		sentence, att := pyStrip(l), pyStrip(l)
		if s, a, ok := strings.Cut(l, sep); ok {
			sentence, att = s, a
		}
		var cands []string
		for _, a := range TagTypes {
			if strings.Contains(att, a) {
				cands = append(cands, texts[a]...)
			}
		}
		for _, ps := range cands {
			if editDistance(sentence, ps) <= pyLen(ps)/6+3 {
				correct++
				break
			}
		}
	}
	// Every line counts: the official test of its type list is a filter
	// object, which is always true.
	if len(lines) > 0 {
		p["correct"] = float64(correct) / float64(len(lines)) * 3
	}
	return p, nil
}

// extract is judge_onedoc_extract; early reports the "[]" answer for the
// |Summary| type, which scores full marks.
func (c *scoring) extract() (points, bool, error) {
	p := points{}
	lab, err := c.label()
	if err != nil {
		return nil, false, err
	}
	out := pyStrip(c.out)
	typ := c.g.Param.Type
	if pyLen(typ) < 2 {
		return nil, false, fmt.Errorf("gold param type %q", typ)
	}
	r := []rune(typ)
	target := string(r[1 : len(r)-1])
	if out == "" {
		return p, false, nil
	}
	f, n := jsonListFormat(out, 4, 3, 3, 2, 1, target == "|Summary|")
	p["format"] = f
	n = max(n, 0)
	if target == "|Summary|" && out == "[]" {
		return p, true, nil
	}
	decoded, err := unicodeEscape(out)
	if err != nil {
		if decoded, err = unicodeEscape(pySlice(out, 0, pyLen(out)-1)); err != nil {
			decoded = out // the official scorer raises here
		}
	}
	found, inOrder, ref := 0, 0, 0
	for _, lt := range lab {
		for _, k := range lt.Items {
			i := strings.Index(decoded, k.Text)
			if i < 0 {
				continue
			}
			found++
			if i >= ref {
				inOrder++
			}
			if c.strict {
				ref = i
			} else {
				ref = min(i, ref) // the official reference never moves from 0
			}
		}
	}
	if found > 0 {
		p["order"] = float64(inOrder) / float64(found) * 4
		p["ori"] = 2
	}
	var trues, fakes []string
	for _, k := range lab.Get(target) {
		if k.True {
			trues = append(trues, k.Text)
		} else {
			fakes = append(fakes, k.Text)
		}
	}
	hits := 0
	for _, s := range trues {
		if strings.Contains(decoded, s) {
			hits++
		}
	}
	if d := max(found, n, len(trues)); d > 0 {
		p["correct"] = float64(hits) / float64(d) * 3.5
	}
	if len(fakes) == 0 || !strings.Contains(decoded, fakes[0]) {
		p["correct"] += 0.5
	}
	return p, false, nil
}

// qa is judge_onedoc_qa.
func (c *scoring) qa() (points, error) {
	p := points{}
	lab, err := c.label()
	if err != nil {
		return nil, err
	}
	opts := c.g.Param.Options
	if len(opts) != 2 {
		return nil, fmt.Errorf("gold param options: want [yes, no]")
	}
	out := pyStrip(c.out)
	ev := pyStrip(c.g.Param.Evidence)
	isKey, isTrue := false, false
	for _, lt := range lab {
		for _, k := range lt.Items {
			if pyStrip(k.Text) == ev {
				isKey, isTrue = true, k.True
				break
			}
		}
		if isKey {
			break
		}
	}
	n := pyLen(out)
	if n == pyLen(opts[0]) || n == pyLen(opts[1]) {
		p["format"] = 1
	} else if n > max(pyLen(opts[0]), pyLen(opts[1]))+3 {
		p["format"] = 0.5
	}
	yes, no := strings.Contains(out, opts[0]), strings.Contains(out, opts[1])
	switch {
	case yes && no:
		p["format"] += 0.5
		p["correct"] = 0.5
	case yes || no:
		p["format"] += 1
		if isTrue {
			if yes {
				p["correct"] = 3
			} else {
				p["correct"] = 0.1
			}
		} else if yes {
			p["correct"] = 2 // the official partial credit for a wrong yes
		} else {
			p["correct"] = 3
		}
	}
	return p, nil
}

var braceRe = regexp.MustCompile(`\{[^\]]+\}`)

// batchLabel is judge_multidoc_batch_label.
func (c *scoring) batchLabel() (points, error) {
	p := points{}
	N, err := c.k()
	if err != nil {
		return nil, err
	}
	prm := c.g.Param
	if N <= 0 || len(prm.DocKeys) < N || len(prm.Candidates) == 0 {
		return nil, fmt.Errorf("gold: want %d doc_keys and the candidates", N)
	}
	order := map[rune]int{}
	for i, r := range prm.RuleKey {
		order[r] = i
	}
	rank := func(w string) int {
		r, _ := utf8.DecodeRuneInString(w)
		if i, ok := order[r]; ok {
			return i
		}
		return len(prm.RuleKey)
	}
	sorted := append([]string(nil), prm.Candidates...)
	sort.SliceStable(sorted, func(i, j int) bool { return rank(sorted[i]) < rank(sorted[j]) })
	truth := make([]string, N)
	for i, keys := range prm.DocKeys[:N] {
		flag := 0
		if !contains(keys, "title") {
			flag += 2
		}
		if !contains(keys, "source") {
			flag++
		}
		truth[i] = sorted[min(flag, len(sorted)-1)]
	}
	out := pyStrip(c.out)
	matches := braceRe.FindAllString(out, -1)
	var parsed any
	if v, ok := pyLoads(out); ok {
		parsed = v
		p["format"] += 2
	} else if len(matches) > 0 {
		sort.SliceStable(matches, func(i, j int) bool { return pyLen(matches[i]) > pyLen(matches[j]) })
		if v, ok := pyLoads(matches[0]); ok {
			parsed = v
			p["format"] += 1
		}
	}
	got := strings.Count(out, "doc")
	switch x := parsed.(type) {
	case map[string]any:
		if len(x) > 0 {
			p["format"] += 1
			got = len(x)
		}
	case []any:
		if len(x) > 0 {
			got = len(x)
		}
	}
	p["num_doc"] = max(0, 1-abs(float64(got-N))/float64(N)) * 2.5
	if got == N {
		p["num_doc"] += 0.5
	}
	keys := 0
	for k := 1; k <= N; k++ {
		if strings.Contains(out, fmt.Sprintf("doc%d", k)) {
			keys++
		}
	}
	p["format"] += float64(keys) / float64(N) * 2
	for _, m := range matches {
		parts := strings.Split(m, ",")
		if len(parts) != N {
			continue
		}
		cand, rule := 0, 0
		for i, s := range parts {
			if strings.Contains(s, truth[i]) {
				rule++
			}
			for _, f := range prm.Candidates {
				if strings.Contains(s, f) {
					cand++
					break
				}
			}
		}
		p["candi_ori"] = float64(cand) / float64(N) * 3
		p["logit_correct"] = float64(rule) / float64(N) * 3
		break
	}
	return p, nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

var pairRe = regexp.MustCompile(`\[\[.*?\]\]`)

// findDup is judge_multidoc_find_dup_text, with eval() replaced by pyEval.
func (c *scoring) findDup() (points, error) {
	p := points{}
	answer := c.g.Param.DupInfos
	need := strings.Fields(c.g.Param.InfoKeys)
	if len(answer) == 0 || len(need) == 0 {
		return nil, fmt.Errorf("gold param: want dup_infos and info_keys")
	}
	input, err := inputText(c.prompt, c.g.InputStart, c.g.InputEnd)
	if err != nil {
		return nil, err
	}
	out := pyStrip(c.out)
	if out == "" {
		return p, nil
	}
	// Values that are a whole "key: value" field of a document are surely
	// in the text; only other values need a scan of the long context.
	fields := map[string]bool{}
	for _, line := range strings.Split(input, "\n") {
		if _, v, ok := strings.Cut(line, ": "); ok {
			fields[v] = true
		}
	}
	inInput := func(v string) bool { return fields[v] || strings.Contains(input, v) }
	if strings.Contains(out, "[") && strings.Contains(out, "]") {
		p["format"] += 0.5
	}
	l, r := pyFind(out, "["), pyRFind(out, "]")
	if l == 0 && r == pyLen(out)-1 {
		p["format"] += 0.5
	}
	matches := pairRe.FindAllString(out, -1)
	if len(matches) == len(answer) {
		p["num_text"] = 1
	}
	p["num_text"] += max(0, 1-abs(float64(len(matches)-len(answer)))/float64(len(answer)+2)) * 4
	if len(matches) == len(strings.Split(out, "\n")) {
		p["format"] += 1
	}
	parsedAny, allParse, allLists := false, true, true
	var parsed [][]any
	for _, m := range matches {
		// The official code slices each match with the bracket positions of
		// the whole reply.
		v, ok := pyLoads(pySlice(m, l, r+1))
		if !ok {
			allParse = false
			continue
		}
		parsedAny = true
		rows, isList := v.([]any)
		if isList {
			for _, x := range rows {
				if _, ok := x.([]any); !ok {
					isList = false
				}
			}
		}
		if isList {
			parsed = append(parsed, rows)
		} else {
			allLists = false
		}
	}
	for _, ok := range []bool{parsedAny, allParse, allLists} {
		if ok {
			p["format"]++
		}
	}
	oriCount, total := 0, 0
	for _, rows := range parsed {
		for _, row := range rows {
			vals := row.([]any)
			total += len(vals)
			for _, e := range vals {
				if e == nil || inInput(pyStrValue(jsonToPy(e))) {
					oriCount++
				}
			}
		}
	}
	if total > 0 {
		p["ori"] = float64(oriCount) / float64(total) * 3
	}
	prompt := strings.ReplaceAll(pyStrip(c.prompt), `"`, "")
	o := strings.ReplaceAll(out, "null", "None")
	decoded, err := unicodeEscape(o)
	if err != nil {
		decoded = o
	}
	count, nContents := 0, 0
	for _, grp := range answer {
		for _, d := range grp {
			for _, v := range d {
				nContents++
				s := "None"
				if v != nil {
					s = *v
				}
				if strings.Contains(decoded, s) {
					count++
				}
			}
		}
	}
	if nContents > 0 {
		p["correct"] = float64(count) * 3 / float64(nContents)
	}
	o = strings.ReplaceAll(o, "\n", ",")
	o = strings.ReplaceAll(o, `\"`, "")
	o = strings.ReplaceAll(o, `\`, ",")
	if t, err := inputText(o, c.g.InputStart, c.g.InputEnd); err == nil {
		o = t
	}
	gold := map[string]int{}
	for gi, grp := range answer {
		for _, d := range grp {
			parts := make([]string, len(need))
			for i, k := range need {
				s := "None"
				if v := d[k]; v != nil {
					s = *v
				}
				parts[i] = strings.ReplaceAll(s, `"`, "")
			}
			gold[strings.Join(parts, "\x00")] = gi
		}
	}
	got := map[string]int{}
	sum, trueItems, t := 0, 0, 0
	for _, m := range pairRe.FindAllString(o, -1) {
		v, err := pyEval(strings.ReplaceAll(m, `,"`, ""))
		if err != nil {
			continue
		}
		rows, ok := v.(pyList)
		if !ok || len(rows) == 0 {
			continue
		}
		var keys []string
		num := 0
		for _, row := range rows {
			cells, ok := row.(pyList)
			if !ok {
				keys = nil // the official code fails on anything but lists of lists
				break
			}
			parts := make([]string, len(cells))
			for i, cell := range cells {
				parts[i] = pyStrValue(cell)
				if (fields[parts[i]] && !strings.Contains(parts[i], `"`)) || strings.Contains(prompt, parts[i]) {
					num++
				}
			}
			keys = append(keys, strings.Join(parts, "\x00"))
		}
		if keys == nil {
			continue
		}
		sum += len(rows) * len(rows[0].(pyList))
		for _, k := range keys {
			got[k] = t
		}
		trueItems += num
		t++
	}
	if sum != 0 {
		p["ori"] += float64(trueItems) * 3 / float64(sum)
	}
	pairs := 0
	for x, y := range gold {
		gx, ok := got[x]
		if !ok {
			continue
		}
		for x2, y2 := range gold {
			gx2, ok := got[x2]
			if !ok {
				continue
			}
			if (y == y2 && gx == gx2) || (y != y2 && gx != gx2) {
				pairs++
			}
		}
	}
	p["correct"] += float64(pairs) / float64(len(gold)*len(gold))
	return p, nil
}

// jsonToPy turns a json.Number into the literal Python would print.
func jsonToPy(v any) any {
	switch x := v.(type) {
	case json.Number:
		if isIntLiteral(string(x)) {
			return pyNum(string(x))
		}
		f, _ := x.Float64()
		return pyNum(pyFloat(f))
	case []any:
		out := make(pyList, len(x))
		for i, e := range x {
			out[i] = jsonToPy(e)
		}
		return out
	}
	return v
}

// pyFind and pyRFind are str.find and str.rfind in code points.
func pyFind(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

func pyRFind(s, sub string) int {
	i := strings.LastIndex(s, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

// pySlice is s[a:b] over code points with Python's negative and
// out-of-range index rules.
func pySlice(s string, a, b int) string {
	r := []rune(s)
	n := len(r)
	norm := func(i int) int {
		if i < 0 {
			i += n
		}
		return max(0, min(n, i))
	}
	a, b = norm(a), norm(b)
	if a >= b {
		return ""
	}
	return string(r[a:b])
}

// unquote decodes a JSON string literal, copying the runs between escapes
// in bulk (prompts are long and escape every newline).
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	b := raw[1 : len(raw)-1]
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return string(b), utf8.Valid(b)
	}
	out := make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		if i+1 >= len(b) {
			return "", false
		}
		n := 2
		switch c := b[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, ok := hex4(b[i+2:])
			if !ok {
				return "", false
			}
			n = 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(b[i+8:]); ok && i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r, n = d, 12
					}
				}
				if n == 6 {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
		b = b[i+n:]
		i = bytes.IndexByte(b, '\\')
	}
	out = append(out, b...)
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}
