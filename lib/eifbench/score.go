package eifbench

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/record"
)

// Rubric names the scorer and its version in every judgement.
const Rubric = "eifbench-llm-v1"

// The judge prompt's section markers; the sim's judge solver reads them.
// They are the same in every language.
const (
	secSource        = "[[SOURCE MATERIAL]]"
	secSub           = "[[SUB-INSTRUCTION]]"
	secAnswer        = "[[ANSWER]]"
	secReply         = "[[WHOLE REPLY]]"
	secConstraint    = "[[CONSTRAINT]]"
	secEnd           = "[[END]]"
	judgeMaxTokens   = 1024
	judgeTemperature = 0.0
)

// judgeText is the wording of one judge prompt language. The official
// prompt is Chinese, like the official data; "zh" is the project's own
// Chinese wording, whose verdict line is the one the official parser reads.
type judgeText struct {
	head, intro, missing, tail string
}

var judgeTexts = map[string]judgeText{
	"en": {
		head:    "You are checking whether one answer meets one constraint.",
		intro:   `A model was given the source material below and a list of sub-instructions about it, and it answered each sub-instruction. Judge only its answer to the sub-instruction shown, and only against the one constraint shown; ignore everything else. Say yes only when the constraint is fully met. If it is broken, met only in part, or you cannot tell, say no.`,
		missing: `No separate answer to this sub-instruction was found in the reply. Look for it in the whole reply below; if it is not there, the constraint is not met.`,
		tail:    `Give a short analysis, then end with a line that is exactly "Answer: yes" or "Answer: no".`,
	},
	"zh": {
		head:    "你要判断一个回答是否满足一条约束。",
		intro:   `一个模型收到了下面的原始材料和若干条关于它的子指令，并逐条作答。只评判它对下面这条子指令的回答，并且只对照下面这一条约束，其余内容一概不管。只有约束被完全满足时才判“是”；约束被违反、只满足了一部分或无法确定时，判“否”。`,
		missing: `回复中没有找到这条子指令的单独回答。请在下面的完整回复中寻找；如果找不到，则这条约束不满足。`,
		tail:    `先写简短的分析，最后单独一行写“答案：是”或“答案：否”。`,
	},
}

// JudgePrompt is the judge's user message for one constraint, in the
// language lang ("en" or "zh").
func JudgePrompt(lang string, g childGold, seg segment) string {
	tx := judgeTexts[lang]
	var b strings.Builder
	b.WriteString(tx.head + "\n\n" + tx.intro + "\n\n")
	b.WriteString(secSource + "\n" + strings.TrimSpace(g.Input) + "\n\n")
	fmt.Fprintf(&b, "%s\n%s %d: %s\n\n", secSub, strings.TrimSpace(subLinePrefix), g.Sub, oneLine(g.Instruction))
	if seg.Found {
		b.WriteString(secAnswer + "\n" + seg.Text + "\n\n")
	} else {
		b.WriteString(secReply + "\n" + tx.missing + "\n\n" + strings.TrimSpace(seg.Reply) + "\n\n")
	}
	b.WriteString(secConstraint + "\n" + oneLine(g.Constraint) + "\n" + secEnd + "\n\n")
	b.WriteString(tx.tail + "\n")
	return b.String()
}

type scorer struct {
	strict bool
	lang   string
}

// NewScorer is the judge factory for eifbench. There is no lexical mode:
// EifBench constraints are free-form requirements ("a formal tone", "at
// least two reasons") that no string test approximates honestly.
func NewScorer(opt judge.Options) (judge.Scorer, error) {
	switch opt.Mode {
	case "", "llm":
	case "lexical":
		return nil, app.Usagef("eifbench: --judge lexical has no offline approximation for EifBench: its constraints are free-form requirements that only a judge model can check; give --judge-base-url (or JUDGE_BASE_URL) and --judge-model")
	default:
		return nil, app.Usagef("eifbench: --judge %q: want llm", opt.Mode)
	}
	lang := opt.Prompt
	switch lang {
	case "", "default":
		lang = "en"
	case "en", "zh":
	default:
		return nil, app.Usagef("eifbench: --judge-prompt %q: want en (the default) or zh (a Chinese judge prompt, for the official Chinese data)", opt.Prompt)
	}
	return scorer{strict: opt.StrictVerdict, lang: lang}, nil
}

// Prepare builds the judge call for one constraint. A reply that is empty
// needs no judge: every constraint of it is missing.
func (s scorer) Prepare(rec *record.Record) (judge.Decision, error) {
	g, seg, err := readChild(rec)
	if err != nil {
		return judge.Decision{}, err
	}
	if !seg.Found && strings.TrimSpace(seg.Reply) == "" {
		return judge.Decision{Judgement: &record.Judgement{Score: 0, Verdict: judge.VerdictMissing, Rubric: Rubric,
			Detail: map[string]any{"reason": "the reply is empty"}}}, nil
	}
	body, err := judge.ChatCall(JudgePrompt(s.lang, g, seg), judgeMaxTokens, judgeTemperature)
	if err != nil {
		return judge.Decision{}, err
	}
	return judge.Decision{Call: body}, nil
}

func readChild(rec *record.Record) (childGold, segment, error) {
	var g childGold
	var seg segment
	if !rec.Has("parent") || !rec.Has("segment") {
		return g, seg, app.Invalidf("eifbench records are judged per constraint: run split-subtasks before judge")
	}
	if err := rec.Decode("gold", &g); err != nil {
		return g, seg, app.Invalid(err)
	}
	if err := rec.Decode("segment", &seg); err != nil {
		return g, seg, app.Invalid(err)
	}
	if g.Constraint == "" {
		return g, seg, app.Invalidf("gold.constraint is empty")
	}
	return g, seg, nil
}

// Judge replies the official metric script leaves out (8_metric.py skips a
// point_explanation of "None" or "Err": gpt_api.py's reply after its last
// try, or a judgement with no explanation). A judge model that answers
// exactly this is treated the same way: an error of kind KindSentinel,
// counted apart by aggregate-ifs.
var sentinels = []string{"Err", "None"}

// Error kinds of the EifBench judge.
const (
	KindSentinel   = "sentinel"
	KindEmptyReply = "empty_reply"
)

// Parse reads the judge's verdict. A sentinel reply fails the record at
// once.
//
// An empty or blank reply is 否 in official mode: the official get_answer
// calls the judge again, but ignores that call's result and goes on to parse
// the empty reply (no 是: 否); the judgement it writes last for the check,
// which 8_metric.py keeps, is that 否. The second call cannot change the
// score, so none is made. With --strict-verdict an empty reply is no verdict:
// it is asked again, and after the retries it fails the record.
func (s scorer) Parse(rec *record.Record, reply string) (*record.Judgement, error) {
	if strings.TrimSpace(reply) == "" {
		if s.strict {
			return nil, &oai.Error{Kind: KindEmptyReply, Message: "the judge's reply is empty", Retryable: true}
		}
		return &record.Judgement{Verdict: judge.VerdictNo, Rubric: Rubric, Detail: map[string]any{"parsed_by": "empty_reply", "prompt": s.lang}}, nil
	}
	if slices.Contains(sentinels, reply) {
		return nil, &record.Error{Stage: "judge", Kind: KindSentinel, Message: fmt.Sprintf("the judge replied %q, which the official 8_metric.py leaves out of the metrics", reply)}
	}
	v, how, ok := ParseVerdict(reply, s.strict)
	if !ok {
		return nil, judge.VerdictError(reply)
	}
	j := &record.Judgement{Verdict: v, Rubric: Rubric, Detail: map[string]any{"parsed_by": how, "prompt": s.lang}}
	if v == judge.VerdictYes {
		j.Score = 1
	}
	return j, nil
}

var (
	officialAnswerRE = regexp.MustCompile(`答案：是|答案：否`)
	answerRE         = regexp.MustCompile(`(?i)(?:答案|answer|verdict)\s*[:：]\s*\**\s*(yes\b|no\b|是|否)`)
	englishAnswerRE  = regexp.MustCompile(`(?i)(?:answer|verdict)\s*[:：]\s*\**\s*(yes|no)\b`)
	yesRE            = regexp.MustCompile(`(?i)(?:^|[^\p{L}])yes(?:$|[^\p{L}])`)
	noRE             = regexp.MustCompile(`(?i)(?:^|[^\p{L}])no(?:$|[^\p{L}])`)
	bareRE           = regexp.MustCompile(`(?i)^[\s\p{P}]*(yes|no|是|否)[\s\p{P}]*$`)
)

// ParseVerdict reads a judge reply; how says which rule decided.
//
// Official (strict false): a reply that says 是, 否 or the label 答案
// anywhere is read exactly as the official 6_evaluation.py get_answer reads
// it: the literal "答案：是" or "答案：否" (full-width colon) found exactly
// once decides; otherwise yes when 是 occurs and 否 does not. So "答案: 是"
// (ASCII colon) in a reply that also says 是否 is no, and "答案：YES" (an
// English verdict after the Chinese label) is no. A reply with none of them
// (the English judge prompt's replies, which the official parser would read
// as no for want of 是) is read by the same rules in English: a bare yes/no,
// or an "Answer: yes|no" line found exactly once, else yes when the word yes
// occurs and the word no does not.
//
// Strict: only a bare yes/no/是/否 or exactly one verdict line in either
// language and either colon is accepted (ok=false otherwise); "答案：YES" is
// such a line, so strict reads it as yes where official reads no.
func ParseVerdict(reply string, strict bool) (verdict, how string, ok bool) {
	if strict {
		if m := bareRE.FindStringSubmatch(strings.TrimSpace(reply)); m != nil {
			return yesNo(m[1]), "bare", true
		}
		if ms := answerRE.FindAllStringSubmatch(reply, -1); len(ms) == 1 {
			return yesNo(ms[0][1]), "answer_line", true
		}
		return "", "", false
	}
	if strings.ContainsAny(reply, "是否") || strings.Contains(reply, "答案") {
		if ms := officialAnswerRE.FindAllString(reply, -1); len(ms) == 1 {
			return yesNo(strings.TrimPrefix(ms[0], "答案：")), "answer_line", true
		}
		if strings.Contains(reply, "是") && !strings.Contains(reply, "否") {
			return judge.VerdictYes, "fallback", true
		}
		return judge.VerdictNo, "fallback", true
	}
	if m := bareRE.FindStringSubmatch(strings.TrimSpace(reply)); m != nil {
		return yesNo(m[1]), "bare", true
	}
	if ms := englishAnswerRE.FindAllStringSubmatch(reply, -1); len(ms) == 1 {
		return yesNo(ms[0][1]), "answer_line", true
	}
	if yesRE.MatchString(reply) && !noRE.MatchString(reply) {
		return judge.VerdictYes, "fallback", true
	}
	return judge.VerdictNo, "fallback", true
}

func yesNo(s string) string {
	switch strings.ToLower(s) {
	case "yes", "是":
		return judge.VerdictYes
	}
	return judge.VerdictNo
}
