// Command gen writes a seeded synthetic JSONL corpus shaped like infer-batch
// output (request with a long prose prompt, response, usage, group labels), for
// measuring the shared read-parse-write path. The prose is drawn from a
// Zipf-distributed vocabulary of made-up words with sentence structure, so it
// compresses about as well as real text (zstd -1 ≈ 3x); same seed, same bytes.
//
//	go run ./bench/passthrough/gen -mb 1024 -seed 1 | zstd -1 -T2 -q -o bench/data/passthrough-1g.jsonl.zst
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

func main() {
	mb := flag.Int("mb", 100, "stop after this many MiB of JSONL")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()

	rng := rand.New(rand.NewPCG(*seed, 0x1f))
	vocab := vocabulary(rng, 6000)
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()

	// Benchmarks whose records split-subtasks passes through whole, so the corpus
	// also measures a real stage's pass-through.
	benches := []string{"lifbench", "ifscale", "longins"}
	lengths := []string{"4k", "8k", "16k", "32k"}
	limit := int64(*mb) << 20
	var written int64
	var line []byte
	for i := 0; written < limit; i++ {
		b := benches[rng.IntN(len(benches))]
		prompt := prose(rng, zipf, vocab, 200+rng.IntN(2400))
		reply := prose(rng, zipf, vocab, 20+rng.IntN(300))
		line = line[:0]
		line = fmt.Appendf(line, `{"id":"%s-%08d","bench":"%s","task":"t%d","group":{"length":"%s","seed":"%d"},`, b, i, b, rng.IntN(12), lengths[rng.IntN(len(lengths))], rng.IntN(5))
		line = append(line, `"request":{"messages":[{"role":"system","content":"You are a careful assistant."},{"role":"user","content":`...)
		line = strconv.AppendQuote(line, prompt)
		line = fmt.Appendf(line, `}],"max_tokens":%d,"temperature":0},"model":"m-7b","response":{"text":`, 256+rng.IntN(1800))
		line = strconv.AppendQuote(line, reply)
		line = fmt.Appendf(line, `,"finish_reason":"stop","usage":{"prompt_tokens":%d,"completion_tokens":%d},"latency_ms":%.1f,"attempts":1,"endpoint":"http://127.0.0.1:8000/v1"},"cost":%d}`+"\n",
			len(prompt)/4, len(reply)/4, 50+rng.Float64()*5000, rng.Uint64()>>1)
		n, err := w.Write(line)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		written += int64(n)
	}
}

// vocabulary makes n pronounceable words from syllables.
func vocabulary(rng *rand.Rand, n int) []string {
	on := strings.Fields("b c d f g h j k l m n p r s t v w st tr pl gr ch sh th br cl")
	nu := strings.Fields("a e i o u ai ea ou io")
	co := strings.Fields("n r s t l m nd st ng rk x")
	seen := map[string]bool{}
	var ws []string
	for len(ws) < n {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(on[rng.IntN(len(on))])
			b.WriteString(nu[rng.IntN(len(nu))])
			if rng.IntN(2) == 0 {
				b.WriteString(co[rng.IntN(len(co))])
			}
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			ws = append(ws, w)
		}
	}
	return ws
}

// prose is words sentences of Zipf-drawn words, capitalised and punctuated,
// with an occasional number or newline.
func prose(rng *rand.Rand, zipf *rand.Zipf, vocab []string, words int) string {
	var b strings.Builder
	start := true
	for i := range words {
		w := vocab[zipf.Uint64()]
		if rng.IntN(40) == 0 {
			w = strconv.Itoa(rng.IntN(10000))
		}
		if start {
			w = strings.ToUpper(w[:1]) + w[1:]
			start = false
		}
		b.WriteString(w)
		switch r := rng.IntN(100); {
		case i == words-1 || r < 7:
			b.WriteString(".")
			if rng.IntN(8) == 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteString(" ")
			}
			start = true
		case r < 14:
			b.WriteString(", ")
		default:
			b.WriteString(" ")
		}
	}
	return b.String()
}
