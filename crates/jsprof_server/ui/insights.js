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
import { fmtMs, esc, el } from 'jsprof/format.js';

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
      vital('cls', 'CLS', m.cls.score.toFixed(3), m.cls.classification, worst ? { range: [worst.start_ms, worst.start_ms + worst.dur_ms], windows: [{ label: 'Worst cluster', start_ms: worst.start_ms, end_ms: worst.start_ms + worst.dur_ms }], requests: null, lanes: lanesOf(of('cls_culprits')) } : { range: null, windows: [], requests: null });
      r.append(vitals);
      const extra = [['FCP', m.fcp], ['DCL', m.dcl], ['Load', m.load]].filter(([, x]) => x);
      if (extra.length) r.append(el('div', { class: 'muted small', text: extra.map(([k, x]) => `${k} ${fmtMs(x.value_ms)}`).join(' · ') }));
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
        if (!sel.range) b.disabled = true;
        r.append(b);
        this.add(id(key), b, { title, ...sel });
      }
    });
    r.append(el('div', { class: 'muted small', text: 'Click an insight to select its time range and highlight its events; click it again (or press Escape) to clear.' }));
  }

  add(key, button, sel) {
    this.items.set(key, { button, sel });
    button.addEventListener('click', () => this.select(this.selected === key ? null : key));
  }

  // Selects insight `key` (null: none): its range becomes the chart's view and selection.
  select(key) {
    const hl = this.hl, chart = this.chart;
    for (const [k, it] of this.items) it.button.setAttribute('aria-pressed', k === key ? 'true' : 'false');
    const it = key && this.items.get(key);
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
    } else {
      chart.setRange(null);
      chart.redraw();
    }
  }
}
