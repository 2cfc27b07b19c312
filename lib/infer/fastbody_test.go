package infer

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The raw splice sends what decoding and encoding the request sent: the
// same fields and values (only their order may differ), path, max_tokens
// and stream; and it refuses what build refuses.
func TestBuildRawMatchesBuild(t *testing.T) {
	for _, stream := range []bool{false, true} {
		for _, req := range []string{
			`{"messages":[{"role":"user","content":"hi \u00e9 \"q\""}],"max_tokens":7,"temperature":0}`,
			`{"prompt":"p","max_completion_tokens":3,"model":"other","stream":true,"stream_options":{"include_usage":false}}`,
			`{"id":{"x":1},"prompt":["a","b"],"seed":5}`,
			`{"messages":{},"max_tokens":1}`,
			`{"input":"neither"}`,
		} {
			e := &engine{opt: Defaults(), model: "m"}
			e.opt.Stream = stream
			fast, fre, ok := e.buildRaw([]byte(req))
			if !ok {
				t.Fatalf("%s: not handled", req)
			}
			slow, sre := e.buildSlow([]byte(req))
			if (fre == nil) != (sre == nil) || (fre != nil && fre.Kind != sre.Kind) {
				t.Fatalf("%s: errors %v vs %v", req, fre, sre)
			}
			if fre != nil {
				continue
			}
			var a, b map[string]any
			json.Unmarshal(fast.body, &a)
			json.Unmarshal(slow.body, &b)
			if !reflect.DeepEqual(a, b) || fast.path != slow.path || fast.maxTokens != slow.maxTokens || fast.stream != slow.stream || fast.textBytes != slow.textBytes {
				t.Errorf("stream=%v %s:\n raw  %s %+v\n slow %s %+v", stream, req, fast.body, *fast, slow.body, *slow)
			}
		}
	}
}
