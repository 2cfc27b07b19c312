package programs

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ifkit/ifkit/lib/app"
	"github.com/ifkit/ifkit/lib/official"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/urfave/cli/v2"
)

func fetchOfficialCommand() *app.Command {
	return &app.Command{
		Name:  "fetch-official",
		Usage: "download the benchmarks' official files at pinned commits into DIR and verify each (the one command that goes to the network by itself)",
		Description: `Downloads each benchmark's official release files from its authors' GitHub
repository at a pinned commit (https://raw.githubusercontent.com/OWNER/REPO/COMMIT/PATH)
into DIR/<bench>/<path in the repository>, and checks each against ifkit's table of
pins: its size and sha256 where known, else its git blob id. A file that fails is
deleted and reported; a file already in place (fetched before, or put there by hand)
is checked the same way and not downloaded again. Without network, or with --check,
it says for each missing file what to download and where to put it. Writes one
record per file (id, bench, repo, commit, path, file, url, status: verified,
downloaded, missing or corrupt); exits 4 when a file is missing or corrupt.
LongIns's full data is not in its repository and cannot be pinned: it says so.
See docs/official.md.

Example:
  gen-context fetch-official --official official/
  gen-context fetch-official --official official/ --check --bench longins`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "official", Value: "official", Usage: "the folder of official files `DIR`: DIR/<bench>/<path in the repository>"},
			&cli.StringSliceFlag{Name: "bench", Usage: "only these benchmarks `B,B,...` (default: " + strings.Join(official.Benches(), ",") + ")"},
			&cli.BoolFlag{Name: "check", Usage: "only check the files already in DIR; download nothing"},
			&cli.StringFlag{Name: "mirror", Value: official.GitHubRaw, Usage: "download from `URL`/OWNER/REPO/COMMIT/PATH instead (a mirror laid out like raw.githubusercontent.com)"},
		},
		Action: fetchOfficial,
	}
}

func fetchOfficial(r *app.Run) error {
	benches := r.StringSlice("bench")
	for _, b := range benches {
		if !slices.Contains(official.Benches(), b) {
			return app.Usagef("--bench %s: want one of %s", b, strings.Join(official.Benches(), ", "))
		}
	}
	dir := r.String("official")
	// A server that accepts the connection but never answers must not hang
	// the run; a large file may still take as long as it takes.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ResponseHeaderTimeout = time.Minute
	f := &official.Fetcher{Dir: dir, Base: r.String("mirror"), Client: &http.Client{Transport: transport}}
	if r.Bool("check") {
		f.Base = ""
	}
	counts := map[official.Status]int{}
	for _, p := range official.Pins() {
		if len(benches) > 0 && !slices.Contains(benches, p.Bench) || !r.Shard.Keep(p.ID()) {
			continue
		}
		res := f.Fetch(r.Ctx, p)
		if err := r.Ctx.Err(); err != nil {
			return err
		}
		counts[res.Status]++
		rec := record.New(p.ID())
		fields := []any{"bench", p.Bench, "repo", p.Repo, "commit", p.Commit, "path", p.Path, "file", res.File, "url", res.URL, "status", res.Status}
		if st, err := os.Stat(res.File); err == nil {
			fields = append(fields, "size", st.Size())
		}
		if res.Deleted != "" {
			fields = append(fields, "deleted", res.Deleted)
			r.Log.Warn(p.ID() + ": " + res.Deleted)
		}
		for i := 0; i < len(fields); i += 2 {
			if err := rec.Set(fields[i].(string), fields[i+1]); err != nil {
				return err
			}
		}
		if res.Err != nil {
			r.Log.Warn(fmt.Sprintf("%s: %s: %v", p.ID(), res.Status, res.Err))
			r.Fail(rec, &record.Error{Kind: string(res.Status), Message: res.Err.Error()})
		}
		if err := r.Write(rec); err != nil {
			return err
		}
	}
	for _, b := range official.Benches() {
		if note := official.Advice(dir, b); note != "" && (len(benches) == 0 || slices.Contains(benches, b)) {
			r.Log.Warn(b + ": not pinned: " + note)
		}
	}
	for _, s := range []official.Status{official.Verified, official.Downloaded, official.Missing, official.Corrupt} {
		r.AddSummary(string(s), counts[s])
	}
	return nil
}
