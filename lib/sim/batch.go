package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ifkit/ifkit/lib/batchapi"
	"github.com/ifkit/ifkit/lib/record"
)

// batchStore is llm-sim's /v1/files and /v1/batches: files are kept in
// memory, and a batch runs its requests through the server's own handler,
// so they get its latency model, concurrency cap, solvers and faults.
type batchStore struct {
	mu      sync.Mutex
	seq     int
	files   map[string]*simFile
	batches map[string]*simBatch
}

type simFile struct {
	obj  batchapi.File
	data []byte
}

type simBatch struct {
	obj    batchapi.Batch
	cancel context.CancelFunc
}

func (bs *batchStore) init() {
	if bs.files == nil {
		bs.files, bs.batches = map[string]*simFile{}, map[string]*simBatch{}
	}
}

func (bs *batchStore) nextID(prefix string) string {
	bs.seq++
	return prefix + strconv.Itoa(bs.seq)
}

func batchPath(p string) bool {
	return p == "/v1/files" || p == "/v1/batches" || strings.HasPrefix(p, "/v1/files/") || strings.HasPrefix(p, "/v1/batches/")
}

// serveBatchAPI routes /v1/files[/ID[/content]] and /v1/batches[/ID[/cancel]].
func (s *Server) serveBatchAPI(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/"), "/")
	m := r.Method
	switch {
	case parts[0] == "files" && len(parts) == 1 && m == http.MethodPost:
		s.uploadFile(w, r)
	case parts[0] == "files" && len(parts) == 1 && m == http.MethodGet:
		s.listFiles(w)
	case parts[0] == "files" && len(parts) == 2 && m == http.MethodGet:
		s.withFile(w, parts[1], func(f *simFile) { writeJSON(w, http.StatusOK, f.obj) })
	case parts[0] == "files" && len(parts) == 2 && m == http.MethodDelete:
		s.withFile(w, parts[1], func(f *simFile) {
			s.bat.mu.Lock()
			delete(s.bat.files, f.obj.ID)
			s.bat.mu.Unlock()
			writeJSON(w, http.StatusOK, map[string]any{"id": f.obj.ID, "object": "file", "deleted": true})
		})
	case parts[0] == "files" && len(parts) == 3 && parts[2] == "content" && m == http.MethodGet:
		s.withFile(w, parts[1], func(f *simFile) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
			w.Write(f.data)
		})
	case parts[0] == "batches" && len(parts) == 1 && m == http.MethodPost:
		s.createBatch(w, r)
	case parts[0] == "batches" && len(parts) == 1 && m == http.MethodGet:
		s.listBatches(w, r)
	case parts[0] == "batches" && len(parts) == 2 && m == http.MethodGet:
		s.withBatch(w, parts[1], func(b *simBatch) batchapi.Batch { return b.obj })
	case parts[0] == "batches" && len(parts) == 3 && parts[2] == "cancel" && m == http.MethodPost:
		s.withBatch(w, parts[1], func(b *simBatch) batchapi.Batch {
			if b.obj.Status == batchapi.StatusValidating || b.obj.Status == batchapi.StatusInProgress {
				b.obj.Status = batchapi.StatusCancelling
				b.obj.CancellingAt = now()
				b.cancel()
			}
			return b.obj
		})
	default:
		s.clientError(w, http.StatusNotFound, fmt.Sprintf("llm-sim has no endpoint %s %s", m, r.URL.Path), "invalid_request_error", "not_found")
	}
}

func now() *int64 {
	t := time.Now().Unix()
	return &t
}

func (s *Server) withFile(w http.ResponseWriter, id string, fn func(*simFile)) {
	s.bat.mu.Lock()
	s.bat.init()
	f := s.bat.files[id]
	s.bat.mu.Unlock()
	if f == nil {
		s.clientError(w, http.StatusNotFound, fmt.Sprintf("No such File object: %s", id), "invalid_request_error", "not_found")
		return
	}
	fn(f)
}

// withBatch answers with the batch as fn leaves it (fn runs under the lock).
func (s *Server) withBatch(w http.ResponseWriter, id string, fn func(*simBatch) batchapi.Batch) {
	s.bat.mu.Lock()
	s.bat.init()
	b := s.bat.batches[id]
	var obj batchapi.Batch
	if b != nil {
		obj = fn(b)
	}
	s.bat.mu.Unlock()
	if b == nil {
		s.clientError(w, http.StatusNotFound, fmt.Sprintf("No batch found with id '%s'.", id), "invalid_request_error", "not_found")
		return
	}
	writeJSON(w, http.StatusOK, obj)
}

func (s *Server) uploadFile(w http.ResponseWriter, r *http.Request) {
	mr, err := r.MultipartReader()
	if err != nil {
		s.clientError(w, http.StatusBadRequest, "upload a file as multipart/form-data with fields purpose and file: "+err.Error(), "invalid_request_error", "")
		return
	}
	var purpose, name string
	var data []byte
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.clientError(w, http.StatusBadRequest, "reading the upload: "+err.Error(), "invalid_request_error", "")
			return
		}
		switch part.FormName() {
		case "purpose":
			b, _ := io.ReadAll(io.LimitReader(part, 100))
			purpose = string(b)
		case "file":
			name = part.FileName()
			data, err = io.ReadAll(io.LimitReader(part, batchapi.MaxBytes+1))
			if err != nil {
				s.clientError(w, http.StatusBadRequest, "reading the upload: "+err.Error(), "invalid_request_error", "")
				return
			}
		}
	}
	switch {
	case purpose != "batch":
		s.clientError(w, http.StatusBadRequest, fmt.Sprintf("'purpose' is %q: llm-sim accepts only 'batch'", purpose), "invalid_request_error", "invalid_value")
		return
	case data == nil:
		s.clientError(w, http.StatusBadRequest, "the upload has no 'file' part", "invalid_request_error", "")
		return
	case len(data) > batchapi.MaxBytes:
		s.clientError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a batch file may hold at most %d bytes", batchapi.MaxBytes), "invalid_request_error", "file_too_large")
		return
	}
	f := s.addFile(name, "batch", data)
	writeJSON(w, http.StatusOK, f)
}

func (s *Server) addFile(name, purpose string, data []byte) batchapi.File {
	s.bat.mu.Lock()
	defer s.bat.mu.Unlock()
	s.bat.init()
	f := &simFile{obj: batchapi.File{ID: s.bat.nextID("file-sim"), Object: "file", Bytes: int64(len(data)), CreatedAt: time.Now().Unix(), Filename: name, Purpose: purpose}, data: data}
	s.bat.files[f.obj.ID] = f
	return f.obj
}

func (s *Server) listFiles(w http.ResponseWriter) {
	s.bat.mu.Lock()
	s.bat.init()
	data := []batchapi.File{}
	for _, f := range s.bat.files {
		data = append(data, f.obj)
	}
	s.bat.mu.Unlock()
	sort.Slice(data, func(i, j int) bool { return idNumber(data[i].ID) > idNumber(data[j].ID) })
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "has_more": false})
}

// idNumber orders ids by creation (newest first in lists, as OpenAI's).
func idNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimLeft(id, "abcdefghijklmnopqrstuvwxyz-_"))
	return n
}

func (s *Server) createBatch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string            `json:"input_file_id"`
		Endpoint         string            `json:"endpoint"`
		CompletionWindow string            `json:"completion_window"`
		Metadata         map[string]string `json:"metadata"`
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := record.Unmarshal(b, &req); err != nil {
		s.clientError(w, http.StatusBadRequest, "the body is not a JSON object: "+err.Error(), "invalid_request_error", "")
		return
	}
	switch {
	case req.Endpoint != batchapi.URLChat && req.Endpoint != batchapi.URLCompletions:
		s.clientError(w, http.StatusBadRequest, fmt.Sprintf("'endpoint' %q: llm-sim runs batches on %s and %s", req.Endpoint, batchapi.URLChat, batchapi.URLCompletions), "invalid_request_error", "invalid_value")
		return
	case req.CompletionWindow != "24h":
		s.clientError(w, http.StatusBadRequest, fmt.Sprintf("'completion_window' %q: only '24h' is supported", req.CompletionWindow), "invalid_request_error", "invalid_value")
		return
	}
	s.bat.mu.Lock()
	s.bat.init()
	f := s.bat.files[req.InputFileID]
	if f == nil || f.obj.Purpose != "batch" {
		s.bat.mu.Unlock()
		s.clientError(w, http.StatusBadRequest, fmt.Sprintf("'input_file_id' %q is not an uploaded file with purpose 'batch'", req.InputFileID), "invalid_request_error", "invalid_value")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := time.Now()
	exp := t.Add(24 * time.Hour).Unix()
	sb := &simBatch{cancel: cancel, obj: batchapi.Batch{
		ID: s.bat.nextID("batch_sim"), Object: "batch", Endpoint: req.Endpoint, InputFileID: f.obj.ID,
		CompletionWindow: req.CompletionWindow, Status: batchapi.StatusValidating, CreatedAt: t.Unix(), ExpiresAt: &exp,
		Metadata: req.Metadata,
	}}
	s.bat.batches[sb.obj.ID] = sb
	obj := sb.obj
	data := f.data
	s.bat.mu.Unlock()
	go s.runBatch(ctx, sb, data)
	writeJSON(w, http.StatusOK, obj)
}

func (s *Server) listBatches(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && v >= 1 && v <= 100 {
		limit = v
	}
	after := r.URL.Query().Get("after")
	s.bat.mu.Lock()
	s.bat.init()
	all := make([]batchapi.Batch, 0, len(s.bat.batches))
	for _, b := range s.bat.batches {
		all = append(all, b.obj)
	}
	s.bat.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return idNumber(all[i].ID) > idNumber(all[j].ID) })
	if after != "" {
		for i, b := range all {
			if b.ID == after {
				all = all[i+1:]
				break
			}
		}
	}
	more := len(all) > limit
	if more {
		all = all[:limit]
	}
	list := map[string]any{"object": "list", "data": all, "has_more": more, "first_id": nil, "last_id": nil}
	if len(all) > 0 {
		list["first_id"], list["last_id"] = all[0].ID, all[len(all)-1].ID
	}
	writeJSON(w, http.StatusOK, list)
}

// update changes a batch under the lock.
func (s *Server) update(sb *simBatch, fn func(*batchapi.Batch)) {
	s.bat.mu.Lock()
	fn(&sb.obj)
	s.bat.mu.Unlock()
}

// runBatch validates the input file, runs its requests (at most
// --max-concurrency at once, 64 without a cap), and writes the output and
// error files. A cancelled batch stops sending, lets the requests that run
// finish, and keeps their results.
func (s *Server) runBatch(ctx context.Context, sb *simBatch, data []byte) {
	lines, verr := parseBatchInput(data, sb.obj.Endpoint)
	if verr != nil {
		s.update(sb, func(b *batchapi.Batch) {
			b.Status, b.FailedAt = batchapi.StatusFailed, now()
			b.Errors = &batchapi.BatchErrors{Object: "list", Data: []batchapi.BatchError{*verr}}
		})
		return
	}
	s.update(sb, func(b *batchapi.Batch) {
		if b.Status == batchapi.StatusValidating {
			b.Status, b.InProgressAt = batchapi.StatusInProgress, now()
		}
		b.RequestCounts.Total = len(lines)
	})
	type result struct {
		line []byte
		ok   bool
	}
	results := make([]result, len(lines))
	workers := s.opt.MaxConcurrency
	if workers <= 0 {
		workers = 64
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out, ok := s.runBatchLine(ctx, sb.obj.ID, i, lines[i])
				results[i] = result{out, ok}
				s.update(sb, func(b *batchapi.Batch) {
					if ok {
						b.RequestCounts.Completed++
					} else {
						b.RequestCounts.Failed++
					}
				})
			}
		}()
	}
feed:
	for i := range lines {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		case <-s.closing:
			break feed
		}
	}
	close(next)
	wg.Wait()
	cancelled := ctx.Err() != nil
	if !cancelled {
		s.update(sb, func(b *batchapi.Batch) { b.Status, b.FinalizingAt = batchapi.StatusFinalizing, now() })
	}
	var okBuf, errBuf bytes.Buffer
	for i, res := range results {
		switch {
		case res.line == nil:
			// Never sent: the batch was cancelled (or the server closed).
			line, _ := record.Marshal(batchapi.Output{ID: fmt.Sprintf("batch_req_%s_%d", sb.obj.ID, i), CustomID: lines[i].CustomID,
				Error: json.RawMessage(`{"code":"batch_cancelled","message":"This request was not executed because the batch was cancelled."}`)})
			errBuf.Write(append(line, '\n'))
		case res.ok:
			okBuf.Write(res.line)
		default:
			errBuf.Write(res.line)
		}
	}
	var outID, errID *string
	if okBuf.Len() > 0 {
		f := s.addFile(sb.obj.ID+"_output.jsonl", "batch_output", okBuf.Bytes())
		outID = &f.ID
	}
	if errBuf.Len() > 0 {
		f := s.addFile(sb.obj.ID+"_error.jsonl", "batch_output", errBuf.Bytes())
		errID = &f.ID
	}
	s.update(sb, func(b *batchapi.Batch) {
		b.OutputFileID, b.ErrorFileID = outID, errID
		if cancelled {
			b.Status, b.CancelledAt = batchapi.StatusCancelled, now()
		} else {
			b.Status, b.CompletedAt = batchapi.StatusCompleted, now()
		}
	})
}

// parseBatchInput checks every line as OpenAI does before a batch starts:
// JSON, a unique custom_id, method POST, the batch's url, a body.
func parseBatchInput(data []byte, endpoint string) ([]batchapi.Input, *batchapi.BatchError) {
	var lines []batchapi.Input
	seen := map[string]bool{}
	fail := func(n int, code, msg string) ([]batchapi.Input, *batchapi.BatchError) {
		return nil, &batchapi.BatchError{Code: code, Message: msg, Line: &n}
	}
	for n, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var in batchapi.Input
		if err := record.Unmarshal(raw, &in); err != nil {
			return fail(n+1, "invalid_json_line", "This line is not parseable as valid JSON.")
		}
		switch {
		case in.CustomID == "":
			return fail(n+1, "missing_required_parameter", "The custom_id parameter is required.")
		case seen[in.CustomID]:
			return fail(n+1, "duplicate_custom_id", fmt.Sprintf("The custom_id for this request is a duplicate of another request: %s", in.CustomID))
		case in.Method != http.MethodPost:
			return fail(n+1, "invalid_method", "The method must be POST.")
		case in.URL != endpoint:
			return fail(n+1, "mismatched_endpoint", fmt.Sprintf("The url %q does not match the batch's endpoint %q.", in.URL, endpoint))
		case len(in.Body) == 0 || in.Body[0] != '{':
			return fail(n+1, "invalid_request", "The body must be a JSON object.")
		}
		seen[in.CustomID] = true
		lines = append(lines, in)
	}
	if len(lines) == 0 {
		return fail(1, "empty_file", "The input file holds no requests.")
	}
	return lines, nil
}

// lineWriter collects one request's answer from the handler.
type lineWriter struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (l *lineWriter) Header() http.Header { return l.h }
func (l *lineWriter) WriteHeader(code int) {
	if l.status == 0 {
		l.status = code
	}
}
func (l *lineWriter) Write(p []byte) (int, error) {
	l.WriteHeader(http.StatusOK)
	return l.body.Write(p)
}

// runBatchLine runs one request through the server and returns its result
// line; ok is a 2xx answer.
func (s *Server) runBatchLine(ctx context.Context, batchID string, i int, in batchapi.Input) (line []byte, ok bool) {
	body := in.Body
	var m map[string]json.RawMessage
	if record.Unmarshal(body, &m) == nil && m["stream"] != nil {
		// A batch answers whole.
		delete(m, "stream")
		delete(m, "stream_options")
		body, _ = record.Marshal(m)
	}
	lw := &lineWriter{h: http.Header{}}
	req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, in.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	func() {
		defer func() {
			// A reset or abort fault ends the handler with a panic.
			if p := recover(); p != nil {
				if !errors.Is(asError(p), http.ErrAbortHandler) {
					panic(p)
				}
				lw.status = http.StatusInternalServerError
				lw.body.Reset()
				lw.body.WriteString(`{"error":{"message":"the connection was reset (simulated by llm-sim)","type":"server_error","param":null,"code":"internal_error"}}`)
			}
		}()
		s.ServeHTTP(lw, req)
	}()
	if lw.status == 0 {
		lw.status = http.StatusOK
	}
	b := bytes.TrimSpace(lw.body.Bytes())
	if len(b) == 0 || !json.Valid(b) {
		// A truncated reply: what a batch worker would record as a failure.
		lw.status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"the reply was cut short (simulated by llm-sim)","type":"server_error","param":null,"code":"internal_error"}}`)
	}
	out := batchapi.Output{
		ID: fmt.Sprintf("batch_req_%s_%d", batchID, i), CustomID: in.CustomID,
		Response: &batchapi.Response{StatusCode: lw.status, RequestID: fmt.Sprintf("req_%s_%d", batchID, i), Body: b},
		Error:    json.RawMessage("null"),
	}
	line, _ = record.Marshal(out)
	return append(line, '\n'), lw.status/100 == 2
}

func asError(p any) error {
	if err, ok := p.(error); ok {
		return err
	}
	return nil
}
