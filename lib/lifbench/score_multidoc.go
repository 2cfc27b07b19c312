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

// findDup is judge_multidoc_find_dup_text, with eval() replaced by pyEval:
// the reply's shape, its values against the context, the gold contents it
// holds, and how it groups the gold records.
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
	parsed := c.dupShape(p, out, len(answer))
	if ori, ok := dupOriginal(parsed, inInput); ok {
		p["ori"] = ori
	}
	o := strings.ReplaceAll(out, "null", "None")
	decoded, err := c.unicodeEscape(o)
	if err != nil {
		decoded = o
	}
	if correct, ok := dupContents(answer, decoded); ok {
		p["correct"] = correct
	}
	o = strings.ReplaceAll(o, "\n", ",")
	o = strings.ReplaceAll(o, `\"`, "")
	o = strings.ReplaceAll(o, `\`, ",")
	if t, err := inputText(o, c.g.InputStart, c.g.InputEnd); err == nil {
		o = t
	}
	prompt := strings.ReplaceAll(pystr.Strip(c.prompt), `"`, "")
	got, sum, trueItems := c.dupGroups(o, func(v string) bool {
		return (fields[v] && !strings.Contains(v, `"`)) || strings.Contains(prompt, v)
	})
	if sum != 0 {
		p["ori"] += float64(trueItems) * 3 / float64(sum)
	}
	gold := dupGold(answer, need)
	p["correct"] += float64(dupPairs(gold, got)) / float64(len(gold)*len(gold))
	return p, nil
}

// dupShape adds the format and count points of the reply's shape: its
// brackets, its [[…]] sets (one a line, as many as the answer's), and
// whether they parse as lists of lists. It returns those that do.
func (c *scoring) dupShape(p points, out string, sets int) [][]any {
	if strings.Contains(out, "[") && strings.Contains(out, "]") {
		p["format"] += 0.5
	}
	l, r := pyFind(out, "["), pyRFind(out, "]")
	if l == 0 && r == pyLen(out)-1 {
		p["format"] += 0.5
	}
	matches := pairRe.FindAllString(out, -1)
	if len(matches) == sets {
		p["num_text"] = 1
	}
	p["num_text"] += max(0, 1-math.Abs(float64(len(matches)-sets))/float64(sets+2)) * 4
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
	return parsed
}

// dupOriginal is the share of the parsed values (null counts) found in the
// context, out of 3; false when nothing parsed.
func dupOriginal(parsed [][]any, inInput func(string) bool) (float64, bool) {
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
	if total == 0 {
		return 0, false
	}
	return float64(oriCount) / float64(total) * 3, true
}

// dupContents is the share of the gold records' values (None for null)
// that occur in the decoded reply, out of 3; false when there are none.
func dupContents(answer [][]map[string]*string, decoded string) (float64, bool) {
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
	if nContents == 0 {
		return 0, false
	}
	return float64(count) * 3 / float64(nContents), true
}

// dupGold maps each gold record, by its info_keys values without quotes,
// to its duplicate set.
func dupGold(answer [][]map[string]*string, need []string) map[string]int {
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
	return gold
}

// dupGroups reads the reply's sets as op_answer2map does: each row's
// values, as a key, mapped to its set's number. sum counts the cells of
// the sets read (rows × the first row's length) and trueItems the cells
// whose value is from the documents (known).
func (c *scoring) dupGroups(o string, known func(string) bool) (got map[string]int, sum, trueItems int) {
	got = map[string]int{}
	t := 0
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
		keys, num := c.dupKeys(rows, known)
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
	return got, sum, trueItems
}

// dupKeys are the keys of one set's rows and how many of their cells are
// known; nil when op_answer2map raises on a row (see dupRow), or on str()
// of an int too long to print.
func (c *scoring) dupKeys(rows pyList, known func(string) bool) ([]string, int) {
	var keys []string
	num := 0
	for _, row := range rows {
		cells, ok := dupRow(row)
		if !ok || slices.ContainsFunc(cells, c.py().strRaises) {
			return nil, 0
		}
		parts := make([]string, len(cells))
		for i, cell := range cells {
			parts[i] = pyStr(cell)
			if known(parts[i]) {
				num++
			}
		}
		key := strings.Join(parts, "\x00")
		if _, isList := row.(pyList); !isList {
			key = "\x01" // tuple(run) of a dict or an empty str is no gold key
		}
		keys = append(keys, key)
	}
	return keys, num
}

// dupPairs counts the ordered pairs of gold records the reply found that
// it groups as the gold does: together when they are, apart when not.
func dupPairs(gold, got map[string]int) int {
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
	return pairs
}
