package app

import (
	"fmt"
	"strconv"
	"strings"
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
