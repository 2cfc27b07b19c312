package batchapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

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
//
// The lines themselves are held in memory up to a limit (MemLimit), then in
// a spill file: the results of 50,000 long replies run to gigabytes, and
// each is read once, when its record is written. Memory holds the index
// only: an id, an offset and a length per result.
type Results struct {
	byID  map[string]result
	dir   string // the spill file's folder ("": the system's)
	limit int    // bytes of lines held in memory before they move to the spill file
	mem   []byte // the lines, while they fit
	spill *os.File
	size  int64 // bytes of lines stored, in mem or in spill
}

// result is where a line is stored.
type result struct {
	off int64
	n   int
	ok  bool // a success: it wins over an error for the same id
}

// MemLimit is how many bytes of result lines a Results holds in memory
// before it writes them to a spill file.
const MemLimit = 64 << 20

// NewResults is an empty index whose spill file, if the results outgrow
// MemLimit, goes in dir ("": the system's temporary folder). Close removes it.
func NewResults(dir string) *Results {
	return &Results{byID: map[string]result{}, dir: dir, limit: MemLimit}
}

// Len is the number of ids with a result.
func (rs *Results) Len() int { return len(rs.byID) }

// add indexes one result line.
func (rs *Results) add(line []byte, o *Output) error {
	ok := o.ok()
	if prev, found := rs.byID[o.CustomID]; found && prev.ok && !ok {
		return nil
	}
	if err := rs.store(line); err != nil {
		return err
	}
	rs.byID[o.CustomID] = result{off: rs.size - int64(len(line)), n: len(line), ok: ok}
	return nil
}

// store appends a line to memory, or to the spill file once the lines
// outgrow the limit.
func (rs *Results) store(line []byte) error {
	if rs.spill == nil && len(rs.mem)+len(line) > rs.limit {
		f, err := os.CreateTemp(rs.dir, ".ifkit-batch-results-*.jsonl")
		if err != nil {
			return err
		}
		rs.spill = f
		if _, err := f.Write(rs.mem); err != nil {
			return err
		}
		rs.mem = nil
	}
	rs.size += int64(len(line))
	if rs.spill == nil {
		rs.mem = append(rs.mem, line...)
		return nil
	}
	_, err := rs.spill.Write(line)
	return err
}

func (o *Output) ok() bool {
	return o.ErrorMessage() == "" && o.Response != nil && o.Response.StatusCode/100 == 2
}

// Take returns and forgets an id's result.
func (rs *Results) Take(id string) (*Output, bool, error) {
	r, found := rs.byID[id]
	if !found {
		return nil, false, nil
	}
	delete(rs.byID, id)
	var line []byte
	if rs.spill == nil {
		line = rs.mem[r.off : r.off+int64(r.n)]
	} else {
		line = make([]byte, r.n)
		if _, err := rs.spill.ReadAt(line, r.off); err != nil {
			return nil, false, fmt.Errorf("batch results: %w", err)
		}
	}
	o, err := ParseOutput(line)
	return o, err == nil, err
}

// Close removes the spill file.
func (rs *Results) Close() error {
	if rs.spill == nil {
		return nil
	}
	rs.spill.Close()
	return os.Remove(rs.spill.Name())
}

// ReadFrom indexes the result lines of r (any compression ifkit reads)
// whose custom_id keep accepts (nil: every one), named name in errors
// (file:line). Blank lines are skipped; any other line that is not a
// result is bad input.
func (rs *Results) ReadFrom(name string, r io.Reader, keep func(customID string) bool) error {
	in, err := stream.Open("-", r)
	if err != nil {
		return err
	}
	in.Name = name
	return rs.read(in, keep)
}

// ReadFiles indexes result files.
func (rs *Results) ReadFiles(names []string) error {
	for _, name := range names {
		in, err := stream.Open(name, nil)
		if err != nil {
			return err
		}
		if err := rs.read(in, nil); err != nil {
			return err
		}
	}
	return nil
}

func (rs *Results) read(in *stream.Input, keep func(string) bool) error {
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
		if keep != nil && !keep(o.CustomID) {
			continue
		}
		if err := rs.add(line, o); err != nil {
			return err
		}
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
