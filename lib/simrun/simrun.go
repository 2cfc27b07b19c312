package simrun

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bench"
	"github.com/ifkit/ifkit/lib/judge"
	"github.com/ifkit/ifkit/lib/programs"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/report"
	"github.com/ifkit/ifkit/lib/sim"
	"github.com/ifkit/ifkit/lib/split"
	"github.com/ifkit/ifkit/lib/stream"
)

// Lab drives a list of benchmarks; its files go to a folder of its own.
type Lab struct {
	bs      []bench.Bench
	solvers []sim.Solver
	splits  map[string]split.Splitter
	judges  map[string]judge.Factory
	dir     string
	seq     int
	cache   map[string][]*record.Record // requests by how they were made (perSeed)
}

// New opens the benchmarks' splitters, scorers and solvers with their
// default flags; dir holds the files the programs read and write.
func New(bs []bench.Bench, dir string) (*Lab, error) {
	l := &Lab{bs: bs, dir: dir, cache: map[string][]*record.Record{}}
	var err error
	if l.splits, err = open(l, bs, func(b bench.Bench) bench.Plug[split.Splitter] { return b.Split }); err != nil {
		return nil, err
	}
	if l.judges, err = open(l, bs, func(b bench.Bench) bench.Plug[judge.Factory] { return b.Judge }); err != nil {
		return nil, err
	}
	solvers, err := open(l, bs, func(b bench.Bench) bench.Plug[[]sim.Solver] { return b.Sim })
	if err != nil {
		return nil, err
	}
	for _, b := range bs { // in list order, as llm-sim tries them
		l.solvers = append(l.solvers, solvers[b.Name]...)
	}
	return l, nil
}

// open opens one program's plugs with their flags' defaults, in a run of
// their own (their flags may share names with another program's).
func open[T any](l *Lab, bs []bench.Bench, plug func(bench.Bench) bench.Plug[T]) (map[string]T, error) {
	var out map[string]T
	tool := app.Tool{Name: "simrun", Kind: app.Generator, Flags: bench.Flags(nil, bs, plug), Action: func(r *app.Run) error {
		var err error
		out, err = bench.Open(r, bs, plug)
		return err
	}}
	_, stderr, err := l.run(tool, nil)
	if err != nil {
		return nil, fmt.Errorf("opening the benchmarks: %v: %s", err, stderr)
	}
	return out, nil
}

// running lets one program run at a time in this process, whatever the
// Lab: app.RunTool is not safe to call concurrently (the programs' flags are
// package values that urfave/cli writes into).
var running sync.Mutex

// run runs a program in-process with args and stdin; its stdout and stderr.
func (l *Lab) run(tool app.Tool, stdin []byte, args ...string) ([]byte, string, error) {
	running.Lock()
	defer running.Unlock()
	l.seq++
	out := filepath.Join(l.dir, fmt.Sprintf("stdout-%d", l.seq))
	f, err := os.Create(out)
	if err != nil {
		return nil, "", err
	}
	defer os.Remove(out)
	var stderr strings.Builder
	code := app.RunTool(tool, append([]string{tool.Name}, args...), app.Env{
		Stdin: bytes.NewReader(stdin), Stdout: f, Stderr: &stderr,
		Getenv: func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return "1764000000"
			}
			return ""
		},
	})
	f.Close()
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, "", err
	}
	if code != 0 {
		return b, stderr.String(), fmt.Errorf("%s %s: exit %d", tool.Name, strings.Join(args, " "), code)
	}
	return b, stderr.String(), nil
}

// Items are the requests of gen-context args... (a benchmark and its
// flags), expanded by expand-templates.
func (l *Lab) Items(args ...string) ([]*record.Record, error) {
	items, err := l.Generate(args...)
	if err != nil {
		return nil, err
	}
	return l.Expand(items)
}

// Generate is gen-context args...: the items.
func (l *Lab) Generate(args ...string) ([]*record.Record, error) {
	items, stderr, err := l.run(programs.GenContext(l.bs), nil, args...)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr)
	}
	return parse(items)
}

// Expand is expand-templates over items: their requests.
func (l *Lab) Expand(items []*record.Record) ([]*record.Record, error) {
	var in []byte
	for _, it := range items {
		in = append(it.AppendJSON(in), '\n')
	}
	reqs, stderr, err := l.run(programs.ExpandTemplates(l.bs), in)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr)
	}
	return parse(reqs)
}

func parse(b []byte) ([]*record.Record, error) { return lines(b, record.Parse) }

// lines parses every line of b that is not empty.
func lines[T any](b []byte, parse func([]byte) (T, error)) ([]T, error) {
	var out []T
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		v, err := parse(line)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Model is a simulated model: its name, its skill, the seed of its
// answers, and the share of its requests that fail.
type Model struct {
	Name     string
	Skill    float64
	Seed     uint64
	FailRate float64
}

// Answer answers the requests as the model would through llm-sim, then
// splits and judges the replies (an LLM judge at full skill): the judged
// records, without their requests.
func (l *Lab) Answer(reqs []*record.Record, m Model) ([]*record.Record, error) {
	var out []*record.Record
	scorers := map[string]judge.Scorer{}
	for _, req := range reqs {
		rec := req.Clone()
		rng := rand.New(rand.NewPCG(m.Seed, hash(m.Name, rec.ID())))
		rec.Set("model", m.Name)
		if m.FailRate > 0 && rng.Float64() < m.FailRate {
			rec.Fail(&record.Error{Stage: "infer-batch", Kind: "server_error", Status: 503, Message: "simulated failure"})
		} else {
			q, err := request(rec, m.Name)
			if err != nil {
				return nil, err
			}
			text := l.solve(q, m.Skill, rng)
			rec.Set("response", record.Response{Text: text, FinishReason: "stop", Fingerprint: sim.Fingerprint, Attempts: 1, Endpoint: "simrun",
				Usage: record.Usage{PromptTokens: sim.EstimateTokens(q.Text()), CompletionTokens: sim.EstimateTokens(text)}})
		}
		parts := []*record.Record{rec}
		if s, ok := l.splits[rec.String("bench")]; ok {
			parts = nil
			if err := split.KeepResponseMeta(s)(rec, func(c *record.Record) error { parts = append(parts, c); return nil }); err != nil {
				return nil, err
			}
		}
		for _, p := range parts {
			if err := l.judge(p, scorers); err != nil {
				return nil, err
			}
			p.Delete("request")
			out = append(out, p)
		}
	}
	return out, nil
}

func hash(parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.Join(parts, "\x00")))
	return h.Sum64()
}

// request reads a record's request (or a judge call) as llm-sim reads it.
func request(rec *record.Record, model string) (*sim.Request, error) {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Prompt    string   `json:"prompt"`
		MaxTokens int      `json:"max_tokens"`
		Stop      []string `json:"stop"`
	}
	if err := rec.Decode("request", &body); err != nil {
		return nil, fmt.Errorf("record %q: request: %v", rec.ID(), err)
	}
	q := &sim.Request{Chat: body.Messages != nil, Prompt: body.Prompt, MaxTokens: body.MaxTokens, Stop: body.Stop, Model: model}
	for _, m := range body.Messages {
		q.Messages = append(q.Messages, sim.Message{Role: m.Role, Content: m.Content})
	}
	return q, nil
}

// solve is llm-sim's reply: the first solver that recognises the prompt,
// each with a fresh stream of rng's seed (one that declines leaves no trace).
func (l *Lab) solve(q *sim.Request, skill float64, rng *rand.Rand) string {
	seed, tokens := rng.Uint64(), sim.EstimateTokens(q.Text())
	for _, s := range l.solvers {
		if text, ok := s.Solve(q, sim.Params{Skill: skill, Rand: rand.New(rand.NewPCG(seed, 1)), PromptTokens: tokens}); ok {
			return text
		}
	}
	return ""
}

// judge scores a record as the judge program does, its LLM judge's calls
// answered by the solvers at full skill.
func (l *Lab) judge(rec *record.Record, scorers map[string]judge.Scorer) error {
	if rec.Errored() {
		return nil
	}
	b := rec.String("bench")
	s, ok := scorers[b]
	if !ok {
		f, known := l.judges[b]
		if !known {
			return fmt.Errorf("bench %q has no scorer", b)
		}
		var err error
		if s, err = f(judge.Options{Mode: "llm"}); err != nil {
			return err
		}
		scorers[b] = s
	}
	d, err := s.Prepare(rec)
	if err != nil {
		return err
	}
	if d.Judgement != nil {
		return rec.Set("judgement", d.Judgement)
	}
	call := record.New("call")
	call.SetRaw("request", d.Call)
	q, err := request(call, "sim-judge")
	if err != nil {
		return err
	}
	reply := l.solve(q, 1, rand.New(rand.NewPCG(0, hash(rec.ID()))))
	j, err := s.Parse(rec, reply)
	if err != nil {
		e, ok := err.(*record.Error)
		if !ok {
			e = &record.Error{Stage: "judge", Kind: "apply", Message: err.Error()}
		}
		rec.Fail(e)
		return nil
	}
	j.Judge = &record.JudgeCall{Model: "sim-judge", Reply: reply}
	return rec.Set("judgement", j)
}

// Aggregate runs aggregate-ifs with args over the judged records (each
// list a file, as a model's judged output) and returns its stdout and
// stderr.
func (l *Lab) Aggregate(judged [][]*record.Record, args ...string) ([]byte, string, error) {
	var files []string
	for _, recs := range judged {
		l.seq++
		name := filepath.Join(l.dir, fmt.Sprintf("judged-%d.jsonl", l.seq))
		o, err := stream.Create(name, stream.None, nil)
		if err != nil {
			return nil, "", err
		}
		for _, r := range recs {
			if _, err := o.Write(append(r.AppendJSON(nil), '\n')); err != nil {
				return nil, "", err
			}
		}
		if err := o.Close(); err != nil {
			return nil, "", err
		}
		defer os.Remove(name)
		files = append(files, name)
	}
	return l.run(programs.AggregateIFS(l.bs), nil, append(args, files...)...)
}

// Rows reads metric rows (aggregate-ifs --format jsonl).
func Rows(b []byte) ([]report.Row, error) { return lines(b, report.ParseRow) }
