package lifbench

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ifkit/ifkit/lib/pystr"
)

// braceRe is the official pattern for the labels object in a reply (it
// runs from a { to the last } before any ]).
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
		if !slices.Contains(keys, "title") {
			flag += 2
		}
		if !slices.Contains(keys, "source") {
			flag++
		}
		truth[i] = sorted[min(flag, len(sorted)-1)]
	}
	out := pystr.Strip(c.out)
	matches := braceRe.FindAllString(out, -1)
	var parsed any
	if v, ok := pyLoads(out, c.py()); ok {
		parsed = v
		p["format"] += 2
	} else if len(matches) > 0 {
		sort.SliceStable(matches, func(i, j int) bool { return pyLen(matches[i]) > pyLen(matches[j]) })
		if v, ok := pyLoads(matches[0], c.py()); ok {
			parsed = v
			p["format"] += 1
		}
	}
	got := strings.Count(out, "doc")
	switch x := parsed.(type) {
	case *pyDict:
		if len(x.keys) > 0 {
			p["format"] += 1
			got = len(x.keys)
		}
	case []any:
		if len(x) > 0 {
			got = len(x)
		}
	}
	p["num_doc"] = max(0, 1-math.Abs(float64(got-N))/float64(N)) * 2.5
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

// dupRow is what op_answer2map (flag 1) does to one evaluated row, "for d
// in range(len(run)): run[d] = str(run[d])": a list gives its cells; an
// empty str, bytes or tuple and a dict keyed 0..n-1 get through without an
// error (the dict's values are its cells); anything else makes Python raise
// (len() of a number or None, item assignment on a str, bytes or tuple, a
// missing dict key), which stops the official scorer. ok is false there.
func dupRow(row any) ([]any, bool) {
	switch x := row.(type) {
	case pyList:
		return x, true
	case string:
		return nil, x == ""
	case pyBytes:
		return nil, x == ""
	case pyTuple:
		return nil, len(x) == 0
	case *pyDict:
		cells := make([]any, len(x.keys))
		for d := range cells {
			i := slices.IndexFunc(x.keys, func(k any) bool { return hashKey(k) == hashKey(pyInt(big.NewInt(int64(d)))) })
			if i < 0 {
				return nil, false
			}
			cells[d] = x.vals[i]
		}
		return cells, true
	}
	return nil, false
}

// pairRe is the official pattern for one duplicate set: [[…]] on a line.
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
	out := pystr.Strip(c.out)
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
	p["num_text"] += max(0, 1-math.Abs(float64(len(matches)-len(answer)))/float64(len(answer)+2)) * 4
	if len(matches) == len(strings.Split(out, "\n")) {
		p["format"] += 1
	}
	parsedAny, allParse, allLists := false, true, true
	var parsed [][]any
	for _, m := range matches {
		// The official code slices each match with the bracket positions of
		// the whole reply.
		v, ok := pyLoads(pySlice(m, l, r+1), c.py())
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
				if e == nil || inInput(pyStr(e)) {
					oriCount++
				}
			}
		}
	}
	if total > 0 {
		p["ori"] = float64(oriCount) / float64(total) * 3
	}
	prompt := strings.ReplaceAll(pystr.Strip(c.prompt), `"`, "")
	o := strings.ReplaceAll(out, "null", "None")
	decoded, err := c.unicodeEscape(o)
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
		v, err := pyEval(strings.ReplaceAll(m, `,"`, ""), c.py())
		if err != nil {
			continue
		}
		rows, ok := v.(pyList)
		if !ok || len(rows) == 0 {
			continue
		}
		first, ok := rows[0].(pyList)
		if !ok {
			continue
		}
		var keys []string
		num := 0
		for _, row := range rows {
			cells, ok := dupRow(row)
			if !ok || slices.ContainsFunc(cells, c.py().strRaises) {
				// op_answer2map raises on this row (see dupRow), or on str()
				// of an int too long to print.
				keys = nil
				break
			}
			parts := make([]string, len(cells))
			for i, cell := range cells {
				parts[i] = pyStr(cell)
				if (fields[parts[i]] && !strings.Contains(parts[i], `"`)) || strings.Contains(prompt, parts[i]) {
					num++
				}
			}
			key := strings.Join(parts, "\x00")
			if _, isList := row.(pyList); !isList {
				key = "\x01" // tuple(run) of a dict or an empty str is no gold key
			}
			keys = append(keys, key)
		}
		if keys == nil {
			continue
		}
		sum += len(rows) * len(first)
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
