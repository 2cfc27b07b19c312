package infer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

// collect is a write function that keeps the ids written, in order, and
// signals each write.
type collect struct {
	mu      sync.Mutex
	ids     []string
	wrote   chan string
	failAt  string // this id's write fails
	failErr error
}

func newCollect() *collect { return &collect{wrote: make(chan string, 1000)} }

func (c *collect) write(it *item) error {
	rec := it.rec
	if rec.ID() == c.failAt {
		return c.failErr
	}
	c.mu.Lock()
	c.ids = append(c.ids, rec.ID())
	c.mu.Unlock()
	c.wrote <- rec.ID()
	return nil
}

func (c *collect) written() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.ids)
}

func testItem(i int) *item {
	rec, err := record.Parse(fmt.Appendf(nil, `{"id":"r%03d"}`, i))
	if err != nil {
		panic(err)
	}
	return &item{rec: rec}
}

// canceled is a context that has ended: admit with it succeeds only when
// the window has room.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// Ordered: records complete in any order (some dropped) and come out in
// input order; unordered: in the order they complete.
func TestRecordWriterOrder(t *testing.T) {
	const n = 200
	for _, unordered := range []bool{false, true} {
		t.Run(fmt.Sprintf("unordered=%v", unordered), func(t *testing.T) {
			c := newCollect()
			w := newRecordWriter(16, 4, unordered, c.write, func(err error) { t.Errorf("write failed: %v", err) })
			var mu sync.Mutex
			var completed []string // in completion order, dropped ones left out
			var wg sync.WaitGroup
			for i := range n {
				it := testItem(i)
				it.drop = i%7 == 3
				if err := w.admit(context.Background(), it); err != nil {
					t.Fatal(err)
				}
				// Each record completes on its own goroutine, in whatever
				// order the scheduler gives, and some after a later one.
				wg.Go(func() {
					if rand.IntN(2) == 0 {
						for range rand.IntN(50) {
							runtime.Gosched()
						}
					}
					mu.Lock()
					if !it.drop {
						completed = append(completed, it.rec.ID())
					}
					w.complete(it)
					mu.Unlock()
				})
			}
			wg.Wait()
			if err := w.close(); err != nil {
				t.Fatal(err)
			}
			want := completed
			if !unordered {
				want = nil
				for i := range n {
					if i%7 != 3 {
						want = append(want, fmt.Sprintf("r%03d", i))
					}
				}
			}
			if got := c.written(); !slices.Equal(got, want) {
				t.Fatalf("written %v\nwant %v", got, want)
			}
		})
	}
}

// The window bounds the records admitted and not yet written: ordered,
// window+1 (the writer holds the oldest while it waits for it), unordered,
// window. A record that never completes stops admission there, and its
// completion lets exactly the next one in.
func TestRecordWriterWindowBound(t *testing.T) {
	const window = 5
	for _, unordered := range []bool{false, true} {
		t.Run(fmt.Sprintf("unordered=%v", unordered), func(t *testing.T) {
			c := newCollect()
			w := newRecordWriter(window, 2, unordered, c.write, func(err error) { t.Errorf("write failed: %v", err) })
			bound := window + 1
			if unordered {
				bound = window
			}
			var its []*item
			for i := range bound {
				it := testItem(i)
				if err := w.admit(context.Background(), it); err != nil {
					t.Fatal(err)
				}
				its = append(its, it)
			}
			if !unordered {
				// The writer takes the oldest out of the queue (and then
				// waits for it); admitting one more must wait for that.
				waitFor(t, "the writer to take the first record", func() bool { return len(w.queue) == window })
			}
			extra := testItem(bound)
			if err := w.admit(canceled(), extra); err == nil {
				t.Fatalf("record %d admitted past a full window of %d", bound, window)
			}
			// Completing a later record frees nothing in order: the oldest
			// still holds the window.
			if !unordered {
				w.complete(its[1])
				if err := w.admit(canceled(), extra); err == nil {
					t.Fatal("a later record's completion let a record past the window")
				}
			}
			w.complete(its[0])
			if id := <-c.wrote; id != "r000" {
				t.Fatalf("wrote %s first", id)
			}
			if err := w.admit(context.Background(), extra); err != nil {
				t.Fatal(err)
			}
			for i, it := range append(its[1:], extra) {
				if unordered || i > 0 { // ordered, its[1] completed above
					w.complete(it)
				}
			}
			if err := w.close(); err != nil {
				t.Fatal(err)
			}
			if got := len(c.written()); got != bound+1 {
				t.Fatalf("%d records written, want %d", got, bound+1)
			}
		})
	}
}

// A failed write is reported once, and nothing is written after it.
func TestRecordWriterFailedWrite(t *testing.T) {
	boom := errors.New("disk full")
	c := newCollect()
	c.failAt, c.failErr = "r002", boom
	var failures []error
	w := newRecordWriter(8, 2, false, c.write, func(err error) { failures = append(failures, err) })
	for i := range 6 {
		it := testItem(i)
		if err := w.admit(context.Background(), it); err != nil {
			t.Fatal(err)
		}
		w.complete(it)
	}
	if err := w.close(); !errors.Is(err, boom) {
		t.Fatalf("close: %v, want %v", err, boom)
	}
	if len(failures) != 1 || !slices.Equal(c.written(), []string{"r000", "r001"}) {
		t.Fatalf("failures %v, written %v", failures, c.written())
	}
}
