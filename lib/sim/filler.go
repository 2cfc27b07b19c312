package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The plain reply to prompts no solver recognises: 20 to 60 words of
// deterministic filler drawn from the request's RNG, in short sentences, so
// clients and judges see ordinary prose of a moderate length.
var (
	fillSubjects = []string{"the simulated model", "this reply", "the test server", "a placeholder answer", "the pipeline", "each request", "the generated text", "a stand-in response"}
	fillVerbs    = []string{"describes", "follows", "summarises", "returns", "repeats", "outlines", "lists", "considers"}
	fillObjects  = []string{"the given instructions", "a short paragraph", "several plain sentences", "no real facts", "the requested format", "an ordinary answer", "some neutral words", "the expected shape of a reply"}
	fillTails    = []string{"for testing", "in a fixed way", "without reading the context", "as a demonstration", "at a steady pace", "one token at a time", "with stable wording", "on every run"}
)

func filler(rng *rand.Rand) string {
	target := 20 + rng.IntN(41)
	var b strings.Builder
	words := 0
	for words < target {
		s := fmt.Sprintf("%s %s %s %s.", pick(rng, fillSubjects), pick(rng, fillVerbs), pick(rng, fillObjects), pick(rng, fillTails))
		s = strings.ToUpper(s[:1]) + s[1:]
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		words += strings.Count(s, " ") + 1
	}
	return b.String()
}

func pick(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }
