package sim

import (
	"fmt"
	"math"
	"net/http"
	"slices"
)

// Overflow is what a prompt longer than Options.MaxModelLen gets.
type Overflow string

const (
	// OverflowError answers 400 with the server's "maximum context length"
	// error (vLLM, OpenAI, llama.cpp): nothing is generated.
	OverflowError Overflow = "error"
	// OverflowTruncate keeps the last MaxModelLen tokens of the prompt and
	// answers them, reporting the reduced usage.prompt_tokens (Ollama): the
	// client is not told.
	OverflowTruncate Overflow = "truncate"
)

// MinModelLen is the shortest MaxModelLen: a context must hold a chat
// template and some text.
const MinModelLen = 64

// ParseOverflow reads --overflow.
func ParseOverflow(s string) (Overflow, error) {
	switch o := Overflow(s); o {
	case OverflowError, OverflowTruncate:
		return o, nil
	}
	return "", fmt.Errorf("%q: want error or truncate", s)
}

// overflow reports whether the request does not fit in MaxModelLen. As vLLM
// does, a request with max_tokens needs room for the prompt and all of the
// reply; one without needs room for at least one reply token.
func (s *Server) overflow(promptTokens, maxTokens int) bool {
	L := s.opt.MaxModelLen
	if L <= 0 {
		return false
	}
	if maxTokens > 0 {
		return promptTokens+maxTokens > L
	}
	return promptTokens >= L
}

// contextError answers a request that does not fit with the profile's
// "maximum context length" error.
func (s *Server) contextError(w http.ResponseWriter, req *Request, promptTokens int) {
	s.count(func(st *Stats) { st.ClientErrors++; st.ContextErrors++ })
	L, mt := s.opt.MaxModelLen, req.MaxTokens
	switch s.opt.Profile {
	case ProfileOpenAI:
		// OpenAI's wording, with its code context_length_exceeded.
		var msg string
		switch {
		case !req.Chat:
			msg = fmt.Sprintf("This model's maximum context length is %d tokens, however you requested %d tokens (%d in your prompt; %d for the completion). Please reduce your prompt; or completion length.", L, promptTokens+mt, promptTokens, mt)
		case mt > 0:
			msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", L, promptTokens+mt, promptTokens, mt)
		default:
			msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", L, promptTokens)
		}
		param := "messages"
		if !req.Chat {
			param = "prompt"
		}
		d := errorDetail{Message: msg, Type: "invalid_request_error", Param: &param}
		code := "context_length_exceeded"
		d.Code = &code
		writeJSON(w, http.StatusBadRequest, errorBody{d})
	case ProfileLlamaCpp:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"code": http.StatusBadRequest, "message": "the request exceeds the available context size, try increasing it",
			"type": "exceed_context_size_error", "n_prompt_tokens": promptTokens, "n_ctx": L,
		}})
	default:
		// vLLM's wording (the same for both endpoints) in its error body:
		// llm-sim's own profile and Ollama told to refuse answer as vLLM.
		msg := fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", L, promptTokens+mt, promptTokens, mt)
		if mt == 0 {
			msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens in the messages, Please reduce the length of the messages.", L, promptTokens)
		}
		writeVLLMError(w, http.StatusBadRequest, msg)
	}
}

// truncatePrompt cuts a prompt longer than MaxModelLen as Ollama does, and
// says so only in usage.prompt_tokens. A chat first loses whole older
// messages, oldest first, never a system message nor the last message,
// until the rendered prompt fits (Ollama's chatPrompt, which logs nothing
// above debug level); what still does not fit (a completions prompt, or
// the messages kept) is cut by the runner to exactly MaxModelLen tokens,
// the front going (Ollama keeps the first num_keep tokens, 4, and the last
// num_ctx − 4: its "truncating input prompt"). No room is kept for the
// reply: Ollama shifts its context while it generates. It returns a copy of
// req and the new prompt token count: below MaxModelLen when whole messages
// were enough, else MaxModelLen.
func (s *Server) truncatePrompt(req *Request, promptTokens int) (*Request, int) {
	L := s.opt.MaxModelLen
	cut, pt := *req, promptTokens
	if req.Chat {
		for start := 1; pt > L && start < len(req.Messages); start++ {
			var kept []Message
			for _, m := range req.Messages[:start] {
				if m.Role == "system" {
					kept = append(kept, m)
				}
			}
			cut.Messages = append(kept, req.Messages[start:]...)
			pt = s.promptTokens(&cut)
		}
		if pt <= L {
			return &cut, pt
		}
		cut.Messages = slices.Clone(cut.Messages)
	}
	// The runner's cut. One pass drops the excess where a piece costs one
	// token; a scaled count (TokenScale) or llama.cpp's template, where a cut
	// can merge with the text around it, may leave some over, so it goes on,
	// a piece more each time, until the text fits or nothing is left. The
	// count is the context, as Ollama's runner keeps exactly num_ctx tokens
	// (the text kept is cut between pieces, so under a scaled count it may
	// hold a token less).
	for more := 0; pt > L; more++ {
		excess := int(math.Ceil(float64(pt-L)/s.scale())) + more
		size := textSize(&cut)
		if !req.Chat {
			// The template's tokens (Ollama templates completions too) stay.
			cut.Prompt = dropPieces(cut.Prompt, excess)
		} else {
			for i := range cut.Messages {
				n := min(excess, EstimateTokens(cut.Messages[i].Content))
				cut.Messages[i].Content = dropPieces(cut.Messages[i].Content, n)
				if excess -= n; excess == 0 {
					break
				}
			}
		}
		if textSize(&cut) == size {
			break // only the template is left
		}
		pt = s.promptTokens(&cut)
	}
	return &cut, L
}

// textSize is how much of a request is left to cut.
func textSize(req *Request) int {
	n := len(req.Prompt) + len(req.Messages)
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n
}

// dropPieces removes the first n pieces of s. The pieces of what is left
// are the last pieces of s, since a piece depends only on the text from
// where it starts: so the count drops by exactly n.
func dropPieces(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		i = nextPiece(s, i)
	}
	return s[i:]
}
