package infer

import "context"

// recordWriter writes a run's records from one goroutine, either in input
// order through a reorder window or, unordered, as they complete. Either
// way at most window records are admitted and not yet written (window+1
// ordered: the writer holds the oldest while it waits for it), so memory is
// bounded by the window and not by the input, and one slow request holds
// back the others only by that much.
//
// The reader admits each record in input order (admit blocks while the
// window is full); whoever finishes a record completes it, once. close
// waits for the writer after every admitted record was completed.
type recordWriter struct {
	queue    chan *item    // ordered: admitted records in input order
	finished chan *item    // unordered: completed records
	slots    chan struct{} // unordered: one per admitted record not yet written
	write    func(*item) error
	failed   func(error) // called once, on the first failed write
	err      error       // the first failed write; later records are not written
	done     chan struct{}
}

// newRecordWriter starts the writer goroutine. finishing is how many records
// may complete at once (-j): the unordered writer's hand-over buffer.
func newRecordWriter(window, finishing int, unordered bool, write func(*item) error, failed func(error)) *recordWriter {
	w := &recordWriter{write: write, failed: failed, done: make(chan struct{})}
	if unordered {
		w.finished = make(chan *item, finishing)
		w.slots = make(chan struct{}, window)
		go w.writeUnordered()
	} else {
		w.queue = make(chan *item, window)
		go w.writeOrdered()
	}
	return w
}

// admit takes a place in the window for it, the next record in input order.
// It blocks while the window is full, and returns stop's error when stop
// ends first. A full window is never entered, even when stop has ended.
func (w *recordWriter) admit(stop context.Context, it *item) error {
	if w.slots != nil {
		select {
		case w.slots <- struct{}{}:
			return nil
		default:
		}
		select {
		case w.slots <- struct{}{}:
			return nil
		case <-stop.Done():
			return stop.Err()
		}
	}
	it.done = make(chan struct{})
	select {
	case w.queue <- it:
		return nil
	default:
	}
	select {
	case w.queue <- it:
		return nil
	case <-stop.Done():
		return stop.Err()
	}
}

// complete hands an admitted record to the writer: it is written (unless
// it.drop) in its turn.
func (w *recordWriter) complete(it *item) {
	if w.finished != nil {
		w.finished <- it
	} else {
		close(it.done)
	}
}

// close waits until every admitted record is written and returns the first
// failed write. Call it once, after each admitted record was completed.
func (w *recordWriter) close() error {
	if w.finished != nil {
		close(w.finished)
	} else {
		close(w.queue)
	}
	<-w.done
	return w.err
}

func (w *recordWriter) writeOrdered() {
	defer close(w.done)
	for it := range w.queue {
		<-it.done
		w.put(it)
	}
}

func (w *recordWriter) writeUnordered() {
	defer close(w.done)
	for it := range w.finished {
		w.put(it)
		<-w.slots
	}
}

func (w *recordWriter) put(it *item) {
	if it.drop || w.err != nil {
		return
	}
	if err := w.write(it); err != nil {
		w.err = err
		w.failed(err)
	}
}
