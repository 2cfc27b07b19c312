package aggregate

import (
	"fmt"

	"github.com/ifkit/ifkit/lib/record"
)

// ModelOf is the model a record was answered by ("model", set by
// infer-batch), else the one it was sent to (request.model), else
// "unknown": failed records are still counted under a model.
func ModelOf(rec *record.Record) string {
	if m := rec.String("model"); m != "" {
		return m
	}
	var req struct {
		Model string `json:"model"`
	}
	if rec.Decode("request", &req) == nil && req.Model != "" {
		return req.Model
	}
	return "unknown"
}

// ServerTruncated reports whether the server cut the record's prompt
// (response.server_truncated, set by infer-batch): its reply answers a
// shorter prompt than the benchmark asked, so every table counts it.
func ServerTruncated(rec *record.Record) bool {
	var resp struct {
		Cut bool `json:"server_truncated"`
	}
	return rec.Has("response") && rec.Decode("response", &resp) == nil && resp.Cut
}

// Answerer says whose answer a record is, for aggregate-ifs' duplicate
// check (app.Tool.Answerer): its model, and the judge model that decided it
// when an LLM judged it. One item answered by two models, or judged by two
// judges, is two records; the same answer read twice is still bad input.
func Answerer(rec *record.Record) string {
	who := fmt.Sprintf("model %q", ModelOf(rec))
	if j := JudgeModelOf(rec); j != "" {
		who += fmt.Sprintf(", judge %q", j)
	}
	return who
}

// JudgeModelOf is the LLM judge that decided a record (judgement.judge
// .model), "" when a program scored it.
func JudgeModelOf(rec *record.Record) string {
	var j struct {
		Judge *struct {
			Model string `json:"model"`
		} `json:"judge"`
	}
	if !rec.Has("judgement") || rec.Decode("judgement", &j) != nil || j.Judge == nil {
		return ""
	}
	return j.Judge.Model
}
