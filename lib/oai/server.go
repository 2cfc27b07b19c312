package oai

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The kinds of server Identify tells apart: each says how long its context
// is in its own way, and treats a prompt that does not fit in its own way
// (docs/infer-batch.md, "Real servers").
const (
	ServerVLLM     = "vLLM"
	ServerSGLang   = "SGLang"
	ServerTGI      = "TGI"
	ServerLlamaCpp = "llama.cpp"
	ServerOllama   = "Ollama"
	ServerOpenAI   = "OpenAI"
)

// Server is what an endpoint says about itself: its kind ("" when it does
// not say), and the context the model runs with, in tokens (0 unknown) and
// where that came from.
type Server struct {
	Kind        string
	Version     string
	Context     int
	ContextFrom string
}

// Name is the server for messages: its kind and version, or "the server".
func (s *Server) Name() string {
	if s == nil || s.Kind == "" {
		return "the server"
	}
	if s.Version != "" {
		return s.Kind + " " + s.Version
	}
	return s.Kind
}

// Refuses reports whether the server answers a prompt that does not fit in
// its context with an error, never by cutting it: vLLM (400), TGI (422),
// OpenAI (400 context_length_exceeded). SGLang cuts when started with
// --allow-auto-truncate, and llama.cpp builds before the
// exceed_context_size_error shifted the context, so neither is counted on.
func (s *Server) Refuses() bool {
	switch s.kind() {
	case ServerVLLM, ServerTGI, ServerOpenAI:
		return true
	}
	return false
}

// Ollama reports whether the server is Ollama, whose manners differ from
// the others' in every way that matters here: it keeps exactly its context
// (num_ctx) of a longer prompt, first dropping whole older messages of a
// chat (never a system message nor the last one); it answers a request
// whose max_tokens alone exceeds the context, shifting the context while it
// generates (losing the prompt's start); and it has no tokenize API.
func (s *Server) Ollama() bool { return s.kind() == ServerOllama }

// TokenizeAPI reports whether the kind of server has a tokenize API that
// --tokenizer server can use.
func (s *Server) TokenizeAPI() bool {
	switch s.kind() {
	case ServerVLLM, ServerSGLang, ServerTGI, ServerLlamaCpp:
		return true
	}
	return false
}

// Known reports whether the kind of server is known.
func (s *Server) Known() bool { return s.kind() != "" }

// Is reports whether the server is of the kind (false when unknown).
func (s *Server) Is(kind string) bool { return s.kind() == kind }

func (s *Server) kind() string {
	if s == nil {
		return ""
	}
	return s.Kind
}

// ownedBy maps the owned_by of /v1/models to the servers that set it.
var ownedBy = map[string]string{"vllm": ServerVLLM, "sglang": ServerSGLang, "llamacpp": ServerLlamaCpp,
	"openai": ServerOpenAI, "system": ServerOpenAI, "openai-internal": ServerOpenAI}

// Identify finds out what kind of server answers at base and how long the
// model's context is there, from its own APIs (GET only, nothing paid):
//
//   - vLLM and SGLang: owned_by and max_model_len in /v1/models (ms, the
//     list the start-up check got);
//   - Ollama: GET /api/version; the context of the loaded model is in
//     GET /api/ps (context_length; LoadedContext asks once a reply came,
//     when the model is loaded), else num_ctx in POST /api/show's
//     parameters when the model's Modelfile sets it (model_info's
//     context_length is what the model was trained for, not what it runs
//     with, and is not taken);
//   - llama.cpp: GET /props, default_generation_settings.n_ctx (a slot's
//     context: --ctx-size divided by --parallel);
//   - TGI: GET /info, max_total_tokens (prompt and reply).
//
// An endpoint that answers none of them is of unknown kind; its context is
// then only what /v1/models said.
func (c *Client) Identify(ctx context.Context, base, model string, ms []Model, timeout time.Duration) *Server {
	s := &Server{}
	for _, m := range ms {
		if m.ID != model && len(ms) > 1 {
			continue
		}
		s.Kind = ownedBy[m.OwnedBy]
		if m.MaxModelLen > 0 {
			s.Context, s.ContextFrom = m.MaxModelLen, "/v1/models max_model_len"
		}
		break
	}
	if strings.Contains(Label(base), "://api.openai.com") {
		s.Kind = ServerOpenAI
	}
	root := Root(base)
	get := func(path string, v any) bool {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		b, _, err := c.roundTrip(rctx, http.MethodGet, root+path, nil)
		return err == nil && unmarshal(b, v) == nil
	}
	var version struct {
		Version *string `json:"version"`
	}
	var props struct {
		Settings *struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		Build string `json:"build_info"`
	}
	var info struct {
		ModelID *string `json:"model_id"`
		Total   int     `json:"max_total_tokens"`
		Input   int     `json:"max_input_tokens"`
		Version string  `json:"version"`
	}
	switch {
	case s.Kind == ServerVLLM, s.Kind == ServerSGLang, s.Kind == ServerOpenAI:
	case (s.Kind == "" || s.Kind == ServerLlamaCpp) && get("/props", &props) && props.Settings != nil:
		s.Kind, s.Version = ServerLlamaCpp, props.Build
		if props.Settings.NCtx > 0 {
			s.Context, s.ContextFrom = props.Settings.NCtx, "/props n_ctx"
		}
	case s.Kind == "" && get("/api/version", &version) && version.Version != nil:
		s.Kind, s.Version = ServerOllama, *version.Version
		if n := c.ollamaModelfileContext(ctx, root, model, timeout); n > 0 && s.Context == 0 {
			s.Context, s.ContextFrom = n, "/api/show num_ctx"
		}
	case s.Kind == "" && get("/info", &info) && info.ModelID != nil && (info.Total > 0 || info.Input > 0):
		s.Kind, s.Version = ServerTGI, info.Version
		if info.Total > 0 {
			s.Context, s.ContextFrom = info.Total, "/info max_total_tokens"
		}
	}
	return s
}

// ollamaModelfileContext is num_ctx from POST /api/show's parameters (one
// "name value" per line), set when the model was made with a Modelfile
// that says it; 0 otherwise.
func (c *Client) ollamaModelfileContext(ctx context.Context, root, model string, timeout time.Duration) int {
	b, err := c.postJSON(ctx, root+"/api/show", map[string]string{"model": model}, timeout)
	if err != nil {
		return 0
	}
	var show struct {
		Parameters string `json:"parameters"`
	}
	if unmarshal(b, &show) != nil {
		return 0
	}
	sc := bufio.NewScanner(strings.NewReader(show.Parameters))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// LoadedContext is the context Ollama runs model with, from GET /api/ps
// (context_length of the loaded model; Ollama versions before it was added
// say nothing): 0 when the model is not loaded or the server does not say.
func (c *Client) LoadedContext(ctx context.Context, base, model string, timeout time.Duration) int {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	b, _, err := c.roundTrip(rctx, http.MethodGet, Root(base)+"/api/ps", nil)
	if err != nil {
		return 0
	}
	var ps struct {
		Models []struct {
			Name    string `json:"name"`
			Model   string `json:"model"`
			Context int    `json:"context_length"`
		} `json:"models"`
	}
	if unmarshal(b, &ps) != nil {
		return 0
	}
	tagged := model
	if !strings.Contains(model, ":") {
		tagged += ":latest" // Ollama's name for a model asked for without a tag
	}
	for _, m := range ps.Models {
		if m.Name == model || m.Model == model || m.Name == tagged || m.Model == tagged {
			return m.Context
		}
	}
	return 0
}
