package sim

import (
	"hash/fnv"
	"net/http"
	"strings"

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
//
// Under the llamacpp profile the model's chat template is ChatML, whose two
// markers are special tokens; /apply-template renders it and the server
// counts a chat prompt as /tokenize counts that text (the markers one token
// each, text between them in pieces), so a client that renders and then
// counts gets usage.prompt_tokens exactly. The model has no BOS token (as
// Qwen's GGUFs), so add_special adds nothing.
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
		ids = append(ids, pieceID(text[i:j]))
		i = j
	}
	return ids
}

func pieceID(piece string) int {
	h := fnv.New32a()
	h.Write([]byte(piece))
	return firstPieceID + int(h.Sum32()%vocabSize)
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
// promptTokens'.
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
	// The buffer goes back to the pool only when the handler is done:
	// messages are parsed from it again below.
	defer putBody(b)
	var body map[string]any
	err := record.Unmarshal(b, &body)
	if err != nil || body == nil {
		s.clientError(w, http.StatusBadRequest, "the body is not a JSON object", "invalid_request_error", "")
		return
	}
	if s.quirks.tokenize == tokenizeLlamaCpp {
		s.llamaTokenize(w, body)
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
		want := s.promptTokens(req)
		if !gen && isBool {
			want -= s.scaled(replyPriming)
		}
		ids = stretch(ids, want)
	} else {
		prompt, ok := body["prompt"].(string)
		if !ok {
			s.clientError(w, http.StatusBadRequest, `send "prompt" (a string) or "messages"`, "invalid_request_error", "")
			return
		}
		ids = stretch(pieceIDs([]int{}, prompt), s.promptTokens(&Request{Prompt: prompt}))
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": s.opt.MaxModelLen, "tokens": ids, "token_strs": nil})
}

const (
	imStart = "<|im_start|>"
	imEnd   = "<|im_end|>"
)

// chatML renders messages as llama.cpp's /apply-template does, the reply
// opened.
func chatML(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(imStart + m.Role + "\n" + m.Content + imEnd + "\n")
	}
	b.WriteString(imStart + "assistant\n")
	return b.String()
}

// splitSpecial cuts text at the template's markers: fn gets each stretch of
// text and then the marker's id (0 after the last stretch).
func splitSpecial(text string, fn func(seg string, special int)) {
	for {
		i, tok, n := -1, 0, 0
		if j := strings.Index(text, imStart); j >= 0 {
			i, tok, n = j, tokStart, len(imStart)
		}
		if j := strings.Index(text, imEnd); j >= 0 && (i < 0 || j < i) {
			i, tok, n = j, tokEnd, len(imEnd)
		}
		if i < 0 {
			fn(text, 0)
			return
		}
		fn(text[:i], tok)
		text = text[i+n:]
	}
}

// chatMLTokens is the llamacpp profile's count of a chat prompt.
func chatMLTokens(msgs []Message) int {
	n := 0
	splitSpecial(chatML(msgs), func(seg string, special int) {
		n += EstimateTokens(seg)
		if special != 0 {
			n++
		}
	})
	return n
}

// llamaTokenize is llama.cpp's POST /tokenize: {"content", "parse_special"
// (default true), "with_pieces"} → {"tokens": [id, ...]} or [{"id","piece"}];
// without content, no tokens.
func (s *Server) llamaTokenize(w http.ResponseWriter, body map[string]any) {
	content, _ := body["content"].(string)
	parseSpecial, set := body["parse_special"].(bool)
	withPieces, _ := body["with_pieces"].(bool)
	type piece struct {
		ID    int    `json:"id"`
		Piece string `json:"piece"`
	}
	pieces := []piece{}
	add := func(seg string, special int) {
		for _, p := range Pieces(seg) {
			pieces = append(pieces, piece{pieceID(p), p})
		}
		if special != 0 {
			pieces = append(pieces, piece{special, map[int]string{tokStart: imStart, tokEnd: imEnd}[special]})
		}
	}
	if parseSpecial || !set {
		splitSpecial(content, add)
	} else {
		add(content, 0)
	}
	if withPieces {
		writeJSON(w, http.StatusOK, map[string]any{"tokens": pieces})
		return
	}
	ids := make([]int, len(pieces))
	for i, p := range pieces {
		ids[i] = p.ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": stretch(ids, s.scaled(len(ids)))})
}

// stretch makes a text's ids as many as the model's count of it
// (Options.TokenScale, CountText), so a tokenize API says what
// usage.prompt_tokens says.
func stretch(ids []int, n int) []int {
	if n == len(ids) || len(ids) == 0 || n <= 0 {
		return ids
	}
	out := make([]int, n)
	for i := range out {
		out[i] = ids[i*len(ids)/n]
	}
	return out
}

// applyTemplate is llama.cpp's POST /apply-template: {"messages"} →
// {"prompt"}, the text the server generates from.
func (s *Server) applyTemplate(w http.ResponseWriter, r *http.Request) {
	b, ok := s.readBody(w, r)
	if !ok {
		return
	}
	req, _, err := parseRequest(b, true, quirks{})
	putBody(b)
	if err != nil {
		s.clientError(w, http.StatusBadRequest, err.Error(), "invalid_request_error", "")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompt": chatML(req.Messages)})
}
