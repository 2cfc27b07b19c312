package record

import "fmt"

// The shared field types (docs/records.md, "Records"). Stages own the fields they set; every
// other stage reads them through these types so their shape is defined once.

// Error is the `error` field: a record that failed a stage flows on with it.
// It is also a Go error, so a per-record function can return it to mark the
// record failed instead of aborting the run.
type Error struct {
	Stage    string `json:"stage"`
	Kind     string `json:"kind"`
	Status   int    `json:"status,omitempty"`
	Message  string `json:"message"`
	Attempts int    `json:"attempts,omitempty"`
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: %s (status %d): %s", e.Stage, e.Kind, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s: %s", e.Stage, e.Kind, e.Message)
}

// Usage is the token accounting an endpoint reports. The details are kept
// as OpenAI names them, where the server reports them (OpenAI; vLLM with
// --enable-prompt-tokens-details; reasoning models), for the cost.
type Usage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails: CachedTokens of the prompt tokens were served by the
// server's prefix cache (often billed lower).
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails: ReasoningTokens of the completion tokens were
// spent reasoning.
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// CachedTokens and ReasoningTokens are the details' counts, 0 where the
// server did not report them.
func (u Usage) CachedTokens() int {
	if u.PromptTokensDetails == nil {
		return 0
	}
	return u.PromptTokensDetails.CachedTokens
}

func (u Usage) ReasoningTokens() int {
	if u.CompletionTokensDetails == nil {
		return 0
	}
	return u.CompletionTokensDetails.ReasoningTokens
}

// FromCache marks a reply that came from the cache (--cache, docs/cache.md)
// instead of a call: when it was first received and by which run, whose
// summary, --stats and manifest name it cache_run.
type FromCache struct {
	Cached     bool   `json:"cached,omitempty"`
	CachedTime string `json:"cached_time,omitempty"`
	CachedRun  string `json:"cached_run,omitempty"`
}

// Response is the `response` field written by infer-batch.
type Response struct {
	Text      string `json:"text"`
	Reasoning string `json:"reasoning,omitempty"`
	// What the reasoning rule did (lib/reasoning): the format of the trace
	// it found (moved from the text to Reasoning, RawText keeping the text
	// as received), the trace's tokens and who counted them ("usage": the
	// server), and whether the trace never ended (the record then fails).
	ReasoningFormat     string  `json:"reasoning_format,omitempty"`
	ReasoningTokens     int     `json:"reasoning_tokens,omitempty"`
	ReasoningTokensFrom string  `json:"reasoning_tokens_from,omitempty"`
	ReasoningUnfinished bool    `json:"reasoning_unfinished,omitempty"`
	RawText             string  `json:"raw_text,omitempty"`
	FinishReason        string  `json:"finish_reason"`
	Usage               Usage   `json:"usage"`
	LatencyMS           float64 `json:"latency_ms"`
	TTFTMS              float64 `json:"ttft_ms,omitempty"`
	Attempts            int     `json:"attempts"`
	Endpoint            string  `json:"endpoint"`
	// ContextCutTokens is how many context tokens infer-batch's
	// --truncate-context removed before sending (estimated with --tokenizer).
	ContextCutTokens int `json:"context_cut_tokens,omitempty"`
	// Fingerprint is the server's system_fingerprint; "llm-sim" marks replies
	// of the test double, which every report then says.
	Fingerprint string `json:"system_fingerprint,omitempty"`
	// PromptTokensSent is the client's count of the prompt it sent and
	// Tokenizer what counted it ("server", "hf:FILE", "o200k_base~" for an
	// estimate); ServerTruncated is set when the server cut the prompt
	// (lib/cuts: its usage.prompt_tokens fell short of that count beyond the
	// count's uncertainty, filled its context, or the prompt cannot have
	// fitted), so the reply answers something else.
	PromptTokensSent int    `json:"prompt_tokens_sent,omitempty"`
	Tokenizer        string `json:"tokenizer,omitempty"`
	ServerTruncated  bool   `json:"server_truncated,omitempty"`
	// CutCheck says how well the reply was checked for a cut ("exact",
	// "calibrated", "unchecked": lib/cuts), and CutMargin, for a calibrated
	// estimate, the share of the prompt a cut had to exceed to be seen.
	CutCheck  string  `json:"cut_check,omitempty"`
	CutMargin float64 `json:"cut_margin,omitempty"`
	// Runaway: the reply stopped at finish_reason "length" by the server's
	// own limit, not the request's (no max_tokens in the request, or a
	// server that ignored it).
	Runaway bool `json:"runaway,omitempty"`
	FromCache
}

// Point is one rubric score point.
type Point struct {
	Name         string   `json:"name"`
	Score        float64  `json:"score"`
	Max          float64  `json:"max"`
	Capabilities []string `json:"capabilities,omitempty"`
}

// JudgeCall records which model judged and what it said.
type JudgeCall struct {
	Model string `json:"model"`
	// Reply is what the verdict was read from: the judge model's answer,
	// after the reasoning trace it may have given first (Reasoning).
	Reply     string `json:"reply"`
	Reasoning string `json:"reasoning,omitempty"`
	Attempts  int    `json:"attempts,omitempty"`
	Endpoint  string `json:"endpoint,omitempty"`
	// Usage is what the judge call cost (its server's usage), so a report
	// counts judging apart from the answers it judged.
	Usage *Usage `json:"usage,omitempty"`
	FromCache
}

// Judgement is the `judgement` field written by judge. Detail holds what a
// benchmark's aggregate needs beyond score and points (per-keyword classes,
// predicted id sets, ...).
type Judgement struct {
	Score   float64        `json:"score"`
	Points  []Point        `json:"points,omitempty"`
	Verdict string         `json:"verdict,omitempty"`
	Rubric  string         `json:"rubric"`
	Judge   *JudgeCall     `json:"judge,omitempty"`
	Detail  map[string]any `json:"detail,omitempty"`
}

// Errored reports whether the record carries an error from any stage.
func (r *Record) Errored() bool { return r.Has("error") }

// JudgeModel is the LLM judge that decided the record (judgement.judge
// .model), "" when a program scored it or it is not judged.
func (r *Record) JudgeModel() string {
	var j struct {
		Judge *struct {
			Model string `json:"model"`
		} `json:"judge"`
	}
	if !r.Has("judgement") || r.Decode("judgement", &j) != nil || j.Judge == nil {
		return ""
	}
	return j.Judge.Model
}

// JudgeModelField is the field judge sets, on every record of a benchmark
// with an LLM judge that a judge model run writes (failed ones too), to the
// judge model's name as its calls send it: aggregate-ifs reads one model's
// records judged by two judge models side by side by it. The name the
// server reported stays in judgement.judge.model.
const JudgeModelField = "judge_model"

// Fail sets the error field.
func (r *Record) Fail(e *Error) { _ = r.Set("error", e) }

// SourceField is the item field gen-context sets to where the items came
// from: an official file with its size, the project's sample set with its
// size, or the project's generator and what it drew from. aggregate-ifs
// notes it under every table and as the "source" dimension of every row.
const SourceField = "source"

// BudgetField is the field expand-templates sets to the tokens its
// --reasoning-budget added to the request's max_tokens, room for a
// thinking model's trace; split-subtasks copies it into every check and
// aggregate-ifs notes it under every table.
const BudgetField = "reasoning_budget"

// LimitField is the item field gen-context --limit N sets to N on the items
// it keeps (the first N of each cell of the benchmark's tables); the source
// says so too, for the reports. expand-templates keeps, of the requests made
// from such an item, the first N of each cell.
const LimitField = "limit"
