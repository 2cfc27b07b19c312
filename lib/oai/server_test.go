package oai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Each server says what it is and how long its context is in its own API:
// the replies below have the shapes the servers send (vLLM's ModelCard,
// llama.cpp's /props, TGI's /info, Ollama's /api/version, /api/show and
// /api/ps).
func TestIdentify(t *testing.T) {
	for _, tc := range []struct {
		name    string
		models  []Model
		routes  map[string]string
		kind    string
		context int
		from    string
		loaded  int // LoadedContext
	}{
		{name: "vLLM", models: []Model{{ID: "m", OwnedBy: "vllm", MaxModelLen: 32768}}, kind: ServerVLLM, context: 32768, from: "/v1/models max_model_len"},
		{name: "SGLang", models: []Model{{ID: "m", OwnedBy: "sglang", MaxModelLen: 8192}}, kind: ServerSGLang, context: 8192},
		{name: "llama.cpp", models: []Model{{ID: "m", OwnedBy: "llamacpp"}},
			routes: map[string]string{"GET /props": `{"default_generation_settings":{"id":0,"n_ctx":4096,"params":{"n_predict":-1}},"total_slots":4,"build_info":"b5000-abc"}`},
			kind:   ServerLlamaCpp, context: 4096, from: "/props n_ctx"},
		{name: "llama.cpp, owned_by not said", models: []Model{{ID: "m"}},
			routes: map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":2048},"total_slots":1}`},
			kind:   ServerLlamaCpp, context: 2048},
		{name: "TGI", models: []Model{{ID: "tgi", OwnedBy: "tgi"}},
			routes: map[string]string{"GET /info": `{"model_id":"Qwen/Qwen2.5-7B-Instruct","max_input_tokens":4095,"max_total_tokens":4096,"version":"3.0.1"}`},
			kind:   ServerTGI, context: 4096, from: "/info max_total_tokens"},
		{name: "Ollama, default context", models: []Model{{ID: "qwen2.5:0.5b", OwnedBy: "library"}},
			routes: map[string]string{"GET /api/version": `{"version":"0.12.3"}`,
				"POST /api/show": `{"parameters":"stop \"<|im_end|>\"","model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}`,
				"GET /api/ps":    `{"models":[{"name":"qwen2.5:0.5b","model":"qwen2.5:0.5b","size":1,"digest":"d","expires_at":"2035-01-01T00:00:00Z","size_vram":0,"context_length":2048}]}`},
			// model_info's context_length is what the model was trained
			// for, not what it runs with: not taken.
			kind: ServerOllama, loaded: 2048},
		{name: "Ollama, a Modelfile's num_ctx", models: []Model{{ID: "long", OwnedBy: "library"}},
			routes: map[string]string{"GET /api/version": `{"version":"0.5.7"}`,
				"POST /api/show": `{"parameters":"num_ctx                        16384\ntemperature 0"}`,
				"GET /api/ps":    `{"models":[{"name":"long:latest","model":"long:latest","size":1}]}`},
			kind: ServerOllama, context: 16384, from: "/api/show num_ctx"},
		{name: "a server that says nothing", models: []Model{{ID: "m", OwnedBy: "someone"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, ok := tc.routes[r.Method+" "+r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(body))
			}))
			defer srv.Close()
			c := New(1, time.Second, "")
			s := c.Identify(context.Background(), srv.URL+"/v1", tc.models[0].ID, tc.models, time.Second)
			if s.Kind != tc.kind || s.Context != tc.context || tc.from != "" && s.ContextFrom != tc.from {
				t.Fatalf("%+v, want kind %q, context %d from %q", s, tc.kind, tc.context, tc.from)
			}
			if got := c.LoadedContext(context.Background(), srv.URL+"/v1", tc.models[0].ID, time.Second); got != tc.loaded {
				t.Fatalf("loaded context %d, want %d", got, tc.loaded)
			}
		})
	}
}

// Each kind's manners, as the cut check and the pre-flight check use them.
func TestServerManners(t *testing.T) {
	var unknown *Server
	if unknown.Known() || unknown.Refuses() || unknown.Ollama() || unknown.TokenizeAPI() || unknown.Name() != "the server" {
		t.Fatal("an unknown server claims manners")
	}
	for kind, want := range map[string][3]bool{ // refuses, Ollama, tokenize API
		ServerVLLM: {true, false, true}, ServerSGLang: {false, false, true}, ServerTGI: {true, false, true},
		ServerLlamaCpp: {false, false, true}, ServerOllama: {false, true, false}, ServerOpenAI: {true, false, false},
	} {
		s := &Server{Kind: kind, Version: "1"}
		if got := [3]bool{s.Refuses(), s.Ollama(), s.TokenizeAPI()}; got != want || !s.Is(kind) || s.Name() != kind+" 1" {
			t.Errorf("%s: %v, want %v", kind, got, want)
		}
	}
}
