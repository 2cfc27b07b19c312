package cache

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/bytesize"
	"github.com/urfave/cli/v2"
)

// EnvDir is the variable that turns the cache on without the flag.
const EnvDir = "IFKIT_CACHE"

const category = "Cache (docs/cache.md):"

// Flags are the cache's flags, one definition for infer-batch and judge.
func Flags() []cli.Flag {
	modes := make([]string, len(Modes))
	for i, m := range Modes {
		modes[i] = string(m)
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "cache", EnvVars: []string{EnvDir}, Category: category,
			Usage: "keep every reply in the cache folder `DIR` and answer a request from it when the same model was asked the same request with the same settings, by any run of infer-batch or judge (off unless asked)"},
		&cli.StringFlag{Name: "cache-mode", Value: string(ReadWrite), Category: category,
			Usage: "`MODE`: readwrite (answer from the cache, store the rest), read (answer from it, store nothing), write (ask every request, store the replies it lacks), refresh (ask every request, replace what it holds)"},
		&cli.StringFlag{Name: "cache-salt", Category: category,
			Usage: "`TEXT` added to every key, to draw new samples on purpose (epochs, variance studies): replies cached under another salt are not reused"},
		&cli.BoolFlag{Name: "cache-by-endpoint", Category: category,
			Usage: "the base URLs are part of the key: for endpoints that serve different models under the same model name"},
		&cli.StringFlag{Name: "cache-max-size", Category: category,
			Usage: "evict the oldest entries when the cache holds more than `SIZE` (bytes, or with KiB, MiB, GiB, TiB; default: no limit); the run that writes evicts"},
		&cli.StringFlag{Name: "cache-max-age", Category: category,
			Usage: "neither use nor keep entries older than `AGE` (a duration: 720h, or days: 30d; default: no limit)"},
		&cli.BoolFlag{Name: "cache-explain", Category: category,
			Usage: "for each miss, say which part of the key (model, a setting, the prompt, the salt) differs from the nearest entry: the first ten are logged, all are counted in the summary and --stats"},
	}
}

// OptionsFromFlags reads Flags.
func OptionsFromFlags(r *app.Run) (Options, error) {
	o := Options{Dir: strings.TrimSpace(r.String("cache")), Mode: Mode(r.String("cache-mode")), Salt: r.String("cache-salt"),
		ByEndpoint: r.Bool("cache-by-endpoint"), Explain: r.Bool("cache-explain")}
	if !slices.Contains(Modes, o.Mode) {
		return o, app.Usagef("--cache-mode %q: want readwrite, read, write or refresh", o.Mode)
	}
	if s := r.String("cache-max-size"); s != "" {
		n, err := bytesize.Parse(s)
		if err != nil {
			return o, app.Usagef("--cache-max-size %q: %v", s, err)
		}
		o.MaxSize = n
	}
	if s := r.String("cache-max-age"); s != "" {
		d, err := parseAge(s)
		if err != nil {
			return o, app.Usagef("--cache-max-age %q: %v", s, err)
		}
		o.MaxAge = d
	}
	if o.Dir == "" {
		for _, f := range Flags()[1:] { // all but --cache itself
			if n := f.Names()[0]; r.IsSet(n) {
				return o, app.Usagef("--%s needs --cache DIR (or %s)", n, EnvDir)
			}
		}
	}
	return o, nil
}

// parseAge reads a duration, also in whole days ("30d").
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want a duration (720h) or whole days (30d)")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration (720h) or whole days (30d)")
	}
	return d, nil
}
