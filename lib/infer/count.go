package infer

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/oai"
	"github.com/ifkit/ifkit/lib/tokens"
)

// TokenizerServer is the --tokenizer value that asks the endpoint to count.
const TokenizerServer = "server"

// templated says whether a server counted far more tokens than a raw
// /v1/completions prompt has: it put the prompt into a chat template (Ollama
// does), so the model answered a chat turn, not a continuation. With an
// estimate the test is coarse (more than half again, + 16).
func templated(sent, got int, exact bool) bool {
	if sent <= 0 || got <= 0 {
		return false
	}
	if exact {
		return got > sent+8 // a BOS or two, never a template
	}
	return float64(got) > 1.5*float64(sent)+16
}

// encoder is the local tokenizer of --tokenizer, which --truncate-context
// also cuts with (o200k_base when the server counts). It is built on first
// use: it costs half a second and a run that calls nothing needs none.
func (e *engine) encoder() *tokens.Encoder {
	e.encOnce.Do(func() {
		name := e.opt.Tokenizer
		if name == TokenizerServer {
			name = tokens.Default
		}
		e.enc = tokens.MustGet(name) // validate has loaded it once already
		e.encReady.Store(true)
	})
	return e.enc
}

// count sets the call's prompt token count: the server's (--tokenizer
// server, cached by content hash), else the local tokenizer's. A server that
// stops answering /tokenize mid-run leaves the estimate, with one warning.
func (e *engine) count(ctx context.Context, c *call, p *parsedReq) {
	if e.srv != nil {
		p.readTexts()
		if n, err := e.serverCount(ctx, c, p.messages(), p.texts, p.prompt); err == nil {
			c.promptTokens, c.tokenizer, c.exact = n, TokenizerServer, true
			return
		} else if ctx.Err() == nil {
			e.countWarn.Do(func() {
				e.r.Log.Warn("--"+e.opt.Role+"tokenizer server: the tokenize API failed; records fall back to the o200k_base estimate while it does", "error", err.Error())
			})
		}
	}
	enc := e.encoder()
	c.tokenizer, c.exact = enc.Label(), enc.Exact
	n, err := e.localCount(ctx, enc, c.path, p)
	if err != nil {
		c.promptTokens, c.tokenizer, c.exact = 0, "", false
		if ctx.Err() == nil {
			// The time limit of a tokenizer.json pattern: every prompt
			// would take as long, so the run stops, saying why, as on a
			// failed write: requests not yet answered are cancelled (no
			// record goes out uncounted) and left for --resume.
			e.stopWith(fmt.Errorf("--%stokenizer: %v", e.opt.Role, err))
			e.cancelReq()
		}
		return
	}
	c.promptTokens = n
}

// localCount counts with the local tokenizer. It stops when ctx ends (a
// signal, after --grace) or a tokenizer.json's pattern runs past its time
// limit, with the error. A request as read, whose prompts are JSON strings,
// is counted from its JSON (CountQuoted: a context shared by many prompts
// is neither unquoted nor hashed again for each).
func (e *engine) localCount(ctx context.Context, enc *tokens.Encoder, path string, p *parsedReq) (int, error) {
	if p.m != nil || !p.quoted() {
		p.readTexts()
		if path != oai.PathChat {
			return enc.CountContext(ctx, p.prompt)
		}
		return chatTokens(p.texts, func(t string) (int, error) { return enc.CountContext(ctx, t) })
	}
	if path != oai.PathChat {
		return enc.CountQuoted(ctx, p.contents[0])
	}
	return chatTokens(p.contents, func(raw []byte) (int, error) { return enc.CountQuoted(ctx, raw) })
}

// chatTokens is a chat's prompt tokens: its messages' contents counted,
// and the template's tokens around them, estimated.
func chatTokens[T any](contents []T, count func(T) (int, error)) (int, error) {
	n := 3 // the assistant's reply header
	for _, c := range contents {
		k, err := count(c)
		if err != nil {
			return 0, err
		}
		n += k + perMessageTokens
	}
	return n, nil
}

func (e *engine) serverCount(ctx context.Context, c *call, messages json.RawMessage, texts []string, prompt string) (int, error) {
	h := sha256.New()
	if c.path == oai.PathChat {
		h.Write([]byte{'c'})
		h.Write(messages)
	} else {
		messages = nil
		h.Write([]byte{'p'})
		h.Write([]byte(prompt))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	if v, ok := e.counts.Load(key); ok {
		return v.(int), nil
	}
	n, tmpl, err := e.client.CountTokens(ctx, e.srv, e.model, messages, texts, prompt, max(e.opt.ConnectTimeout, time.Minute))
	if err != nil {
		return 0, err
	}
	if c.path == oai.PathChat && !tmpl {
		n += 3 + perMessageTokens*len(texts) // the template, estimated
	}
	e.counts.Store(key, n)
	return n, nil
}

// detectTokenizer finds the endpoints' tokenize API for --tokenizer server:
// the first endpoint that has one counts for all (they serve one model).
func (e *engine) detectTokenizer() error {
	if e.opt.Tokenizer != TokenizerServer {
		return nil
	}
	if e.server().Known() && !e.server().TokenizeAPI() {
		// Say what the server is: the user may not know that this kind has
		// no tokenize API at all.
		return fmt.Errorf("--%stokenizer server: the endpoint is %s, which has no tokenize API. Give %s, or leave the default o200k_base estimate (calibrated against the server's counts)", e.opt.Role, e.server().Name(), e.exactHint())
	}
	var errs []string
	for _, base := range e.opt.BaseURLs {
		api, err := e.client.DetectTokenize(e.r.Ctx, base, e.model, max(e.opt.ConnectTimeout, 30*time.Second))
		if err == nil {
			e.srv = api
			e.r.Log.Info("token counts from the server", "api", api.Kind, "root", oai.Label(api.Root), "chat_template_counted", api.Chat)
			return nil
		}
		errs = append(errs, err.Error())
	}
	return fmt.Errorf("--%stokenizer server: %s. Give --%stokenizer FILE (the model's tokenizer.json) for exact counts without it, or leave the default o200k_base estimate", e.opt.Role, strings.Join(errs, "; "), e.opt.Role)
}
