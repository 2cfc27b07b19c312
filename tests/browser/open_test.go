package browser

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// longTasks records every task of the page that held its main thread over
// 50 ms, from the first script on (the browser's Long Tasks API): the
// longest is how long the page was frozen.
const longTasks = `window.__long = [];
new PerformanceObserver(function (l) { l.getEntries().forEach(function (e) { window.__long.push(e.duration); }); }).observe({type: 'longtask', buffered: true});`

// waitFor is a script's promise that resolves once cond() holds, checked
// at every frame the browser draws.
const waitFor = `function waitFor(cond) { return new Promise(function (ok) { (function check() { if (cond()) ok(); else requestAnimationFrame(check); })(); }); }`

// TestOpenTime measures a report page as bench/explorer/run.sh asks
// (EXPLORER_PAGE=FILE): how long until the explorer is ready, the page's
// JavaScript heap, the time to list the items behind a figure's first
// mark, to open the first of them and to show the run diff, and the
// longest task that held the page. It prints them and asserts nothing of
// the times (they go to bench/README.md); it fails only if a step does not
// happen.
func TestOpenTime(t *testing.T) {
	path := os.Getenv("EXPLORER_PAGE")
	if path == "" {
		t.Skip("EXPLORER_PAGE=FILE measures one page (bench/explorer/run.sh)")
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	eval[int](t, b, `1`) // the tab exists
	b.do(t, "observe long tasks", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: longTasks})
		return err
	}))
	start := time.Now()
	b.open(t, path)
	wall := time.Since(start)
	if state := eval[string](t, b, `document.body.dataset.explorer`); state != "ready" {
		t.Fatalf("explorer %s", state)
	}
	ready := eval[float64](t, b, `+document.body.dataset.readyMs`)
	heap := eval[float64](t, b, `performance.memory ? performance.memory.usedJSHeapSize : -1`)
	items := eval[int](t, b, `+document.getElementById('x-count').dataset.n`)
	click := eval[float64](t, b, `(function () {
		var el = document.querySelector('[data-sel]'), t0 = performance.now();
		el.dispatchEvent(new MouseEvent('click', {bubbles: true}));
		return performance.now() - t0;
	})()`)
	listed := eval[int](t, b, `+document.getElementById('x-count').dataset.n`)
	open := get(t, b, "open an item", chromedp.Evaluate[float64](waitFor+`; (function () {
		var row = document.querySelector('#x-list tbody tr'), t0 = performance.now();
		row.click();
		return waitFor(function () { var h = document.querySelector('#x-item h3'); return h && h.textContent === row.cells[0].textContent; })
			.then(function () { return performance.now() - t0; });
	})()`, chromedp.EvalAwaitPromise))
	diff := eval[float64](t, b, `(function () {
		var t0 = performance.now();
		document.getElementById('x-tab-diff').click();
		return performance.now() - t0;
	})()`)
	flips := eval[int](t, b, `+(document.getElementById('x-d-count').dataset.n || 0)`)
	longest := eval[float64](t, b, `Math.max.apply(null, [0].concat(window.__long))`)
	_, _, exceptions := b.seen()
	if len(exceptions) > 0 {
		t.Errorf("the page threw: %q", exceptions)
	}
	fmt.Printf("explorer page: %.1f MB, %d items; ready %.0f ms after navigation (%.1f s until the test saw it); JS heap %.0f MB; "+
		"a figure's mark lists %d items in %.0f ms; an item opens in %.0f ms; the run diff (%d flips) in %.0f ms; longest task %.0f ms\n",
		float64(st.Size())/1e6, items, ready, wall.Seconds(), heap/1e6, listed, click, open, flips, diff, longest)
}
