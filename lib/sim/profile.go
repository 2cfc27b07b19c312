package sim

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Profile makes llm-sim behave like one kind of real server: its error
// bodies, the request fields it ignores, what it does with a prompt longer
// than its context, its tokenize endpoint and where it puts usage in a
// stream. docs/llm-sim.md says what each reproduces.
type Profile string

const (
	// ProfileSim is llm-sim's own manners (no --profile): OpenAI's error
	// bodies and required model, vLLM's context-length error and /tokenize.
	ProfileSim      Profile = ""
	ProfileVLLM     Profile = "vllm"
	ProfileOllama   Profile = "ollama"
	ProfileLlamaCpp Profile = "llamacpp"
	ProfileOpenAI   Profile = "openai"
)

// Profiles are the values of --profile.
var Profiles = []Profile{ProfileVLLM, ProfileOllama, ProfileLlamaCpp, ProfileOpenAI}

// ParseProfile reads --profile ("" or "sim" is llm-sim's own).
func ParseProfile(s string) (Profile, error) {
	p := Profile(strings.TrimSpace(s))
	if p == "sim" {
		p = ProfileSim
	}
	if p == ProfileSim || slices.Contains(Profiles, p) {
		return p, nil
	}
	return "", fmt.Errorf("%q: want vllm, ollama, llamacpp or openai", s)
}

type errorStyle int

const (
	errorsOpenAI   errorStyle = iota // {"error":{"message","type","param","code":"name"}}
	errorsVLLM                       // {"object":"error","message","type":"BadRequestError","param":null,"code":400}
	errorsOllama                     // {"error":{"message","type","param":null,"code":null}}
	errorsLlamaCpp                   // {"error":{"code":400,"message","type"}}
)

type tokenizeAPI int

const (
	tokenizeNone     tokenizeAPI = iota
	tokenizeVLLM                 // {"model","prompt"|"messages"} → {"count","max_model_len","tokens"}
	tokenizeLlamaCpp             // {"content"} → {"tokens"}
)

// quirks are the behaviours a profile switches together.
type quirks struct {
	errors   errorStyle
	overflow Overflow // the default of --overflow
	tokenize tokenizeAPI
	// requireModel: a request without "model" is a 400 (OpenAI, Ollama);
	// otherwise the first served model answers.
	requireModel bool
	// anyModel: every model name is served, by the first model (llama.cpp
	// serves the one model it loaded whatever the request names).
	anyModel bool
	// ollamaFields: max_completion_tokens and n are ignored, and max_tokens
	// 0 means no limit.
	ollamaFields bool
	// strictMaxTokens: max_tokens 0 is a 400 (vLLM, OpenAI want at least 1).
	strictMaxTokens bool
	// completionsTemplate is the tokens a chat template adds to a
	// /v1/completions prompt (Ollama templates raw prompts: 9 → 35 tokens).
	completionsTemplate int
	// usageOnFinish: the stream's finish chunk carries usage whether or not
	// stream_options.include_usage asked for it (llama.cpp).
	usageOnFinish bool
	// zeroUsageChunks: with include_usage, every /v1/completions chunk before
	// the usage chunk carries a zeroed usage object, not null (Ollama).
	zeroUsageChunks bool
	// chatML: a chat prompt is counted as llama.cpp tokenizes the ChatML text
	// its /apply-template renders (tokenize.go).
	chatML bool
	// modelLen: /v1/models entries carry max_model_len (vLLM).
	modelLen bool
	// ownedBy is the owned_by of /v1/models entries, by which a client
	// tells some servers apart (vLLM "vllm", llama.cpp "llamacpp").
	ownedBy string
	// ollamaAPI: Ollama's own GET /api/version and /api/ps (with the
	// loaded model's context_length).
	ollamaAPI bool
}

// ollamaTemplateTokens is what Ollama's chat template added to a 9-token raw
// prompt on /v1/completions (35 tokens reported), the observation.
const ollamaTemplateTokens = 26

func quirksOf(p Profile) quirks {
	switch p {
	case ProfileVLLM:
		return quirks{errors: errorsVLLM, overflow: OverflowError, tokenize: tokenizeVLLM, strictMaxTokens: true, modelLen: true, ownedBy: "vllm"}
	case ProfileOllama:
		return quirks{errors: errorsOllama, overflow: OverflowTruncate, requireModel: true, ollamaFields: true, completionsTemplate: ollamaTemplateTokens, zeroUsageChunks: true, ownedBy: "library", ollamaAPI: true}
	case ProfileLlamaCpp:
		return quirks{errors: errorsLlamaCpp, overflow: OverflowError, tokenize: tokenizeLlamaCpp, anyModel: true, usageOnFinish: true, chatML: true, ownedBy: "llamacpp"}
	case ProfileOpenAI:
		return quirks{errors: errorsOpenAI, overflow: OverflowError, requireModel: true, strictMaxTokens: true, ownedBy: "system"}
	}
	return quirks{errors: errorsOpenAI, overflow: OverflowError, tokenize: tokenizeVLLM, requireModel: true, modelLen: true, ownedBy: "llm-sim"}
}

// writeError answers with the profile's error body. typ and code are
// OpenAI's names (type "invalid_request_error", code "model_not_found"); the
// other servers' bodies derive theirs from the status, as they do.
func (s *Server) writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	d := errorDetail{Message: msg, Type: typ}
	if code != "" {
		d.Code = &code
	}
	s.writeErrorDetail(w, status, d)
}

func (s *Server) writeErrorDetail(w http.ResponseWriter, status int, d errorDetail) {
	switch s.quirks.errors {
	case errorsVLLM:
		writeVLLMError(w, status, d.Message)
	case errorsOllama:
		typ := statusType(status, map[int]string{400: "invalid_request_error", 404: "not_found_error"}, "api_error", "api_error")
		writeJSON(w, status, errorBody{errorDetail{Message: d.Message, Type: typ}})
	case errorsLlamaCpp:
		typ := statusType(status, map[int]string{404: "not_found_error", 503: "unavailable_error"}, "server_error", "invalid_request_error")
		writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": d.Message, "type": typ}})
	default:
		writeJSON(w, status, errorBody{d})
	}
}

// writeVLLMError writes vLLM's ErrorResponse: a top-level object with the
// HTTP status as code and the exception's name as type.
func writeVLLMError(w http.ResponseWriter, status int, msg string) {
	typ := statusType(status, map[int]string{404: "NotFoundError", 429: "RateLimitError", 503: "ServiceUnavailableError"}, "InternalServerError", "BadRequestError")
	writeJSON(w, status, map[string]any{"object": "error", "message": msg, "type": typ, "param": nil, "code": status})
}

// statusType names an error's type from its status as a server does: the
// statuses it names, else its name for any 5xx or any 4xx.
func statusType(status int, named map[int]string, server, client string) string {
	if t, ok := named[status]; ok {
		return t
	}
	if status >= 500 {
		return server
	}
	return client
}

// unknownModel is each server's 404 for a model it does not serve.
func (s *Server) unknownModel(w http.ResponseWriter, name string) {
	msg := fmt.Sprintf("The model `%s` does not exist (llm-sim serves %s)", name, strings.Join(s.opt.Models, ", "))
	switch s.quirks.errors {
	case errorsVLLM:
		msg = fmt.Sprintf("The model `%s` does not exist.", name)
	case errorsOllama:
		msg = fmt.Sprintf("model %q not found, try pulling it first", name)
	}
	s.clientError(w, http.StatusNotFound, msg, "invalid_request_error", "model_not_found")
}

// ollamaAPI answers Ollama's GET /api/version and GET /api/ps: every served
// model is listed as loaded, with the context it runs with (context_length,
// as Ollama reports since it shows a loaded model's context; omitted when
// llm-sim has no --max-model-len).
func (s *Server) ollamaAPI(w http.ResponseWriter, path string) {
	if path == "/api/version" {
		writeJSON(w, http.StatusOK, map[string]string{"version": "0.0.0-llm-sim"})
		return
	}
	type loaded struct {
		Name    string            `json:"name"`
		Model   string            `json:"model"`
		Size    int64             `json:"size"`
		Digest  string            `json:"digest"`
		Details map[string]string `json:"details"`
		Expires string            `json:"expires_at"`
		VRAM    int64             `json:"size_vram"`
		Context int               `json:"context_length,omitempty"`
	}
	models := make([]loaded, len(s.opt.Models))
	for i, m := range s.opt.Models {
		models[i] = loaded{Name: m, Model: m, Details: map[string]string{"format": "gguf"}, Expires: "2035-01-01T00:00:00Z", Context: s.opt.MaxModelLen}
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

// llamaProps answers llama.cpp's GET /props: the slot's context as
// default_generation_settings.n_ctx (0 when llm-sim has no limit).
func (s *Server) llamaProps(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"id": 0, "n_ctx": s.opt.MaxModelLen, "params": map[string]any{"n_predict": -1}},
		"total_slots":                 1,
		"model_path":                  s.opt.Models[0],
		"build_info":                  "llm-sim",
	})
}
