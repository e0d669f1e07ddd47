// Where the views' data comes from: the server (`jsprof view`, `jsprof serve`), which aggregates,
// clips and pages; or the JSON `jsprof report` embedded in the page, where a range selection is
// computed here from the embedded calls.

export class ServerSource {
  constructor(token) {
    this.token = token;
  }

  async get(path, params) {
    const q = new URLSearchParams();
    // An array is a repeated parameter (`focus_stack`, one per subtree focus).
    for (const [k, v] of Object.entries(params || {})) for (const x of [].concat(v)) if (x != null && x !== '') q.append(k, x);
    const qs = q.toString();
    const res = await fetch(path + (qs ? '?' + qs : ''), { headers: { Authorization: 'Bearer ' + this.token } });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.message || res.status + ' ' + res.statusText);
    return body;
  }

  async send(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: { Authorization: 'Bearer ' + this.token, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(answer.message || res.status + ' ' + res.statusText);
    return answer;
  }

  sessions() { return this.get('/api/sessions'); }

  // A file dropped on the page or picked: imported as a session, as `jsprof view FILE` does.
  async upload(file) {
    const res = await fetch('/api/sessions/import?name=' + encodeURIComponent(file.name), {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + this.token, 'Content-Type': 'application/octet-stream' },
      body: file,
    });
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${file.name}: ${answer.message || res.status + ' ' + res.statusText}`);
    return answer;
  }

  // The views of one artifact of one session.
  artifact(session, artifact) {
    const base = `/api/sessions/${session.session_id}/artifacts/${artifact.artifact_id}`;
    const ui = `/api/ui/sessions/${session.session_id}/artifacts/${artifact.artifact_id}`;
    const src = this;
    const range = (r) => (r ? `${r[0]}..${r[1]}` : null);
    // The filters every CPU request carries (`art.filters`, set by the page): the server applies
    // them as `jsprof … --focus/--exclude/--drop/--hide-idle/--collapse-*` would.
    const f = () => filterParams(art.filters);
    let pageOnce = null;
    const art = {
      name: artifact.name || `${session.session_id}/${artifact.artifact_id}`,
      kind: artifact.kind === 'heap-snapshot' ? 'heap' : 'cpu',
      hasChart: session.timeline_artifact_id === artifact.artifact_id,
      live: true,
      filters: {},
      chart: (r, width, timeline) => src.get(`/api/ui/sessions/${session.session_id}/chart`, { range: range(r), width: Math.round(width), timeline, ...f() }),
      profile: (r, timeline) => src.get(`${ui}/profile`, { range: range(r), timeline, ...f() }),
      // The Summary of a selection by category (`jsprof summary --range --json`).
      summary: (r, timeline) => src.get(`/api/ui/sessions/${session.session_id}/summary`, { range: range(r), timeline, ...f() }),
      children: (r, timeline, tree, node, fn) => src.get(`${ui}/profile/children`, { range: range(r), timeline, tree, node, ...fnParams(fn), ...f() }),
      // Speedscope's sandwich of one function (`jsprof tree --sandwich`'s engine).
      sandwich: (r, timeline, fn) => src.get(`${ui}/sandwich`, { range: range(r), timeline, ...fnParams(fn), ...f() }),
      lines: (d, timeline) => src.get(`${ui}/lines`, { name: d.name, url: d.url, line: d.line, column: d.column, timeline, ...f() }),
      diff: (base, key, normalize) => src.get(`${ui}/diff`, { base, key, normalize: normalize ? 1 : null, ...f() }),
      // A trace's page-load documents (the service's `jsprof insights|network|timings --json`)
      // and its filmstrip, whose images come one at a time.
      // Asked once per artifact: the filters do not apply to them, so a chart rebuilt for new
      // filters draws the same lanes.
      page: artifact.kind !== 'trace' ? null : () => (pageOnce ||= Promise.all(['insights', 'network', 'timings'].map((d) => src.get(`${base}/${d}`)).concat([src.get(`${ui}/filmstrip`)]))
        .then(([insights, network, timings, filmstrip]) => ({ insights, network, timings, filmstrip, image: (i) => src.get(`${ui}/filmstrip/${i}`) }))),
      heap: {
        // With a context (a native context's id, `shared` or `none`): `heap summary --context`.
        summary: (context) => src.get(`${base}/heap/summary`, { limit: 0, context }),
        // The JavaScript contexts (`jsprof heap contexts`), for the Summary's select.
        contexts: () => src.get(`${base}/heap/contexts`),
        // A class's objects in one order (`jsprof heap class --sort --ascending`), of one
        // context when given.
        classPage: (key, offset, limit, order, context) => src.get(`${ui}/heap/class`, { key, offset, limit, ...orderParams(order), context }),
        retainers: (id) => src.get(`${base}/heap/retainers/${id}`, { paths: 5 }),
        dominated: (id, offset, limit) => src.get(`${ui}/heap/dominated/${id == null ? 'root' : id}`, { offset, limit }),
        detached: () => src.get(`${ui}/heap/detached`),
        leaks: (base, target) => src.get(`${ui}/heap/leaks`, { base, target }),
        // The series of the other snapshots and this one (`jsprof heap leaks S1 … SN --all`).
        leakSeries: (others) => src.get(`${ui}/heap/leaks`, { series: others.join(','), all: 1, limit: 500 }),
        diff: (baseSession, baseArtifact) => src.get(`${base}/heap/diff`, { base: `${baseSession}/${baseArtifact}`, limit: 0 }),
        // heapviews.js: an object's edges or retainers (`jsprof heap edges`), strings, allocations.
        edges: (id, retainers, offset, limit) => src.get(`${ui}/heap/edges/${id}`, { retainers: retainers ? 1 : null, offset, limit }),
        strings: () => src.get(`${ui}/heap/strings`, { limit: 500 }),
        advisors: () => src.get(`${ui}/heap/advisors`, { limit: 500 }),
        // The process's memory over this snapshot and the others open (`jsprof heap process`).
        process: (others) => src.get(`${ui}/heap/process`, { with: others.length ? others.join(',') : null, limit: 10 }),
        allocations: (bottomUp) => src.get(`${ui}/heap/allocations`, { bottom_up: bottomUp ? 1 : null }),
        summaryBetween: (first, second) => src.get(`${ui}/heap/summary/between`, { first, second, limit: 0 }),
        classPageBetween: (first, second, key, offset, limit, order) => src.get(`${ui}/heap/class/between`, { first, second, key, offset, limit, ...orderParams(order) }),
        diffClass: (baseSession, baseArtifact, key, offset, limit) => src.get(`${ui}/heap/diff/class`, { base: `${baseSession}/${baseArtifact}`, key, offset, limit }),
      },
    };
    return art;
  }
}

// A class's order as the server's `sort` and `ascending` parameters.
const orderParams = (order) => (order ? { sort: order.sort, ascending: order.ascending ? 1 : null } : {});

// A function as the server's `name`, `url`, `line` and `column` parameters.
const fnParams = (fn) => (fn ? { name: fn.name, url: fn.url, line: fn.line, column: fn.column } : {});

// The query parameters of a filter state {focus, exclude, drop, hideIdle, collapsePackages,
// collapseRecursion}: only the ones that are set.
export function filterParams(fs) {
  const q = {};
  if (!fs) return q;
  if (fs.focus) q.focus = fs.focus;
  if (fs.exclude) q.exclude = fs.exclude;
  if (fs.drop) q.drop = fs.drop;
  if (fs.hideIdle) q.hide_idle = 1;
  if (fs.collapsePackages) q.collapse_packages = 1;
  if (fs.collapseRecursion) q.collapse_recursion = 1;
  if (fs.focusStack && fs.focusStack.length) q.focus_stack = fs.focusStack;
  if (fs.focusStackInverted && fs.focusStackInverted.length) q.focus_stack_inverted = fs.focusStackInverted;
  return q;
}

// The report's embedded data, with the same interface.
export function embeddedArtifact(data) {
  const heapDoc = data.heap;
  const findObject = (id) => {
    for (const c of heapDoc.objects) for (const o of c.objects) if (o.id === id) return o;
    for (const d of heapDoc.detached) if (d.root.id === id) return d.root;
    return null;
  };
  return {
    name: data.name,
    kind: heapDoc ? 'heap' : 'cpu',
    hasChart: !!data.chart,
    live: false,
    filters: {}, // applied when the report was written (its subtitle names them)
    // One chart per thread (the recorded one first); the tables of another thread are computed
    // from its embedded calls.
    timelines: data.charts ? data.charts.map((c) => c.timeline) : null,
    // A trace's page-load documents, embedded as the CLI prints them; each screenshot in a blob
    // of its own (`ui_page::page_with_blobs`), read only when shown.
    page: data.views && data.views.insights ? async () => ({
      insights: data.views.insights, network: data.views.network, timings: data.views.timings, filmstrip: data.filmstrip,
      image: async (i) => {
        const blob = document.getElementById(`jsprof-blob-shot-${i}`);
        return blob ? { mime: blob.textContent.startsWith('iVBORw0K') ? 'image/png' : 'image/jpeg', data: blob.textContent } : null;
      },
    }) : null,
    chart: async (r, w, timeline) => (data.charts || []).find((c) => c.timeline === timeline) || data.chart,
    // The sandwich from the embedded calls' trees (whole, not cut at a share of the total), as
    // the server cuts it from its own: the same rules, on what the report holds.
    sandwich: async (r, timeline, fn) => {
      const chart = (data.charts || []).find((c) => c.timeline === timeline) || data.chart;
      const p = chart ? profileFromChart(chart, r || [chart.start_ms, chart.end_ms]) : data.profile;
      if (chart && !r) p.range = null;
      return sandwichOf(p, fn);
    },
    profile: async (r, timeline) => {
      const chart = (data.charts || []).find((c) => c.timeline === timeline) || data.chart;
      if (chart && chart !== data.chart) { const p = profileFromChart(chart, r || [chart.start_ms, chart.end_ms]); if (!r) p.range = null; return p; }
      return r && data.chart ? profileFromChart(data.chart, r) : data.profile;
    },
    heap: heapDoc && {
      summary: async () => heapDoc.summary,
      classPage: async (key, offset, limit) => {
        const c = heapDoc.objects.find((c) => c.key === key);
        if (!c) return { total: 0, offset, objects: [], missing: true };
        return { total: c.total, offset, objects: c.objects.slice(offset, offset + limit), embedded: c.objects.length };
      },
      retainers: async (id) => {
        const o = findObject(id);
        return { object: o, paths: (o && o.paths) || [], missing: !o || !o.paths || !o.paths.length };
      },
      dominated: async (id, offset, limit) => (id == null
        ? { total: heapDoc.dominators.length, offset, objects: heapDoc.dominators.slice(offset, offset + limit) }
        : (() => {
          // The report embeds the tree a few levels down, each node's largest children.
          const d = (heapDoc.dominated || []).find((x) => x.id === id);
          return d ? { total: d.total, offset, objects: d.objects.slice(offset, offset + limit), embedded: d.objects.length } : { total: 0, offset, objects: [], missing: true };
        })()),
      detached: async () => ({ trees: heapDoc.detached }),
    },
  };
}

// DevTools' trees and function table of the embedded calls clipped to [t0, t1] (ms), as the
// server's `…/profile` and `jsprof tree --range` give them: total counts recursion once, self is
// what is left after the (clipped) callees. Calls shorter than the report's `min_ms` were not
// embedded: their time shows as their caller's self. (tests/it/ui_engine.rs holds the two
// together.)
export function profileFromChart(chart, r) {
  const [t0, t1] = r;
  const ev = chart.events;
  const n = ev.s.length;
  // The entries, as jsprof_analysis::entries_profile weighs them: every JS call, and on a trace
  // every engine event with a duration (`Layout`, `Paint`, `RunTask`, …) as a function of its own
  // named after the event — DevTools' Performance panel. `fn[i]` is -1 for what weighs nothing.
  let functions = chart.functions;
  const fn = new Int32Array(n).fill(-1);
  const native = new Map();
  let empty = -1;
  for (let i = 0; i < n; i++) {
    if (ev.f[i] >= 0) { fn[i] = ev.f[i]; continue; }
    if (!(ev.d[i] > 0)) continue;
    if (functions === chart.functions) functions = chart.functions.slice();
    if (empty < 0) empty = chart.strings.indexOf('');
    let k = native.get(ev.n[i]);
    if (k === undefined) { k = functions.length; functions.push([ev.n[i], empty, null, null]); native.set(ev.n[i], k); }
    fn[i] = k;
  }
  const strings = empty < 0 && native.size ? chart.strings.concat(['']) : chart.strings;
  if (empty < 0 && native.size) for (const k of native.values()) functions[k][1] = strings.length - 1;
  const callParent = new Int32Array(n).fill(-1);
  const cd = new Float64Array(n);
  const selfc = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (fn[i] < 0) continue;
    const s = ev.s[i], e = s + ev.d[i];
    cd[i] = Math.max(0, Math.min(e, t1) - Math.max(s, t0));
    let p = ev.p[i];
    while (p >= 0 && fn[p] < 0) p = ev.p[p];
    callParent[i] = p;
  }
  for (let i = 0; i < n; i++) {
    if (fn[i] < 0 || cd[i] <= 0) continue;
    selfc[i] += cd[i];
    if (callParent[i] >= 0) selfc[callParent[i]] -= cd[i];
  }
  // Top-down: a node per (parent node, function).
  const nFunctions = functions.length;
  const td = newTree(nFunctions);
  const nodeOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    if (fn[i] < 0 || cd[i] <= 0) continue;
    const pn = callParent[i] >= 0 ? nodeOf[callParent[i]] : -1;
    const node = td.child(pn, fn[i]);
    nodeOf[i] = node;
    td.s[node] += selfc[i];
    td.t[node] += cd[i];
  }
  // Bottom-up: each function as a root, its callers beneath; a call's chain is the node of its
  // function, then of it and its caller, and so on out. Self adds up along the chain. A call's
  // time counts into a node's total only when no enclosing call counted into that node already
  // (a recursion at that level), so a total is the time the path was on the stack, once: as
  // jsprof_analysis::bottom_up and DevTools' Bottom-up (TraceTree's BottomUpNode) count it.
  const bu = newTree(nFunctions);
  let counted = new Int32Array(64); // per node: how many open calls counted into it (grows)
  const chain = []; // the nodes of the open calls' chains, one after the other
  const open = []; // the open calls, outermost first: [call, where its chain starts]
  for (let i = 0; i < n; i++) {
    if (fn[i] < 0 || cd[i] <= 0) continue;
    // The events come in pre-order: the open calls that are not i's callers have ended.
    while (open.length && open[open.length - 1][0] !== callParent[i]) {
      const from = open.pop()[1];
      for (let k = from; k < chain.length; k++) counted[chain[k]]--;
      chain.length = from;
    }
    open.push([i, chain.length]);
    let node = -1;
    for (let a = i; a >= 0; a = callParent[a]) {
      node = bu.child(node, fn[a]);
      if (node >= counted.length) { const grown = new Int32Array(Math.max(64, 2 * node + 2)); grown.set(counted); counted = grown; }
      bu.s[node] += selfc[i];
      if (counted[node] === 0) bu.t[node] += cd[i];
      counted[node]++;
      chain.push(node);
    }
  }
  return {
    unit: 'ms', total: t1 - t0, range: [t0, t1], computed: true,
    strings, functions,
    top_down: td.flatten(), bottom_up: bu.flatten(),
  };
}

// A tree of (parent node, function) pairs, each found by one number: (parent + 1) * nFunctions +
// fn is a different key for every pair while it is an exact integer (below 2^53, checked), and
// a number key keeps the lookup free of allocation.
function newTree(nFunctions) {
  const p = [], f = [], s = [], t = [], index = new Map();
  const maxParent = Math.floor(Number.MAX_SAFE_INTEGER / Math.max(1, nFunctions)) - 2;
  return {
    s, t,
    child(parent, fn) {
      if (!(fn >= 0 && fn < nFunctions) || parent > maxParent) {
        throw new Error(`call tree: function ${fn} of ${nFunctions} under node ${parent} cannot be keyed`);
      }
      const key = (parent + 1) * nFunctions + fn;
      let k = index.get(key);
      if (k === undefined) { k = p.length; p.push(parent); f.push(fn); s.push(0); t.push(0); index.set(key, k); }
      return k;
    },
    // Pre-order, children heaviest first, as the server sends trees.
    flatten() {
      const kids = p.map(() => []);
      const roots = [];
      for (let i = 0; i < p.length; i++) (p[i] < 0 ? roots : kids[p[i]]).push(i);
      const order = (a, b) => t[b] - t[a] || s[b] - s[a];
      const out = { p: [], f: [], s: [], t: [] };
      const stack = roots.sort(order).reverse().map((r) => [r, -1]);
      while (stack.length) {
        const [i, parent] = stack.pop();
        const k = out.p.length;
        out.p.push(parent); out.f.push(f[i]); out.s.push(round3(s[i])); out.t.push(round3(t[i]));
        const c = kids[i].sort(order);
        for (let j = c.length - 1; j >= 0; j--) stack.push([c[j], k]);
      }
      return { nodes: out, pruned: 0 };
    },
  };
}

function round3(x) { return Math.round(x * 1000) / 1000; }

// Speedscope's sandwich of function `fn` ({name, url, line, column}) cut from a profile document's
// two trees, in the server's `…/sandwich` shape: the callers are the Bottom-up subtree under the
// function's root; the callees merge every outermost call of it in the Call tree (a call of it
// inside another stays beneath, as in jsprof_analysis::callees).
export function sandwichOf(p, fn) {
  const s = p.strings, fns = p.functions;
  const fi = fns.findIndex((f) => s[f[0]] === fn.name && s[f[1]] === (fn.url || '') && (f[2] ?? null) === (fn.line ?? null) && (f[3] ?? null) === (fn.column ?? null));
  const empty = () => ({ nodes: { p: [], f: [], s: [], t: [] }, pruned: 0 });
  const doc = { unit: p.unit, total: p.total, range: p.range, strings: s, functions: fns, function: fi, function_self: 0, function_total: 0, callers: empty(), callees: empty(), computed: p.computed };
  if (fi < 0) return doc;
  // Callers: the subtree of the root for fi (pre-order: a node's subtree follows it).
  const bu = p.bottom_up.nodes;
  const root = bu.p.findIndex((x, i) => x < 0 && bu.f[i] === fi);
  if (root >= 0) {
    const map = new Map([[root, 0]]);
    const out = doc.callers.nodes;
    out.p.push(-1); out.f.push(fi); out.s.push(bu.s[root]); out.t.push(bu.t[root]);
    for (let i = root + 1; i < bu.p.length && bu.p[i] >= 0; i++) {
      const at = map.get(bu.p[i]);
      if (at === undefined) continue;
      map.set(i, out.p.length);
      out.p.push(at); out.f.push(bu.f[i]); out.s.push(bu.s[i]); out.t.push(bu.t[i]);
    }
    doc.function_self = bu.s[root];
    doc.function_total = bu.t[root];
  }
  // Callees: a node per (merged parent, function) under one root.
  const td = p.top_down.nodes, n = td.p.length;
  const under = new Int32Array(n).fill(-1); // the merged node a call tree node maps to
  const out = doc.callees.nodes, index = new Map();
  const child = (parent, f) => {
    const key = parent * fns.length + f;
    let k = index.get(key);
    if (k === undefined) { k = out.p.length; out.p.push(parent); out.f.push(f); out.s.push(0); out.t.push(0); index.set(key, k); }
    return k;
  };
  for (let i = 0; i < n; i++) {
    const parent = td.p[i] >= 0 ? under[td.p[i]] : -1;
    if (parent < 0 && td.f[i] !== fi) continue;
    const k = parent < 0 ? child(-1, fi) : child(parent, td.f[i]);
    under[i] = k;
    out.s[k] += td.s[i];
    out.t[k] += td.t[i];
  }
  for (const a of [out.s, out.t]) for (let i = 0; i < a.length; i++) a[i] = round3(a[i]);
  return doc;
}
