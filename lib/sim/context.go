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

// truncatePrompt keeps the last MaxModelLen tokens of the prompt, as Ollama
// does with a prompt longer than its context (num_ctx): the front goes,
// whole messages first, then the leading pieces of the first message that
// stays; each message kept keeps its template framing. No room is kept for
// the reply: Ollama shifts its context while it generates. It returns a
// copy of req and the new prompt token count (<= MaxModelLen).
func (s *Server) truncatePrompt(req *Request, promptTokens int) (*Request, int) {
	cut, pt := *req, promptTokens
	cut.Messages = slices.Clone(req.Messages)
	// One pass is exact where a message costs its content plus
	// messageFraming; under llama.cpp's template, or a scaled count
	// (TokenScale), a cut can save less, so it goes on, a piece more each
	// time it saved too little, until the count fits or nothing is left.
	more := 0
	for pt > s.opt.MaxModelLen {
		excess := int(math.Ceil(float64(pt-s.opt.MaxModelLen)/s.scale())) + more
		size := textSize(&cut)
		if !req.Chat {
			// The template's tokens (Ollama templates completions too) stay.
			cut.Prompt = dropPieces(cut.Prompt, excess)
		} else {
			msgs := cut.Messages
			// A message whose content cannot absorb the excess goes whole,
			// framing and all (the prompt may end up to messageFraming-1
			// tokens under N).
			for len(msgs) > 1 && excess > EstimateTokens(msgs[0].Content) {
				excess -= messageFraming + EstimateTokens(msgs[0].Content)
				msgs = msgs[1:]
			}
			if excess > 0 {
				msgs[0].Content = dropPieces(msgs[0].Content, excess)
			}
			cut.Messages = msgs
		}
		if textSize(&cut) == size {
			break // only the template is left
		}
		next := s.promptTokens(&cut)
		if next >= pt {
			more++
		}
		pt = next
	}
	return &cut, min(pt, s.opt.MaxModelLen)
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
