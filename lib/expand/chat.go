package expand

import "strconv"

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

// Ordinal writes n as prompts do: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th,
// 21st, 101st.
func Ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}
