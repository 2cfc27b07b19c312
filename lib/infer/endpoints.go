package infer

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/ifkit/ifkit/lib/oai"
)

// endpoint is one base URL and its health.
type endpoint struct {
	base, label string
	inflight    int
	fails       int // consecutive failures
	pauses      int // consecutive pauses, for the doubling
	pausedUntil time.Time
	probing     bool
	// Counters for the stats file.
	requests, failures, paused int64
}

// balancer picks the endpoint with the fewest requests in flight. An endpoint
// that fails PauseAfter times in a row (network errors, timeouts, 5xx) is
// paused; when the pause ends it gets one probe request, and a failed probe
// pauses it twice as long (up to maxPause). When every endpoint is paused the
// least bad one is used anyway, so records fail through their own retries
// instead of waiting forever.
//
// Once an endpoint has answered (the start-up check), every endpoint paused
// at once is an outage (a vLLM restart, a node reboot): hold keeps records
// waiting for a probe to succeed, up to the outage wait, instead of letting
// them burn their retries, and the log gets one line when it starts, one a
// minute while it lasts and one when it ends.
type balancer struct {
	mu         sync.Mutex
	eps        []*endpoint
	next       int
	pauseAfter int
	pauseFor   time.Duration
	log        *slog.Logger

	hasAnswered bool
	outage      time.Time     // when the outage began; zero when there is none
	noted       time.Time     // the last outage line
	gaveUp      bool          // the outage outlasted the wait: records fail through their retries
	wake        chan struct{} // closed when an endpoint answers again
}

const maxPause = 2 * time.Minute

func newBalancer(bases []string, pauseAfter int, pauseFor time.Duration, log *slog.Logger) *balancer {
	b := &balancer{pauseAfter: max(1, pauseAfter), pauseFor: pauseFor, log: log, wake: make(chan struct{})}
	for _, u := range bases {
		b.eps = append(b.eps, &endpoint{base: u, label: oai.Label(u)})
	}
	return b
}

// pick chooses an endpoint for one attempt, avoiding the one that just
// failed this record when there is a choice.
func (b *balancer) pick(avoid *endpoint, now time.Time) *endpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.eps)
	healthy := 0
	for _, ep := range b.eps {
		if ep.pausedUntil.IsZero() {
			healthy++
		}
	}
	var best, fallback *endpoint
	for i := 0; i < n; i++ {
		ep := b.eps[(b.next+i)%n]
		if !ep.pausedUntil.IsZero() {
			if now.After(ep.pausedUntil) && !ep.probing {
				// Its pause is over: this attempt is the probe.
				ep.probing = true
				best = ep
				break
			}
			if fallback == nil || ep.pausedUntil.Before(fallback.pausedUntil) {
				fallback = ep
			}
			continue
		}
		if ep == avoid && healthy > 1 {
			continue
		}
		if best == nil || ep.inflight < best.inflight {
			best = ep
		}
	}
	if best == nil {
		best = fallback
	}
	b.next = (b.next + 1) % n
	best.inflight++
	best.requests++
	return best
}

// done reports an attempt's outcome. healthy is false for failures that say
// the endpoint itself is in trouble (network, timeout, 5xx). It returns how
// long the endpoint is now paused, 0 when it is not.
func (b *balancer) done(ep *endpoint, healthy bool, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	ep.inflight--
	wasProbe := ep.probing
	ep.probing = false
	if healthy {
		ep.fails, ep.pauses, ep.pausedUntil = 0, 0, time.Time{}
		if !b.outage.IsZero() {
			b.log.Info("endpoint answers again: outage over", "endpoint", ep.label, "lasted", now.Sub(b.outage).Round(time.Second).String())
			b.outage, b.gaveUp = time.Time{}, false
		}
		b.wakeHolders()
		return 0
	}
	ep.failures++
	ep.fails++
	if now.Before(ep.pausedUntil) && !wasProbe {
		// Already paused: the requests that were in flight when it went down
		// fail one after another; only a failed probe makes the pause longer.
		return 0
	}
	if ep.fails >= b.pauseAfter || wasProbe {
		ep.pauses++
		d := b.pauseFor << min(ep.pauses-1, 10)
		if d > maxPause || d <= 0 {
			d = maxPause
		}
		ep.pausedUntil = now.Add(d)
		ep.paused++
		ep.fails = 0
		b.wakeHolders() // they wait for this probe: the next one is due at pausedUntil
		return d
	}
	return 0
}

// wakeHolders makes the records held in an outage look again. Called locked.
func (b *balancer) wakeHolders() {
	close(b.wake)
	b.wake = make(chan struct{})
}

type endpointStats struct {
	URL      string `json:"url"`
	Requests int64  `json:"requests"`
	Failures int64  `json:"failures"`
	Paused   int64  `json:"paused"`
}

func (b *balancer) stats() []endpointStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []endpointStats
	for _, ep := range b.eps {
		out = append(out, endpointStats{ep.label, ep.requests, ep.failures, ep.paused})
	}
	return out
}

// pausedNow lists the endpoints currently paused, for the progress line.
func (b *balancer) pausedNow(now time.Time) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, ep := range b.eps {
		if now.Before(ep.pausedUntil) {
			n++
		}
	}
	return n
}

// answered records that an endpoint has answered: from now on an outage of
// every endpoint is held.
func (b *balancer) answered() {
	b.mu.Lock()
	b.hasAnswered = true
	b.mu.Unlock()
}

// inOutage reports whether every endpoint is paused after one had answered.
func (b *balancer) inOutage() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.outage.IsZero() && !b.gaveUp
}

// hold waits while every endpoint is paused and none is due for its probe,
// for at most wait since the outage began.
func (b *balancer) hold(ctx context.Context, wait time.Duration) error {
	for {
		b.mu.Lock()
		d := b.holdFor(time.Now(), wait)
		wake := b.wake
		b.mu.Unlock()
		if d == 0 {
			return nil
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// holdFor is how long a record should wait now: 0 to go on. Called locked.
func (b *balancer) holdFor(now time.Time, wait time.Duration) time.Duration {
	if !b.hasAnswered || wait <= 0 {
		return 0
	}
	next := time.Time{}
	for _, ep := range b.eps {
		if ep.pausedUntil.IsZero() || (!now.Before(ep.pausedUntil) && !ep.probing) {
			return 0 // a healthy endpoint, or one due for its probe
		}
		if !ep.probing && (next.IsZero() || ep.pausedUntil.Before(next)) {
			next = ep.pausedUntil
		}
	}
	if b.outage.IsZero() {
		b.outage, b.noted, b.gaveUp = now, now, false
		b.log.Warn("every endpoint is failing: records wait for one to answer again", "outage_wait", wait.String())
	}
	if b.gaveUp {
		return 0
	}
	if now.Sub(b.outage) >= wait {
		b.gaveUp = true
		b.log.Warn("outage longer than --outage-wait: records now fail through their retries", "lasted", now.Sub(b.outage).Round(time.Second).String())
		return 0
	}
	if now.Sub(b.noted) >= time.Minute {
		b.noted = now
		b.log.Warn("still no endpoint answering", "for", now.Sub(b.outage).Round(time.Second).String())
	}
	// Wake at the next probe, or when the wait runs out if that is sooner: a
	// short --outage-wait must not be stretched to the pause before a probe.
	d := min(time.Minute, b.outage.Add(wait).Sub(now))
	if !next.IsZero() {
		d = min(d, next.Sub(now))
	}
	return max(d, 10*time.Millisecond)
}
