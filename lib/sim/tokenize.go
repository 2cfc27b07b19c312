package sim

import (
	"hash/fnv"
	"net/http"

	"github.com/ifkit/ifkit/lib/record"
)

// POST /tokenize counts with the server's own tokens, so that a client that
// counts its prompts here gets exactly the usage.prompt_tokens of the same
// request: vLLM's shape ({"model","prompt"} or {"model","messages",
// "add_generation_prompt"} → {"count","max_model_len","tokens"}) or, under
// the llamacpp profile, llama.cpp's ({"content"} → {"tokens"}, the raw text
// without a chat template, as llama.cpp counts it).

// Token ids: the sim's template tokens, then the pieces hashed into a
// vocabulary of vocabSize ids after them.
const (
	tokStart = iota + 1
	tokEnd
	tokNewline
	tokRoleSystem
	tokRoleUser
	tokRoleAssistant
	tokRoleOther
	firstPieceID
)

const vocabSize = 150000

func pieceIDs(ids []int, text string) []int {
	for i := 0; i < len(text); {
		j := nextPiece(text, i)
		h := fnv.New32a()
		h.Write([]byte(text[i:j]))
		ids = append(ids, firstPieceID+int(h.Sum32()%vocabSize))
		i = j
	}
	return ids
}

func roleID(role string) int {
	switch role {
	case "system", "developer":
		return tokRoleSystem
	case "user":
		return tokRoleUser
	case "assistant":
		return tokRoleAssistant
	}
	return tokRoleOther
}

// messageIDs are the templated messages: messageFraming tokens around each
// content, and replyPriming tokens that open the reply. Their number is
// messagesTokens.
func messageIDs(msgs []Message, generationPrompt bool) []int {
	var ids []int
	for _, m := range msgs {
		ids = append(ids, tokStart, roleID(m.Role), tokNewline)
		ids = pieceIDs(ids, m.Content)
		ids = append(ids, tokEnd)
	}
	if generationPrompt {
		ids = append(ids, tokStart, tokRoleAssistant, tokNewline)
	}
	return ids
}

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	b, ok := s.readBody(w, r)
	if !ok {
		return
	}
	var body map[string]any
	if err := record.Unmarshal(b, &body); err != nil || body == nil {
		s.clientError(w, http.StatusBadRequest, "the body is not a JSON object", "invalid_request_error", "")
		return
	}
	if s.quirks.tokenize == tokenizeLlamaCpp {
		content, ok := body["content"].(string)
		if !ok {
			s.clientError(w, http.StatusBadRequest, `"content" must be provided`, "invalid_request_error", "")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"tokens": pieceIDs([]int{}, content)})
		return
	}
	if m, ok := body["model"].(string); ok && m != "" && !s.models[m] {
		s.unknownModel(w, m)
		return
	}
	var ids []int
	if _, chat := body["messages"]; chat {
		// The messages are read as /v1/chat/completions reads them.
		req, _, err := parseRequest(b, true, quirks{})
		if err != nil {
			s.clientError(w, http.StatusBadRequest, err.Error(), "invalid_request_error", "")
			return
		}
		gen, isBool := body["add_generation_prompt"].(bool)
		if _, set := body["add_generation_prompt"]; set && !isBool {
			s.clientError(w, http.StatusBadRequest, "add_generation_prompt must be a boolean", "invalid_request_error", "")
			return
		}
		ids = messageIDs(req.Messages, gen || !isBool)
	} else {
		prompt, ok := body["prompt"].(string)
		if !ok {
			s.clientError(w, http.StatusBadRequest, `send "prompt" (a string) or "messages"`, "invalid_request_error", "")
			return
		}
		ids = pieceIDs([]int{}, prompt)
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": s.opt.MaxModelLen, "tokens": ids, "token_strs": nil})
}
