package aggregate

import (
	"fmt"
	"strings"

	"github.com/ifkit/ifkit/lib/cuts"
	"github.com/ifkit/ifkit/lib/reasoning"
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
// check (app.Tool.Answerer): its model, and the judge model it is for
// (JudgeOf: failed records name theirs too). One item answered by two
// models, or judged by two judges, is two records; the same answer read
// twice is still bad input.
func Answerer(rec *record.Record) string {
	who := fmt.Sprintf("model %q", ModelOf(rec))
	if j := JudgeOf(rec); j != "" {
		who += fmt.Sprintf(", judge %q", j)
	}
	return who
}

// CutCheck says how well infer-batch checked the record's reply for a cut
// (response.cut_check, and cut_margin for a calibrated estimate); "" when the
// record has no reply, or its inference failed (a trace that never ended
// keeps its reply): it is counted failed, not answered. A failure after the
// reply (a judge call, a verdict) leaves the reply as checked: every check
// split from one reply says the same of it, whichever is read first. A reply
// written before infer-batch said so was
// checked exactly when its count was the model's (tokenizer "server" or
// "hf:FILE") and the server reported usage, else only against a quarter's
// margin: unchecked.
func CutCheck(rec *record.Record) (cuts.Check, float64) {
	if !rec.Has("response") || !replyStands(rec) {
		return "", 0
	}
	var resp struct {
		Check     cuts.Check   `json:"cut_check"`
		Margin    float64      `json:"cut_margin"`
		Tokenizer string       `json:"tokenizer"`
		Usage     record.Usage `json:"usage"`
	}
	if rec.Decode("response", &resp) != nil {
		return cuts.Unchecked, 0
	}
	switch {
	case resp.Check != "":
		return resp.Check, resp.Margin
	case resp.Usage.PromptTokens > 0 && (resp.Tokenizer == "server" || strings.HasPrefix(resp.Tokenizer, "hf:")):
		return cuts.Exact, 0
	}
	return cuts.Unchecked, 0
}

// replyStands reports whether a record's reply is the model's answer: it
// has no error, or one of a stage after inference (split-subtasks, judge)
// other than a trace that never ended.
func replyStands(rec *record.Record) bool {
	var e record.Error
	if !rec.Errored() {
		return true
	}
	if rec.Decode("error", &e) != nil {
		return false
	}
	return e.Stage != "infer-batch" && e.Stage != "" && e.Kind != reasoning.KindUnfinished
}

// sentKey names the prompt a record answers, for the counts of prompts sent
// (cuts, replies, traces): the children split-subtasks makes of one reply
// count once, as their parent, and one item answered by several models is
// several prompts.
func sentKey(rec *record.Record) string {
	id := rec.String("parent")
	if id == "" {
		id = rec.ID()
	}
	return ModelOf(rec) + "\x00" + id
}
