// The item explorer of ifkit's report page (lib/explore). It reads the
// index when the page opens and an item's block, or a context, when one is
// opened; every element is built with textContent, never from markup.
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var PAGE = 100;

  // node makes an element with text and children; attributes are only the
  // fixed names the script uses (never href, src or an event handler).
  function node(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var k = arguments[i];
      if (k === null || k === undefined) continue;
      parent.appendChild(typeof k === 'string' ? document.createTextNode(k) : k);
    }
    return parent;
  }

  function gunzip(id) {
    var el = $(id);
    if (!el) return Promise.reject(new Error('no data ' + id));
    var bin = atob(el.textContent);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text();
  }

  var X = null;           // the index: items, flips
  var sels = [];          // the rows behind the figures' marks (lib/plot)
  var values = {};        // bench → key → sorted values present
  var blocks = {};        // block number → Promise of its details
  var state = { tab: 'items', from: null, shown: PAGE, dshown: PAGE };
  var dec = 3;

  function fmt(v) {
    if (v === null || v === undefined) return '–';
    return Number(v).toFixed(dec);
  }
  function label(e) { return e.m + (runsOf[e.m] > 1 ? ' (run ' + e.r + ')' : ''); }  // report.RunLabel's form
  var runsOf = {};
  var manyRuns = 0;       // the runs in the input

  function numericSort(a, b) {
    var x = parseFloat(a), y = parseFloat(b);
    if (!isNaN(x) && !isNaN(y) && String(x) === a && String(y) === b) return x - y;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function fillSelect(sel, vals, all) {
    var keep = sel.value;
    sel.textContent = '';
    add(sel, option('', all));
    vals.forEach(function (v) { add(sel, option(v, v)); });
    sel.value = vals.indexOf(keep) >= 0 ? keep : '';
  }
  function option(v, text) { var o = node('option', null, text); o.value = v; return o; }

  function distinct(f) {
    var seen = {}, out = [];
    X.items.forEach(function (e) { var v = f(e); if (v && !seen[v]) { seen[v] = 1; out.push(v); } });
    return out.sort(numericSort);
  }

  // The keys of the items a benchmark's rows can be matched with, and their
  // values: a row's dimension whose value no item has is a total over it
  // ("all", "overall", "average") and selects nothing.
  function buildValues() {
    X.items.forEach(function (e) {
      var vb = values[e.b] || (values[e.b] = {});
      if (e.t) (vb.task || (vb.task = {}))[e.t] = 1;
      for (var k in e.k) {
        var vk = vb[k] || (vb[k] = {});
        e.k[k].forEach(function (v) { vk[v] = 1; });
      }
    });
    for (var b in values) for (var k in values[b]) values[b][k] = Object.keys(values[b][k]).sort(numericSort);
  }

  function keysOf(bench) {
    var vb = values[bench] || {};
    return Object.keys(vb).filter(function (k) { return k !== 'task' && vb[k].length > 1; }).sort();
  }

  function filters() {
    var f = {
      bench: $('x-f-bench').value, model: $('x-f-model').value, run: $('x-f-run').value,
      task: $('x-f-task').value, keys: {}, min: $('x-f-min').value, max: $('x-f-max').value,
      failed: $('x-f-failed').checked, cut: $('x-f-cut').checked, unfinished: $('x-f-unfinished').checked,
      error: $('x-f-error').value, sort: $('x-f-sort').value
    };
    var ks = $('x-f-keys').querySelectorAll('select');
    for (var i = 0; i < ks.length; i++) if (ks[i].value) f.keys[ks[i].dataset.key] = ks[i].value;
    return f;
  }

  // passes reports whether an item is in the filters; with who false the
  // model and run are not checked (the run diff has its own two).
  function passes(e, f, who) {
    if (f.bench && e.b !== f.bench) return false;
    if (who && f.model && e.m !== f.model) return false;
    if (who && f.run && e.r !== f.run) return false;
    if (f.task && e.t !== f.task) return false;
    for (var k in f.keys) {
      var vs = k === 'task' ? [e.t] : (e.k && e.k[k]);
      if (vs && vs.indexOf(f.keys[k]) < 0) return false; // an item without the key counts under every value
    }
    if (f.min !== '' && !(e.s !== null && e.s >= parseFloat(f.min))) return false;
    if (f.max !== '' && !(e.s !== null && e.s <= parseFloat(f.max))) return false;
    if (f.failed && !(e.f & 1)) return false;
    if (f.cut && !(e.f & 2)) return false;
    if (f.unfinished && !(e.f & 4)) return false;
    if (f.error && e.e !== f.error) return false;
    return true;
  }

  function byScore(dir) {
    return function (a, b) {
      var x = X.items[a].s, y = X.items[b].s;
      if (x === null && y === null) return a - b;
      if (x === null) return -1; // failed items first: they scored worst
      if (y === null) return 1;
      return (x - y) * dir || a - b;
    };
  }

  function where(e) {
    var parts = [];
    keysOf(e.b).forEach(function (k) { if (e.k && e.k[k]) parts.push(k + ' ' + e.k[k].join(', ')); });
    return parts.join(' · ');
  }

  function flagsText(e) {
    var out = [];
    if (e.f & 1) out.push('failed' + (e.e ? ': ' + e.e : ''));
    if (e.f & 2) out.push('cut by the server');
    if (e.f & 4) out.push('reasoning unfinished');
    if (e.f & 8) out.push('excerpts');
    if (e.f & 16) out.push('details not in this page');
    return out.join('; ');
  }

  function refreshKeys() {
    var bench = $('x-f-bench').value, box = $('x-f-keys');
    var keep = {};
    box.querySelectorAll('select').forEach(function (s) { keep[s.dataset.key] = s.value; });
    box.textContent = '';
    fillSelect($('x-f-task'), bench ? (values[bench] && values[bench].task) || [] : distinct(function (e) { return e.t; }), 'any');
    if (!bench) return;
    keysOf(bench).forEach(function (k) {
      var s = node('select');
      s.dataset.key = k;
      fillSelect(s, values[bench][k], 'any');
      if (keep[k] && values[bench][k].indexOf(keep[k]) >= 0) s.value = keep[k];
      add(box, add(node('label', null, k + ' '), s), ' ');
    });
  }

  function render() {
    if (state.tab === 'items') renderItems(); else renderDiff();
  }

  function renderItems() {
    var f = filters();
    var list = [];
    for (var i = 0; i < X.items.length; i++) if (passes(X.items[i], f, true)) list.push(i);
    if (f.sort) list.sort(byScore(f.sort === 'asc' ? 1 : -1));
    var count = list.length + ' of ' + X.items.length + ' items';
    if (state.from) count += '; the metric row counts n = ' + state.from.n;
    $('x-count').textContent = count;
    $('x-count').dataset.n = list.length;
    var body = $('x-list').tBodies[0];
    body.textContent = '';
    list.slice(0, state.shown).forEach(function (i) {
      var e = X.items[i];
      var tr = node('tr');
      tr.tabIndex = 0;
      tr.dataset.item = i;
      add(tr, node('td', 'id', e.id), node('td', null, label(e)), node('td', null, e.t || ''), node('td', null, where(e)),
        node('td', 'num', fmt(e.s)), node('td', null, flagsText(e)));
      body.appendChild(tr);
    });
    $('x-more').hidden = list.length <= state.shown;
  }

  function pairOf() {
    var v = $('x-d-pair').value;
    return v === '' ? null : X.flips[+v];
  }

  function renderDiff() {
    var fs = pairOf(), body = $('x-d-list').tBodies[0];
    body.textContent = '';
    if (!fs) { $('x-d-count').textContent = 'No two models or runs answered the same items.'; return; }
    $('x-d-a').textContent = fs.a;
    $('x-d-b').textContent = fs.b;
    var f = filters();
    var pairs = fs.pairs.filter(function (p) {
      var a = X.items[p[0]], b = X.items[p[1]];
      var g = Object.assign({}, f, { min: '', max: '' });
      if (!passes(a, g, false)) return false;
      var in_ = function (e) { return passes(e, Object.assign({}, g, { min: f.min, max: f.max, failed: false, cut: false, unfinished: false, error: '' }), false); };
      if ((f.min !== '' || f.max !== '') && !in_(a) && !in_(b)) return false;
      if (f.failed && !((a.f | b.f) & 1)) return false;
      if (f.cut && !((a.f | b.f) & 2)) return false;
      if (f.unfinished && !((a.f | b.f) & 4)) return false;
      if (f.error && a.e !== f.error && b.e !== f.error) return false;
      return true;
    });
    $('x-d-count').textContent = pairs.length + ' flips: items both answered (' + fs.both + ') whose scores differ';
    $('x-d-count').dataset.n = pairs.length;
    pairs.slice(0, state.dshown).forEach(function (p) {
      var a = X.items[p[0]], b = X.items[p[1]];
      var tr = node('tr');
      tr.tabIndex = 0;
      tr.dataset.pair = p[0] + ',' + p[1];
      add(tr, node('td', 'id', a.id), node('td', null, a.t || ''), node('td', null, where(a)),
        node('td', 'num', fmt(a.s) + (a.f & 1 ? ' (failed)' : '')), node('td', 'num', fmt(b.s) + (b.f & 1 ? ' (failed)' : '')));
      body.appendChild(tr);
    });
    $('x-d-more').hidden = pairs.length <= state.dshown;
  }

  function detailOf(i) {
    var e = X.items[i];
    if (e.bl < 0) return Promise.resolve({ left: true });
    if (!blocks[e.bl]) blocks[e.bl] = gunzip('x-b' + e.bl).then(JSON.parse);
    return blocks[e.bl].then(function (b) { return b[e.p]; });
  }

  function section(title) { return add(node('section', 'x-sec'), node('h4', null, title)); }
  function pre(text, cls) { return node('pre', cls || null, text); }
  function json(v) { return typeof v === 'string' ? v : JSON.stringify(v, null, 2); }

  // marked is a pre of text with every occurrence of the strings of focus
  // (what the task asks about) in a mark element.
  function marked(text, focus, cls) {
    var p = node('pre', cls), i = 0;
    while (i < text.length) {
      var at = -1, len = 0;
      focus.forEach(function (f) {
        var k = f ? text.indexOf(f, i) : -1;
        if (k >= 0 && (at < 0 || k < at)) { at = k; len = f.length; }
      });
      if (at < 0) break;
      add(p, text.slice(i, at), node('mark', null, text.slice(at, at + len)));
      i = at + len;
    }
    return add(p, text.slice(i));
  }

  function contextBox(c) {
    var box = node('div', 'x-ctx');
    add(box, node('p', 'x-ctx-size', 'Context: ' + c.chars.toLocaleString('en') + ' characters (' + c.bytes.toLocaleString('en') + ' bytes)' +
      (c.kept ? '' : '; only excerpts of it are in this page (aggregate-ifs --html-contexts full keeps every context whole)')));
    c.excerpts.forEach(function (x) {
      add(box, node('p', 'x-at', 'at character ' + x.at.toLocaleString('en') + ':'), marked(x.text, c.focus || [], 'x-excerpt'));
    });
    if (c.kept) {
      var btn = node('button', null, 'show the whole context');
      btn.type = 'button';
      btn.className = 'x-whole';
      btn.addEventListener('click', function () {
        btn.disabled = true;
        gunzip('x-c-' + c.hash).then(function (t) {
          var whole = marked(t, c.focus || [], 'x-whole-text');
          btn.replaceWith(whole);
          var m = whole.querySelector('mark');
          if (m) whole.scrollTop = m.offsetTop - whole.offsetTop - 40;
        });
      });
      add(box, btn);
    }
    return box;
  }

  function promptSection(d) {
    var s = section('Instruction (the prompt, its long context apart)');
    if (d.left) return add(s, node('p', null, 'Not in this page (its size limit); the record has it.'));
    (d.prompt || []).forEach(function (m) {
      add(s, node('p', 'x-role', m.role));
      add(s, pre(m.text));
      if (m.after !== undefined) add(s, contextBox(d.context), pre(m.after));
    });
    if (!d.prompt || !d.prompt.length) add(s, node('p', null, 'This record carries no request (a check made by split-subtasks reads part of its parent\'s reply; the parent ' + (d.parent || '') + ' holds the request).'));
    return s;
  }

  function replySection(d) {
    var s = section('Reply');
    if (d.reply !== undefined && d.reply !== null) add(s, node('p', 'x-role', 'answer' + (d.reply === '' ? ' (empty)' : '')), pre(d.reply, 'x-reply'));
    if (d.reasoning) {
      var det = add(node('details'), node('summary', null, 'reasoning (' + d.reasoning.length.toLocaleString('en') + ' characters), apart from the answer'), pre(d.reasoning));
      add(s, det);
    }
    if (d.part) {
      add(s, node('p', 'x-role', 'the part of ' + (d.parent || 'the reply') + ' this check reads (' + d.part_of + ')'));
      var p = d.part;
      add(s, pre(typeof p === 'object' && p !== null && typeof p.text === 'string' ? p.text : json(p), 'x-reply'));
      if (typeof p === 'object' && p !== null) {
        var rest = Object.assign({}, p);
        delete rest.text;
        if (Object.keys(rest).length) add(s, pre(json(rest), 'x-small'));
      }
    }
    if ((d.reply === undefined || d.reply === null) && !d.part && !d.reasoning) add(s, node('p', null, 'No reply.'));
    if (d.response) add(s, add(node('details'), node('summary', null, 'response (finish reason, usage, tokenizer, …)'), pre(json(d.response), 'x-small')));
    return s;
  }

  function table(rows, cols) {
    var t = node('table', 'x-tbl'), h = node('tr');
    cols.forEach(function (c) { add(h, node('th', null, c)); });
    add(t, add(node('thead'), h));
    var b = node('tbody');
    rows.forEach(function (r) {
      var tr = node('tr');
      cols.forEach(function (c) { add(tr, node('td', null, r[c] === undefined ? '' : typeof r[c] === 'object' ? JSON.stringify(r[c]) : String(r[c]))); });
      b.appendChild(tr);
    });
    return add(t, b);
  }

  // A value of the judgement's detail: a list of like objects (IFScale's
  // keywords, LongIns' hits) is a table, the rest JSON.
  function detailValue(v) {
    if (Array.isArray(v) && v.length && v.every(function (x) { return x && typeof x === 'object' && !Array.isArray(x); })) {
      var cols = [];
      v.forEach(function (x) { Object.keys(x).forEach(function (k) { if (cols.indexOf(k) < 0) cols.push(k); }); });
      return table(v, cols);
    }
    return pre(json(v), 'x-small');
  }

  // findings are what the benchmark says the scoring found (Hooks.Findings),
  // a labelled list each.
  function findings(d) {
    if (!d.findings || !d.findings.length) return null;
    var dl = node('dl', 'x-findings');
    d.findings.forEach(function (f) {
      var vs = f.values || [];
      add(dl, node('dt', null, f.label));
      add(dl, node('dd', vs.length ? null : 'x-none', vs.length ? vs.join(vs.some(function (v) { return v.length > 40; }) ? '\n' : ', ') : 'none'));
    });
    return dl;
  }

  function scoringSection(d, e) {
    var s = section('Scoring');
    var j = d.judgement;
    if (!j || typeof j !== 'object') {
      add(s, node('p', null, j ? String(j) : 'Not scored (the record failed before it was judged).'));
      return s;
    }
    add(s, node('p', 'x-verdict', 'score ' + fmt(j.score) + (j.verdict ? ', verdict ' + j.verdict : '') + (j.rubric ? ' (' + j.rubric + ')' : '')));
    add(s, findings(d));
    if (j.points) {
      var rules = d.rules || {};
      add(s, table(j.points.map(function (p) {
        var got = Math.round(p.score * p.max * 100) / 100;
        var r = { point: p.name, capabilities: (p.capabilities || []).join(', '), earned: got + ' of ' + p.max };
        r['what it checks'] = rules[p.name] || '';
        r.lost = got < p.max ? String(Math.round((p.max - got) * 100) / 100) : '';
        return r;
      }), ['point', 'capabilities', 'earned', 'lost', 'what it checks']));
    }
    if (j.judge) {
      add(s, node('p', 'x-role', 'judge ' + (j.judge.model || '') + ': its reply, as received'), pre(j.judge.reply || '', 'x-judge'));
      if (j.judge.reasoning) add(s, add(node('details'), node('summary', null, 'the judge\'s reasoning'), pre(j.judge.reasoning)));
    }
    if (j.detail) {
      Object.keys(j.detail).forEach(function (k) { add(s, node('p', 'x-role', k), detailValue(j.detail[k])); });
    }
    return s;
  }

  // siblings lists the other checks split from the same reply (the same
  // parent, model and run): the items of one generation.
  function siblings(i) {
    var e = X.items[i], list = [];
    X.items.forEach(function (o, k) { if (k !== i && o.pa === e.pa && o.b === e.b && o.m === e.m && o.r === e.r) list.push(k); });
    var s = section('The other checks of ' + e.pa + ' (' + list.length + ')');
    var t = node('table', 'x-list'), b = node('tbody');
    list.forEach(function (k) {
      var o = X.items[k], tr = node('tr');
      tr.tabIndex = 0;
      tr.dataset.item = k;
      add(tr, node('td', 'id', o.id), node('td', null, where(o)), node('td', 'num', fmt(o.s)), node('td', null, flagsText(o)));
      b.appendChild(tr);
    });
    return add(s, add(t, b));
  }

  function openItem(i) {
    var e = X.items[i], box = $('x-item');
    return detailOf(i).then(function (d) {
      box.textContent = '';
      box.hidden = false;
      add(box, node('h3', 'x-title', e.id),
        node('p', 'x-meta', [e.b, label(e), e.t, where(e), 'score ' + fmt(e.s), flagsText(e)].filter(Boolean).join(' · ')));
      if (d.cut && d.cut.length) add(box, node('p', 'warn', 'Kept as excerpts for the page\'s size: ' + d.cut.join(', ') + '.'));
      if (d.left) {
        add(box, node('p', 'warn', 'This item\'s prompt, reply and scoring are not in this page, which holds only so many item details (the note above the list says how many); its record has them.'));
        box.scrollIntoView({ block: 'start' });
        return;
      }
      add(box, promptSection(d), replySection(d));
      if (d.gold !== undefined) add(box, add(section('Gold'), pre(json(d.gold), 'x-small')));
      add(box, scoringSection(d, e));
      if (d.error) add(box, add(section('Error'), pre(json(d.error), 'x-error')));
      if (e.pa) add(box, siblings(i));
      box.scrollIntoView({ block: 'start' });
    });
  }

  function column(e, d) {
    var c = add(node('div', 'x-col'), node('h4', null, label(e) + ': score ' + fmt(e.s) + (flagsText(e) ? ' (' + flagsText(e) + ')' : '')));
    if (d.left) return c;
    add(c, replySection(d));
    var j = d.judgement;
    if (j && j.judge) add(c, node('p', 'x-role', 'judge ' + (j.judge.model || '')), pre(j.judge.reply || '', 'x-judge'));
    if (j && j.verdict) add(c, node('p', 'x-verdict', 'verdict ' + j.verdict));
    add(c, findings(d));
    if (d.error) add(c, pre(json(d.error), 'x-error'));
    return c;
  }

  function openPair(i, k) {
    var box = $('x-item');
    return Promise.all([detailOf(i), detailOf(k)]).then(function (ds) {
      var a = X.items[i], b = X.items[k];
      box.textContent = '';
      box.hidden = false;
      add(box, node('h3', 'x-title', a.id), node('p', 'x-meta', [a.b, a.t, where(a)].filter(Boolean).join(' · ')));
      add(box, add(node('details'), node('summary', null, 'the instruction and its context'), promptSection(ds[0])));
      add(box, add(node('div', 'x-side'), column(a, ds[0]), column(b, ds[1])));
      box.scrollIntoView({ block: 'start' });
    });
  }

  function tab(t) {
    state.tab = t;
    $('x-tab-items').className = t === 'items' ? 'on' : '';
    $('x-tab-diff').className = t === 'diff' ? 'on' : '';
    $('x-items').hidden = t !== 'items';
    $('x-diff').hidden = t !== 'diff';
    // The run diff picks its two models (or runs) itself.
    $('x-l-model').hidden = t === 'diff';
    $('x-l-run').hidden = t === 'diff' || manyRuns < 2;
    $('x-item').hidden = true;
    render();
  }

  function setSelect(id, v) { var s = $(id); s.value = v; if (s.value !== v) s.value = ''; }

  // fromSelection lists the items behind a figure's mark: its benchmark,
  // model and run, and each dimension of its row the items have.
  function fromSelection(n) {
    var sel = sels[n - 1];
    if (!sel) return;
    $('x-filters').reset();
    setSelect('x-f-bench', sel.bench);
    refreshKeys();
    setSelect('x-f-model', sel.model);
    setSelect('x-f-run', runsOf[sel.model] > 1 ? sel.run : '');
    var vb = values[sel.bench] || {};
    Object.keys(sel.dims).forEach(function (k) {
      var v = sel.dims[k];
      if (!vb[k] || vb[k].indexOf(v) < 0) return;
      if (k === 'task') { setSelect('x-f-task', v); return; }
      var s = $('x-f-keys').querySelector('select[data-key="' + CSS.escape(k) + '"]');
      if (s) s.value = v;
    });
    state.from = sel;
    state.shown = PAGE;
    $('x-from').hidden = false;
    $('x-from-text').textContent = 'Items behind Figure ' + sel.figure + ': ' + sel.title + ' (' + sel.metric + ' = ' + fmt(sel.value) + ').';
    tab('items');
    $('explorer').scrollIntoView({ block: 'start' });
  }

  function init(idx) {
    X = idx;
    dec = idx.decimals >= 0 ? Math.min(idx.decimals, 6) : 3;
    var s = $('x-sels');
    sels = s ? JSON.parse(s.textContent) : [];
    buildValues();
    X.items.forEach(function (e) { (runsOf[e.m] || (runsOf[e.m] = {}))[e.r] = 1; });
    for (var m in runsOf) runsOf[m] = Object.keys(runsOf[m]).length;
    fillSelect($('x-f-bench'), distinct(function (e) { return e.b; }), 'any');
    fillSelect($('x-f-model'), distinct(function (e) { return e.m; }), 'any');
    var runs = distinct(function (e) { return e.r; });
    fillSelect($('x-f-run'), runs, 'any');
    manyRuns = runs.length;
    $('x-l-run').hidden = runs.length < 2;
    fillSelect($('x-f-error'), distinct(function (e) { return e.e; }), 'any');
    var pair = $('x-d-pair');
    X.flips.forEach(function (fs, i) { add(pair, option(String(i), fs.a + ' vs ' + fs.b + ' (' + fs.pairs.length + ' flips)')); });
    $('x-tab-diff').textContent = X.flips.length ? 'Run diff (' + X.flips[0].pairs.length + ' flips)' : 'Run diff';
    refreshKeys();

    $('x-filters').addEventListener('submit', function (ev) { ev.preventDefault(); });
    $('x-filters').addEventListener('change', function (ev) {
      if (ev.target.id === 'x-f-bench') refreshKeys();
      state.shown = state.dshown = PAGE;
      render();
    });
    $('x-filters').addEventListener('input', function (ev) { if (ev.target.type === 'number') { state.shown = state.dshown = PAGE; render(); } });
    $('x-d-pair').addEventListener('change', function () { state.dshown = PAGE; renderDiff(); });
    $('x-tab-items').addEventListener('click', function () { tab('items'); });
    $('x-tab-diff').addEventListener('click', function () { tab('diff'); });
    $('x-more').addEventListener('click', function () { state.shown += PAGE; renderItems(); });
    $('x-d-more').addEventListener('click', function () { state.dshown += PAGE; renderDiff(); });
    $('x-from-clear').addEventListener('click', function () {
      state.from = null;
      $('x-from').hidden = true;
      $('x-filters').reset();
      refreshKeys();
      render();
    });
    function activate(ev) {
      var t = ev.target;
      if (!(t instanceof Element)) return;
      var mark = t.closest('[data-sel]');
      if (mark) { fromSelection(+mark.getAttribute('data-sel')); return; }
      var row = t.closest('tr[data-item]');
      if (row) { openItem(+row.dataset.item); return; }
      var pr = t.closest('tr[data-pair]');
      if (pr) { var ij = pr.dataset.pair.split(','); openPair(+ij[0], +ij[1]); }
    }
    document.addEventListener('click', activate);
    document.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') activate(ev); });
    $('x-app').hidden = false;
    render();
    document.body.dataset.explorer = 'ready';
    document.body.dataset.readyMs = String(Math.round(performance.now()));
  }

  gunzip('x-index').then(JSON.parse).then(init).catch(function (err) {
    var p = node('p', 'warn', 'The explorer could not read its data: ' + err);
    $('explorer').appendChild(p);
    document.body.dataset.explorer = 'failed';
  });
})();
