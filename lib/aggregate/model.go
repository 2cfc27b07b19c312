package aggregate

import "github.com/ifkit/ifkit/lib/record"

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
