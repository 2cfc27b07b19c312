package infer

import (
	"bytes"
	"errors"
	"os"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/stream"
)

// BatchStateName is where --batch-api keeps what it paid for with -o FILE
// (the files it uploaded, the batches it created), so that a killed run
// polls them again with --resume instead of paying for them twice.
func BatchStateName(out string) string { return stream.PartialName(out) + ".batches" }

// batchState is what the state file knows of one batch input file: what
// it holds (the requests by id, with the fingerprint of each record's
// request, so --resume takes a result only for the same request) and, once
// created, its batch. The file is appended to, one synced line per step: a
// line when the file is uploaded, one when its batch is created; lines of
// one file_id add up.
type batchState struct {
	Hash     string            `json:"hash,omitempty"` // the url and the sha256 of the file
	URL      string            `json:"url,omitempty"`
	Requests int               `json:"requests,omitempty"`
	FileID   string            `json:"file_id"`
	BatchID  string            `json:"batch_id,omitempty"`
	FPs      map[string]string `json:"requests_fp,omitempty"`
}

// readBatchState reads a state file ("" or missing: none), in the order the
// files were uploaded.
func readBatchState(name string) ([]*batchState, error) {
	if name == "" {
		return nil, nil
	}
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*batchState
	byFile := map[string]*batchState{}
	lines := bytes.Split(b, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var st batchState
		if err := record.Unmarshal(line, &st); err != nil || st.FileID == "" {
			// A kill while the last line was written leaves it torn: that
			// step is not noted (an upload is made again, a batch looked up).
			if i == len(lines)-1 {
				continue
			}
			return nil, app.Invalidf("%s:%d: not a batch state line", name, i+1)
		}
		prev := byFile[st.FileID]
		if prev == nil {
			p := st
			byFile[st.FileID] = &p
			out = append(out, &p)
			continue
		}
		if st.BatchID != "" {
			prev.BatchID = st.BatchID
		}
	}
	return out, nil
}

// stateFile appends to the state file; nil (no -o FILE) notes nothing.
type stateFile struct{ f *os.File }

func openBatchState(r *app.Run, name string) (*stateFile, error) {
	if name == "" {
		r.Log.Warn("--batch-api without -o: a killed run cannot find its batches again (they are logged)")
		return nil, nil
	}
	f, err := r.OpenOwned(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &stateFile{f}, nil
}

// add notes one step and syncs it before the next paid one.
func (s *stateFile) add(st batchState) error {
	if s == nil {
		return nil
	}
	line, err := record.Marshal(st)
	if err != nil {
		return err
	}
	if _, err := s.f.Write(append(line, '\n')); err != nil {
		return err
	}
	return s.f.Sync()
}

func (s *stateFile) close() {
	if s != nil {
		s.f.Close()
	}
}
