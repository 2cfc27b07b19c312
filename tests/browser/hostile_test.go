package browser

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ifkit/ifkit/lib/testbin"
)

// payloads would run script if a page wrote them as markup: each calls
// alert (a dialog the browser reports) and sets window.__pwned.
var payloads = []string{
	`<script>window.__pwned=1;alert("script")</script>`,
	`</svg><img src=x onerror="window.__pwned=2;alert('svg')">`,
	`"><img src=x onerror=window.__pwned=3;alert('attr')>`,
	`javascript:window.__pwned=4;alert('href')`,
	`</script><script>window.__pwned=5;alert('end')</script>`,
	`'-alert('quote')-'`,
}

// hostile puts a payload in every string field of a judged record a page
// shows: the model, the id, the source, a group key and value, the prompt
// (inside LIFBench's context, between its markers), the reply and its
// reasoning, the tokenizer, the gold, the judge's model and reply, the
// rubric and the detail; fail makes it a failed record, its error kind and
// message payloads too.
func hostile(rec map[string]any, model string, i int, fail bool) {
	p := func(k int) string { return payloads[(i+k)%len(payloads)] }
	rec["model"] = model
	rec["id"] = str(rec, "id") + " " + p(0)
	rec["source"] = p(1)
	if g, ok := rec["group"].(map[string]any); ok {
		g["note "+p(2)] = p(3)
	}
	if req, ok := rec["request"].(map[string]any); ok {
		if msgs, ok := req["messages"].([]any); ok && len(msgs) > 0 {
			m := msgs[len(msgs)-1].(map[string]any)
			text, _ := m["content"].(string)
			if start := str(rec, "gold", "input_start"); start != "" && strings.Contains(text, start) {
				text = strings.Replace(text, start, start+p(4)+"\n", 1)
			}
			m["content"] = p(5) + text
		}
	}
	if resp, ok := rec["response"].(map[string]any); ok {
		resp["text"] = p(0) + str(resp, "text")
		resp["reasoning"] = p(1)
		resp["tokenizer"] = p(2)
	}
	if g, ok := rec["gold"].(map[string]any); ok {
		g["payload"] = p(3)
	}
	if j, ok := rec["judgement"].(map[string]any); ok {
		j["rubric"] = p(4)
		if judge, ok := j["judge"].(map[string]any); ok {
			judge["model"] = p(5)
			judge["reply"] = p(0) + str(judge, "reply")
		}
		d, _ := j["detail"].(map[string]any)
		if d == nil {
			d = map[string]any{}
			j["detail"] = d
		}
		d["payload"] = []any{map[string]any{"text": p(1)}}
		d["prompt"] = p(2) // the judge prompt, named in the provenance table
	}
	if fail {
		delete(rec, "judgement")
		rec["error"] = map[string]any{"stage": "infer-batch", "kind": p(2), "message": p(3)}
	}
}

// Every string of a record, and of the --reference file, is text on the
// page: with payloads in every field, nothing runs (no dialog, no
// window.__pwned, no element made from them, no script but the page's own)
// while the page is read, a figure's items listed, items opened, a context
// shown whole and the run diff opened; and the payloads show as text.
func TestHostileStringsDoNotRun(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	url := testbin.StartSim(t, "--model", "a=0.9", "--model", "b=0.4", "--seed", "5")
	prog(t, dir, "gen-context", "lifbench", "--lengths", "1k", "--limit", "1", "--progress", "never", "-o", "lifbench.jsonl.zst")
	prog(t, dir, "gen-context", "longins", "--lengths", "256", "--modes", "gist", "--progress", "never", "-o", "longins.jsonl.zst")
	prog(t, dir, "gen-context", "eifbench", "--limit", "1", "--progress", "never", "-o", "eifbench.jsonl.zst")
	prog(t, dir, "expand-templates", "--progress", "never", "-o", "requests.jsonl.zst", "lifbench.jsonl.zst", "longins.jsonl.zst", "eifbench.jsonl.zst")
	models := map[string]string{"a": payloads[0] + " model", "b": payloads[1] + " model"}
	var folders []string
	for _, m := range []string{"a", "b"} {
		judged := answer(t, dir, url, m, "--judge-base-url", url, "--judge-model", "a")
		folders = append(folders, rewrite(t, dir, judged, m+"-hostile", func(i int, rec map[string]any) { hostile(rec, models[m], i, i%7 == 3) }))
	}
	ref := filepath.Join(dir, "ref "+payloads[2]+".jsonl")
	row, _ := json.Marshal(map[string]any{"bench": "longins", "model": payloads[3], "metric": "F1", "value": 50, "unit": "percent", "n": 1, "n_failed": 0, "n_truncated": 0,
		"run": payloads[4], "ifkit_version": payloads[5], "created": "2026-01-01T00:00:00Z", "mode": "gist", "length": "256", "length_tokens": 256})
	write(t, ref, string(row)+"\n")
	html := filepath.Join(dir, "report.html")
	prog(t, dir, append([]string{"aggregate-ifs", "--progress", "never", "--html", html, "--reference", ref, "-o", "report.md"}, folders...)...)

	b.open(t, html)
	if state := eval[string](t, b, `document.body.dataset.explorer`); state != "ready" {
		t.Fatalf("explorer %s", state)
	}
	b.do(t, "list a figure's items", chromedp.Click(chromedp.CSS(`circle.hit[data-sel="1"]`)))
	b.do(t, "open an item", chromedp.Click(chromedp.CSS(`#x-list tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`#x-item h3`)))
	if count(t, b, `#x-item button.x-whole`) > 0 {
		b.do(t, "show a context", chromedp.Click(chromedp.CSS(`#x-item button.x-whole`)), chromedp.WaitVisible(chromedp.CSS(`#x-item pre.x-whole-text`)))
	}
	// An EifBench check, with the judge's reply, and a failed item.
	for _, filter := range []string{`eifbench`, `failed`} {
		// (the button shows only while a figure's selection is listed)
		b.do(t, "show every item", chromedp.Evaluate[chromedp.Void](`document.getElementById('x-from-clear').click()`))
		if filter == "failed" {
			b.do(t, "failed only", chromedp.Click(chromedp.CSS(`#x-f-failed`)))
		} else {
			b.do(t, "eifbench only", chromedp.SetValue(chromedp.CSS(`#x-f-bench`), filter),
				chromedp.Evaluate[chromedp.Void](`document.getElementById('x-f-bench').dispatchEvent(new Event('change', {bubbles: true}))`))
		}
		b.do(t, "open "+filter, chromedp.Click(chromedp.CSS(`#x-list tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`#x-item h3`)))
	}
	b.do(t, "the run diff", chromedp.Click(chromedp.CSS(`#x-tab-diff`)), chromedp.WaitVisible(chromedp.CSS(`#x-diff`)))
	if count(t, b, `#x-d-list tbody tr`) > 0 {
		b.do(t, "open a flip", chromedp.Click(chromedp.CSS(`#x-d-list tbody tr`)), chromedp.WaitVisible(chromedp.CSS(`#x-item .x-side`)))
	}

	dialogs, _, exceptions := b.seen()
	if len(dialogs) > 0 {
		t.Errorf("the page opened dialogs: %q", dialogs)
	}
	if v := eval[string](t, b, `String(window.__pwned)`); v != "undefined" {
		t.Errorf("a payload ran: window.__pwned = %s", v)
	}
	if len(exceptions) > 0 {
		t.Errorf("the page threw: %q", exceptions)
	}
	checks := map[string]string{
		"an image":                      `document.querySelectorAll('img, iframe, object, embed').length`,
		"an event handler attribute":    `Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.toLowerCase().startsWith('on'))).length`,
		"a link that leaves the page":   `Array.from(document.querySelectorAll('[href], [src], [xlink\\:href]')).filter(e => !(e.getAttribute('href') || '').startsWith('#')).length`,
		"a script other than its own":   `Array.from(document.scripts).filter(s => !s.type).length - 1`,
		"a script of an unknown type":   `Array.from(document.scripts).filter(s => s.type && s.type !== 'application/json' && s.type !== 'application/x-ifkit-gzip-base64').length`,
		"a payload's element (a title)": `document.querySelectorAll('svg img, svg script, svg foreignObject').length`,
	}
	for what, expr := range checks {
		if n := eval[int](t, b, expr); n != 0 {
			t.Errorf("the page has %s (%d)", what, n)
		}
	}
	text := eval[string](t, b, `document.body.innerText`)
	for _, want := range []string{models["a"], models["b"], payloads[3]} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img", "</svg"} {
		if strings.Contains(string(md), bad) {
			t.Errorf("report.md holds %q raw", bad)
		}
	}
}
