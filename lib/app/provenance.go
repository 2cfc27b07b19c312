package app

import (
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ifkit/ifkit/lib/parts"
	"github.com/ifkit/ifkit/lib/provenance"
	"github.com/ifkit/ifkit/lib/redact"
	"github.com/ifkit/ifkit/lib/stream"
)

// runState is what the run's provenance needs and remembers.
type runState struct {
	inputsOnce  sync.Once
	inputs      []provenance.Input // the inputs as hashed before they were read
	inputsErr   error
	streamed    map[string]provenance.Input // inputs hashed as they were read, by name
	runOnce     sync.Once
	runID       string
	runErr      error
	outputFlags []string
}

// hashInputs describes the inputs by content, once: each regular file as
// stored; stdin, pipes and FIFOs by their names until they are read.
func (r *Run) hashInputs() ([]provenance.Input, error) {
	r.inputsOnce.Do(func() { r.inputs, r.inputsErr = parts.HashInputs(r.files) })
	return r.inputs, r.inputsErr
}

// readStreamed keeps the hash of an input that cannot be read twice (stdin,
// a pipe, a FIFO, <(…)): what the run read of it is its content.
func (r *Run) readStreamed(in *stream.Input) {
	sha, n := in.Sum()
	if sha == "" {
		return
	}
	if r.streamed == nil {
		r.streamed = map[string]provenance.Input{}
	}
	r.streamed[in.Name] = provenance.Input{Name: in.Name, Size: n, SHA256: sha}
}

// runInputs are the inputs by content as far as they were read.
func (r *Run) runInputs() ([]provenance.Input, error) {
	ins, err := r.hashInputs()
	if err != nil {
		return nil, err
	}
	ins = slices.Clone(ins)
	for i, in := range ins {
		if s, ok := r.streamed[in.Name]; ok && in.SHA256 == "" {
			ins[i].SHA256, ins[i].Size = s.SHA256, s.Size
		}
	}
	return ins, nil
}

// RunID is this run's id (provenance.RunID): a hash of the input contents,
// the program, its settings and the ifkit version. It is final once the
// inputs were read (stdin and pipes are hashed as they are read).
func (r *Run) RunID() (string, error) {
	r.runOnce.Do(func() {
		ins, err := r.runInputs()
		if err != nil {
			r.runErr = err
			return
		}
		r.runID = provenance.RunID(ins, r.toolName(), r.settings(), Version)
	})
	return r.runID, r.runErr
}

// provenance is what this run's manifests (a part's, a partitioned
// folder's) say about it: at the start, before the inputs are read, without
// the run id; final, once they were read, with it and the end time.
func (r *Run) provenance(final bool) (provenance.Provenance, error) {
	host, pid, job := provenance.Host(r.Getenv)
	p := provenance.Provenance{
		Version: Version, Tool: r.toolName(), Command: redact.Args(os.Args), Settings: r.settings(),
		Host: host, PID: pid, Job: job, Started: r.Created(),
	}
	var err error
	if p.Input, err = r.runInputs(); err != nil || !final {
		return p, err
	}
	p.Ended = time.Now().UTC()
	p.Run, err = r.RunID()
	return p, err
}

// Created is when the run started (UTC, RFC 3339), or SOURCE_DATE_EPOCH when
// set, so that reproducible builds of a report get the same bytes.
func (r *Run) Created() time.Time {
	if s := r.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return r.started.UTC().Truncate(time.Second)
}

// InputRun is the run the record being read came from: the run id in the
// manifest of the partitioned folder it was read from, "" for other inputs.
func (r *Run) InputRun() string {
	in := r.reading.Load()
	if in == nil || r.parts == nil {
		return ""
	}
	return r.parts.runs[in.Name]
}
