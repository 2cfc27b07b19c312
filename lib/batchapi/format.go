package batchapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// Limits of one OpenAI batch: a request file larger than either is split
// over several batches.
const (
	MaxRequests = 50000
	MaxBytes    = 200 << 20
)

// Endpoints a batch may target (ifkit's two generation endpoints).
const (
	URLChat        = "/v1/chat/completions"
	URLCompletions = "/v1/completions"
)

// Input is one request line of a batch input file.
type Input struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// AppendInput appends one request line (with its newline) for body, which is
// already a JSON object: it is not decoded again, as it may hold a 500 KB prompt.
func AppendInput(dst []byte, customID, url string, body []byte) []byte {
	dst = append(dst, inputStart...)
	dst = append(dst, record.Quote(customID)...)
	dst = append(dst, inputURL...)
	dst = append(dst, record.Quote(url)...)
	dst = append(dst, inputBody...)
	dst = append(dst, body...)
	return append(dst, inputEnd...)
}

// InputSize is the length of the line AppendInput makes, without making it.
func InputSize(customID, url string, body []byte) int {
	return len(inputStart) + len(record.Quote(customID)) + len(inputURL) + len(record.Quote(url)) + len(inputBody) + len(body) + len(inputEnd)
}

const (
	inputStart = `{"custom_id":`
	inputURL   = `,"method":"POST","url":`
	inputBody  = `,"body":`
	inputEnd   = "}\n"
)

// Output is one result line of a batch output or error file.
type Output struct {
	ID       string          `json:"id"`
	CustomID string          `json:"custom_id"`
	Response *Response       `json:"response"`
	Error    json.RawMessage `json:"error"`
}

// Response is the HTTP answer a batch got for one request.
type Response struct {
	StatusCode int             `json:"status_code"`
	RequestID  string          `json:"request_id"`
	Body       json.RawMessage `json:"body"`
}

// ErrorMessage is the text of a result line's "error": OpenAI's
// {"code","message"}, or a bare string (some vLLM versions); "" when the line
// has none.
func (o *Output) ErrorMessage() string {
	if len(o.Error) == 0 || string(o.Error) == "null" {
		return ""
	}
	var s string
	if record.Unmarshal(o.Error, &s) == nil {
		return s
	}
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if record.Unmarshal(o.Error, &e) == nil && (e.Code != "" || e.Message != "") {
		if e.Code != "" && e.Message != "" {
			return e.Code + ": " + e.Message
		}
		return e.Code + e.Message
	}
	return string(o.Error)
}

// ParseOutput reads one result line.
func ParseOutput(line []byte) (*Output, error) {
	var o Output
	if err := record.Unmarshal(line, &o); err != nil {
		return nil, fmt.Errorf("not a batch result line: %v", err)
	}
	if o.CustomID == "" {
		return nil, errors.New(`batch result line without "custom_id"`)
	}
	if o.Response == nil && o.ErrorMessage() == "" {
		return nil, fmt.Errorf("batch result %q has neither a response nor an error", o.CustomID)
	}
	return &o, nil
}

// Results indexes result lines by custom_id. A success wins over an error for
// the same id (a request retried in a later batch), else the later line.
type Results struct {
	byID map[string]*Output
}

// NewResults is an empty index.
func NewResults() *Results { return &Results{byID: map[string]*Output{}} }

// Len is the number of ids with a result.
func (rs *Results) Len() int { return len(rs.byID) }

// Add indexes one result.
func (rs *Results) Add(o *Output) {
	if prev, ok := rs.byID[o.CustomID]; ok && prev.ok() && !o.ok() {
		return
	}
	rs.byID[o.CustomID] = o
}

func (o *Output) ok() bool {
	return o.ErrorMessage() == "" && o.Response != nil && o.Response.StatusCode/100 == 2
}

// Take returns and forgets an id's result.
func (rs *Results) Take(id string) (*Output, bool) {
	o, ok := rs.byID[id]
	delete(rs.byID, id)
	return o, ok
}

// ReadFrom indexes every result line of r (any compression ifkit reads),
// named name in errors (file:line). Blank lines are skipped; any other line
// that is not a result is bad input.
func (rs *Results) ReadFrom(name string, r io.Reader) error {
	in, err := stream.Open("-", r)
	if err != nil {
		return err
	}
	in.Name = name
	return rs.read(in)
}

// ReadFiles indexes result files.
func (rs *Results) ReadFiles(names []string) error {
	for _, name := range names {
		in, err := stream.Open(name, nil)
		if err != nil {
			return err
		}
		if err := rs.read(in); err != nil {
			return err
		}
	}
	return nil
}

func (rs *Results) read(in *stream.Input) error {
	defer in.Close()
	for {
		line, n, err := in.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		o, err := ParseOutput(line)
		if err != nil {
			return &stream.LineError{File: in.Name, Line: n, Err: err}
		}
		rs.Add(o)
	}
}

// IDs lists the ids still in the index (results nobody took), at most n.
func (rs *Results) IDs(n int) []string {
	var ids []string
	for id := range rs.byID {
		if len(ids) == n {
			break
		}
		ids = append(ids, id)
	}
	return ids
}
