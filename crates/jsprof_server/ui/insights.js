// The Insights sidebar beside the flame chart: the Web Vitals of each navigation (LCP, INP, CLS,
// coloured as DevTools rates them) and each insight of `jsprof insights --json`. A click
// selects the insight's time range (the chart zooms to it, the tables follow) and highlights
// its events, as DevTools does: its phases, and the events it points at (the document's
// `related_events` of that navigation and insight) outlined where they are drawn with the rest
// dimmed — requests in the Network lane, the interaction and the layout shifts in theirs, the
// LCP candidate in the Insight lane (tracks.js), trace events on the threads' tracks
// (flamechart.js). A second click or Escape clears it. Insights are drawn from what the
// document lists, generically — a title, a state, metric savings, the time windows and
// requests found in it — so an insight added to the document appears here without a change.
import { fmtMs, fmtBytes, fixed, el } from 'jsprof/format.js';

const RATING = { good: ['good', 'Good'], ok: ['ok', 'Needs improvement'], bad: ['bad', 'Poor'] };

// DevTools' titles of the insights the document has today; any other key is shown by its own `title` or
// its key in words.
const TITLES = {
  lcp_breakdown: 'LCP breakdown', inp_breakdown: 'INP breakdown', cls_clusters: 'Layout shift clusters',
  render_blocking: 'Render-blocking requests', cls_culprits: 'Layout shift culprits', lcp_discovery: 'LCP request discovery',
  document_latency: 'Document request latency', dom_size: 'Optimize DOM size', forced_reflow: 'Forced reflow', network_dependency_tree: 'Network dependency tree',
  third_parties: '3rd parties', viewport: 'Optimize viewport for mobile', character_set: 'Declare a character encoding',
  cache: 'Use efficient cache lifetimes', modern_http: 'Modern HTTP', image_delivery: 'Improve image delivery', font_display: 'Font display', slow_css_selector: 'CSS Selector costs',
  legacy_javascript: 'Legacy JavaScript', duplicated_javascript: 'Duplicated JavaScript',
};
const words = (key) => { const s = key.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase(); return s.charAt(0).toUpperCase() + s.slice(1); };
const PHASE_LABELS = { ttfb: 'TTFB', load_delay: 'Load delay', load_duration: 'Load duration', render_delay: 'Render delay' };

// A time window of the document ({start_ms, end_ms} or {start_ms, dur_ms}), or null.
function windowOf(v) {
  if (!v || typeof v !== 'object' || typeof v.start_ms !== 'number') return null;
  const end = typeof v.end_ms === 'number' ? v.end_ms : typeof v.dur_ms === 'number' ? v.start_ms + v.dur_ms : null;
  return end == null ? null : { start_ms: v.start_ms, end_ms: end };
}

// Every window, instant (`ts_ms`) and `request_id` anywhere in `v`.
function evidence(v, out = { windows: [], points: [], requests: new Set() }, depth = 0) {
  if (!v || typeof v !== 'object' || depth > 8) return out;
  if (Array.isArray(v)) { for (const x of v) evidence(x, out, depth + 1); return out; }
  const w = windowOf(v);
  if (w) out.windows.push(w);
  if (typeof v.ts_ms === 'number') out.points.push(v.ts_ms);
  if (typeof v.request_id === 'string') out.requests.add(v.request_id);
  for (const x of Object.values(v)) if (x && typeof x === 'object') evidence(x, out, depth + 1);
  return out;
}

// The trace events an insight points at (`related_events` entries placed on a thread), to
// outline on the threads' tracks: its own in red, the calls that caused them in blue (null:
// none).
function outlineOf(events, title) {
  const placed = events.filter((e) => e.timeline_id != null);
  if (!placed.length) return null;
  return placed.map((e) => e.role === 'related' ? { ...e, kind: 'error', note: title } : { ...e, kind: 'info', note: 'the JS call that forced them' });
}

// The events an insight points at that the page's lanes draw (tracks.js): requests by id, the
// interactions, shifts and clusters by start, instants (the LCP candidate) as labelled marks.
// null: none.
const MARKS = { 'largestContentfulPaint::Candidate': 'LCP' };
function lanesOf(events) {
  const out = { requests: new Set(), interactions: [], shifts: [], clusters: [], marks: [] };
  for (const e of events) {
    if (e.request_id != null) out.requests.add(e.request_id);
    else if (e.name === 'EventTiming') out.interactions.push(e.start_ms);
    else if (e.name === 'SyntheticLayoutShift') out.shifts.push(e.start_ms);
    else if (e.name === 'SyntheticLayoutShiftCluster') out.clusters.push(e.start_ms);
    else if (MARKS[e.name]) out.marks.push({ label: MARKS[e.name], ts_ms: e.start_ms });
  }
  const n = out.requests.size + out.interactions.length + out.shifts.length + out.clusters.length + out.marks.length;
  return n ? out : null;
}

// What selecting an insight shows: {range, windows (labelled phases), requests, interaction,
// outline (related events)}. `related`: the insight's entries of the document's `related_events`.
function selection(key, v, nav, related = []) {
  // A third party's events are every event of the page mapped to it, tens of thousands on a
  // busy page: DevTools outlines only those of 1 ms or more, and so does this.
  if (key === 'third_parties') related = related.filter((e) => e.dur_ms >= 1);
  const ev = evidence(v);
  evidence(related, ev);
  let phases = [];
  if (v && !Array.isArray(v) && typeof v.processing_start_ms === 'number' && typeof v.dur_ms === 'number') {
    // An interaction: its three phases.
    phases = [
      { label: 'Input delay', start_ms: v.start_ms, end_ms: v.processing_start_ms },
      { label: 'Processing', start_ms: v.processing_start_ms, end_ms: v.processing_end_ms },
      { label: 'Presentation delay', start_ms: v.processing_end_ms, end_ms: v.start_ms + v.dur_ms },
    ];
  } else if (v && !Array.isArray(v)) {
    // Windows named by the insight's own fields are its phases (the LCP breakdown's).
    for (const [k, x] of Object.entries(v)) { const w = windowOf(x); if (w) phases.push({ label: PHASE_LABELS[k] || words(k), ...w }); }
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => { const w = windowOf(x); if (w && typeof x.score === 'number') phases.push({ label: `Cluster ${i + 1} · ${x.score.toFixed(4)}`, ...w }); });
  }
  // The LCP image's request belongs to the LCP breakdown.
  if (key === 'lcp_breakdown' && nav.metrics.lcp && nav.metrics.lcp.request) ev.requests.add(nav.metrics.lcp.request.request_id);
  const starts = [...ev.windows.map((w) => w.start_ms), ...ev.points], ends = [...ev.windows.map((w) => w.end_ms), ...ev.points];
  const range = starts.length ? [Math.min(...starts), Math.max(...ends)] : null;
  return {
    range, windows: phases, requests: ev.requests.size ? ev.requests : null,
    interaction: v && typeof v.interaction_id === 'number' ? v.interaction_id : null,
    outline: outlineOf(related, (v && v.title) || TITLES[key] || words(key)),
    lanes: lanesOf(related),
  };
}

// An insight's pass/fail state: the document's own `state` when it says, else what its
// evidence says (requests that block rendering fail; a breakdown informs).
function stateOf(key, v, nav) {
  if (v && typeof v.state === 'string') return v.state;
  if (key === 'render_blocking') return v.length ? 'fail' : 'pass';
  if (key === 'cls_clusters') return nav.metrics.cls.classification === 'good' ? 'pass' : 'fail';
  return 'informative';
}

function summaryOf(key, v, sel) {
  if (v && typeof v.summary === 'string') return v.summary;
  const parts = [];
  if (sel.windows.length) parts.push(sel.windows.map((w) => `${w.label} ${fmtMs(w.end_ms - w.start_ms)}`).join(' · '));
  else if (sel.requests) parts.push(`${sel.requests.size} request${sel.requests.size === 1 ? '' : 's'}`);
  const events = sel.outline ? sel.outline.filter((e) => e.role === 'related').length : 0;
  if (events) parts.push(`${events.toLocaleString('en-US')} event${events === 1 ? '' : 's'}`);
  if (Array.isArray(v) && key === 'render_blocking') parts.push(v.map((r) => r.url.split('/').pop() || r.url).join(', '));
  return parts.join(' · ');
}

function savingsOf(v) {
  let s = v && (v.metric_savings || v.metricSavings);
  // Or the document's own `<metric>_savings_ms` fields (the viewport's INP, the fonts' FCP).
  if (!s && v && typeof v === 'object' && !Array.isArray(v)) {
    s = Object.fromEntries(Object.entries(v).map(([k, x]) => [/^([a-z]+)_savings_ms$/.exec(k), x])
      .filter(([m]) => m).map(([m, x]) => [m[1].toUpperCase(), x]));
  }
  if (!s || typeof s !== 'object') return '';
  return Object.entries(s).filter(([, x]) => typeof x === 'number' && x > 0)
    .map(([m, x]) => [m.replace(/_ms$/, '').toUpperCase(), x])
    .map(([m, x]) => `${m} −${m === 'CLS' ? x.toFixed(3) : fmtMs(x)}`).join(' · ');
}

// DevTools' explanation of each insight: its `UIStrings.description` in the trace engine
// (`@paulirish/trace_engine/models/trace/insights/*.js`), word for word; `ui-insights.mjs`
// holds them equal to the engine's.
export const DESCRIPTIONS = {
  lcp_breakdown: 'Each [subpart has specific improvement strategies](https://developer.chrome.com/docs/performance/insights/lcp-breakdown). Ideally, most of the LCP time should be spent on loading the resources, not within delays.',
  inp_breakdown: 'Start investigating [how to improve INP](https://developer.chrome.com/docs/performance/insights/inp-breakdown) by looking at the longest subpart.',
  cls_culprits: 'Layout shifts occur when elements move absent any user interaction. [Investigate the causes of layout shifts](https://developer.chrome.com/docs/performance/insights/cls-culprit), such as elements being added, removed, or their fonts changing as the page loads.',
  render_blocking: "Requests are blocking the page's initial render, which may delay LCP. [Deferring or inlining](https://developer.chrome.com/docs/performance/insights/render-blocking) can move these network requests out of the critical path.",
  document_latency: 'Your first network request is the most important. [Reduce its latency](https://developer.chrome.com/docs/performance/insights/document-latency) by avoiding redirects, ensuring a fast server response, and enabling text compression.',
  lcp_discovery: '[Optimize LCP](https://developer.chrome.com/docs/performance/insights/lcp-discovery) by making the LCP image discoverable from the HTML immediately, and avoiding lazy-loading',
  dom_size: 'A large DOM can increase the duration of style calculations and layout reflows, impacting page responsiveness. A large DOM will also increase memory usage. [Learn how to avoid an excessive DOM size](https://developer.chrome.com/docs/performance/insights/dom-size).',
  forced_reflow: 'A forced reflow occurs when JavaScript queries geometric properties (such as `offsetWidth`) after styles have been invalidated by a change to the DOM state. This can result in poor performance. Learn more about [forced reflows](https://developer.chrome.com/docs/performance/insights/forced-reflow) and possible mitigations.',
  third_parties: "3rd party code can significantly impact load performance. [Reduce and defer loading of 3rd party code](https://developer.chrome.com/docs/performance/insights/third-parties) to prioritize your page's content.",
  network_dependency_tree: '[Avoid chaining critical requests](https://developer.chrome.com/docs/performance/insights/network-dependency-tree) by reducing the length of chains, reducing the download size of resources, or deferring the download of unnecessary resources to improve page load.',
  viewport: 'Tap interactions may be [delayed by up to 300\u00a0ms](https://developer.chrome.com/docs/performance/insights/viewport) if the viewport is not optimized for mobile.',
  character_set: 'A character encoding declaration is required. It can be done with a meta charset tag in the first 1024 bytes of the HTML or in the Content-Type HTTP response header. [Learn more about declaring the character encoding](https://developer.chrome.com/docs/insights/charset/).',
  cache: 'A long cache lifetime can speed up repeat visits to your page. [Learn more about caching](https://developer.chrome.com/docs/performance/insights/cache).',
  modern_http: 'HTTP/2 and HTTP/3 offer many benefits over HTTP/1.1, such as multiplexing. [Learn more about using modern HTTP](https://developer.chrome.com/docs/performance/insights/modern-http).',
  image_delivery: 'Reducing the download time of images can improve the perceived load time of the page and LCP. [Learn more about optimizing image size](https://developer.chrome.com/docs/performance/insights/image-delivery)',
  font_display: 'Consider setting [`font-display`](https://developer.chrome.com/docs/performance/insights/font-display) to `swap` or `optional` to ensure text is consistently visible. `swap` can be further optimized to mitigate layout shifts with [font metric overrides](https://developer.chrome.com/blog/font-fallbacks).',
  slow_css_selector: 'If Recalculate Style costs remain high, selector optimization can reduce them. [Optimize the selectors](https://developer.chrome.com/docs/performance/insights/slow-css-selector) with both high elapsed time and high slow-path %. Simpler selectors, fewer selectors, a smaller DOM, and a shallower DOM will all reduce matching costs.',
  legacy_javascript: "Polyfills and transforms enable older browsers to use new JavaScript features. However, many aren't necessary for modern browsers. Consider modifying your JavaScript build process to not transpile [Baseline](https://web.dev/articles/baseline-and-polyfills) features, unless you know you must support older browsers. [Learn why most sites can deploy ES6+ code without transpiling](https://developer.chrome.com/docs/performance/insights/legacy-javascript)",
  duplicated_javascript: 'Remove large, [duplicate JavaScript modules](https://developer.chrome.com/docs/performance/insights/duplicated-javascript) from bundles to reduce unnecessary bytes consumed by network activity.',
};

// DevTools' checklists: the document's boolean field, and the engine's label when it passes
// and when it fails (`UIStrings` of LCPDiscovery and DocumentLatency).
const CHECKLISTS = {
  lcp_discovery: [
    ['priority_hinted', 'fetchpriority=high applied', 'fetchpriority=high should be applied'],
    ['request_discoverable', 'Request is discoverable in initial document'],
    ['eagerly_loaded', 'LCP resources should not use loading=lazy'],
  ],
  document_latency: [
    ['no_redirects', 'Avoids redirects', (v) => `Had redirects (+${fmtMs(v.redirect_ms)})`],
    ['server_response_is_fast', (v) => `Server responds quickly (observed ${fmtMs(v.server_response_ms)})`, (v) => `Server responded slowly (observed ${fmtMs(v.server_response_ms)})`],
    ['uses_compression', 'Applies text compression', 'No compression applied'],
  ],
};

// DevTools' description markup: `[text](url)` links and `code`, nothing else.
function described(text) {
  const p = el('p', { class: 'i-description' });
  for (const part of text.split(/(\[[^\]]*\]\([^)]*\)|`[^`]*`)/)) {
    const link = /^\[([^\]]*)\]\(([^)]*)\)$/.exec(part);
    if (link) {
      const a = el('a', { href: link[2], target: '_blank', rel: 'noopener noreferrer' });
      described(link[1]).childNodes.forEach((c) => a.append(c.cloneNode(true)));
      p.append(a);
    } else if (/^`[^`]*`$/.test(part)) p.append(el('code', { text: part.slice(1, -1) }));
    else if (part) p.append(part);
  }
  return p;
}

// A cell's text: durations as every door writes them, byte counts in KB/MB (1 KB = 1024 B).
function cellText(key, x) {
  if (x == null) return '–';
  if (Array.isArray(x)) return x.map((y) => cellText(key, y)).join(', ');
  if (typeof x === 'number') {
    if (/(^|_)ms$/.test(key)) return fmtMs(x);
    if (/(bytes|size|byte_savings)$/.test(key)) return fmtBytes(x);
    return Number.isInteger(x) ? x.toLocaleString('en-US') : fixed(x, 4);
  }
  if (typeof x === 'object') return JSON.stringify(x);
  return String(x);
}
const plain = (x) => x && typeof x === 'object' && !Array.isArray(x);
const objects = (a) => Array.isArray(a) && a.length > 0 && a.every(plain);
// A row's cells: its scalars and lists of scalars, and one level of nested objects as `a.b`.
function cellsOf(row) {
  const cells = [];
  for (const [k, x] of Object.entries(row)) {
    if (objects(x)) continue;
    if (plain(x)) { for (const [k2, y] of Object.entries(x)) if (!plain(y) && !objects(y)) cells.push([`${k}.${k2}`, y]); } else cells.push([k, x]);
  }
  return cells;
}
const MAX_ROWS = 50;
// Every table of an insight's document `v` at JSON pointer `path` (from the navigation's
// `insights`): the insight's own fields, then each list of objects, rows as the document has
// them (at most MAX_ROWS, with a note of the rest).
function tablesOf(v, path, out = []) {
  if (objects(v)) {
    const cols = [];
    for (const row of v) for (const [k] of cellsOf(row)) if (!cols.includes(k)) cols.push(k);
    const t = el('table', { class: 'i-table', 'data-path': path });
    t.append(el('thead', null, el('tr', null, ...cols.map((c) => el('th', { text: c })))));
    const body = el('tbody');
    v.slice(0, MAX_ROWS).forEach((row) => {
      const cells = new Map(cellsOf(row));
      body.append(el('tr', null, ...cols.map((c) => el('td', { 'data-key': c, 'data-json': JSON.stringify(cells.has(c) ? cells.get(c) : null), text: cells.has(c) ? cellText(c, cells.get(c)) : '' }))));
    });
    t.append(body);
    out.push(v.length > MAX_ROWS ? el('div', null, t, el('div', { class: 'muted small', text: `${v.length - MAX_ROWS} more rows in insights --json` })) : t);
    v.slice(0, MAX_ROWS).forEach((row, i) => { for (const [k, x] of Object.entries(row)) if (objects(x)) tablesOf(x, `${path}/${i}/${k}`, out); });
  } else if (Array.isArray(v) && v.length) {
    const t = el('table', { class: 'i-table', 'data-path': path });
    t.append(el('tbody', null, ...v.slice(0, MAX_ROWS).map((x) => el('tr', null, el('td', { 'data-key': '', 'data-json': JSON.stringify(x), text: cellText('', x) })))));
    out.push(t);
  } else if (plain(v)) {
    const facts = cellsOf(v).filter(([k]) => k !== 'state');
    if (facts.length) {
      const t = el('table', { class: 'i-table i-facts', 'data-path': path });
      t.append(el('tbody', null, ...facts.map(([k, x]) => el('tr', null, el('th', { text: k }), el('td', { 'data-key': k, 'data-json': JSON.stringify(x), text: cellText(k, x) })))));
      out.push(t);
    }
    // Its lists of objects, each a table (a list of strings is a cell of the facts).
    for (const [k, x] of Object.entries(v)) {
      if (objects(x)) tablesOf(x, `${path}/${k}`, out);
      else if (plain(x)) for (const [k2, y] of Object.entries(x)) if (objects(y)) tablesOf(y, `${path}/${k}/${k2}`, out);
    }
  }
  return out;
}

// What an expanded insight shows: DevTools' description, its checklist, its savings and its
// tables, all read from the insights document.
function detailsOf(key, v, nav, n) {
  const d = el('div', { class: 'i-details', 'data-details': key, hidden: true });
  if (DESCRIPTIONS[key]) d.append(described(DESCRIPTIONS[key]));
  if (CHECKLISTS[key] && plain(v)) {
    const ul = el('ul', { class: 'i-checklist' });
    for (const [field, ok, bad] of CHECKLISTS[key]) {
      if (typeof v[field] !== 'boolean') continue;
      const label = v[field] ? ok : (bad || ok);
      ul.append(el('li', { class: v[field] ? 'pass' : 'fail', 'data-check': field, text: `${v[field] ? '✓' : '✗'} ${typeof label === 'function' ? label(v) : label}` }));
    }
    d.append(ul);
  }
  const lcp = nav.metrics.lcp;
  if ((key === 'lcp_breakdown' || key === 'lcp_discovery') && lcp && lcp.node_name) d.append(el('div', { class: 'i-lcp-element', text: `LCP element: ${lcp.node_name}` }));
  for (const t of tablesOf(v, `/navigations/${n}/insights/${key}`)) d.append(t);
  if (key === 'render_blocking' && nav.insights.render_blocking_savings) for (const t of tablesOf(nav.insights.render_blocking_savings, `/navigations/${n}/insights/render_blocking_savings`)) d.append(t);
  return d;
}

// The page-load markers of every navigation as DevTools draws them on the timeline: FCP, LCP,
// DCL and Load at the insights document's times (`navigations[].metrics.*.ts_ms`).
const MARKER_STYLE = [['fcp', 'FCP', '#1a7f37'], ['lcp', 'LCP', '#116329'], ['dcl', 'DCL', '#0969da'], ['load', 'Load', '#cf222e']];
export function pageMarkers(doc) {
  const out = [];
  for (const nav of doc.navigations) for (const [k, label, color] of MARKER_STYLE) {
    const m = nav.metrics[k];
    if (m && typeof m.ts_ms === 'number') out.push({ label, ts_ms: m.ts_ms, color });
  }
  return out.sort((a, b) => a.ts_ms - b.ts_ms);
}

export class InsightsSidebar {
  // doc: the insights document; chart: the FlameChart (its view and range are set); hl: the
  // lanes' highlight (tracks.js newHighlight), set here and drawn there.
  constructor(root, doc, chart, hl) {
    this.doc = doc; this.chart = chart; this.hl = hl;
    this.selected = null;
    this.items = new Map(); // data-insight key -> {button, sel}
    this.root = el('aside', { class: 'insights', 'aria-label': 'Insights' });
    root.append(this.root);
    this.render();
    // Escape clears the selection (while this sidebar is on the page).
    const onKey = (e) => {
      if (!this.root.isConnected) { document.removeEventListener('keydown', onKey); return; }
      if (e.key === 'Escape' && this.selected && e.target.tagName !== 'INPUT') this.select(null);
    };
    document.addEventListener('keydown', onKey);
  }

  render() {
    const r = this.root;
    r.append(el('h2', { text: 'Insights' }));
    const many = this.doc.navigations.length > 1;
    const related = this.doc.related_events || [];
    this.doc.navigations.forEach((nav, n) => {
      const id = (k) => (many ? `${k}@${n}` : k);
      r.append(el('div', { class: 'nav-url', title: nav.url, text: nav.url || nav.id }));
      const m = nav.metrics, vitals = el('div', { class: 'vitals' });
      const vital = (key, label, value, rating, sel) => {
        const [cls, text] = RATING[rating] || ['none', ''];
        const b = el('button', { type: 'button', class: `vital ${cls}`, 'data-insight': id(key), title: text ? `${label}: ${text}` : label });
        b.append(el('span', { class: 'v-label', text: label }), el('span', { class: 'v-value', text: value }), el('span', { class: 'v-rating', text }));
        vitals.append(b);
        this.add(id(key), b, { title: label, ...sel });
      };
      const of = (key) => related.filter((e) => e.navigation === nav.id && e.insight === key);
      const lcpSel = nav.insights.lcp_breakdown ? selection('lcp_breakdown', nav.insights.lcp_breakdown, nav, of('lcp_breakdown'))
        : m.lcp ? { range: [nav.bounds.start_ms, m.lcp.ts_ms], windows: [], requests: m.lcp.request ? new Set([m.lcp.request.request_id]) : null } : null;
      if (m.lcp) vital('lcp', 'LCP', fmtMs(m.lcp.value_ms), m.lcp.classification, lcpSel);
      if (m.inp) vital('inp', 'INP', fmtMs(m.inp.value_ms), m.inp.classification, selection('inp', m.inp.interaction, nav, of('inp_breakdown')));
      const worst = m.cls.worst_cluster;
      vital('cls', 'CLS', fixed(m.cls.score, 3), m.cls.classification, worst ? { range: [worst.start_ms, worst.start_ms + worst.dur_ms], windows: [{ label: 'Worst cluster', start_ms: worst.start_ms, end_ms: worst.start_ms + worst.dur_ms }], requests: null, lanes: lanesOf(of('cls_culprits')) } : { range: null, windows: [], requests: null });
      r.append(vitals);
      if (m.lcp && m.lcp.node_name) r.append(el('div', { class: 'muted small lcp-element', text: `LCP element: ${m.lcp.node_name}${m.lcp.request ? ` · ${m.lcp.request.url}` : ''}` }));
      const extra = [['FCP', m.fcp], ['DCL', m.dcl], ['Load', m.load]].filter(([, x]) => x);
      if (extra.length) r.append(el('div', { class: 'muted small vital-times', text: extra.map(([k, x]) => `${k} ${fmtMs(x.value_ms)}`).join(' · ') }));
      for (const [key, v] of Object.entries(nav.insights || {})) {
        // The render-blocking savings are that insight's, shown on its button.
        if (key === 'render_blocking_savings') continue;
        if (v == null || (Array.isArray(v) && !v.length)) continue;
        const sel = selection(key, v, nav, of(key));
        const title = (v && v.title) || TITLES[key] || words(key);
        const state = stateOf(key, v, nav);
        const b = el('button', { type: 'button', class: 'insight', 'data-insight': id(key), 'data-state': state });
        b.append(el('span', { class: 'i-title', text: title }), el('span', { class: `i-state ${state}`, text: state }));
        const rb = key === 'render_blocking' && nav.insights.render_blocking_savings;
        const savings = savingsOf(rb ? { metric_savings: { FCP: rb.fcp_ms, LCP: rb.lcp_ms } } : v), summary = summaryOf(key, v, sel);
        if (savings) b.append(el('div', { class: 'i-savings', text: `Savings: ${savings}` }));
        if (summary) b.append(el('div', { class: 'i-summary', text: summary }));
        const details = detailsOf(key, v, nav, n);
        // Disabled (nothing to select) only when there is nothing to read either.
        if (!sel.range && !details.childNodes.length) b.disabled = true;
        r.append(b, details);
        this.add(id(key), b, { title, ...sel }, details);
      }
    });
    r.append(el('div', { class: 'muted small', text: 'Click an insight to select its time range and highlight its events; click it again (or press Escape) to clear.' }));
  }

  add(key, button, sel, details = null) {
    this.items.set(key, { button, sel, details });
    button.addEventListener('click', () => this.select(this.selected === key ? null : key));
  }

  // Scrolls the chart to a lane that draws one of the selection's events, when the threads'
  // outline has not already (the Network lane, Frames and Timings can fill the chart's height
  // and push the shifts, the interactions and the main thread below the fold).
  reveal(sel) {
    const chart = this.chart, l = sel.lanes;
    if (sel.outline && chart.revealOutline()) return;
    if (!l) return;
    if (l.shifts.length || l.clusters.length) chart.revealLane('Layout shifts');
    else if (l.interactions.length) chart.revealLane('Interactions');
    else if (l.marks.length) chart.revealLane('Insight');
    else if (l.requests.size) {
      const net = chart.lanes.find((x) => x.name === 'Network');
      const rows = net ? [...l.requests].map((id) => net.rowOf(id)).filter((y) => y >= 0) : [];
      if (rows.length) chart.revealLane('Network', Math.min(...rows));
    }
  }

  // Selects insight `key` (null: none): its range becomes the chart's view and selection.
  select(key) {
    const hl = this.hl, chart = this.chart;
    // The selected insight expands to its details (DevTools' description, checklist and tables).
    for (const [k, it] of this.items) {
      it.button.setAttribute('aria-pressed', k === key ? 'true' : 'false');
      if (it.details) it.details.hidden = k !== key;
    }
    const it = key && this.items.get(key);
    // The insight and its expanded details, scrolled to the top of the sidebar.
    if (it && it.details) it.button.scrollIntoView({ block: 'start' });
    this.selected = it ? key : null;
    hl.key = this.selected;
    hl.title = it ? it.sel.title : '';
    hl.windows = it ? it.sel.windows : [];
    hl.requests = it ? it.sel.requests : null;
    hl.interaction = it ? it.sel.interaction ?? null : null;
    hl.outline = it ? it.sel.outline ?? null : null;
    hl.lanes = it ? it.sel.lanes ?? null : null;
    // Its requests are drawn in the Network lane: unfold it (a page of over 200 requests
    // opens with it folded).
    if (hl.lanes && hl.lanes.requests.size) for (const l of chart.lanes) if (l.name === 'Network') l.collapsed = false;
    chart.setOutline(hl.outline);
    if (it && it.sel.range && it.sel.range[1] > it.sel.range[0]) {
      const [a, b] = it.sel.range, pad = (b - a) * 0.05;
      chart.setView(a - pad, b + pad);
      chart.setRange([a, b]);
      this.reveal(it.sel);
    } else {
      chart.setRange(null);
      chart.redraw();
    }
  }
}
