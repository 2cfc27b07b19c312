package browser

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

var shotPath = flag.String("screenshot", "", "also write the explorer's screenshot to `FILE` (docs/figures/explorer.png is made this way)")

// selection is one entry of the page's script#x-sels: the metric row behind
// a figure's mark (lib/plot.Selection).
type selection struct {
	Figure int               `json:"figure"`
	Title  string            `json:"title"`
	Bench  string            `json:"bench"`
	Model  string            `json:"model"`
	Metric string            `json:"metric"`
	N      int               `json:"n"`
	Dims   map[string]string `json:"dims"`
}

// The report as a reader uses it: every mark of every figure lists the
// items behind it, a LongIns point as many as its row counts; the filters
// (failed, cut by the server, reasoning unfinished, error kind, score
// range) and the sort find what the records hold; an item shows its reply,
// verdict and whole context; the run diff lists the items whose scores
// differ between the two models, both replies side by side.
func TestExplorer(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	strong, answered := twoModels(t, dir)
	// Some of sim-weak's records as a real run has them: prompts the server
	// cut, replies whose reasoning never ended, calls that timed out.
	weak := rewrite(t, dir, answered, "sim-weak-marked", func(i int, rec map[string]any) {
		switch {
		case i%11 == 2:
			delete(rec, "judgement")
			rec["error"] = map[string]any{"stage": "infer-batch", "kind": "reasoning_unfinished", "message": "the reply stopped while thinking"}
		case i%13 == 3:
			delete(rec, "judgement")
			delete(rec, "response")
			rec["error"] = map[string]any{"stage": "infer-batch", "kind": "timeout", "message": "no reply in 600s"}
		case i%7 == 1:
			rec["response"].(map[string]any)["server_truncated"] = true
		}
	})
	html := filepath.Join(dir, "report.html")
	prog(t, dir, "aggregate-ifs", "--progress", "never", "--html", html, strong, weak)
	recs := append(records(t, strong), records(t, weak)...)

	b.open(t, html)
	if state := eval[string](t, b, `document.body.dataset.explorer`); state != "ready" {
		_, console, exceptions := b.seen()
		t.Fatalf("explorer %s; console %q; exceptions %q", state, console, exceptions)
	}
	listed := func() int { return eval[int](t, b, `+document.getElementById('x-count').dataset.n`) }
	if n := listed(); n != len(recs) {
		t.Errorf("the explorer lists %d items, want every record (%d)", n, len(recs))
	}

	// Every point, bar and cell drawn lists some items.
	var sels []selection
	if err := json.Unmarshal([]byte(eval[string](t, b, `document.getElementById('x-sels').textContent`)), &sels); err != nil {
		t.Fatal(err)
	}
	empty := eval[[]int](t, b, `(function () {
		var out = [], n = JSON.parse(document.getElementById('x-sels').textContent).length;
		for (var i = 1; i <= n; i++) {
			document.querySelector('[data-sel="' + i + '"]').dispatchEvent(new MouseEvent('click', {bubbles: true}));
			if (+document.getElementById('x-count').dataset.n === 0) out.push(i);
		}
		return out;
	})()`)
	if len(sels) < 50 || len(empty) > 0 {
		t.Errorf("%d marks drawn; these list no item: %v", len(sels), empty)
	}

	// A point of the LongIns F1-by-length figure: the exams of that model,
	// mode and length.
	pick := -1
	for i, s := range sels {
		if s.Bench == "longins" && s.Metric == "F1" && s.Model == "sim-weak" && s.Dims["length"] == "512" {
			pick = i + 1
		}
	}
	if pick < 0 {
		t.Fatalf("no selection for LongIns F1 of sim-weak at 512 tokens among %d", len(sels))
	}
	want := 0
	for _, r := range recs {
		if str(r, "bench") == "longins" && str(r, "model") == "sim-weak" && str(r, "group", "length") == "512" {
			want++
		}
	}
	b.do(t, "click the point", chromedp.Click(chromedp.CSS(fmt.Sprintf(`circle.hit[data-sel="%d"]`, pick))),
		chromedp.WaitVisible(chromedp.CSS(`#x-from:not([hidden])`)))
	if n := listed(); n != want || want == 0 {
		t.Errorf("the point lists %d items, want the %d LongIns exams of sim-weak at 512 tokens", n, want)
	}
	if n := sels[pick-1].N; n != want {
		t.Errorf("the point's row counts n = %d, the records %d", n, want)
	}
	// A table cell of LIFBench's ARS-by-task figure lists that task's prompts.
	task := eval[string](t, b, `(function () {
		var td = document.querySelector('#lifbench-ars-task td.sel');
		td.click();
		return JSON.parse(document.getElementById('x-sels').textContent)[+td.dataset.sel - 1].dims.task;
	})()`)
	want = 0
	for _, r := range recs {
		if str(r, "bench") == "lifbench" && str(r, "model") == "sim-strong" && str(r, "task") == task {
			want++
		}
	}
	if n := listed(); n != want || want == 0 {
		t.Errorf("a cell of the LIFBench ARS-by-task table (task %q) lists %d items, want %d", task, n, want)
	}

	// The filters and the sort, from every item.
	b.do(t, "show every item", chromedp.Click(chromedp.CSS(`#x-from-clear`)))
	counts := map[string]int{}
	var lowest = 2.0
	for _, r := range recs {
		kind := str(r, "error", "kind")
		if kind != "" {
			counts["failed"]++
			counts["kind "+kind]++
		}
		if kind == "reasoning_unfinished" {
			counts["unfinished"]++
		}
		if field(r, "response", "server_truncated") == true {
			counts["cut"]++
		}
		if s, ok := field(r, "judgement", "score").(float64); ok {
			if s >= 0.25 && s <= 0.75 {
				counts["range"]++
			}
			lowest = min(lowest, s)
		}
	}
	for _, f := range []struct{ what, set, want string }{
		{"failed", `document.getElementById('x-f-failed').checked = true`, "failed"},
		{"cut by the server", `document.getElementById('x-f-cut').checked = true`, "cut"},
		{"reasoning unfinished", `document.getElementById('x-f-unfinished').checked = true`, "unfinished"},
		{"error kind timeout", `document.getElementById('x-f-error').value = 'timeout'`, "kind timeout"},
		{"score 0.25 to 0.75", `document.getElementById('x-f-min').value = '0.25'; document.getElementById('x-f-max').value = '0.75'`, "range"},
	} {
		n := eval[int](t, b, `(function () {
			document.getElementById('x-filters').reset();
			`+f.set+`;
			document.getElementById('x-filters').dispatchEvent(new Event('change'));
			return +document.getElementById('x-count').dataset.n;
		})()`)
		if n != counts[f.want] || n == 0 {
			t.Errorf("filter %s lists %d items, want %d", f.what, n, counts[f.want])
		}
	}
	first := eval[string](t, b, `(function () {
		document.getElementById('x-filters').reset();
		document.getElementById('x-f-sort').value = 'asc';
		document.getElementById('x-f-failed').checked = false;
		document.getElementById('x-filters').dispatchEvent(new Event('change'));
		var rows = document.querySelectorAll('#x-list tbody tr');
		for (var i = 0; i < rows.length; i++) if (rows[i].cells[4].textContent !== '–') return rows[i].cells[4].textContent;
		return '';
	})()`)
	if want := fmt.Sprintf("%.3f", lowest); first != want {
		t.Errorf("sorted by score, the first scored item shows %s, want the lowest score %s", first, want)
	}

	// Open the first LongIns exam behind the point again, and find its reply
	// and verdict as the record has them.
	b.do(t, "click the point again", chromedp.Click(chromedp.CSS(fmt.Sprintf(`circle.hit[data-sel="%d"]`, pick))))
	b.do(t, "scored items only", chromedp.Evaluate[chromedp.Void](`document.getElementById('x-f-min').value = '0';
		document.getElementById('x-filters').dispatchEvent(new Event('change'))`))
	id := eval[string](t, b, `document.querySelector('#x-list tbody tr td.id').textContent`)
	b.do(t, "open an item", chromedp.Click(chromedp.CSS(`#x-list tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`#x-item h3`)))
	var rec map[string]any
	for _, r := range recs {
		if r["id"] == id && r["model"] == "sim-weak" {
			rec = r
		}
	}
	if rec == nil {
		t.Fatalf("the first item listed, %q, is not a record of sim-weak", id)
	}
	reply := eval[string](t, b, `document.querySelector('#x-item pre.x-reply').textContent`)
	if reply != str(rec, "response", "text") {
		t.Errorf("item %s shows the reply %q, the record has %q", id, reply, str(rec, "response", "text"))
	}
	verdict := eval[string](t, b, `document.querySelector('#x-item .x-verdict').textContent`)
	if v := str(rec, "judgement", "verdict"); v == "" || !strings.Contains(verdict, "verdict "+v) {
		t.Errorf("item %s shows %q, the record's verdict is %q", id, verdict, v)
	}
	if f := eval[string](t, b, `document.querySelector('#x-item .x-findings').textContent`); !strings.Contains(f, "named by the model") {
		t.Errorf("item %s shows no findings of its scoring: %q", id, f)
	}
	// Its exam is the context: excerpts around the wrong answers, and the
	// whole of it one click away.
	b.do(t, "show the context", chromedp.Click(chromedp.CSS(`#x-item button.x-whole`)), chromedp.WaitVisible(chromedp.CSS(`#x-item pre.x-whole-text`)))
	whole := eval[string](t, b, `document.querySelector('#x-item pre.x-whole-text').textContent`)
	if data := str(rec, "context", "data"); whole != data {
		t.Errorf("the whole context shown (%d bytes) is not the exam's (%d bytes)", len(whole), len(data))
	}

	// The run diff: the items whose scores differ between the two models
	// (a failed item differs from a scored one).
	flips := 0
	score := map[string]any{}
	for _, r := range recs {
		if r["model"] == "sim-strong" {
			score[str(r, "bench")+"\x00"+str(r, "id")] = field(r, "judgement", "score")
		}
	}
	for _, r := range recs {
		if r["model"] == "sim-weak" && field(r, "judgement", "score") != score[str(r, "bench")+"\x00"+str(r, "id")] {
			flips++
		}
	}
	b.do(t, "show every item", chromedp.Click(chromedp.CSS(`#x-from-clear`)))
	b.do(t, "open the run diff", chromedp.Click(chromedp.CSS(`#x-tab-diff`)), chromedp.WaitVisible(chromedp.CSS(`#x-diff`)))
	if n := eval[int](t, b, `+document.getElementById('x-d-count').dataset.n`); n != flips || flips == 0 {
		t.Errorf("the run diff lists %d flips, want %d (items whose scores differ)", n, flips)
	}
	// Filtered as the list is: LongIns only.
	b.do(t, "longins only", chromedp.SetValue(chromedp.CSS(`#x-f-bench`), "longins"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('x-f-bench').dispatchEvent(new Event('change', {bubbles: true}))`))
	if n := eval[int](t, b, `+document.getElementById('x-d-count').dataset.n`); n == 0 || n >= flips {
		t.Errorf("the run diff of LongIns lists %d of the %d flips", n, flips)
	}
	b.do(t, "open a flip", chromedp.Click(chromedp.CSS(`#x-d-list tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`#x-item .x-side`)))
	cols := eval[[]string](t, b, `Array.from(document.querySelectorAll('#x-item .x-col > h4')).map(h => h.textContent)`)
	if len(cols) != 2 || !strings.HasPrefix(cols[0], "sim-strong") || !strings.HasPrefix(cols[1], "sim-weak") {
		t.Errorf("the flip shows %q, want sim-strong's and sim-weak's answers side by side", cols)
	}
	if n := count(t, b, `#x-item .x-col pre.x-reply`); n != 2 && !strings.Contains(cols[1], "failed") {
		t.Errorf("the flip shows %d replies, want both", n)
	}

	_, _, exceptions := b.seen()
	if len(exceptions) > 0 {
		t.Errorf("the page threw: %q", exceptions)
	}
	shot := get(t, b, "screenshot", chromedp.CaptureScreenshot())
	checkNotBlank(t, shot)
	if *shotPath != "" {
		if err := os.WriteFile(*shotPath, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkNotBlank fails when a screenshot is nearly all one colour.
func checkNotBlank(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	ink := 0
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 < 235 || g>>8 < 235 || bl>>8 < 235 {
				ink++
			}
		}
	}
	if total := bd.Dx() * bd.Dy() / 4; ink < total/50 {
		t.Errorf("the screenshot is nearly blank: %d of %d sampled pixels are not white", ink, total)
	}
}
