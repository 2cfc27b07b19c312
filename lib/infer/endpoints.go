package infer

import (
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
type balancer struct {
	mu         sync.Mutex
	eps        []*endpoint
	next       int
	pauseAfter int
	pauseFor   time.Duration
}

const maxPause = 2 * time.Minute

func newBalancer(bases []string, pauseAfter int, pauseFor time.Duration) *balancer {
	b := &balancer{pauseAfter: max(1, pauseAfter), pauseFor: pauseFor}
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
		return 0
	}
	ep.failures++
	ep.fails++
	if ep.fails >= b.pauseAfter || wasProbe {
		ep.pauses++
		d := b.pauseFor << min(ep.pauses-1, 10)
		if d > maxPause || d <= 0 {
			d = maxPause
		}
		ep.pausedUntil = now.Add(d)
		ep.paused++
		ep.fails = 0
		return d
	}
	return 0
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
