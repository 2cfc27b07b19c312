// Package browser checks the HTML report in Debian's chromium, headless,
// driven through the DevTools protocol by chromedp: the figures draw, the
// item explorer lists the items behind a figure's point and opens one, the
// run diff shows the flips, and no string of a record runs as code.
package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/ifkit/ifkit/lib/testbin"
	"github.com/ifkit/ifkit/lib/testprograms"
)

func TestMain(m *testing.M) { testprograms.Main(m) }

// chromium finds Debian's chromium (installed by .ci/run) or another build
// of it on PATH.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not found: install Debian's chromium package (.ci/run does) to check the report in a browser")
	return ""
}

// browser is one headless chromium for a test, with a fresh profile and
// nothing that would reach the network; what the page logs to its console,
// the exceptions it throws and every dialog it opens are recorded (a dialog
// is closed, so the page goes on).
type browser struct {
	ctx context.Context
	mu  sync.Mutex
	// dialogs, console and exceptions seen so far.
	dialogs, console, exceptions []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.WindowSize(1200, 1600),
		// performance.memory in exact bytes, not Chrome's coarse buckets (TestOpenTime)
		chromedp.Flag("enable-precise-memory-info", true),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	b := &browser{ctx: ctx}
	dialogs := make(chan string, 64)
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			b.dialogs = append(b.dialogs, e.Message)
			select {
			case dialogs <- e.Message:
			default:
			}
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			b.console = append(b.console, string(e.Type)+": "+strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			b.exceptions = append(b.exceptions, text)
		}
	})
	if err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	// A dialog blocks the page: close each one (the listener must not).
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-dialogs:
				chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}
		}
	}()
	return b
}

// seen returns what the page did so far: dialogs, console lines, exceptions.
func (b *browser) seen() (dialogs, console, exceptions []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.dialogs), slices.Clone(b.console), slices.Clone(b.exceptions)
}

// deadline bounds one step, long enough for a loaded machine: the tests
// wait for the page's own events (an element, a data attribute), never for
// a time.
const deadline = 3 * time.Minute

func (b *browser) fail(t *testing.T, what string, err error) {
	t.Helper()
	_, console, exceptions := b.seen()
	t.Fatalf("%s: %v\nconsole: %q\nexceptions: %q", what, err, console, exceptions)
}

// do runs steps that return nothing.
func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, deadline)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.fail(t, what, err)
	}
}

// get runs one action and returns its value.
func get[T any](t *testing.T, b *browser, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, deadline)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.fail(t, what, err)
	}
	return v
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	return get(t, b, expr, chromedp.Evaluate[T](expr))
}

// open loads a page from a file and waits until its explorer is ready (or
// failed, which the caller checks).
func (b *browser) open(t *testing.T, path string) {
	t.Helper()
	b.do(t, "open "+path, chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS(`body[data-explorer]`)))
}

// prog runs one of ifkit's programs and fails the test unless it exits 0.
func prog(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(testbin.Dir, args[0]), args[1:]...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// count is how many elements match a CSS selector.
func count(t *testing.T, b *browser, sel string) int {
	t.Helper()
	return eval[int](t, b, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}
