package explore

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strconv"
)

// The explorer's script and style, inline in the page: nothing is fetched.
// The script builds every element from the data with textContent, so no
// string of a record is ever parsed as HTML.
var (
	//go:embed explorer.js
	script string
	//go:embed explorer.css
	style string
)

// index is what the page reads when it opens: every item's entry and the
// run diffs. The details, and the contexts, are read when an item opens.
type index struct {
	Items    []entry   `json:"items"`
	Flips    []flipSet `json:"flips"`
	Decimals int       `json:"decimals"`
}

// skeleton is the explorer's markup; the script fills it.
const skeleton = `<div id="x-app" hidden>
<div class="x-tabs"><button type="button" id="x-tab-items" class="on">Items</button> <button type="button" id="x-tab-diff">Run diff</button></div>
<p id="x-from" class="x-from" hidden><span id="x-from-text"></span> <button type="button" id="x-from-clear">show every item</button></p>
<form id="x-filters" class="x-filters">
<label>benchmark <select id="x-f-bench"></select></label>
<label id="x-l-model">model <select id="x-f-model"></select></label>
<label id="x-l-run">run <select id="x-f-run"></select></label>
<label>task <select id="x-f-task"></select></label>
<span id="x-f-keys"></span>
<label>score from <input id="x-f-min" type="number" step="any"></label>
<label>to <input id="x-f-max" type="number" step="any"></label>
<label><input type="checkbox" id="x-f-failed"> failed</label>
<label><input type="checkbox" id="x-f-cut"> cut by the server</label>
<label><input type="checkbox" id="x-f-unfinished"> reasoning unfinished</label>
<label>error <select id="x-f-error"></select></label>
<label>sort <select id="x-f-sort"><option value="">as read</option><option value="asc">score, lowest first</option><option value="desc">score, highest first</option></select></label>
</form>
<div id="x-items">
<p id="x-count" aria-live="polite"></p>
<table id="x-list" class="x-list"><thead><tr><th>item</th><th>model</th><th>task</th><th>where</th><th>score</th><th>flags</th></tr></thead><tbody></tbody></table>
<button type="button" id="x-more" hidden>show more</button>
</div>
<div id="x-diff" hidden>
<p><label>compare <select id="x-d-pair"></select></label></p>
<p id="x-d-count" aria-live="polite"></p>
<table id="x-d-list" class="x-list"><thead><tr><th>item</th><th>task</th><th>where</th><th id="x-d-a">A</th><th id="x-d-b">B</th></tr></thead><tbody></tbody></table>
<button type="button" id="x-d-more" hidden>show more</button>
</div>
<div id="x-item" class="x-item" hidden></div>
</div>
`

// writeExplorer writes the explorer's section: its notes, markup, data and
// script. Every data script holds base64 (no "<" can end it) or JSON with
// "<", ">" and "&" escaped.
func (x *Explorer) writeExplorer(b *bytes.Buffer) error {
	idx := index{Items: x.entries, Flips: flips(x.entries), Decimals: x.opt.Decimals}
	raw, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	b.WriteString("<section id=\"explorer\" class=\"x\">\n<h2>The items behind the figures</h2>\n<style>" + style + "</style>\n")
	fmt.Fprintf(b, "<p>%d items. Click a point, bar or table cell of a figure to list the items behind it; open an item to read its prompt, the reply, the gold answer and how it was scored. With two models or runs in the input, the run diff lists the items whose scores differ.</p>\n", len(x.entries))
	for _, n := range x.notes() {
		fmt.Fprintf(b, "<p class=\"warn x-note\">%s</p>\n", html.EscapeString(n))
	}
	b.WriteString("<noscript><p class=\"warn\">The explorer needs JavaScript; the figures and tables above do not.</p></noscript>\n")
	b.WriteString(skeleton)
	writeBlob(b, "x-index", gzipped(raw))
	for i, blk := range x.blocks {
		writeBlob(b, "x-b"+strconv.Itoa(i), blk)
	}
	hashes := make([]string, 0, len(x.contexts))
	for h, st := range x.contexts {
		if st.gz != nil {
			hashes = append(hashes, h)
		}
	}
	slices.Sort(hashes) // the same page for the same records
	for _, h := range hashes {
		writeBlob(b, "x-c-"+h, x.contexts[h].gz)
	}
	b.WriteString("<script>" + script + "</script>\n</section>\n")
	return nil
}

// writeBlob writes gzip data as base64 in a script element the browser does
// not run (its type is not a script's); the explorer decompresses it with
// DecompressionStream, which every current browser has.
func writeBlob(b *bytes.Buffer, id string, gz []byte) {
	fmt.Fprintf(b, "<script type=\"application/x-ifkit-gzip-base64\" id=\"%s\">", id)
	b.WriteString(base64.StdEncoding.EncodeToString(gz))
	b.WriteString("</script>\n")
}
