package batchapi

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
)

// File is OpenAI's file object.
type File struct {
	ID        string `json:"id"`
	Object    string `json:"object"` // "file"
	Bytes     int64  `json:"bytes"`
	CreatedAt int64  `json:"created_at"`
	ExpiresAt *int64 `json:"expires_at"`
	Filename  string `json:"filename"`
	Purpose   string `json:"purpose"` // "batch" for uploads, "batch_output" for results
}

// Batch is OpenAI's batch object.
type Batch struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"` // "batch"
	Endpoint         string            `json:"endpoint"`
	Errors           *BatchErrors      `json:"errors"`
	InputFileID      string            `json:"input_file_id"`
	CompletionWindow string            `json:"completion_window"`
	Status           string            `json:"status"`
	OutputFileID     *string           `json:"output_file_id"`
	ErrorFileID      *string           `json:"error_file_id"`
	CreatedAt        int64             `json:"created_at"`
	InProgressAt     *int64            `json:"in_progress_at"`
	ExpiresAt        *int64            `json:"expires_at"`
	FinalizingAt     *int64            `json:"finalizing_at"`
	CompletedAt      *int64            `json:"completed_at"`
	FailedAt         *int64            `json:"failed_at"`
	ExpiredAt        *int64            `json:"expired_at"`
	CancellingAt     *int64            `json:"cancelling_at"`
	CancelledAt      *int64            `json:"cancelled_at"`
	RequestCounts    RequestCounts     `json:"request_counts"`
	Metadata         map[string]string `json:"metadata"`
}

// BatchErrors lists why a batch failed validation.
type BatchErrors struct {
	Object string       `json:"object"` // "list"
	Data   []BatchError `json:"data"`
}

// BatchError is one validation error.
type BatchError struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
	Line    *int    `json:"line"`
}

// RequestCounts are a batch's progress.
type RequestCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

// Batch statuses, in OpenAI's order of transitions:
// validating → in_progress → finalizing → completed; validating → failed;
// in_progress → expired; validating/in_progress → cancelling → cancelled.
const (
	StatusValidating = "validating"
	StatusFailed     = "failed"
	StatusInProgress = "in_progress"
	StatusFinalizing = "finalizing"
	StatusCompleted  = "completed"
	StatusExpired    = "expired"
	StatusCancelling = "cancelling"
	StatusCancelled  = "cancelled"
)

// Terminal reports whether a batch will not change any more.
func Terminal(status string) bool {
	switch status {
	case StatusCompleted, StatusFailed, StatusExpired, StatusCancelled:
		return true
	}
	return false
}

// Client talks to an endpoint's /v1/files and /v1/batches.
type Client struct {
	HTTP *http.Client
	Base string // normalized base URL, …/v1
	Key  string
}

// APIError is a non-2xx answer.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message) }

// Retryable reports whether the same call may succeed later.
func (e *APIError) Retryable() bool { return e.Status == 408 || e.Status == 429 || e.Status >= 500 }

func (c *Client) do(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%s", redact.String(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return &APIError{Status: resp.StatusCode, Message: errorText(b)}
	}
	if read, ok := out.(func(io.Reader) error); ok {
		return read(resp.Body)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if err := record.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: unexpected answer: %s", method, path, redact.Excerpt(string(b), 200))
	}
	return nil
}

func errorText(b []byte) string {
	var v struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if record.Unmarshal(b, &v) == nil && v.Error.Message != "" {
		return redact.Excerpt(v.Error.Message, 500)
	}
	return redact.Excerpt(strings.TrimSpace(string(b)), 500)
}

// Upload sends a file with purpose "batch" as multipart/form-data, streamed
// from disk (a batch file may be 200 MB).
func (c *Client) Upload(ctx context.Context, path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := mw.WriteField("purpose", "batch")
		if err == nil {
			var part io.Writer
			part, err = mw.CreateFormFile("file", filepath.Base(path))
			if err == nil {
				_, err = io.Copy(part, f)
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	var out File
	err = c.do(ctx, http.MethodPost, "/files", mw.FormDataContentType(), pr, &out)
	pr.Close()
	if err != nil {
		return nil, fmt.Errorf("upload %s: %w", filepath.Base(path), err)
	}
	return &out, nil
}

// Create starts a batch over an uploaded file.
func (c *Client) Create(ctx context.Context, fileID, endpoint string, metadata map[string]string) (*Batch, error) {
	b, err := record.Marshal(map[string]any{"input_file_id": fileID, "endpoint": endpoint, "completion_window": "24h", "metadata": metadata})
	if err != nil {
		return nil, err
	}
	var out Batch
	if err := c.do(ctx, http.MethodPost, "/batches", "application/json", strings.NewReader(string(b)), &out); err != nil {
		return nil, fmt.Errorf("create batch: %w", err)
	}
	return &out, nil
}

// Get retrieves a batch.
func (c *Client) Get(ctx context.Context, id string) (*Batch, error) {
	var out Batch
	if err := c.do(ctx, http.MethodGet, "/batches/"+id, "", nil, &out); err != nil {
		return nil, fmt.Errorf("batch %s: %w", id, err)
	}
	return &out, nil
}

// FindByFile looks, newest first, through at most pages pages of 100 of the
// account's batches for one created over the uploaded file fileID: a run
// killed between creating a batch and noting its id finds it again instead
// of creating (and paying for) another. nil when there is none.
func (c *Client) FindByFile(ctx context.Context, fileID string, pages int) (*Batch, error) {
	after := ""
	for range pages {
		var page struct {
			Data    []Batch `json:"data"`
			HasMore bool    `json:"has_more"`
		}
		q := "/batches?limit=100"
		if after != "" {
			q += "&after=" + url.QueryEscape(after)
		}
		if err := c.do(ctx, http.MethodGet, q, "", nil, &page); err != nil {
			return nil, fmt.Errorf("list batches: %w", err)
		}
		for i := range page.Data {
			if page.Data[i].InputFileID == fileID {
				return &page.Data[i], nil
			}
		}
		if !page.HasMore || len(page.Data) == 0 {
			return nil, nil
		}
		after = page.Data[len(page.Data)-1].ID
	}
	return nil, nil
}

// Cancel asks for a batch to stop.
func (c *Client) Cancel(ctx context.Context, id string) (*Batch, error) {
	var out Batch
	if err := c.do(ctx, http.MethodPost, "/batches/"+id+"/cancel", "", nil, &out); err != nil {
		return nil, fmt.Errorf("cancel batch %s: %w", id, err)
	}
	return &out, nil
}

// Download writes a file's content to w.
func (c *Client) Download(ctx context.Context, fileID string, w io.Writer) error {
	return c.download(ctx, fileID, func(r io.Reader) error {
		_, err := io.Copy(w, r)
		return err
	})
}

// ReadResults indexes a result file's lines into rs as they arrive, those
// whose custom_id keep accepts: the file is never held whole (Results).
func (c *Client) ReadResults(ctx context.Context, fileID, name string, rs *Results, keep func(customID string) bool) error {
	return c.download(ctx, fileID, func(r io.Reader) error { return rs.ReadFrom(name, r, keep) })
}

func (c *Client) download(ctx context.Context, fileID string, read func(io.Reader) error) error {
	if err := c.do(ctx, http.MethodGet, "/files/"+fileID+"/content", "", nil, read); err != nil {
		return fmt.Errorf("download %s: %w", fileID, err)
	}
	return nil
}
