// Two builds of a page compared (`jsprof view --base A/ --target B/`, `jsprof diff --base A/
// --target B/`): per metric both sides' runs as dots on one axis with each side's median and
// p75, the Hodges-Lehmann shift with its 95 % interval and its q-value, the significant rows
// marked; then the insights that changed (render-blocking requests, third parties, functions).
// Every number is the service's (`GET /api/ui/page-diff`, `GET /api/ui/page-runs` per side: the
// CLI's documents); this file only lays them out and writes them as the CLI's text does.
import { fmtMs, fmtBytes, fixed, displayName, locationEl, el } from 'jsprof/format.js';

// A metric's name as the CLI's tables write it (`page_runs::metric_label`): `lcp_load_delay_ms` →
// `lcp load delay`, `long_tasks_ms` → `long-task time` (beside the count, `long tasks`).
export const metricName = (m) => (m === 'long_tasks_ms' ? 'long-task time' : m.replace(/_ms$/, '').replace(/_/g, ' '));

// Rust's `{}` of an f64: an integer without a fraction (`3`), else its shortest digits.
const plain = (v) => (Object.is(v, -0) ? '-0' : String(v));

// A value of `metric` as every door's text writes it (`page_runs::metric_text`).
export function metricText(metric, v) {
  if (metric === 'cls') return fixed(v, 3);
  if (metric === 'requests' || metric === 'long_tasks') return plain(v);
  if (metric === 'transfer_size') return fmtBytes(v);
  return fmtMs(v);
}

// A change of `metric`, with its sign (`diff.rs`'s `metric_change`).
export function metricChange(metric, v) {
  const s = metricText(metric, Math.abs(v));
  return v > 0 ? `+${s}` : v < 0 ? `-${s}` : s;
}

// Rust's `{:.2e}` (the CLI's q-values): `3.97e-1`, `1.00e0`.
export const sci = (v) => (isFinite(v) ? v.toExponential(2).replace('e+', 'e') : plain(v));

// Rust's `{:+.2}` (points of a share).
const points = (v) => (v == null ? '' : (v >= 0 && !Object.is(v, -0) ? '+' : '') + fixed(v, 2));

const SVG = 'http://www.w3.org/2000/svg';
const svgEl = (tag, attrs) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null) e.setAttribute(k, v);
  return e;
};

// The strip of one metric: both sides' runs on one axis (base above, target below), each side's
// median a bar and p75 a hollow tick; the axis's ends are the lowest and highest run.
const STRIP = { width: 360, height: 48, pad: 8, lane: { base: 11, target: 27 }, labels: 44 };
function strip(metric, sides) {
  const all = sides.flatMap((s) => s.values.map((r) => r.v).concat(s.dist ? [s.dist.median, s.dist.p75] : []));
  const [min, max] = [Math.min(...all), Math.max(...all)];
  let lo = min, hi = max;
  if (!(hi > lo)) { const d = Math.abs(lo) * 0.1 || 1; lo -= d; hi += d; }
  const x = (v) => STRIP.pad + ((v - lo) / (hi - lo)) * (STRIP.width - 2 * STRIP.pad);
  const svg = svgEl('svg', { class: 'pd-strip', viewBox: `0 0 ${STRIP.width} ${STRIP.height}`, width: STRIP.width, height: STRIP.height, role: 'img', 'aria-label': `${metricName(metric)}: each run of both sides` });
  for (const [v, anchor, at] of [[min, 'start', STRIP.pad], [max, 'end', STRIP.width - STRIP.pad]]) {
    const label = svgEl('text', { class: 'pd-axis', x: at, y: STRIP.labels, 'text-anchor': anchor });
    label.textContent = metricText(metric, v);
    svg.append(label);
  }
  for (const s of sides) {
    const y = STRIP.lane[s.side];
    svg.append(svgEl('line', { class: 'pd-lane', x1: STRIP.pad, x2: STRIP.width - STRIP.pad, y1: y, y2: y }));
    if (s.dist) {
      const p75 = svgEl('rect', { class: `pd-p75 ${s.side}`, x: x(s.dist.p75) - 1.5, y: y - 7, width: 3, height: 14 });
      p75.append(svgEl('title', {}));
      p75.firstChild.textContent = `${s.side} p75 ${metricText(metric, s.dist.p75)}`;
      const med = svgEl('rect', { class: `pd-median ${s.side}`, x: x(s.dist.median) - 1.5, y: y - 8, width: 3, height: 16 });
      med.append(svgEl('title', {}));
      med.firstChild.textContent = `${s.side} median ${metricText(metric, s.dist.median)}`;
      svg.append(p75, med);
    }
    for (const r of s.values) {
      const dot = svgEl('circle', { class: `pd-dot ${s.side}`, cx: x(r.v), cy: y, r: 4, 'data-side': s.side, 'data-run': r.file });
      dot.append(svgEl('title', {}));
      dot.firstChild.textContent = `${r.file}: ${metricText(metric, r.v)}`;
      svg.append(dot);
    }
  }
  return svg;
}

// A small table: `cols` are [title, cell(row) → text or node, numeric?].
function table(rows, cols, cls) {
  const t = el('table', { class: `pd-table ${cls || ''}` });
  const head = el('tr');
  for (const [title, , num] of cols) head.append(el('th', { class: num ? 'num' : null, text: title }));
  t.append(el('thead', null, head));
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr');
    for (const [title, cell, num] of cols) {
      const v = cell(r);
      tr.append(el('td', { class: num ? 'num' : null, 'data-col': title }, typeof v === 'string' ? document.createTextNode(v) : v));
    }
    body.append(tr);
  }
  t.append(body);
  return t;
}

export class PageDiffView {
  // runs: {base: ['S/A', …], target: ['S/A', …]}; openRun(session, artifact) opens a run.
  constructor(root, src, runs, openRun) {
    this.root = el('div', { class: 'scroll pd' });
    root.append(this.root);
    this.runs = runs;
    this.openRun = openRun;
    this.root.append(el('div', { class: 'empty', text: `Comparing ${runs.base.length} runs with ${runs.target.length}…` }));
    const list = (side) => runs[side].join(',');
    this.ready = Promise.all([
      src.get('/api/ui/page-diff', { base: list('base'), target: list('target') }),
      src.get('/api/ui/page-runs', { runs: list('base') }),
      src.get('/api/ui/page-runs', { runs: list('target') }),
    ]).then(([diff, base, target]) => {
      this.diff = diff;
      this.sides = { base, target };
      this.draw();
    }, (e) => {
      this.root.textContent = '';
      this.root.append(el('div', { class: 'empty error', text: e.message }));
      throw e;
    });
  }

  draw() {
    const { diff } = this;
    this.root.textContent = '';
    this.root.append(this.header());
    // Runs of another page than the side's first, and the like: the comparison may mislead.
    if (diff.warnings.length) this.root.append(el('div', { class: 'note pd-warning' }, ...diff.warnings.map((w) => el('div', { text: w }))));
    this.root.append(el('h3', { text: 'Metrics' }), this.metrics());
    this.root.append(el('p', { class: 'pd-legend muted', text: `Medians per side; shift: Hodges-Lehmann (target − base) with its ${fixed(diff.level * 100, 0)} % interval; q: Mann-Whitney, Benjamini-Hochberg over the metrics; significant below ${plain(diff.alpha)}. Each dot is a run; the bar marks a side's median, the hollow tick its p75.` }));
    this.root.append(this.changes());
  }

  header() {
    const head = el('div', { class: 'pd-head' });
    for (const side of ['base', 'target']) {
      const s = this.diff[side], report = this.sides[side];
      const box = el('div', { class: `pd-side ${side}`, 'data-side': side });
      box.append(el('div', { class: 'pd-side-title' }, el('span', { class: `pd-swatch ${side}` }), el('span', { text: side === 'base' ? 'Base' : 'Target' }), el('span', { class: 'muted', text: ` · ${s.runs} run${s.runs === 1 ? '' : 's'}` })));
      box.append(el('div', { class: 'pd-selection', title: s.selection, text: s.selection }));
      if (s.url) box.append(el('div', { class: 'pd-url muted', title: s.url, text: s.url }));
      const at = report.median_run;
      if (at != null && s.median_run != null) {
        const open = el('button', { type: 'button', class: 'btn', 'data-open': side, title: 'The run closest to this side\'s FCP and LCP medians, in the timeline and insights' }, `Open median run · ${s.median_run}`);
        open.addEventListener('click', () => { const [session, artifact] = this.runs[side][at].split('/'); this.openRun(session, Number(artifact)); });
        box.append(open);
      }
      head.append(box);
    }
    return head;
  }

  metrics() {
    const { diff } = this;
    const t = el('table', { class: 'pd-table pd-metrics' });
    const head = el('tr');
    for (const [title, num] of [['Metric'], ['Base', 1], ['Target', 1], ['Runs'], ['Shift', 1], ['95 % CI'], ['q', 1], ['']]) head.append(el('th', { class: num ? 'num' : null, text: title }));
    t.append(el('thead', null, head));
    const body = el('tbody');
    for (const m of diff.metrics.concat([diff.long_tasks])) {
      const verdict = !m.significant ? '' : m.shift > 0 ? 'grew' : 'shrank';
      const sides = ['base', 'target'].map((side) => ({
        side,
        dist: this.sides[side].metrics.find((d) => d.metric === m.metric),
        values: this.sides[side].runs.filter((r) => r.values[m.metric] != null).map((r) => ({ file: r.file, v: r.values[m.metric] })),
      }));
      const tr = el('tr', { 'data-metric': m.metric, class: verdict ? `pd-${verdict}` : null });
      const td = (col, text, num, attrs) => el('td', { 'data-col': col, class: num ? 'num' : null, text, ...attrs });
      tr.append(
        td('metric', metricName(m.metric)),
        td('base', metricText(m.metric, m.base_median), true),
        td('target', metricText(m.metric, m.target_median), true),
        el('td', { class: 'pd-runs' }, strip(m.metric, sides)),
        td('shift', metricChange(m.metric, m.shift), true),
        td('ci', `[${metricChange(m.metric, m.shift_low)}, ${metricChange(m.metric, m.shift_high)}]`),
        td('q', sci(m.q), true, { title: `p ${sci(m.p)}` }),
        el('td', { 'data-col': 'verdict' }, verdict ? el('span', { class: `pd-badge ${verdict}`, text: verdict }) : null),
      );
      body.append(tr);
    }
    t.append(body);
    return t;
  }

  changes() {
    const { diff } = this;
    const box = el('div', { class: 'pd-changes' });
    const section = (title, rows, make, none) => {
      box.append(el('h3', { text: title }));
      box.append(rows.length ? make(rows) : el('div', { class: 'muted pd-none', text: none }));
    };
    const [bn, tn] = [diff.base.runs, diff.target.runs];
    // Requests that became or stopped being render-blocking, on the critical path or uncached:
    // so in half the runs of one side or more, and in fewer of the other's.
    const requests = (title, rows, cls, what) => section(title, rows, (list) => table(list, [
      ['change', (c) => el('span', { class: `pd-badge ${c.change === 'became' ? 'grew' : 'shrank'}`, text: c.change })],
      ['request', (c) => el('span', { class: 'pd-url-cell', title: c.url, text: c.url })],
      ['base runs', (c) => `${c.base_runs} of ${bn}`, true],
      ['target runs', (c) => `${c.target_runs} of ${tn}`, true],
    ], cls), `No request became or stopped being ${what} (so in half the runs of one side or more, and fewer of the other).`);
    requests('Render-blocking requests', diff.render_blocking, 'pd-blocking', 'render-blocking');
    requests('Requests on the critical path', diff.critical_path, 'pd-critical', 'part of the critical path');
    requests('Uncached requests', diff.uncached, 'pd-uncached', 'uncached');
    const both = (a, b) => `${a} → ${b}`;
    section('Third parties that grew', diff.third_parties, (rows) => table(rows, [
      ['entity', (e) => e.entity],
      ['main thread', (e) => both(fmtMs(e.base_main_thread_ms), fmtMs(e.target_main_thread_ms)), true],
      ['shift', (e) => fmtMs(e.main_thread_shift_ms), true],
      ['q', (e) => sci(e.main_thread_q), true],
      ['transfer', (e) => both(fmtBytes(e.base_transfer_size), fmtBytes(e.target_transfer_size)), true],
      ['shift ', (e) => fmtBytes(e.transfer_shift_bytes), true],
      ['q ', (e) => sci(e.transfer_q), true],
    ], 'pd-third-parties'), 'No third party\'s main-thread time or transfer size grew significantly.');
    section('Functions whose share of the main thread changed', diff.functions, (rows) => table(rows, [
      ['Δ self pts', (f) => el('span', { class: f.self_share.shift_points > 0 ? 'grew' : 'shrank', text: points(f.self_share.shift_points) }), true],
      ['95 % CI', (f) => (f.self_share.shift_low_points != null && f.self_share.shift_high_points != null ? `[${points(f.self_share.shift_low_points)}, ${points(f.self_share.shift_high_points)}]` : '')],
      ['q', (f) => sci(f.self_share.q), true],
      ['Δ total pts', (f) => points(f.total_share.shift_points), true],
      ['q ', (f) => sci(f.total_share.q), true],
      ['self base', (f) => `${fixed(f.self_share.base_mean_points, 2)} %`, true],
      ['target', (f) => `${fixed(f.self_share.target_mean_points, 2)} %`, true],
      ['function', (f) => displayName(f.name)],
      ['location', (f) => locationEl(f.url, f.line, f.column)],
    ], 'pd-functions'), 'No function\'s share of the main thread changed significantly by at least the noise floor (0.5 points).');
    return box;
  }
}
