package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Fault is an injected failure of one completion request.
type Fault string

const (
	NoFault       Fault = ""
	Fault429      Fault = "429"      // 429 rate_limit_exceeded with Retry-After
	Fault500      Fault = "500"      // 500 server_error
	Fault503      Fault = "503"      // 503 overloaded
	FaultReset    Fault = "reset"    // the connection is closed with no response (TCP reset)
	FaultStall    Fault = "stall"    // nothing is sent for StallFor, then the reply comes
	FaultTruncate Fault = "truncate" // the reply stops halfway: a stream without [DONE], a body shorter than its Content-Length
	// FaultAbort is Ollama's repetition guard: the reply runs into one
	// repeated word and is cut, with no finish_reason and zero usage; a
	// stream ends cleanly after the partial text with no finish chunk and no
	// [DONE]. See aborted.
	FaultAbort Fault = "abort"
)

// FaultKinds are the faults FailRate can inject, in the order of FaultMix.String.
var FaultKinds = []Fault{Fault429, Fault500, Fault503, FaultReset, FaultStall, FaultTruncate, FaultAbort}

// FaultHeader, on a request, forces a fault (one of FaultKinds) whatever the
// fail rate: a client's tests can provoke each failure on demand.
const FaultHeader = "x-llm-sim-fault"

// FaultMix weighs the fault kinds: a faulty request gets kind k with
// probability mix[k]/sum(mix).
type FaultMix map[Fault]float64

// ParseFaultMix reads "429=2,500=1,reset=1" (weights) or "429,stall" (equal
// weights); "all" or "" is every kind equally.
func ParseFaultMix(s string) (FaultMix, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return nil, nil
	}
	m := FaultMix{}
	for _, part := range strings.Split(s, ",") {
		name, w, hasW := strings.Cut(strings.TrimSpace(part), "=")
		f := Fault(strings.TrimSpace(name))
		if !slices.Contains(FaultKinds, f) {
			return nil, fmt.Errorf("fault %q: want one of %s", f, kindList())
		}
		weight := 1.0
		if hasW {
			v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("fault %s=%s: the weight must be a number >= 0", f, w)
			}
			weight = v
		}
		m[f] = weight
	}
	if m.total() == 0 {
		return nil, fmt.Errorf("faults %q: all weights are 0", s)
	}
	return m, nil
}

func kindList() string {
	names := make([]string, len(FaultKinds))
	for i, f := range FaultKinds {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

func (m FaultMix) weight(f Fault) float64 {
	if m == nil {
		return 1
	}
	return m[f]
}

func (m FaultMix) total() float64 {
	t := 0.0
	for _, f := range FaultKinds {
		t += m.weight(f)
	}
	return t
}

// String is the canonical form ParseFaultMix reads.
func (m FaultMix) String() string {
	var parts []string
	for _, f := range FaultKinds {
		if w := m.weight(f); w > 0 {
			parts = append(parts, fmt.Sprintf("%s=%g", f, w))
		}
	}
	return strings.Join(parts, ",")
}

// pick draws a fault kind by weight.
func (m FaultMix) pick(rng *rand.Rand) Fault {
	x := rng.Float64() * m.total()
	for _, f := range FaultKinds {
		w := m.weight(f)
		if x < w {
			return f
		}
		x -= w
	}
	// Rounding left x at the very top: the last kind with weight wins.
	for i := len(FaultKinds) - 1; i >= 0; i-- {
		if m.weight(FaultKinds[i]) > 0 {
			return FaultKinds[i]
		}
	}
	return NoFault
}

// faultFor picks the fault of the seq-th request: a forced header, the
// plan, else a draw at FailRate from an RNG seeded by the seed and seq, so a
// retry of a failed request (a later seq) may succeed, and a run with the
// same arrival order gets the same faults.
func (s *Server) faultFor(seq uint64, req *Request, header string) (Fault, error) {
	if header != "" {
		f := Fault(strings.TrimSpace(header))
		if !slices.Contains(FaultKinds, f) {
			return NoFault, fmt.Errorf("%s: %q: want one of %s", FaultHeader, header, kindList())
		}
		return f, nil
	}
	if s.opt.FaultPlan != nil {
		return s.opt.FaultPlan(seq, req), nil
	}
	if s.opt.FailRate <= 0 {
		return NoFault, nil
	}
	rng := rand.New(rand.NewPCG(s.opt.Seed^0x6c6c6d2d73696d, seq))
	if rng.Float64() >= s.opt.FailRate {
		return NoFault, nil
	}
	return s.opt.Faults.pick(rng), nil
}

// repeatLimit is how many times Ollama lets a token repeat before it stops
// the reply (a run of 31 identical tokens).
const repeatLimit = 31

// aborted is the reply as Ollama's repetition guard leaves it: the first
// half of the text, then one word repeated until the guard fires; no
// finish_reason, and usage all zero (the runner never sent its final
// counts). A reply that would have reached max_tokens first would have
// ended normally there, so the partial text stays below it.
func aborted(rep reply, maxTokens int) reply {
	pieces := Pieces(rep.text)
	text := strings.Join(pieces[:len(pieces)/2], "") + strings.Repeat(" the", repeatLimit)
	if maxTokens > 0 {
		text, _ = truncateTokens(text, maxTokens-1)
	}
	return reply{text: text, solver: rep.solver}
}
