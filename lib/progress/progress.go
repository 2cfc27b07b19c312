package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Mode is the --progress value.
type Mode string

const (
	Auto   Mode = "auto"
	Always Mode = "always"
	Never  Mode = "never"
)

func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Auto, Always, Never:
		return Mode(s), nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("--progress %q: want auto, always or never", s)
}

// IsTerminal reports whether f is an interactive terminal.
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb"
}

// LogEvery is how often a run that is not on a terminal logs its progress.
const LogEvery = 30 * time.Second

// Bar renders status lines until Stop.
type Bar struct {
	w      io.Writer
	tty    bool
	status func() string
	log    func(string)
	stop   chan struct{}
	wg     sync.WaitGroup
}

// Start begins drawing when the mode and the terminal say so; it returns nil
// (a no-op Bar) otherwise. Off a terminal each status goes to log.
func Start(mode Mode, stderr io.Writer, status func() string, log func(string)) *Bar {
	f, _ := stderr.(*os.File)
	tty := IsTerminal(f)
	if mode == Never || (mode == Auto && !tty) {
		return nil
	}
	b := &Bar{w: stderr, tty: tty, status: status, log: log, stop: make(chan struct{})}
	every := 250 * time.Millisecond
	if !tty {
		every = LogEvery
	}
	b.wg.Add(1)
	go b.loop(every)
	return b
}

func (b *Bar) loop(every time.Duration) {
	defer b.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			if b.tty {
				fmt.Fprint(b.w, "\r\x1b[K")
			}
			return
		case <-t.C:
			if b.tty {
				fmt.Fprintf(b.w, "\r\x1b[K%s", Fit(b.status(), width(b.w)))
			} else {
				b.log(b.status())
			}
		}
	}
}

// Stop clears the line. Safe on a nil Bar.
func (b *Bar) Stop() {
	if b == nil {
		return
	}
	close(b.stop)
	b.wg.Wait()
}

// width is the terminal's width in columns: COLUMNS when set, else the tty's
// size, else 80.
func width(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return 80
}

// Fit shortens a status line to fewer than cols columns (a line as wide as
// the terminal would wrap, and \r would then redraw only its last row),
// cutting at the last ", " that fits so no field is shown half.
func Fit(s string, cols int) string {
	limit := cols - 1
	if limit < 1 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)[:limit-1]
	cut := string(r)
	if i := strings.LastIndex(cut, ", "); i > 0 {
		cut = cut[:i]
	}
	return cut + "…"
}
