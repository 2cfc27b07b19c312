package bytesize

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// units, largest first; K, M, G and T mean the same as KiB, MiB, GiB, TiB.
var units = []struct {
	suffix string
	n      int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}}

// Parse reads a size: bytes, or a whole number with KiB, MiB, GiB or TiB.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(v), u.n
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	switch {
	case err != nil || n < 0:
		return 0, errors.New("want bytes, or a whole number with KiB, MiB, GiB or TiB")
	case n > math.MaxInt64/mult:
		return 0, errors.New("too large")
	}
	return n * mult, nil
}

// String writes n in the largest unit that divides it ("64 MiB"), else in
// bytes.
func String(n int64) string {
	for _, u := range units[:4] {
		if n >= u.n && n%u.n == 0 {
			return fmt.Sprintf("%d %s", n/u.n, u.suffix)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// Approx writes n to three significant digits in the largest unit it
// reaches ("1.46 GiB"), for summaries.
func Approx(n int64) string {
	for _, u := range units[:4] {
		if n >= u.n {
			return strconv.FormatFloat(float64(n)/float64(u.n), 'f', digits(float64(n)/float64(u.n)), 64) + " " + u.suffix
		}
	}
	return fmt.Sprintf("%d B", n)
}

func digits(x float64) int {
	switch {
	case x >= 100:
		return 0
	case x >= 10:
		return 1
	}
	return 2
}
