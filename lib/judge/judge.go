package judge

import (
	"errors"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/reasoning"
	"github.com/ifkit/ifkit/lib/record"
)

// Options are the judge flags every benchmark may read: how its LLM judge
// is asked and read (a benchmark's own flags are its business: lib/bench).
type Options struct {
	Mode          string // the checks that need an LLM judge: ModeLLM or ModeLexical
	StrictVerdict bool   // accept only a reply that is exactly yes/no
	Prompt        string // judge prompt variant
	// Reasoning is the reasoning rule for the records' replies (the judge
	// model's own are the engine's: --judge-reasoning).
	Reasoning reasoning.Mode
	// Named are the benchmarks (by "bench") whose every record a judge
	// run writes names its judge (record.JudgeModelField), failed ones
	// too: aggregate-ifs puts one model's records judged by two judges side
	// by side by it. JudgeModel gives the name: the one the calls send, or
	// "lexical" for --judge lexical; nil when no judge is named (no
	// endpoint).
	Named      map[string]bool
	JudgeModel func() (string, error)
}

// Decision is a scorer's answer for one record: a judgement now, or a chat
// request body for the judge model.
type Decision struct {
	Judgement *record.Judgement
	Call      []byte
}

// Scorer judges one benchmark's records.
type Scorer interface {
	Prepare(rec *record.Record) (Decision, error)
	// Parse turns the judge model's reply into the judgement.
	Parse(rec *record.Record, reply string) (*record.Judgement, error)
}

// Factory builds a benchmark's scorer once, on its first record.
type Factory func(Options) (Scorer, error)

// Processor sends the requests prepare returns to the judge endpoint with the
// inference engine's concurrency, retries and resume; apply gets each reply.
// prepare returning nil writes the record as it is.
type Processor func(r *app.Run, prepare func(*record.Record) ([]byte, error), apply func(rec *record.Record, reply string, call record.JudgeCall) error) error

// ErrNoJudge is returned when a record needs a judge model and none was given.
var ErrNoJudge = errors.New("this record needs an LLM judge: give --judge-base-url (or JUDGE_BASE_URL) and --judge-model, or --judge lexical for the offline approximation")

// Run judges every record. Records carrying "error" pass through unjudged:
// aggregate-ifs counts them as failed samples. A reply that still holds a
// reasoning trace is judged on the answer after it (opt.Reasoning), and one
// whose trace never ended fails (reasoning_unfinished) and passes through.
// llm may be nil when no judge endpoint was configured.
func Run(r *app.Run, reg map[string]Factory, opt Options, llm Processor) error {
	scorers := map[string]Scorer{}
	scorerFor := func(rec *record.Record) (Scorer, error) {
		bench := rec.String("bench")
		if s, ok := scorers[bench]; ok {
			return s, nil
		}
		f, ok := reg[bench]
		if !ok {
			return nil, app.Invalidf("bench %q has no scorer", bench)
		}
		s, err := f(opt)
		if err != nil {
			return nil, err
		}
		scorers[bench] = s
		return s, nil
	}
	prepare := func(rec *record.Record) ([]byte, error) {
		// Before anything can fail the record or pass it through: a record
		// that failed before judging, or whose judge call fails, is this
		// judge's too (aggregate-ifs counts it under this judge).
		if opt.JudgeModel != nil && opt.Named[rec.String("bench")] {
			name, err := opt.JudgeModel()
			if err != nil {
				return nil, err
			}
			if err := rec.Set(record.JudgeModelField, name); err != nil {
				return nil, err
			}
		}
		if rec.Errored() {
			return nil, nil
		}
		if re, err := reasoning.ApplyRecord(rec, opt.Reasoning, reasoning.Estimate); err != nil {
			return nil, app.Invalid(err)
		} else if re != nil {
			return nil, re
		}
		s, err := scorerFor(rec)
		if err != nil {
			return nil, err
		}
		d, err := s.Prepare(rec)
		if err != nil {
			return nil, err
		}
		if d.Judgement != nil {
			return nil, rec.Set("judgement", d.Judgement)
		}
		if llm == nil {
			return nil, app.Usagef("record %q: %v", rec.ID(), ErrNoJudge)
		}
		return d.Call, nil
	}
	if llm == nil {
		return r.Map(func(rec *record.Record) error {
			_, err := prepare(rec)
			return err
		})
	}
	return llm(r, prepare, func(rec *record.Record, reply string, call record.JudgeCall) error {
		s, err := scorerFor(rec)
		if err != nil {
			return err
		}
		j, err := s.Parse(rec, reply)
		if err != nil {
			return err
		}
		call.Reply = reply
		j.Judge = &call
		return rec.Set("judgement", j)
	})
}
