package lifbench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/pystr"
)

// parseNumberedList is the official parse_oredered_input_list_text: entries
// found by looking for "\n1. ", "\n2. ", … in turn.
func parseNumberedList(text string) []string {
	t := "\n" + pystr.Strip(text)
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
	out := pystr.Strip(c.out)
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
func jsonListFormat(out string, py pyRules, whole, wholeMixed, inner, innerMixed, notList float64, emptyOK bool) (float64, int) {
	try := func(s string, full, mixed float64) (float64, int, bool) {
		v, ok := pyLoads(s, py)
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
	out := pystr.Strip(c.out)
	list, err := c.list()
	if err != nil {
		return nil, err
	}
	if out == "" {
		return p, nil
	}
	f, n := jsonListFormat(out, c.py(), 2, 1.5, 1.5, 1.0, 0.5, false)
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
	p["num"] += max(0, 1-math.Abs(float64(n-N))/float64(N)) * 2
	decoded, err := c.unicodeEscape(out)
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

// blur is judge_list_input_blur_offset_query.
func (c *scoring) blur() (points, bool, error) {
	p := points{}
	out := pystr.Strip(c.out)
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
