package oai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
)

// The tokenize APIs of the inference servers, none of them part of the
// OpenAI API, all at the server's root (not under /v1):
//
//   - vLLM and SGLang: POST /tokenize {"model", "prompt"} → {"count", "tokens"};
//     vLLM also takes {"model", "messages", "add_generation_prompt": true} and
//     counts the prompt its chat template makes, as generation does.
//   - llama.cpp: POST /tokenize {"content"} → {"tokens"}; POST /apply-template
//     {"messages"} → {"prompt"} gives the chat prompt to count.
//   - TGI: POST /tokenize {"inputs"} → [{"id", "text", ...}]; POST
//     /chat_tokenize (a chat request) → {"tokenize_response": [...]}.
//
// Ollama and OpenAI have none.
const (
	TokenizeVLLM     = "vllm"
	TokenizeLlamaCpp = "llama.cpp"
	TokenizeTGI      = "tgi"
)

// TokenizeAPI is what DetectTokenize found on one endpoint.
type TokenizeAPI struct {
	Kind string
	Root string // the server root, base URL without /v1
	Chat bool   // the server counts chat messages with its template
}

// Root is the server root of a normalized base URL: http://h:8000/v1 →
// http://h:8000.
func Root(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

const probeText = "Hello, world: how many tokens is this?"

// DetectTokenize asks an endpoint's server for each known tokenize API in
// turn and returns the first that counts the probe text. The error says
// what was tried when none did.
func (c *Client) DetectTokenize(ctx context.Context, base, model string, timeout time.Duration) (*TokenizeAPI, error) {
	root := Root(base)
	probeMsgs, _ := json.Marshal([]map[string]string{{"role": "user", "content": probeText}})
	var tried []string
	for _, kind := range []string{TokenizeVLLM, TokenizeLlamaCpp, TokenizeTGI} {
		api := &TokenizeAPI{Kind: kind, Root: root}
		n, err := c.countPrompt(ctx, api, model, probeText, timeout)
		if err == nil && n > 0 {
			if m, err := c.countChat(ctx, &TokenizeAPI{Kind: kind, Root: root, Chat: true}, model, probeMsgs, timeout); err == nil && m > 0 {
				api.Chat = true
			}
			return api, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		what := "no tokens"
		if err != nil {
			what = err.Error()
		}
		tried = append(tried, fmt.Sprintf("%s (%s): %s", kind, root+"/tokenize", what))
	}
	all := strings.Join(tried, "; ")
	if strings.Contains(strings.ToLower(all), "model") {
		// A tokenize API that answered about the model exists: the model
		// name is what is wrong, not the server.
		return nil, fmt.Errorf("%s has no tokenize API for model %q (check --model): %s", Label(root), model, all)
	}
	return nil, fmt.Errorf("%s has no tokenize API: %s", Label(root), all)
}

// CountTokens is the server's count of a prompt: chat messages (a JSON
// array) when messages is set, else the prompt text. Without a chat
// tokenize API the messages' contents are counted and template reports false.
func (c *Client) CountTokens(ctx context.Context, api *TokenizeAPI, model string, messages json.RawMessage, contents []string, prompt string, timeout time.Duration) (n int, template bool, err error) {
	if messages == nil {
		n, err = c.countPrompt(ctx, api, model, prompt, timeout)
		return n, false, err
	}
	if api.Chat {
		n, err = c.countChat(ctx, api, model, messages, timeout)
		return n, true, err
	}
	for _, s := range contents {
		k, err := c.countPrompt(ctx, api, model, s, timeout)
		if err != nil {
			return 0, false, err
		}
		n += k
	}
	return n, false, nil
}

func (c *Client) countPrompt(ctx context.Context, api *TokenizeAPI, model, text string, timeout time.Duration) (int, error) {
	var body any
	switch api.Kind {
	case TokenizeVLLM:
		body = map[string]any{"model": model, "prompt": text}
	case TokenizeLlamaCpp:
		body = map[string]any{"content": text, "add_special": true}
	case TokenizeTGI:
		body = map[string]any{"inputs": text}
	}
	b, err := c.postJSON(ctx, api.Root+"/tokenize", body, timeout)
	if err != nil {
		return 0, err
	}
	return parseCount(api.Kind, b)
}

func (c *Client) countChat(ctx context.Context, api *TokenizeAPI, model string, messages json.RawMessage, timeout time.Duration) (int, error) {
	switch api.Kind {
	case TokenizeVLLM:
		b, err := c.post(ctx, api.Root+"/tokenize", messagesBody(&model, messages, `,"add_generation_prompt":true`), timeout)
		if err != nil {
			return 0, err
		}
		return parseCount(api.Kind, b)
	case TokenizeLlamaCpp:
		b, err := c.post(ctx, api.Root+"/apply-template", messagesBody(nil, messages, ""), timeout)
		if err != nil {
			return 0, err
		}
		var v struct {
			Prompt *string `json:"prompt"`
		}
		if err := unmarshal(b, &v); err != nil || v.Prompt == nil {
			return 0, fmt.Errorf("apply-template: no prompt in %s", shorten(b))
		}
		// The template writes the special tokens as text.
		b, err = c.postJSON(ctx, api.Root+"/tokenize", map[string]any{"content": *v.Prompt, "add_special": false, "parse_special": true}, timeout)
		if err != nil {
			return 0, err
		}
		return parseCount(api.Kind, b)
	case TokenizeTGI:
		b, err := c.post(ctx, api.Root+"/chat_tokenize", messagesBody(&model, messages, ""), timeout)
		if err != nil {
			return 0, err
		}
		var v struct {
			Tokens []json.RawMessage `json:"tokenize_response"`
		}
		if err := unmarshal(b, &v); err != nil || v.Tokens == nil {
			return 0, fmt.Errorf("chat_tokenize: no tokenize_response in %s", shorten(b))
		}
		return len(v.Tokens), nil
	}
	return 0, errors.New("unknown tokenize API")
}

// parseCount reads a tokenize reply: vLLM's {"count"} (or its "tokens"),
// llama.cpp's {"tokens"}, TGI's list of tokens.
func parseCount(kind string, b []byte) (int, error) {
	if kind == TokenizeTGI {
		var toks []struct {
			ID *int `json:"id"`
		}
		if err := unmarshal(b, &toks); err != nil || (len(toks) > 0 && toks[0].ID == nil) {
			return 0, fmt.Errorf("not a TGI token list: %s", shorten(b))
		}
		return len(toks), nil
	}
	var v struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := unmarshal(b, &v); err != nil || (v.Count == nil && v.Tokens == nil) {
		return 0, fmt.Errorf("not a tokenize reply: %s", shorten(b))
	}
	if v.Count != nil {
		return *v.Count, nil
	}
	return len(v.Tokens), nil
}

// messagesBody is a JSON object {"model"?, "messages", more}: the messages
// are the request's own bytes, as they are, so a long prompt is copied once
// per count instead of being decoded and encoded again.
func messagesBody(model *string, messages json.RawMessage, more string) []byte {
	b := make([]byte, 0, len(messages)+len(more)+64)
	b = append(b, '{')
	if model != nil {
		b = append(append(append(b, `"model":`...), record.Quote(*model)...), ',')
	}
	b = append(append(append(b, `"messages":`...), messages...), more...)
	return append(b, '}')
}

func (c *Client) postJSON(ctx context.Context, url string, body any, timeout time.Duration) ([]byte, error) {
	raw, err := record.Marshal(body)
	if err != nil {
		return nil, err
	}
	return c.post(ctx, url, raw, timeout)
}

func (c *Client) post(ctx context.Context, url string, raw []byte, timeout time.Duration) ([]byte, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	b, _, err := c.roundTrip(ctx, http.MethodPost, url, raw)
	return b, err
}

// roundTrip sends one small request (JSON body or none) with the key and
// reads the reply; a status other than 2xx is the server's *Error.
func (c *Client) roundTrip(ctx context.Context, method, url string, body []byte) ([]byte, int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, 0, errors.New(redact.String(err.Error()))
	}
	defer resp.Body.Close()
	b, err := c.readLimited(resp.Body)
	if err != nil {
		return nil, resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, resp.StatusCode, c.statusError(resp, b)
	}
	return b, resp.StatusCode, nil
}
