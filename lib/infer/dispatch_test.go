package infer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/sim"
)

// Three long contexts, ten questions each, interleaved in the input: with
// --dispatch prefix the server sees each context's questions together, and
// the output is in input order all the same; --dispatch input sends them as
// they come.
func TestDispatchPrefixGroupsAndKeepsOrder(t *testing.T) {
	var b bytes.Buffer
	ctx := func(c int) string { return strings.Repeat(fmt.Sprintf("context %d says something long. ", c), 120) }
	for q := range 10 {
		for c := range 3 {
			fmt.Fprintf(&b, `{"id":"c%d-q%d","request":{"messages":[{"role":"user","content":%q}],"max_tokens":4}}`+"\n", c, q, ctx(c)+fmt.Sprintf("Instruction: question %d", q))
		}
	}
	b.WriteString(`{"id":"short","request":{"messages":[{"role":"user","content":"hi"}]}}` + "\n")
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, b.Bytes(), 0o644)

	for _, tc := range []struct {
		dispatch    string
		maxSwitches int // context changes in arrival order
		minSwitches int
	}{
		{DispatchPrefix, 3, 2}, // each context together, and one more when the oldest waited 3/4 of the window
		{DispatchInput, 31, 29},
	} {
		var mu sync.Mutex
		var arrivals []string
		// The first request is held until every record waits in the
		// window, so the order of the others is the dispatcher's choice,
		// not how far reading had got (a loaded machine reads slowly).
		all := make(chan struct{})
		opt := sim.DefaultOptions()
		opt.FaultPlan = func(_ uint64, req *sim.Request) sim.Fault {
			if txt := req.Text(); strings.HasPrefix(txt, "context") {
				mu.Lock()
				arrivals = append(arrivals, txt[:len("context 0")])
				first := len(arrivals) == 1
				mu.Unlock()
				if first && tc.dispatch == DispatchPrefix {
					<-all
				}
			}
			return sim.NoFault
		}
		s := startSim(t, opt)
		tool := batchTool
		tool.Action = func(r *app.Run) error {
			opt, err := OptionsFromFlags(r, "")
			if err != nil {
				return err
			}
			opt.queued = func(n int) {
				if n == 31 {
					close(all)
				}
			}
			return Process(r, opt, batchRequest, batchApply)
		}
		// -j 1: one in flight, so the arrival order is the dispatch order.
		code, out, stderr := runTool(t, tool, nil, "--dispatch", tc.dispatch, "-j", "1", "--window", "40", "--base-url", s.BaseURL(), "--model", sim.DefaultModel, in)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.dispatch, code, stderr)
		}
		recs := parseLines(t, out)
		if len(recs) != 31 {
			t.Fatalf("%s: %d records", tc.dispatch, len(recs))
		}
		for i, rec := range recs[:30] {
			if want := fmt.Sprintf("c%d-q%d", i%3, i/3); rec.ID() != want || !rec.Has("response") {
				t.Fatalf("%s: record %d is %s, want %s with a response", tc.dispatch, i, rec.ID(), want)
			}
		}
		switches := 0
		for i := 1; i < len(arrivals); i++ {
			if arrivals[i] != arrivals[i-1] {
				switches++
			}
		}
		if switches > tc.maxSwitches || switches < tc.minSwitches {
			t.Fatalf("%s: the server saw the contexts change %d times (want %d..%d): %v", tc.dispatch, switches, tc.minSwitches, tc.maxSwitches, arrivals)
		}
	}
}

func TestPrefixKey(t *testing.T) {
	long := strings.Repeat("x", prefixBytes+prefixSlack)
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"messages":[{"content":"` + long + `A"}]}`, `{"messages":[{"content":"` + long + `B"}]}`, true},
		{`{"max_tokens":5,"prompt":"` + long + `"}`, `{"max_tokens":6,"prompt":"` + long + `"}`, true},
		{`{"prompt":"y` + long + `"}`, `{"prompt":"z` + long + `"}`, false},
	} {
		ka, kb := prefixKey([]byte(tc.a)), prefixKey([]byte(tc.b))
		if ka == 0 || (ka == kb) != tc.same {
			t.Errorf("%.40s… vs %.40s…: keys %x %x, want same=%v", tc.a, tc.b, ka, kb, tc.same)
		}
	}
	if prefixKey([]byte(`{"prompt":"short"}`)) != 0 {
		t.Error("a short prompt is grouped")
	}
}

// The bodies waiting in the dispatcher stay under pendingBytes: reading
// waits for a send, and a stop releases it.
func TestDispatcherBoundsPendingBytes(t *testing.T) {
	d := newDispatcher(1000, nil)
	big := &item{call: &call{req: make([]byte, pendingBytes/3+1)}}
	added := make(chan bool, 10)
	go func() {
		for range 4 {
			added <- d.add(big)
		}
	}()
	for range 2 {
		if !<-added {
			t.Fatal("refused while open")
		}
	}
	select {
	case <-added:
		t.Fatal("a third body over the bound was queued before a send")
	case <-time.After(50 * time.Millisecond):
	}
	if _, ok := d.take(); !ok {
		t.Fatal("nothing to take")
	}
	if !<-added {
		t.Fatal("refused after a send made room")
	}
	d.drain()
	if <-added {
		t.Fatal("queued after the dispatcher stopped")
	}
}
