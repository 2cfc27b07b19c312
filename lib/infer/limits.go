package infer

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// limiter bounds requests in flight. With adaptive on, it cuts the limit by a
// quarter on a 429 (at most once per cooldown, so one burst of 429s is one
// cut) and adds one slot after a limit's worth of successes without 429s,
// up to max: additive increase, multiplicative decrease, like TCP and
// inspect_ai's adaptive connections. Waiters are served first come, first
// served so no record starves.
type limiter struct {
	mu       sync.Mutex
	limit    int
	max      int
	min      int
	inflight int
	adaptive bool
	cooldown time.Duration
	lastCut  time.Time
	streak   int
	lowest   int
	waiters  []chan struct{}
}

func newLimiter(max int, adaptive bool) *limiter {
	return &limiter{limit: max, max: max, min: 1, adaptive: adaptive, cooldown: 2 * time.Second, lowest: max}
}

func (l *limiter) acquire(ctx context.Context) error {
	l.mu.Lock()
	if l.inflight < l.limit && len(l.waiters) == 0 {
		l.inflight++
		l.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		for i, x := range l.waiters {
			if x == w {
				l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
				l.mu.Unlock()
				return ctx.Err()
			}
		}
		l.mu.Unlock()
		// Granted while we were giving up: hand the slot on.
		l.release()
		return ctx.Err()
	}
}

func (l *limiter) release() {
	l.mu.Lock()
	l.inflight--
	l.grant()
	l.mu.Unlock()
}

func (l *limiter) grant() {
	for l.inflight < l.limit && len(l.waiters) > 0 {
		w := l.waiters[0]
		l.waiters = l.waiters[1:]
		l.inflight++
		close(w)
	}
}

// throttled reports a 429.
func (l *limiter) throttled(now time.Time) {
	if !l.adaptive {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.streak = 0
	if now.Sub(l.lastCut) < l.cooldown {
		return
	}
	l.lastCut = now
	l.limit = max(l.min, l.limit*3/4)
	l.lowest = min(l.lowest, l.limit)
}

// succeeded reports a completed request.
func (l *limiter) succeeded(now time.Time) {
	if !l.adaptive {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit >= l.max || now.Sub(l.lastCut) < l.cooldown {
		return
	}
	l.streak++
	if l.streak >= l.limit {
		l.streak = 0
		l.limit++
		l.grant()
	}
}

func (l *limiter) state() (inflight, limit, lowest int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inflight, l.limit, l.lowest
}

// bucket is a token bucket for --rpm (cost 1) and --tpm (cost = estimated
// tokens). It holds one second's worth. Each request reserves its cost at
// once and waits until the balance before it covers the cost; a request
// bigger than the bucket (a 100k-token prompt) goes when the bucket is full
// and overdraws it, and the requests after it wait until the debt is paid, so
// the average rate holds exactly.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // per second
	cap    float64
	tokens float64
	last   time.Time
}

func newBucket(perMinute float64) *bucket {
	if perMinute <= 0 {
		return nil
	}
	r := perMinute / 60
	c := max(1, r)
	return &bucket{rate: r, cap: c, tokens: c, last: time.Now()}
}

// take reserves cost and waits until the reservation may go.
func (b *bucket) take(ctx context.Context, cost float64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	now := time.Now()
	b.tokens = min(b.cap, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	before := b.tokens
	b.tokens -= cost
	b.mu.Unlock()
	need := min(cost, b.cap)
	if before >= need {
		return nil
	}
	return sleep(ctx, time.Duration((need-before)/b.rate*float64(time.Second)))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before retry number n (1-based): the server's
// Retry-After when it sent one (capped), else full jitter over an
// exponentially growing ceiling (AWS's "full jitter": spreads a herd of
// retries evenly).
func backoff(n int, retryAfter time.Duration, o *Options) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, o.RetryAfterMax)
	}
	ceil := o.RetryBase << min(n-1, 30)
	if ceil <= 0 || ceil > o.RetryMaxWait {
		ceil = o.RetryMaxWait
	}
	if ceil <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}
