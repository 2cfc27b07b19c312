package lifbench

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/pystr"
)

// repeat is judge_onedoc_repeat: the key sentences the reply repeats, its
// lines and separators against the count asked for, and each line's
// sentence against the key sentences of the types it names.
func (c *scoring) repeat() (points, error) {
	p := points{}
	lab, err := c.label()
	if err != nil {
		return nil, err
	}
	out := pystr.Strip(c.out)
	sep, num := c.g.Param.Sep, c.g.Param.Num
	if sep == "" || num <= 0 {
		return nil, fmt.Errorf("gold param: want sep and num")
	}
	if out == "" {
		return p, nil
	}
	out, texts, hit, fake := repeatHits(lab, out)
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
	p["num"] = repeatCounts(strings.Count(out, sep), len(lines), hit, num)
	p["format"] += c.repeatSeparated(out, lines, sep, num)
	// Every line counts: the official test of its type list is a filter
	// object, which is always true.
	if len(lines) > 0 {
		p["correct"] = float64(repeatCorrect(lines, sep, texts)) / float64(len(lines)) * 3
	}
	return p, nil
}

// repeatHits counts the key sentences in the reply (hit) and the false ones
// among them (fake), and lists each type's sentences. The official scorer
// removes newlines inside matched key sentences from both the reply and
// its (copied) label: the reply comes back so changed.
func repeatHits(lab Label, out string) (string, map[string][]string, int, int) {
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
	return out, texts, hit, fake
}

// repeatCounts are the count points: a point for each of the separators,
// the lines and the hits that is the number asked for, and a third for
// each pair of them that agree.
func repeatCounts(nsep, lines, hit, num int) float64 {
	n := 0.0
	for _, ok := range []bool{nsep == num, lines == num, hit == num} {
		if ok {
			n++
		}
	}
	agree := 0
	for _, ok := range []bool{nsep == lines, nsep == hit, hit == lines} {
		if ok {
			agree++
		}
	}
	return n + float64(agree)/3
}

// repeatSeparated is the format points of the lines that split on the
// separator into two parts, out of 2. Officially a line counts when the
// reply holds the separator anywhere; strictly, when the line does.
func (c *scoring) repeatSeparated(out string, lines []string, sep string, num int) float64 {
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
	return min(1, float64(good)/float64(max(total, num))) * 2
}

// repeatCorrect counts the lines whose sentence is within an edit distance
// of a sixth of its length + 3 of a key sentence of a type the line names.
func repeatCorrect(lines []string, sep string, texts map[string][]string) int {
	correct := 0
	for _, l := range lines {
		sentence, att := pystr.Strip(l), pystr.Strip(l)
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
	return correct
}

// extract is judge_onedoc_extract; early reports the "[]" answer for the
// |Summary| type, which scores full marks.
func (c *scoring) extract() (points, bool, error) {
	p := points{}
	lab, err := c.label()
	if err != nil {
		return nil, false, err
	}
	out := pystr.Strip(c.out)
	typ := c.g.Param.Type
	if pyLen(typ) < 2 {
		return nil, false, fmt.Errorf("gold param type %q", typ)
	}
	r := []rune(typ)
	target := string(r[1 : len(r)-1])
	if out == "" {
		return p, false, nil
	}
	f, n := jsonListFormat(out, c.py(), 4, 3, 3, 2, 1, target == "|Summary|")
	p["format"] = f
	n = max(n, 0)
	if target == "|Summary|" && out == "[]" {
		return p, true, nil
	}
	decoded, err := c.unicodeEscape(out)
	if err != nil {
		if decoded, err = c.unicodeEscape(pySlice(out, 0, pyLen(out)-1)); err != nil {
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
	out := pystr.Strip(c.out)
	ev := pystr.Strip(c.g.Param.Evidence)
	isKey, isTrue := false, false
	for _, lt := range lab {
		for _, k := range lt.Items {
			if pystr.Strip(k.Text) == ev {
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
