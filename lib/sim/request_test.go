package sim

import (
	"hash/fnv"
	"testing"
)

// refReplySeed is the reply seed as replySeed computed it with hash/fnv
// before the hash moved into the token count's pass: every simulated reply
// depends on its value, so it must not change.
func refReplySeed(req *Request, co callOptions) uint64 {
	h := fnv.New64a()
	h.Write([]byte(req.Model))
	if req.Chat {
		for _, m := range req.Messages {
			h.Write([]byte{0})
			h.Write([]byte(m.Role))
			h.Write([]byte{1})
			h.Write([]byte(m.Content))
		}
	} else {
		h.Write([]byte{2})
		h.Write([]byte(req.Prompt))
	}
	sum := h.Sum64()
	if co.hasSeed {
		sum ^= co.seed * 0x9e3779b97f4a7c15
	}
	return sum
}

// FuzzMeasureMatchesReference: measure counts what promptTokens counts, under
// every profile, and its hash gives the seed hash/fnv gave, on both endpoints.
func FuzzMeasureMatchesReference(f *testing.F) {
	f.Add("llm-sim", "user", "tell me a story", "", uint64(0), false)
	f.Add("m", "system", prose+prose+"\n\nInstruction: summarise.", prose+"\xff", uint64(7), true)
	f.Fuzz(func(t *testing.T, model, role, content, content2 string, seed uint64, hasSeed bool) {
		co := callOptions{seed: seed, hasSeed: hasSeed}
		reqs := []*Request{
			{Model: model, Prompt: content},
			{Chat: true, Model: model, Messages: []Message{{role, content}}},
			{Chat: true, Model: model, Messages: []Message{{role, content}, {"assistant", content2}, {role, content + content2}}},
		}
		for _, p := range append(Profiles, ProfileSim) {
			s := New(Options{Profile: p})
			for _, req := range reqs {
				pt, hash := s.measure(req)
				if want := s.promptTokens(req); pt != want {
					t.Fatalf("profile %q: measure counts %d tokens in %+v, promptTokens %d", p, pt, req, want)
				}
				if got, want := replySeed(hash, co), refReplySeed(req, co); got != want || requestHash(req, nil) != hash {
					t.Fatalf("profile %q: seed %x of %+v, want %x", p, got, req, want)
				}
			}
		}
	})
}

// TestParsedRequestOwnsItsStrings: the body's buffer goes back to bodyBufs
// once parsed, so nothing parsed may point into it.
func TestParsedRequestOwnsItsStrings(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"plain text"},{"role":"user","content":"with\nescape"}],"stop":["end"]}`)
	req, _, err := parseRequest(body, true, quirks{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range body {
		body[i] = 'x'
	}
	if req.Model != "m" || req.Messages[0] != (Message{"user", "plain text"}) || req.Messages[1].Content != "with\nescape" || req.Stop[0] != "end" || req.Body["model"] != "m" {
		t.Fatalf("the parsed request changed with its body's buffer: %+v", req)
	}
}
