// Package tools_test pins the command-line contract of docs/cli.md (help,
// version, exit codes, compression, sharding, pass-through) on the programs
// (this test binary, lib/testprograms) with testscript: each
// tools/testdata/script/*.txtar is one scenario.
package tools_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/ifkit/ifkit/lib/testprograms"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { testprograms.Main(m) }

// update rewrites the golden files of the scripts (the second argument of a
// failing cmp, such as each program's cases transcript) with what the
// programs print now: `go test ./tools -update`, then review the diff.
var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/script/*.txtar")

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", testbin.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"gen-lines":   cmdGenLines,
			"big-record":  cmdBigRecord,
			"truncate":    cmdTruncate,
			"cut-frames":  cmdCutFrames,
			"to-crlf":     cmdToCRLF,
			"sort-lines":  cmdSortLines,
			"is-prefix":   cmdIsPrefix,
			"status":      cmdStatus,
			"add-field":   cmdAddField,
			"cases":       cmdCases,
			"start-sim":   cmdStartSim,
			"sim-running": cmdSimRunning,
		},
	})
}

func atoi(ts *testscript.TestScript, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		ts.Fatalf("%q is not an integer", s)
	}
	return n
}

// gen-lines N FILE [FIRST] writes N records with ids rFIRST..r(FIRST+N-1)
// (FIRST defaults to 0) and fields a stage must carry unchanged: a big
// integer, number spellings, nesting, escapes, unicode.
func cmdGenLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: gen-lines N FILE [FIRST]")
	}
	first := 0
	if len(args) == 3 {
		first = atoi(ts, args[2])
	}
	words := strings.Fields("alpha beta gamma delta the of and a to in is that it for on are as with they at be this from or one had by word but not what all were when your can said there use an each which how their if will up other about out many then them these so some her would make like into time has look two more write see number way could people than first water been call who its now find long down day did get come made may part")
	rng := rand.New(rand.NewPCG(uint64(len(args[1])), 7))
	var b bytes.Buffer
	for i := range atoi(ts, args[0]) {
		var text strings.Builder
		for range 10 + rng.IntN(150) {
			text.WriteString(words[rng.IntN(len(words))])
			text.WriteByte(' ')
		}
		fmt.Fprintf(&b, `{"id":"r%d","user":{"big":12345678901234567890123,"f":1.50,"e":1E+3,"s":"<a&b> \u00e9 日本 \"q\""},"n":%d,"text":%q}`+"\n", first+i, rng.Uint32(), text.String())
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// big-record MB FILE writes a small record, one record of MB megabytes, and another small one.
func cmdBigRecord(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: big-record MB FILE")
	}
	n := atoi(ts, args[0]) << 20
	var b bytes.Buffer
	b.WriteString(`{"id":"small-1"}` + "\n" + `{"id":"big","text":"`)
	for b.Len() < n {
		b.WriteString("all work and no play makes a long context ")
	}
	b.WriteString(`"}` + "\n" + `{"id":"small-2"}` + "\n")
	if err := os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// truncate FILE -N drops the last N bytes of FILE, as a killed writer or an
// interrupted copy leaves it.
func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || !strings.HasPrefix(args[1], "-") {
		ts.Fatalf("usage: truncate FILE -N")
	}
	path := ts.MkAbs(args[0])
	st, err := os.Stat(path)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	size := st.Size() + int64(atoi(ts, args[1]))
	if size < 0 {
		ts.Fatalf("%s has only %d bytes", args[0], st.Size())
	}
	if err := os.Truncate(path, size); err != nil {
		ts.Fatalf("%v", err)
	}
}

// cut-frames FILE N keeps the first N zstd frames of FILE: a stream cut at a
// frame boundary, which decompresses cleanly (zstd -t passes) with records
// missing, as a copy that stopped between two chunks leaves it.
func cmdCutFrames(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cut-frames FILE N")
	}
	path := ts.MkAbs(args[0])
	b, err := os.ReadFile(path)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	off, frames := 0, 0
	for ; frames < atoi(ts, args[1]); frames++ {
		if off+5 > len(b) || binary.LittleEndian.Uint32(b[off:]) != 0xFD2FB528 {
			ts.Fatalf("%s has only %d zstd frames", args[0], frames)
		}
		fhd := b[off+4]
		single := fhd&0x20 != 0
		off += 5
		if !single {
			off++ // window descriptor
		}
		off += []int{0, 1, 2, 4}[fhd&3] // dictionary id
		fcs := []int{0, 2, 4, 8}[fhd>>6]
		if fcs == 0 && single {
			fcs = 1
		}
		off += fcs
		for last := false; !last; {
			h := int(b[off]) | int(b[off+1])<<8 | int(b[off+2])<<16
			size := h >> 3
			last = h&1 != 0
			if (h>>1)&3 == 1 {
				size = 1 // RLE: one byte repeated
			}
			off += 3 + size
		}
		if fhd&4 != 0 {
			off += 4 // content checksum
		}
	}
	if off == len(b) {
		ts.Fatalf("%s has only %d zstd frames: nothing cut", args[0], frames)
	}
	if err := os.WriteFile(path, b[:off], 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// to-crlf IN OUT rewrites IN with CRLF line ends and blank lines (empty, CRLF
// only, spaces) between the records.
func cmdToCRLF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: to-crlf IN OUT")
	}
	data := ts.ReadFile(args[0])
	blanks := []string{"\n", "\r\n", "   \r\n", "\t\n"}
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		b.WriteString(blanks[i%len(blanks)])
		b.WriteString(line + "\r\n")
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// sort-lines OUT IN... writes the lines of all INs, sorted, to OUT.
func cmdSortLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: sort-lines OUT IN...")
	}
	var lines []string
	for _, in := range args[1:] {
		if data := ts.ReadFile(in); data != "" {
			lines = append(lines, strings.Split(strings.TrimSuffix(data, "\n"), "\n")...)
		}
	}
	sort.Strings(lines)
	out := strings.Join(lines, "\n")
	if len(lines) > 0 {
		out += "\n"
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(out), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// is-prefix GOT ALL [MIN] checks that GOT holds the first whole lines of ALL
// (at least MIN of them), as output of a truncated input must.
func cmdIsPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: is-prefix GOT ALL [MIN]")
	}
	got, all := ts.ReadFile(args[0]), ts.ReadFile(args[1])
	n := strings.Count(got, "\n")
	ok := strings.HasPrefix(all, got) && (got == "" || strings.HasSuffix(got, "\n"))
	if len(args) == 3 && n < atoi(ts, args[2]) {
		ok = false
	}
	if ok == neg {
		ts.Fatalf("%s (%d lines) is a prefix of whole lines of %s: %v", args[0], n, args[1], ok)
	}
	ts.Logf("%s: %d lines", args[0], n)
}

// add-field IN KEY JSON OUT appends "KEY":JSON to every record of IN, as a
// user's own metadata (or a stage's output, such as a response) would be.
func cmdAddField(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: add-field IN KEY JSON OUT")
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(ts.ReadFile(args[0]), "\n"), "\n") {
		if !strings.HasSuffix(line, "}") {
			ts.Fatalf("%s: not a one-line JSON object: %.40s", args[0], line)
		}
		fmt.Fprintf(&b, "%s,%q:%s}\n", strings.TrimSuffix(line, "}"), args[1], args[2])
	}
	if err := os.WriteFile(ts.MkAbs(args[3]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// status CODE PROG ARGS... runs PROG like exec and checks its exact exit code
// (exec can only tell zero from non-zero); stdout and stderr are kept for the
// stdout/stderr commands that follow.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROG [ARGS...]")
	}
	want := atoi(ts, args[0])
	path, err := lookPath(ts.Getenv("PATH"), args[1])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = scriptEnv(ts)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(ts, cmd.Run())
	ts.Stdout().Write(stable(ts, stdout.Bytes()))
	ts.Stderr().Write(stable(ts, stderr.Bytes()))
	if code != want {
		ts.Fatalf("%s exited %d, want %d", args[1], code, want)
	}
}

func exitCode(ts *testscript.TestScript, err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		ts.Fatalf("%v", err)
	}
	return 0
}

// volatile matches what differs between two runs of the same command: log
// times, durations, the script's work folder.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`time=\S+`), "time=TIME"},
	{regexp.MustCompile(`"time":"[^"]*"`), `"time":"TIME"`},
	{regexp.MustCompile(`seconds=[0-9.]+`), "seconds=S"},
	{regexp.MustCompile(`"seconds":("[0-9.]+"|[0-9.e+-]+)`), `"seconds":S`},
	{regexp.MustCompile(`"(latency_ms|ttft_ms)":[0-9.e+-]+`), `"$1":MS`},
	{regexp.MustCompile(`\b((?:req|out_tok)_per_s|(?:latency|ttft)_p[0-9]+_ms)=[0-9.]+`), "$1=N"},
	// --stats: the start, the wall time, the percentiles and the rates
	// (counts, tokens and finish reasons stay).
	{regexp.MustCompile(`"started":"[^"]*"`), `"started":"TIME"`},
	{regexp.MustCompile(`"wall_s":[0-9.e+-]+`), `"wall_s":S`},
	{regexp.MustCompile(`"(latency_ms|ttft_ms)":\{"n":([0-9]+)[^}]*\}`), `"$1":{"n":$2,MS}`},
	{regexp.MustCompile(`"((?:requests|output_tokens|total_tokens)_per_s)":[0-9.e+-]+`), `"$1":N`},
}

// stable replaces the volatile parts of a program's output so that golden
// files compare equal across runs.
func stable(ts *testscript.TestScript, b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(ts.Getenv("WORK")), []byte("$WORK"))
	if url := ts.Getenv("OPENAI_BASE_URL"); url != "" {
		b = bytes.ReplaceAll(b, []byte(url), []byte("$OPENAI_BASE_URL"))
		// the server's root, where the tokenize APIs are
		b = bytes.ReplaceAll(b, []byte(strings.TrimSuffix(url, "/v1")), []byte("$ROOT"))
	}
	for _, v := range volatile {
		b = v.re.ReplaceAll(b, []byte(v.with))
	}
	return b
}

// cases FILE runs the command on each line of FILE (the program's case
// table: `#` comments, words split at blanks, 'single quotes' keep blanks,
// $VAR is the script's variable, `<IN` reads stdin from IN) and prints a transcript on stdout: each command,
// its exit code, its stdout and its stderr, with volatile parts replaced.
// `cmp stdout GOLDEN` then pins every case; -update rewrites GOLDEN.
func cmdCases(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: cases FILE")
	}
	var out bytes.Buffer
	for n, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(line)
		if err != nil {
			ts.Fatalf("%s:%d: %v", args[0], n+1, err)
		}
		for i, w := range words {
			words[i] = os.Expand(w, ts.Getenv)
		}
		var stdin string
		if last := words[len(words)-1]; strings.HasPrefix(last, "<") {
			stdin, words = last[1:], words[:len(words)-1]
		}
		path, err := lookPath(ts.Getenv("PATH"), words[0])
		if err != nil {
			ts.Fatalf("%s:%d: %v", args[0], n+1, err)
		}
		cmd := exec.Command(path, words[1:]...)
		cmd.Dir, cmd.Env = ts.Getenv("WORK"), scriptEnv(ts)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(ts.ReadFile(stdin))
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := exitCode(ts, cmd.Run())
		fmt.Fprintf(&out, "$ %s\nexit %d\n", line, code)
		for _, s := range []struct {
			name string
			b    []byte
		}{{"stdout", stdout.Bytes()}, {"stderr", stderr.Bytes()}} {
			if len(s.b) == 0 {
				continue
			}
			b := stable(ts, s.b)
			if !bytes.HasSuffix(b, []byte("\n")) {
				b = append(b, "\n[no newline at end]\n"...)
			}
			fmt.Fprintf(&out, "[%s]\n%s", s.name, b)
		}
		out.WriteString("\n")
	}
	ts.Stdout().Write(out.Bytes())
}

// start-sim ARGS... starts llm-sim on 127.0.0.1 (a free port) with ARGS
// and sets OPENAI_BASE_URL to its base URL; it stops when the script ends.
func cmdStartSim(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: start-sim [ARGS...]")
	}
	cmd := exec.Command(filepath.Join(testbin.Dir, "llm-sim"), append([]string{"--addr", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if err := cmd.Start(); err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Defer(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		ts.Fatalf("llm-sim printed %q, not its base URL: %v", line, err)
	}
	ts.Setenv("OPENAI_BASE_URL", strings.TrimSpace(line))
}

// sim-running N waits (up to a minute) until the llm-sim of start-sim is
// generating N requests at once, as its /metrics says: the state a
// following kill should find, however slowly a loaded machine starts the
// programs (a fixed sleep did not wait long enough there).
func cmdSimRunning(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sim-running N")
	}
	want := atoi(ts, args[0])
	url := strings.TrimSuffix(ts.Getenv("OPENAI_BASE_URL"), "/v1") + "/metrics"
	var running int
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(url)
		if err != nil {
			ts.Fatalf("%v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "requests_running "); ok {
				running = atoi(ts, v)
			}
		}
		if running >= want {
			return
		}
	}
	ts.Fatalf("llm-sim runs %d requests after a minute, want %d", running, want)
}

// splitWords splits a case line at blanks; 'single quotes' keep blanks.
func splitWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func lookPath(pathList, name string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on the script's PATH", name)
}

// scriptEnv is the environment a script's exec would give a program: the
// variables testscript sets plus those the scripts set with env.
func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "LANG", "OPENAI_BASE_URL", "SOURCE_DATE_EPOCH",
		"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_PROCID", "SLURM_NTASKS",
		"SHARDS", "JOB_COMPLETION_INDEX", "SGE_TASK_ID", "SGE_TASK_FIRST", "SGE_TASK_LAST", "SGE_TASK_STEPSIZE"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
