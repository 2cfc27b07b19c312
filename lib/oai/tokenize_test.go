package oai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeTokenizer answers the tokenize API of one server kind; a token is a
// whitespace-separated word, and a chat template adds 5 per message.
func fakeTokenizer(t *testing.T, kind string, chat bool) string {
	t.Helper()
	words := func(s string) int { return len(strings.Fields(s)) }
	chatCount := func(raw json.RawMessage) int {
		var msgs []struct{ Content string }
		json.Unmarshal(raw, &msgs)
		n := 0
		for _, m := range msgs {
			n += 5 + words(m.Content)
		}
		return n
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var v map[string]json.RawMessage
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &v)
		str := func(k string) (string, bool) {
			var s string
			return s, v[k] != nil && json.Unmarshal(v[k], &s) == nil
		}
		switch kind {
		case TokenizeVLLM:
			if v["messages"] != nil && chat {
				json.NewEncoder(w).Encode(map[string]any{"count": chatCount(v["messages"]), "max_model_len": 4096})
				return
			}
			if p, ok := str("prompt"); ok {
				json.NewEncoder(w).Encode(map[string]any{"count": words(p), "tokens": make([]int, words(p))})
				return
			}
		case TokenizeLlamaCpp:
			if c, ok := str("content"); ok {
				json.NewEncoder(w).Encode(map[string]any{"tokens": make([]int, words(c))})
				return
			}
			// llama.cpp answers a body without content with no tokens.
			json.NewEncoder(w).Encode(map[string]any{"tokens": []int{}})
			return
		case TokenizeTGI:
			if in, ok := str("inputs"); ok {
				toks := make([]map[string]any, words(in))
				for i := range toks {
					toks[i] = map[string]any{"id": i, "text": "w", "start": 0, "stop": 1}
				}
				json.NewEncoder(w).Encode(toks)
				return
			}
		}
		http.Error(w, `{"error":"unprocessable"}`, http.StatusUnprocessableEntity)
	})
	if chat && kind == TokenizeLlamaCpp {
		mux.HandleFunc("POST /apply-template", func(w http.ResponseWriter, r *http.Request) {
			var v struct{ Messages json.RawMessage }
			json.NewDecoder(r.Body).Decode(&v)
			json.NewEncoder(w).Encode(map[string]string{"prompt": strings.Repeat("tpl ", chatCount(v.Messages))})
		})
	}
	if chat && kind == TokenizeTGI {
		mux.HandleFunc("POST /chat_tokenize", func(w http.ResponseWriter, r *http.Request) {
			var v struct{ Messages json.RawMessage }
			json.NewDecoder(r.Body).Decode(&v)
			json.NewEncoder(w).Encode(map[string]any{"tokenize_response": make([]map[string]int, chatCount(v.Messages)), "templated_text": "x"})
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestTokenizeAPIs(t *testing.T) {
	c := New(2, time.Second, "")
	ctx := context.Background()
	msgs := json.RawMessage(`[{"role":"system","content":"be brief"},{"role":"user","content":"one two three"}]`)
	for _, tc := range []struct {
		kind string
		chat bool
	}{
		{TokenizeVLLM, true}, {TokenizeVLLM, false},
		{TokenizeLlamaCpp, true}, {TokenizeLlamaCpp, false},
		{TokenizeTGI, true}, {TokenizeTGI, false},
	} {
		base := fakeTokenizer(t, tc.kind, tc.chat)
		api, err := c.DetectTokenize(ctx, base, "m", time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		if api.Kind != tc.kind || api.Chat != tc.chat || api.Root != strings.TrimSuffix(base, "/v1") {
			t.Errorf("%s (chat %v): detected %+v", tc.kind, tc.chat, api)
		}
		n, tmpl, err := c.CountTokens(ctx, api, "m", nil, nil, "a b c d", time.Second)
		if err != nil || n != 4 || tmpl {
			t.Errorf("%s prompt: %d %v %v", tc.kind, n, tmpl, err)
		}
		n, tmpl, err = c.CountTokens(ctx, api, "m", msgs, []string{"be brief", "one two three"}, "", time.Second)
		want := 5
		if tc.chat {
			want = 15 // the template's tokens counted by the server
		}
		if err != nil || n != want || tmpl != tc.chat {
			t.Errorf("%s (chat %v) messages: %d (template %v), want %d: %v", tc.kind, tc.chat, n, tmpl, want, err)
		}
	}
}

func TestNoTokenizeAPI(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler()) // Ollama, OpenAI
	defer srv.Close()
	_, err := New(1, time.Second, "").DetectTokenize(context.Background(), srv.URL+"/v1", "m", time.Second)
	if err == nil || !strings.Contains(err.Error(), "has no tokenize API") || !strings.Contains(err.Error(), "llama.cpp") {
		t.Fatalf("err = %v", err)
	}
}

func TestRoot(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000/v1":        "http://h:8000",
		"http://h:8000/v1/":       "http://h:8000",
		"https://h/proxy/v1":      "https://h/proxy",
		"http://h:8000/openai/v2": "http://h:8000/openai/v2",
	} {
		if got := Root(in); got != want {
			t.Errorf("Root(%q) = %q, want %q", in, got, want)
		}
	}
}

// A tokenize API that refuses the model name points at --model, not at the
// server's lack of an API.
func TestTokenizeWrongModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"object":"error","message":"The model `+"`x`"+` does not exist.","type":"NotFoundError","code":404}`)
	}))
	defer srv.Close()
	_, err := New(1, time.Second, "").DetectTokenize(context.Background(), srv.URL+"/v1", "x", time.Second)
	if err == nil || !strings.Contains(err.Error(), `for model "x" (check --model)`) {
		t.Fatalf("err = %v", err)
	}
}

// The chat counts send the request's messages as they are (spacing, "<" and
// all), inside a body that means what the API asks for.
func TestCountChatBody(t *testing.T) {
	msgs := json.RawMessage(`[ {"role":"user", "content":"a <b> & \u00e9"} ]`)
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/apply-template":
			io.WriteString(w, `{"prompt":"x"}`)
		case "/chat_tokenize":
			io.WriteString(w, `{"tokenize_response":[1,2]}`)
		default:
			io.WriteString(w, `{"count":2}`)
		}
	}))
	defer srv.Close()
	c := New(1, time.Second, "")
	for _, tc := range []struct {
		kind, want string
	}{
		{TokenizeVLLM, `{"model":"m \"q\"","messages":` + string(msgs) + `,"add_generation_prompt":true}`},
		{TokenizeTGI, `{"model":"m \"q\"","messages":` + string(msgs) + `}`},
	} {
		api := &TokenizeAPI{Kind: tc.kind, Root: srv.URL, Chat: true}
		if n, _, err := c.CountTokens(context.Background(), api, `m "q"`, msgs, nil, "", time.Second); err != nil || n != 2 {
			t.Fatalf("%s: %d %v", tc.kind, n, err)
		}
		if string(got) != tc.want || !json.Valid(got) {
			t.Errorf("%s sent %s, want %s", tc.kind, got, tc.want)
		}
	}
	// llama.cpp: the messages go to /apply-template alone; the last body
	// is the template's prompt to /tokenize.
	var templated []byte
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/apply-template" {
			templated = b
			io.WriteString(w, `{"prompt":"x y"}`)
			return
		}
		io.WriteString(w, `{"tokens":[1,2]}`)
	}))
	defer srv2.Close()
	api := &TokenizeAPI{Kind: TokenizeLlamaCpp, Root: srv2.URL, Chat: true}
	if _, _, err := c.CountTokens(context.Background(), api, "m", msgs, nil, "", time.Second); err != nil {
		t.Fatal(err)
	}
	if want := `{"messages":` + string(msgs) + `}`; string(templated) != want {
		t.Errorf("llama.cpp apply-template got %s, want %s", templated, want)
	}
}
