package expand

// ChatMessage is one message of a chat request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a chat-completions request body without "model". Unset
// sampling fields are left out, so the endpoint's defaults apply.
type ChatRequest struct {
	Messages    []ChatMessage `json:"messages"`
	MaxTokens   *int          `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	TopP        *float64      `json:"top_p,omitempty"`
}

// UserChat is a single-user-message request. The benchmark's own defaults
// (nil for "leave it to the endpoint") yield to the expand-templates flags.
func UserChat(prompt string, opt Options, maxTokens *int, temperature *float64) ChatRequest {
	req := ChatRequest{
		Messages:    []ChatMessage{{Role: "user", Content: prompt}},
		MaxTokens:   maxTokens,
		Temperature: temperature,
		TopP:        opt.TopP,
	}
	if opt.MaxTokens != nil {
		req.MaxTokens = opt.MaxTokens
	}
	if opt.Temperature != nil {
		req.Temperature = opt.Temperature
	}
	return req
}
