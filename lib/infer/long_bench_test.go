package infer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/sim"
)

// BenchmarkLongPrompts sends 455 KB prompts (about 100k tokens) at -j 64 to
// an llm-sim capped at 64 in flight × 200 ms, the setting of issue 17: the
// reported ratio is the server's capacity used. Run with -cpuprofile to see
// where the client spends its time (llm-sim's handlers are in the same
// profile, under lib/sim).
func BenchmarkLongPrompts(b *testing.B) {
	const n, j = 640, 64
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	var text strings.Builder
	for i := 0; text.Len() < 455000; i++ {
		text.WriteString(words[i*7%len(words)])
		text.WriteByte(' ')
	}
	in := bytes.NewBuffer(make([]byte, 0, n*(text.Len()+100)))
	for i := range n {
		in.WriteString(fmt.Sprintf(`{"id":"r%04d","request":{"messages":[{"role":"user","content":"%d `, i, i))
		in.WriteString(text.String())
		in.WriteString(`"}],"max_tokens":8}}` + "\n")
	}
	path := filepath.Join(b.TempDir(), "in.jsonl")
	os.WriteFile(path, in.Bytes(), 0o644)
	opt := sim.DefaultOptions()
	opt.Latency = 200 * time.Millisecond
	opt.MaxConcurrency = j
	s := sim.New(opt)
	if _, err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		out := filepath.Join(b.TempDir(), "out.jsonl.zst")
		code, _, stderr := runBatch(b, nil, "--base-url", s.BaseURL(), "--model", sim.DefaultModel, "-j", fmt.Sprint(j), "-o", out, path)
		if code != 0 {
			b.Fatalf("exit %d: %s", code, stderr)
		}
		ideal := float64(n) / j * 0.2
		b.ReportMetric(ideal/time.Since(start).Seconds(), "capacity")
	}
}
