package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
)

// MaxFailures is the --max-failures threshold: a count, or a percentage of the
// records processed. A negative count means no limit.
type MaxFailures struct {
	Count   int
	Percent float64
	IsPct   bool
}

func ParseMaxFailures(s string) (MaxFailures, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "inf" || s == "-1" {
		return MaxFailures{Count: -1}, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || v > 100 {
			return MaxFailures{}, fmt.Errorf("--max-failures %q: want N, P%% or inf", s)
		}
		return MaxFailures{Percent: v, IsPct: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return MaxFailures{}, fmt.Errorf("--max-failures %q: want N, P%% or inf", s)
	}
	return MaxFailures{Count: n}, nil
}

// Exceeded reports whether failed records out of total break the threshold.
func (m MaxFailures) Exceeded(failed, total int) bool {
	if m.IsPct {
		return total > 0 && float64(failed)*100 > m.Percent*float64(total)
	}
	return m.Count >= 0 && failed > m.Count
}

// failureGroups counts this stage's failed records by stage, kind and HTTP
// status, keeping the first message of each as its example, so the closing
// summary says why records failed rather than only how many.
type failureGroups struct {
	mu    sync.Mutex
	m     map[failureKey]*failureGroup
	order []failureKey
}

type failureKey struct {
	stage, kind string
	status      int
}

type failureGroup struct {
	n       int
	example string
}

// CountFailure counts a record that failed in this stage (Fail does it for
// the records it fails; a tool that keeps an earlier failure calls it).
func (r *Run) CountFailure(e *record.Error) {
	r.Failed.Add(1)
	g := &r.failures
	g.mu.Lock()
	defer g.mu.Unlock()
	k := failureKey{e.Stage, e.Kind, e.Status}
	if g.m == nil {
		g.m = map[failureKey]*failureGroup{}
	}
	f := g.m[k]
	if f == nil {
		f = &failureGroup{example: e.Message}
		g.m[k] = f
		g.order = append(g.order, k)
	}
	f.n++
}

// FailuresByKind is this stage's tally of failed records (CountFailure) by
// error kind, for a tool's own report (infer-batch's --stats).
func (r *Run) FailuresByKind() map[string]int64 {
	g := &r.failures
	g.mu.Lock()
	defer g.mu.Unlock()
	m := map[string]int64{}
	for k, f := range g.m {
		m[k.kind] += int64(f.n)
	}
	return m
}

// logFailures prints one line per kind of failure, most frequent first, and
// how to continue.
func (r *Run) logFailures() {
	g := &r.failures
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.order) == 0 {
		return
	}
	keys := append([]failureKey(nil), g.order...)
	slices.SortStableFunc(keys, func(a, b failureKey) int { return g.m[b].n - g.m[a].n })
	for i, k := range keys {
		if i == 10 {
			r.Log.Warn(fmt.Sprintf("… and %d more kinds of failure", len(keys)-10))
			break
		}
		f := g.m[k]
		what := k.kind
		if k.status != 0 {
			what += " " + strconv.Itoa(k.status)
		}
		ex := redact.Excerpt(f.example, 200)
		r.Log.Warn(fmt.Sprintf("%s: %s — %d records", what, ex, f.n), "event", "failed_records", "stage", k.stage, "kind", k.kind, "status", k.status, "records", f.n, "example", ex)
	}
	if r.defines("resume") {
		r.Log.Warn("to continue: the same command with --resume sends the transient failures again; --resume --retry-errors sends every failed record again", "event", "continue")
	}
}
