package sim

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/batchapi"
)

// userScript is what a user types after reading OpenAI's Batch guide, with
// curl and jq: upload, create, poll, download, list.
const userScript = `set -euo pipefail
cat > requests.jsonl <<'EOF'
{"custom_id":"q1","method":"POST","url":"/v1/chat/completions","body":{"model":"llm-sim","messages":[{"role":"user","content":"hello"}],"max_tokens":5}}
{"custom_id":"q2","method":"POST","url":"/v1/chat/completions","body":{"model":"llm-sim","messages":[{"role":"user","content":"again"}],"max_tokens":5}}
{"custom_id":"q3","method":"POST","url":"/v1/chat/completions","body":{"model":"no-such-model","messages":[{"role":"user","content":"x"}]}}
EOF
file=$(curl -sf "$BASE/files" -F purpose=batch -F file=@requests.jsonl | jq -r .id)
batch=$(curl -sf "$BASE/batches" -H 'Content-Type: application/json' \
  -d "{\"input_file_id\":\"$file\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}" | jq -r .id)
while :; do
  status=$(curl -sf "$BASE/batches/$batch" | jq -r .status)
  case $status in completed|failed|expired|cancelled) break;; esac
  sleep 0.05
done
echo "status $status"
curl -sf "$BASE/batches/$batch" | jq -r '"counts \(.request_counts.total) \(.request_counts.completed) \(.request_counts.failed)"'
out=$(curl -sf "$BASE/batches/$batch" | jq -r .output_file_id)
err=$(curl -sf "$BASE/batches/$batch" | jq -r .error_file_id)
curl -sf "$BASE/files/$out/content" | jq -r '"ok \(.custom_id) \(.response.status_code) \(.response.body.choices[0].finish_reason)"'
curl -sf "$BASE/files/$err/content" | jq -r '"error \(.custom_id) \(.response.status_code)"'
curl -sf "$BASE/batches?limit=1" | jq -r '"listed \(.data[0].id == "'"$batch"'") \(.has_more)"'
`

// A user's curl script runs a batch through llm-sim from upload to results.
func TestBatchUserScript(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the user-style script needs bash, curl and jq", tool)
		}
	}
	s := New(DefaultOptions())
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cmd := exec.Command("bash", "-c", userScript)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "BASE="+base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("script: %v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{"status completed", "counts 3 2 1", "ok q1 200 length", "ok q2 200 length", "error q3 404", "listed true false"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("script printed:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
	if n := s.Stats().ByPath["/v1/chat/completions"]; n != 3 {
		t.Fatalf("the batch's requests went through the server %d times, want 3", n)
	}
}

func newBatchClient(t *testing.T, s *Server) *batchapi.Client {
	t.Helper()
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &batchapi.Client{HTTP: http.DefaultClient, Base: base}
}

func upload(t *testing.T, cl *batchapi.Client, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(p, []byte(content), 0o644)
	f, err := cl.Upload(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Object != "file" || f.Purpose != "batch" || f.Bytes != int64(len(content)) {
		t.Fatalf("file object %+v", f)
	}
	return f.ID
}

func waitBatch(t *testing.T, cl *batchapi.Client, id string) *batchapi.Batch {
	t.Helper()
	for {
		b, err := cl.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if batchapi.Terminal(b.Status) {
			return b
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A file with a bad line fails validation, naming the line, as OpenAI's does.
func TestBatchValidationFails(t *testing.T) {
	cl := newBatchClient(t, New(DefaultOptions()))
	ctx := context.Background()
	for _, tc := range []struct{ content, code string }{
		{`{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"messages":[]}}` + "\n" + `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}`, "duplicate_custom_id"},
		{`{"custom_id":"a","method":"POST","url":"/v1/completions","body":{}}`, "mismatched_endpoint"},
		{`not json`, "invalid_json_line"},
	} {
		b, err := cl.Create(ctx, upload(t, cl, tc.content), batchapi.URLChat, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != batchapi.StatusValidating || b.Object != "batch" || b.CompletionWindow != "24h" {
			t.Fatalf("a new batch: %+v", b)
		}
		b = waitBatch(t, cl, b.ID)
		if b.Status != batchapi.StatusFailed || b.FailedAt == nil || b.Errors == nil || b.Errors.Data[0].Code != tc.code || b.Errors.Data[0].Line == nil {
			t.Errorf("%s: %+v %+v", tc.code, b, b.Errors)
		}
	}
	if _, err := cl.Create(ctx, "file-nope", batchapi.URLChat, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("an unknown file: %v", err)
	}
}

// Cancelling stops sending: the requests that ran keep their results, the
// others are in the error file as batch_cancelled; the status goes
// cancelling → cancelled.
func TestBatchCancel(t *testing.T) {
	opt := DefaultOptions()
	opt.Latency = 50 * time.Millisecond
	opt.MaxConcurrency = 2
	s := New(opt)
	cl := newBatchClient(t, s)
	ctx := context.Background()
	var in bytes.Buffer
	for i := range 40 {
		in.WriteString(`{"custom_id":"r` + strconv.Itoa(i) + `","method":"POST","url":"/v1/completions","body":{"model":"llm-sim","prompt":"x","max_tokens":2}}` + "\n")
	}
	b, err := cl.Create(ctx, upload(t, cl, in.String()), batchapi.URLCompletions, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	// Cancel once a request has run (a fixed sleep could end before the
	// first did on a loaded machine); 40 requests take about 1 s.
	for b.RequestCounts.Completed == 0 {
		time.Sleep(5 * time.Millisecond)
		if b, err = cl.Get(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
	}
	c, err := cl.Cancel(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != batchapi.StatusCancelling || c.CancellingAt == nil {
		t.Fatalf("after cancel: %s", c.Status)
	}
	b = waitBatch(t, cl, b.ID)
	if b.Status != batchapi.StatusCancelled || b.CancelledAt == nil || b.Metadata["k"] != "v" {
		t.Fatalf("%+v", b)
	}
	done := b.RequestCounts.Completed
	if done == 0 || done >= 40 || b.OutputFileID == nil || b.ErrorFileID == nil {
		t.Fatalf("counts %+v, files %v %v", b.RequestCounts, b.OutputFileID, b.ErrorFileID)
	}
	res := batchapi.NewResults(t.TempDir())
	defer res.Close()
	for _, id := range []string{*b.OutputFileID, *b.ErrorFileID} {
		if err := cl.ReadResults(ctx, id, id, res, nil); err != nil {
			t.Fatal(err)
		}
	}
	if res.Len() != 40 {
		t.Fatalf("%d results for 40 requests", res.Len())
	}
	cancelled := 0
	for i := range 40 {
		o, _, err := res.Take("r" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(o.ErrorMessage(), "batch_cancelled") {
			cancelled++
		}
	}
	if cancelled != 40-done {
		t.Fatalf("%d cancelled lines, want %d", cancelled, 40-done)
	}
}
