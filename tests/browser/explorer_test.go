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

// The report as a reader uses it: click a point of a figure and get the
// items behind it (as many as the records say), open one and read its
// reply and verdict, switch to the run diff and see the items whose scores
// differ between the two models, both replies side by side.
func TestExplorer(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	strong, weak := twoModels(t, dir)
	html := filepath.Join(dir, "report.html")
	prog(t, dir, "aggregate-ifs", "--progress", "never", "--html", html, strong, weak)
	recs := append(records(t, strong), records(t, weak)...)

	b.open(t, html)
	if state := eval[string](t, b, `document.body.dataset.explorer`); state != "ready" {
		_, console, exceptions := b.seen()
		t.Fatalf("explorer %s; console %q; exceptions %q", state, console, exceptions)
	}
	if n := eval[int](t, b, `+document.getElementById('x-count').dataset.n`); n != len(recs) {
		t.Errorf("the explorer lists %d items, want every record (%d)", n, len(recs))
	}

	// A point of the LongIns F1-by-length figure: the exams of that model,
	// mode and length.
	var sels []selection
	if err := json.Unmarshal([]byte(eval[string](t, b, `document.getElementById('x-sels').textContent`)), &sels); err != nil {
		t.Fatal(err)
	}
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
	if n := eval[int](t, b, `+document.getElementById('x-count').dataset.n`); n != want || want == 0 {
		t.Errorf("the point lists %d items, want the %d LongIns exams of sim-weak at 512 tokens", n, want)
	}
	if n := sels[pick-1].N; n != want {
		t.Errorf("the point's row counts n = %d, the records %d", n, want)
	}
	// LIFBench's points, bars and table cells each list items too: a table
	// cell of the ARS-by-task figure.
	b.do(t, "click a table cell", chromedp.Click(chromedp.CSS(`#lifbench-ars-task td.sel`)))
	if n := eval[int](t, b, `+document.getElementById('x-count').dataset.n`); n == 0 {
		t.Error("a cell of the LIFBench ARS-by-task table lists no item")
	}

	// Open the first LongIns exam behind the point again, and find its reply
	// and verdict as the record has them.
	b.do(t, "click the point again", chromedp.Click(chromedp.CSS(fmt.Sprintf(`circle.hit[data-sel="%d"]`, pick))))
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
	// Its exam is the context: excerpts around the wrong answers, and the
	// whole of it one click away.
	b.do(t, "show the context", chromedp.Click(chromedp.CSS(`#x-item button.x-whole`)), chromedp.WaitVisible(chromedp.CSS(`#x-item pre.x-whole-text`)))
	whole := eval[string](t, b, `document.querySelector('#x-item pre.x-whole-text').textContent`)
	if data := str(rec, "context", "data"); whole != data {
		t.Errorf("the whole context shown (%d bytes) is not the exam's (%d bytes)", len(whole), len(data))
	}

	// The run diff: the items whose scores differ between the two models.
	flips := 0
	score := map[string]float64{}
	for _, r := range recs {
		if r["model"] == "sim-strong" {
			score[str(r, "bench")+"\x00"+str(r, "id")], _ = field(r, "judgement", "score").(float64)
		}
	}
	for _, r := range recs {
		s, _ := field(r, "judgement", "score").(float64)
		if r["model"] == "sim-weak" && s != score[str(r, "bench")+"\x00"+str(r, "id")] {
			flips++
		}
	}
	b.do(t, "show every item", chromedp.Click(chromedp.CSS(`#x-from-clear`)))
	b.do(t, "open the run diff", chromedp.Click(chromedp.CSS(`#x-tab-diff`)), chromedp.WaitVisible(chromedp.CSS(`#x-diff`)))
	if n := eval[int](t, b, `+document.getElementById('x-d-count').dataset.n`); n != flips || flips == 0 {
		t.Errorf("the run diff lists %d flips, want %d (items whose scores differ)", n, flips)
	}
	b.do(t, "open a flip", chromedp.Click(chromedp.CSS(`#x-d-list tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`#x-item .x-side`)))
	cols := eval[[]string](t, b, `Array.from(document.querySelectorAll('#x-item .x-col > h4')).map(h => h.textContent)`)
	if len(cols) != 2 || !strings.HasPrefix(cols[0], "sim-strong") || !strings.HasPrefix(cols[1], "sim-weak") {
		t.Errorf("the flip shows %q, want sim-strong's and sim-weak's answers side by side", cols)
	}
	if n := count(t, b, `#x-item .x-col pre.x-reply`); n != 2 {
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
