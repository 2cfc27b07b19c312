package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ifkit/ifkit/lib/progress"
	"github.com/ifkit/ifkit/lib/record"
	"github.com/ifkit/ifkit/lib/redact"
	"github.com/ifkit/ifkit/lib/stream"
	"github.com/urfave/cli/v2"
)

// Version is stamped at build time with -ldflags "-X .../lib/app.Version=...".
var Version = "dev"

// Exit codes (docs/cli.md, "Exit codes").
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitBadInput    = 3
	ExitTooManyFail = 4
)

// Tool describes one program.
type Tool struct {
	Name        string
	Usage       string // one line
	ArgsUsage   string // e.g. "[FILE...]"
	Description string // a paragraph and an example pipeline
	Flags       []cli.Flag
	// Commands, when set, are subcommands (gen-context BENCH); each gets the
	// common flags after its name.
	Commands []*Command
	// Kind says which common flags apply.
	Kind Kind
	// TextOutput marks a tool that writes reports: auto compression leaves
	// them plain unless the -o extension asks otherwise.
	TextOutput bool
	// OutputFlags are the tool's flags that choose only how results are
	// written (formats, extra files): they do not change its run id.
	OutputFlags []string
	// Paid, in a tool that can --resume (its records can carry answers that
	// cost a model call), says whether a record of its output does: such an
	// output of an earlier run is never replaced without --resume or --force
	// (claimOutput): infer-batch's answers, judge's verdicts of a judge
	// model (a score a program computed cost nothing). Unset, every record of
	// such a tool counts as paid.
	Paid func(*record.Record) bool
	// Answerer, in a tool that reads the answers of several models (or
	// judges) to one item, says whose answer a record is: the duplicate
	// check then refuses an id read twice only for one answerer (a text
	// such as `model "m"`, "" for none). Unset, an id is read once.
	Answerer func(*record.Record) string
	// Action runs the tool. It is not used when Commands are set.
	Action func(*Run) error
}

// Command is a subcommand with its own flags.
type Command struct {
	Name        string
	Usage       string
	Description string
	Flags       []cli.Flag
	Action      func(*Run) error
}

// Kind is the I/O shape of a program.
type Kind int

const (
	Filter    Kind = iota // reads records, writes records
	Generator             // writes records, reads none (or only --official/--corpus files)
	Server                // neither (llm-sim)
)

// Env is what a run sees of the process, injectable for tests.
type Env struct {
	Stdin  io.Reader
	Stdout *os.File
	Stderr io.Writer
	Getenv func(string) string
}

// Main runs the tool with the real process environment and exits.
func Main(t Tool) {
	os.Exit(RunTool(t, os.Args, Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}))
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Usagef makes an error that exits 2.
func Usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errInterrupted is returned when a signal stopped the run.
type errInterrupted struct{ sig os.Signal }

func (e errInterrupted) Error() string { return "interrupted by " + e.sig.String() }

func commonFlags(k Kind) []cli.Flag {
	if k == Server {
		return []cli.Flag{
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "stderr log format: text or json", Category: "Common:"},
		}
	}
	fs := []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (via FILE.partial, renamed when complete) instead of stdout; DIR/ (a trailing slash or an existing folder) writes a folder: a partitioned run (see --partition-by), or with --shard this shard's part file", Category: "Common:"},
		&cli.BoolFlag{Name: "force", Usage: "with -o, in a tool that can --resume: start over even though FILE.partial holds an earlier run's answers, moving them aside to FILE.partial.bak-N", Category: "Common:"},
		&cli.StringFlag{Name: "compress", Value: "auto", Usage: "output compression: auto (by -o extension; without -o the first input's when stdout is a file, plain on a pipe or terminal), zstd, gzip, none", Category: "Common:"},
		&cli.StringFlag{Name: "shard", Usage: "keep records whose hash(id) mod N is I: `I/N`, or auto from the array task of Slurm, Kubernetes, PBS, LSF, Grid Engine, AWS Batch or Cloud Batch", Category: "Common:"},
		&cli.IntFlag{Name: "shards", Usage: "with --shard auto: the number of shards `N` when the array is not all N shards (a re-run of some tasks); or set SHARDS", Category: "Common:"},
		&cli.StringFlag{Name: "progress", Value: "auto", Usage: "progress line on stderr: auto (on a terminal), always, never", Category: "Common:"},
		&cli.StringFlag{Name: "max-failures", Value: "0", Usage: "exit 4 when more records than `N` (or P%, or inf) failed in this stage; the output is complete either way", Category: "Common:"},
		&cli.StringFlag{Name: "log-format", Value: "text", Usage: "stderr log format: text or json", Category: "Common:"},
	}
	if k == Filter {
		fs = append(fs, &cli.BoolFlag{Name: "allow-partial", Usage: "read a folder of parts even when shards are missing or unfinished (records say so in \"partial_shards\")", Category: "Common:"})
		fs = append(fs, &cli.BoolFlag{Name: "skip-invalid", Usage: "skip (and count) input lines that are not valid records instead of exiting 3", Category: "Common:"})
	}
	return fs
}

// toolFlags are the common flags of t: --partition-by for the tools that
// write records.
func toolFlags(t Tool) []cli.Flag {
	fs := commonFlags(t.Kind)
	if t.Kind != Server && !t.TextOutput {
		fs = append(fs, &cli.StringFlag{Name: "partition-by", Usage: "with -o DIR/: write Hive-style folders `FIELD[,FIELD…]`=value/part-NNNNN.jsonl.zst (top-level string fields or group.KEY) and DIR/_manifest.json", Category: "Common:"})
	}
	return fs
}

const exitCodesHelp = `Exit codes: 0 ok; 1 runtime failure; 2 usage; 3 bad input (file:line: reason);
4 finished, but more records failed than --max-failures allows; 128+N killed by signal N
(an interrupted -o FILE run leaves FILE.partial). Flags go before file names.`

// RunTool parses args and runs the tool, returning the exit code. Deferred
// flushes always run before it returns.
func RunTool(t Tool, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	code := ExitOK
	var runErr error
	// Logs, errors and help go to stderr through the redaction point; the
	// progress bar gets the terminal itself (it prints counts only).
	stderr := redact.Writer(env.Stderr)
	a := &cli.App{
		Name:            t.Name,
		Usage:           t.Usage,
		ArgsUsage:       t.ArgsUsage,
		Description:     strings.TrimSpace(t.Description) + "\n\n" + exitCodesHelp,
		Version:         Version,
		Reader:          env.Stdin,
		Writer:          env.Stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// urfave would os.Exit inside Run and skip our flushes; we map errors ourselves.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return Usagef("%v (see --help)", err)
		},
	}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintf(c.App.Writer, "%s version %s\n", c.App.Name, c.App.Version) }
	if len(t.Commands) > 0 {
		for _, sc := range t.Commands {
			sc := sc
			a.Commands = append(a.Commands, &cli.Command{
				Name:        sc.Name,
				Usage:       sc.Usage,
				Description: sc.Description,
				ArgsUsage:   " ",
				Flags:       append(append([]cli.Flag{}, sc.Flags...), toolFlags(t)...),
				OnUsageError: func(_ *cli.Context, err error, _ bool) error {
					return Usagef("%v (see %s %s --help)", err, t.Name, sc.Name)
				},
				Action: func(c *cli.Context) error {
					code, runErr = execute(c, t, sc.Name, sc.Action, env)
					return nil
				},
			})
		}
		a.Action = func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return Usagef("unknown command %q (want one of: %s)", c.Args().First(), commandNames(t))
			}
			return Usagef("missing command (want one of: %s; see --help)", commandNames(t))
		}
	} else {
		a.Flags = append(append([]cli.Flag{}, t.Flags...), toolFlags(t)...)
		a.Action = func(c *cli.Context) error {
			code, runErr = execute(c, t, "", t.Action, env)
			return nil
		}
	}
	if err := a.Run(args); err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
			return ExitUsage
		}
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
		return ExitFailure
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, runErr)
	}
	return code
}

func commandNames(t Tool) string {
	var ns []string
	for _, c := range t.Commands {
		ns = append(ns, c.Name)
	}
	return strings.Join(ns, ", ")
}

// execute builds the Run, calls the action and maps the outcome to an exit code.
func execute(c *cli.Context, t Tool, sub string, action func(*Run) error, env Env) (int, error) {
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "-") && a != "-" {
			return ExitUsage, Usagef("flag %s after a file name: flags go before file names", a)
		}
	}
	logger, err := newLogger(c.String("log-format"), redact.Writer(env.Stderr), t.Name)
	if err != nil {
		return ExitUsage, err
	}
	r := &Run{Context: c, Tool: t.Name, Command: sub, Log: logger, env: env, started: time.Now(), kind: t.Kind, text: t.TextOutput}
	r.outputFlags, r.paid, r.answerer = t.OutputFlags, t.Paid, t.Answerer
	defer func() {
		if r.unlock != nil {
			r.unlock()
		}
	}()
	if err := r.setup(); err != nil {
		r.closeInputs()
		if _, ok := err.(*usageError); ok {
			return ExitUsage, err
		}
		return exitFor(err), err
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.Ctx = ctx
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer close(sigs) // after Stop (defers run last first): ends the watcher below
	defer signal.Stop(sigs)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		r.signal.Store(&s)
		logger.Warn("signal received: stopping; a second one aborts", "signal", s.String())
		cancel()
		if s2, ok := <-sigs; ok {
			fmt.Fprintf(env.Stderr, "%s: second %s: aborting\n", t.Name, s2)
			os.Exit(128 + int(s2.(syscall.Signal)))
		}
	}()

	var bar *progress.Bar
	if t.Kind != Server {
		bar = progress.Start(drawMode(r.progressMode, env.Stdout), env.Stderr, r.status, func(s string) { logger.Info("progress", "status", s) })
	}
	err = action(r)
	bar.Stop()
	// A signal is how a server is meant to stop, so it ends one normally (exit 0).
	if s := r.signal.Load(); s != nil && t.Kind != Server && (err == nil || errors.Is(err, context.Canceled)) {
		err = errInterrupted{*s}
	}
	return r.finish(err)
}

func exitFor(err error) int {
	var ue *usageError
	var le *stream.LineError
	var ie errInterrupted
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &le), missingInput(err):
		return ExitBadInput
	case errors.As(err, &ie):
		return 128 + int(ie.sig.(syscall.Signal))
	}
	return ExitFailure
}

// missingInput tells a file that could not be opened for reading (a record
// input, an official dataset, a vocabulary, a task file) from other runtime
// failures: it is bad input (exit 3), as docs/cli.md promises. Outputs are
// checked before anything runs and fail as usage errors.
func missingInput(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "open" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission))
}

func newLogger(format string, w io.Writer, name string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)).With("tool", name), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)).With("tool", name), nil
	}
	return nil, Usagef("--log-format %q: want text or json", format)
}
