package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
)

// callOptions are the parts of the body that shape the reply but not the text.
type callOptions struct {
	stream       bool
	includeUsage bool
	seed         uint64 // the body's "seed", mixed into the reply RNG
	hasSeed      bool
}

// badRequest is a 400 with an OpenAI-style param name.
type badRequest struct{ param, msg string }

func (e *badRequest) Error() string { return e.msg }

func badf(param, format string, args ...any) error {
	return &badRequest{param, fmt.Sprintf(format, args...)}
}

// parseRequest decodes a completion body as the profile reads it; errors
// are *badRequest.
func parseRequest(b []byte, chat bool, q quirks) (*Request, callOptions, error) {
	var co callOptions
	v, err := record.DecodeAny(b) // a 455 KB prompt's UTF-8 checked at three times the decoder's speed
	body, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, co, badf("", "the body is not a JSON object")
	}
	req := &Request{Chat: chat, Body: body}
	if v, ok := body["model"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, co, badf("model", "model must be a string")
		}
		req.Model = s
	}
	if req.Model == "" && q.requireModel {
		// Each server's words; OpenAI names no param.
		if q.errors == errorsOllama {
			return nil, co, badf("", "model is required")
		}
		return nil, co, badf("", "you must provide a model parameter")
	}
	if chat {
		msgs, ok := body["messages"].([]any)
		if !ok || len(msgs) == 0 {
			return nil, co, badf("messages", "messages must be a non-empty array")
		}
		for i, m := range msgs {
			mm, ok := m.(map[string]any)
			if !ok {
				return nil, co, badf("messages", "messages[%d] must be an object", i)
			}
			role, _ := mm["role"].(string)
			if role == "" {
				return nil, co, badf("messages", "messages[%d].role must be a non-empty string", i)
			}
			content, err := messageContent(mm["content"])
			if err != nil {
				return nil, co, badf("messages", "messages[%d].content: %v", i, err)
			}
			req.Messages = append(req.Messages, Message{Role: role, Content: content})
		}
	} else {
		switch p := body["prompt"].(type) {
		case string:
			req.Prompt = p
		case []any:
			// A list of one prompt is fine; batched prompts would need n choices.
			s, ok := "", len(p) == 1
			if ok {
				s, ok = p[0].(string)
			}
			if !ok {
				return nil, co, badf("prompt", "prompt must be a string or a list of one string (llm-sim does not batch prompts)")
			}
			req.Prompt = s
		default:
			return nil, co, badf("prompt", "prompt must be a string")
		}
	}
	if !q.ollamaFields {
		if req.MaxTokens, err = maxTokensField(body, "max_completion_tokens", q); err != nil {
			return nil, co, err
		}
	}
	if req.MaxTokens == 0 {
		if req.MaxTokens, err = maxTokensField(body, "max_tokens", q); err != nil {
			return nil, co, err
		}
	}
	if req.Stop, err = stopField(body["stop"]); err != nil {
		return nil, co, err
	}
	if n, err := intField(body, "n"); !q.ollamaFields && (err != nil || n > 1) {
		return nil, co, badf("n", "llm-sim answers one choice per request (n must be 1)")
	}
	if v, ok := body["stream"]; ok && v != nil {
		if co.stream, ok = v.(bool); !ok {
			return nil, co, badf("stream", "stream must be a boolean")
		}
	}
	if so, ok := body["stream_options"].(map[string]any); ok {
		co.includeUsage, _ = so["include_usage"].(bool)
	}
	if v, ok := body["seed"].(float64); ok {
		co.seed, co.hasSeed = uint64(int64(v)), true
	}
	return req, co, nil
}

// messageContent reads a string, null, or an array of parts (the text parts
// are joined with "\n"; images and audio have no text to read).
func messageContent(v any) (string, error) {
	switch c := v.(type) {
	case nil:
		return "", nil
	case string:
		return c, nil
	case []any:
		var texts []string
		for _, p := range c {
			pm, ok := p.(map[string]any)
			if !ok {
				return "", fmt.Errorf("content parts must be objects")
			}
			if t, ok := pm["text"].(string); ok {
				texts = append(texts, t)
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", fmt.Errorf("must be a string or an array of parts")
}

// intField reads a non-negative integer field (0 when absent or null).
func intField(body map[string]any, key string) (int, error) {
	v, ok := body[key]
	if !ok || v == nil {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, badf(key, "%s must be a non-negative integer", key)
	}
	return int(f), nil
}

// maxTokensField reads max_tokens or max_completion_tokens; 0 (no limit)
// is a 400 where the server wants at least 1.
func maxTokensField(body map[string]any, key string, q quirks) (int, error) {
	n, err := intField(body, key)
	if err == nil && n == 0 && q.strictMaxTokens && body[key] != nil {
		return 0, badf(key, "%s must be at least 1, got 0.", key)
	}
	return n, err
}

func stopField(v any) ([]string, error) {
	switch s := v.(type) {
	case nil:
		return nil, nil
	case string:
		if s == "" {
			return nil, nil
		}
		return []string{s}, nil
	case []any:
		var out []string
		for _, x := range s {
			str, ok := x.(string)
			if !ok {
				return nil, badf("stop", "stop must be a string or a list of strings")
			}
			if str != "" {
				out = append(out, str)
			}
		}
		return out, nil
	}
	return nil, badf("stop", "stop must be a string or a list of strings")
}

// The sim's chat template: each message costs its content plus
// messageFraming tokens, and the reply is primed with replyPriming.
const (
	messageFraming = 4
	replyPriming   = 3
)

// promptTokens is the prompt as the server counts it (usage.prompt_tokens):
// the raw prompt on /v1/completions (plus the template where the profile
// applies one), the templated messages on chat.
func (s *Server) promptTokens(req *Request) int {
	switch {
	case !req.Chat:
		return s.scaled(s.quirks.completionsTemplate + s.textTokens(req.Prompt))
	case s.quirks.chatML:
		return s.scaled(chatMLTokens(req.Messages))
	}
	n := replyPriming
	for _, m := range req.Messages {
		n += messageFraming + s.textTokens(m.Content)
	}
	return s.scaled(n)
}

// textTokens counts a text as the served model does: Options.CountText, or
// llm-sim's own estimate.
func (s *Server) textTokens(text string) int {
	if s.opt.CountText != nil {
		return s.opt.CountText(text)
	}
	return EstimateTokens(text)
}

// scale is Options.TokenScale, 1 when unset.
func (s *Server) scale() float64 {
	if s.opt.TokenScale > 0 {
		return s.opt.TokenScale
	}
	return 1
}

// scaled is a prompt count of llm-sim's tokens as the model counts it
// (Options.TokenScale).
func (s *Server) scaled(n int) int {
	if s.opt.TokenScale <= 0 || s.opt.TokenScale == 1 {
		return n
	}
	return int(math.Round(float64(n) * s.opt.TokenScale))
}

// measure is promptTokens and requestHash(req) together: the texts are
// counted and hashed in one pass (hashPieces), for about the cost of the
// hash alone. The hash is then taken for requests that get no reply too
// (faults, context errors); the pass a reply needs costs half as much.
func (s *Server) measure(req *Request) (tokens int, hash uint64) {
	if req.Chat && s.quirks.chatML || s.opt.CountText != nil {
		return s.promptTokens(req), requestHash(req, nil)
	}
	n := 0
	hash = requestHash(req, &n)
	if !req.Chat {
		return s.scaled(s.quirks.completionsTemplate + n), hash
	}
	return s.scaled(replyPriming + len(req.Messages)*messageFraming + n), hash // promptTokens
}

// requestHash is FNV-1a (as hash/fnv's New64a) over what makes two requests
// "the same" for the reply RNG: the model, the endpoint, the roles and
// texts. With tokens set, it adds the texts' EstimateTokens to *tokens.
func requestHash(req *Request, tokens *int) uint64 {
	h := fnv1a(fnvOffset64, req.Model)
	text := func(s string) {
		switch {
		case tokens != nil:
			n, sum := hashText(s, h)
			*tokens, h = *tokens+n, sum
		case len(s) >= 2*memoChunk:
			_, h = hashText(s, h) // remembered: cheaper than the hash alone
		default:
			h = fnv1a(h, s)
		}
	}
	if req.Chat {
		for _, m := range req.Messages {
			h = fnv1a(fnv1a(fnv1a(h, "\x00"), m.Role), "\x01")
			text(m.Content)
		}
	} else {
		h = fnv1a(h, "\x02")
		text(req.Prompt)
	}
	return h
}

// replySeed seeds the reply RNG: the request's hash (requestHash), and the
// body's seed.
func replySeed(hash uint64, co callOptions) uint64 {
	if co.hasSeed {
		hash ^= co.seed * 0x9e3779b97f4a7c15
	}
	return hash
}

const fnvOffset64, fnvPrime64 = 14695981039346656037, 1099511628211

// fnv1a folds s into the FNV-1a state h; from fnvOffset64 it is hash/fnv's
// New64a, which wants a []byte and an interface call for each piece.
func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime64
	}
	return h
}

// fnv1aWord folds the 8 bytes of w, little-endian, into h.
func fnv1aWord(h, w uint64) uint64 {
	for range 8 {
		h = (h ^ w&0xff) * fnvPrime64
		w >>= 8
	}
	return h
}

// applyLimits cuts a generated reply as a server would while generating it:
// at the first stop sequence (finish "stop"), or after maxTokens tokens
// (finish "length") if that comes first.
func applyLimits(reply string, stop []string, maxTokens int) (text, finish string) {
	text = reply
	for _, s := range stop {
		if i := strings.Index(text, s); i >= 0 {
			text = text[:i]
		}
	}
	if maxTokens > 0 {
		if kept, cut := truncateTokens(text, maxTokens); cut {
			return kept, "length"
		}
	}
	return text, "stop"
}
