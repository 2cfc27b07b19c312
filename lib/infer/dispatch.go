package infer

import (
	"bytes"
	"hash/fnv"
	"sync"

	"github.com/urfave/cli/v2"
)

// Dispatch orders. Servers with a prefix cache (vLLM's automatic prefix
// caching, SGLang's radix cache) prefill a shared prefix once when the
// requests that share it run close together: LIFBench asks many
// instructions about one context, and the LLM judge asks many checks about
// one reply. With "prefix" the engine sends, among the records waiting in
// the reorder window, those whose prompt starts like the one it sent last
// before the others; the output order does not change.
const (
	DispatchInput  = "input"
	DispatchPrefix = "prefix"
)

// prefixBytes is how much of a prompt's start decides its group: about 500
// tokens. Prompts shorter than prefixBytes+prefixSlack are not grouped, as
// a prefix cache saves little on them.
const (
	prefixBytes = 2048
	prefixSlack = 512
)

// pendingBytes bounds the records waiting to be sent, counted by their
// request (a long request is sent as its own bytes, not a copy): with 455 KB
// prompts a window of 16 × 64 records would hold 0.45 GB, so reading waits
// instead; about 70 such records (a wave of -j 64 and some) still wait to be
// grouped and built ahead, and any number of short ones up to the window.
const pendingBytes = 32 << 20

func dispatchFlag() cli.Flag {
	return &cli.StringFlag{Name: "dispatch", Value: DispatchPrefix, Category: catEngine,
		Usage: "order of sending within the reorder window: prefix (requests whose prompts share their first 2 KB go out together, so a server's prefix cache reuses them) or input; the output order is the input's either way"}
}

// prefixKey is a hash of the first prefixBytes of a prepared request's
// prompt ("messages" or "prompt", found as the first such key in the body);
// 0 for a short prompt.
func prefixKey(body []byte) uint64 {
	at := bytes.Index(body, []byte(`"messages":`))
	if at < 0 {
		at = bytes.Index(body, []byte(`"prompt":`))
	}
	if at < 0 || len(body)-at < prefixBytes+prefixSlack {
		return 0
	}
	h := fnv.New64a()
	h.Write(body[at : at+prefixBytes])
	return h.Sum64() | 1
}

// pending is a record waiting to be sent.
type pending struct {
	it  *item
	key uint64
	seq int // input position
}

// dispatcher hands the records of the window to the senders: the oldest
// one whose prompt starts as the last sent one's, else the oldest one. A
// record left behind by more than 3/4 of the window goes first, so the
// ordered writer never waits long for it.
type dispatcher struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []pending
	bytes   int // of the queued bodies
	seq     int
	last    uint64
	closed  bool
	starve  int
	grouped int         // records sent out of input order for their prefix, for the log
	queued  func(n int) // Options.queued
}

func newDispatcher(window int, queued func(int)) *dispatcher {
	d := &dispatcher{starve: max(1, window*3/4), queued: queued}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// add queues a record; false when the dispatcher stopped taking any.
func (d *dispatcher) add(it *item) bool {
	d.mu.Lock()
	for !d.closed && len(d.queue) > 0 && d.bytes+len(it.call.req) > pendingBytes {
		d.cond.Wait()
	}
	if d.closed {
		d.mu.Unlock()
		return false
	}
	d.queue = append(d.queue, pending{it: it, key: prefixKey(it.call.req), seq: d.seq})
	d.bytes += len(it.call.req)
	d.seq++
	n := d.seq
	d.mu.Unlock()
	d.cond.Broadcast()
	if d.queued != nil {
		d.queued(n)
	}
	return true
}

// close says no record will be added; take returns the rest, then false.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cond.Broadcast()
}

// take waits for a record to send.
func (d *dispatcher) take() (*item, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.queue) == 0 && !d.closed {
		d.cond.Wait()
	}
	if len(d.queue) == 0 {
		return nil, false
	}
	i := d.pick()
	p := d.queue[i]
	if i == 0 {
		d.queue = d.queue[1:] // not a shift of the whole window (4,096 at -j 256)
	} else {
		d.queue = append(d.queue[:i], d.queue[i+1:]...)
	}
	d.bytes -= len(p.it.call.req)
	d.cond.Broadcast() // a reader may wait for room
	if p.key != 0 {
		d.last = p.key
	}
	if i > 0 {
		d.grouped++
	}
	return p.it, true
}

func (d *dispatcher) pick() int {
	if d.last == 0 || d.seq-d.queue[0].seq >= d.starve {
		return 0
	}
	for i, p := range d.queue {
		if p.key == d.last {
			return i
		}
	}
	return 0
}

// drain returns the records that were never sent (the run is stopping).
func (d *dispatcher) drain() []*item {
	d.mu.Lock()
	defer d.mu.Unlock()
	its := make([]*item, len(d.queue))
	for i, p := range d.queue {
		its[i] = p.it
	}
	d.queue, d.bytes = nil, 0
	d.closed = true
	d.cond.Broadcast()
	return its
}

// dispatch sends the dispatcher's records as slots free up; it returns when
// the dispatcher is closed and empty, or the run stops (the records not sent
// are completed as dropped: --resume sends them).
func (e *engine) dispatch(d *dispatcher, start func(*item), complete func(*item)) {
	for {
		if e.lim.acquire(e.stop) != nil {
			break
		}
		it, ok := d.take()
		if !ok {
			e.lim.release()
			return
		}
		if e.stop.Err() != nil {
			e.lim.release()
			it.drop = true
			complete(it)
			break
		}
		start(it)
	}
	for _, it := range d.drain() {
		it.drop = true
		complete(it)
	}
}
