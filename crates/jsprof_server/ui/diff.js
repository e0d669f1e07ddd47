// CPU diff (as `jsprof diff BEFORE AFTER` and `jsprof flamegraph --diff`): this artifact is AFTER,
// another CPU artifact of the server BEFORE. Per function before/after/delta self and total,
// largest change of self first; rows under the noise floor summarized; beneath, the differential
// flame graph (AFTER's shape, red grew, blue shrank) the server draws.
import { fmtWeight, locationEl, displayName, el } from 'jsprof/format.js';
import { TreeTable } from 'jsprof/table.js';

export class DiffView {
  // others: [{label, session, artifact}]
  constructor(root, art, others) {
    const bar = el('div', { class: 'toolbar' });
    this.before = el('select', { 'aria-label': 'Before' });
    for (const b of others) this.before.append(el('option', { value: `${b.session}/${b.artifact}`, text: b.label }));
    // By name, the other artifact that sorts first is BEFORE (before.cpuprofile, run-1, …).
    const first = others.slice().sort((a, b) => a.label.localeCompare(b.label))[0];
    if (first) this.before.value = `${first.session}/${first.artifact}`;
    this.key = el('select', { 'aria-label': 'Match functions by' });
    this.key.append(el('option', { value: 'name-url', text: 'name and URL' }), el('option', { value: 'function', text: 'name, URL, line, column' }));
    this.normalize = el('input', { type: 'checkbox', 'aria-label': 'Normalize' });
    this.info = el('span', { class: 'hint' });
    bar.append(el('span', { text: 'Before' }), this.before, el('span', { class: 'hint', text: '→ this profile is after · match by' }), this.key,
      el('label', null, this.normalize, ' scale to before\'s total'), this.info);
    const split = el('div', { class: 'split' });
    const top = el('div', { class: 'top scroll' }), bottom = el('div', { class: 'bottom scroll diff-svg' });
    split.append(top, bottom);
    root.append(bar, split);
    this.svgBox = bottom;
    const u = () => this.unit;
    const w = (v) => fmtWeight(v, u());
    const sign = (v) => (v > 0 ? '+' : v < 0 ? '−' : '') + w(Math.abs(v));
    const f = (d, k) => d[`${k}_${u()}`];
    const delta = (d, k) => el('span', { class: f(d, k) > 0 ? 'grew' : f(d, k) < 0 ? 'shrank' : null, text: sign(f(d, k)), title: String(f(d, k)) });
    const cols = [
      { title: 'Function', cls: 'fn', value: (d) => displayName(d.name).toLowerCase(), render: (d) => displayName(d.name) },
      { title: 'Location', cls: 'loc', value: (d) => d.url, render: (d) => locationEl(d.url, d.line, d.column) },
      { title: 'Before self', num: true, value: (d) => f(d, 'before_self'), render: (d) => w(f(d, 'before_self')) },
      { title: 'After self', num: true, value: (d) => f(d, 'after_self'), render: (d) => w(f(d, 'after_self')) },
      { title: 'Δ self', tip: 'sorted by the size of the change', num: true, value: (d) => Math.abs(f(d, 'delta_self')), render: (d) => delta(d, 'delta_self') },
      { title: 'Before total', num: true, value: (d) => f(d, 'before_total'), render: (d) => w(f(d, 'before_total')) },
      { title: 'After total', num: true, value: (d) => f(d, 'after_total'), render: (d) => w(f(d, 'after_total')) },
      { title: 'Δ total', num: true, value: (d) => f(d, 'delta_total'), render: (d) => delta(d, 'delta_total') },
      { title: 'Δ %', num: true, value: (d) => d.delta_total_percent ?? Infinity, render: (d) => (d.delta_total_percent == null ? 'new' : `${d.delta_total_percent > 0 ? '+' : ''}${d.delta_total_percent.toFixed(1)} %`) },
    ];
    this.table = new TreeTable({ columns: cols, treeColumn: -1, flat: true, sortBy: 4, label: 'Diff' });
    top.append(this.table.table);
    const load = async () => {
      this.info.textContent = 'Comparing…';
      try {
        const r = await art.diff(this.before.value, this.key.value, this.normalize.checked);
        this.unit = r.unit;
        this.result = r;
        // The same document as `jsprof diff --json`: weights under unit-named keys.
        const at = (k) => r[`${k}_${r.unit}`];
        const hidden = r.below_noise_floor.count;
        this.info.textContent = `before ${w(at('before_total'))} · after ${w(at('after_total'))}${r.scale !== 1 ? ` (×${r.scale.toFixed(3)})` : ''} · ${hidden} function${hidden === 1 ? '' : 's'} under the noise floor (${w(at('noise_floor'))}), together ${sign(r.below_noise_floor[`delta_self_${r.unit}`])} self`;
        this.table.setRoots(r.functions);
        this.svgBox.innerHTML = r.svg.replace(/<\?xml[^>]*>/, '').replace(/<!DOCTYPE[^>]*>/i, '');
        const svg = this.svgBox.querySelector('svg');
        if (svg) { svg.removeAttribute('height'); svg.setAttribute('width', '100%'); }
      } catch (e) { this.info.textContent = e.message; }
    };
    for (const c of [this.before, this.key, this.normalize]) c.addEventListener('change', () => { this.ready = load(); });
    // The page's filters changed: the same comparison, filtered.
    this.reload = () => { if (others.length) this.ready = load(); return this.ready; };
    this.ready = others.length ? load() : (this.info.textContent = 'Open a second CPU profile (jsprof view BEFORE AFTER) to compare.', Promise.resolve());
  }
}
