// Call tree (top-down), Bottom-up and the flat function table of a profile document, with search.
import { fmtWeight, fmtPct, fmtLocation, displayName, el, matcher } from 'jsprof/format.js';
import { TreeTable, pctCell } from 'jsprof/table.js';

// Node objects of a flat pre-order tree document.
export function treeNodes(profile, which) {
  const t = profile[which].nodes, n = t.p.length, s = profile.strings, fns = profile.functions;
  const nodes = new Array(n), roots = [];
  for (let i = 0; i < n; i++) {
    const f = fns[t.f[i]];
    const node = { name: s[f[0]], url: s[f[1]], line: f[2], column: f[3], self: t.s[i], total: t.t[i], kids: [] };
    nodes[i] = node;
    if (t.p[i] < 0) roots.push(node); else nodes[t.p[i]].kids.push(node);
  }
  return roots;
}

function columns(profile, tree) {
  const u = profile.unit, T = profile.total || 1;
  return [
    { title: 'Self', num: true, value: (d) => d.self, render: (d) => fmtWeight(d.self, u) },
    { title: '', num: true, value: (d) => d.self, render: (d) => pctCell(fmtPct((d.self * 100) / T), (d.self * 100) / T) },
    { title: 'Total', num: true, value: (d) => d.total, render: (d) => fmtWeight(d.total, u), title_of: (d) => `${d.total} ${u}` },
    { title: '', num: true, value: (d) => d.total, render: (d) => pctCell(fmtPct((d.total * 100) / T), (d.total * 100) / T) },
    { title: 'Function', cls: 'fn', value: (d) => displayName(d.name).toLowerCase(), render: (d) => displayName(d.name), title_of: (d) => displayName(d.name) },
    { title: 'Location', cls: 'loc', value: (d) => d.url, render: (d) => fmtLocation(d.url, d.line, d.column), title_of: (d) => fmtLocation(d.url, d.line, d.column) },
  ];
}

// A view of one tree kind: 'top_down', 'bottom_up' or 'functions'.
export class CallTreeView {
  constructor(root, profile, kind, opts = {}) {
    this.root = root;
    this.kind = kind;
    this.o = opts;
    const bar = el('div', { class: 'toolbar' });
    this.input = el('input', { type: 'search', placeholder: 'Search functions or URLs (regex)', 'aria-label': 'Search' });
    this.info = el('span', { class: 'hint' });
    bar.append(this.input, this.info);
    if (opts.toolbar) bar.append(...opts.toolbar);
    this.note = el('div', { class: 'note', hidden: true });
    this.scroll = el('div', { class: 'scroll' });
    root.append(bar, this.note, this.scroll);
    this.input.addEventListener('input', () => { clearTimeout(this.t); this.t = setTimeout(() => this.filter(), 150); });
    this.setProfile(profile);
  }

  setProfile(profile) {
    this.profile = profile;
    const which = this.kind === 'top_down' ? 'top_down' : 'bottom_up';
    this.roots = treeNodes(profile, which);
    const flat = this.kind === 'functions';
    this.table = new TreeTable({
      columns: columns(profile),
      treeColumn: flat ? -1 : 4,
      flat,
      sortBy: flat ? 0 : 2,
      label: { top_down: 'Call tree', bottom_up: 'Bottom-up', functions: 'Functions' }[this.kind],
      children: flat ? null : (d) => d.kids,
      expandable: flat ? null : (d) => d.kids.length > 0,
      rootLimit: flat ? 300 : 200,
      onSelect: this.o.onSelect,
    });
    this.scroll.textContent = '';
    this.scroll.append(this.table.table);
    const notes = [];
    if (profile.range) notes.push(`Selection ${fmtWeight(profile.range[0], 'ms')} – ${fmtWeight(profile.range[1], 'ms')} (${fmtWeight(profile.range[1] - profile.range[0], 'ms')}); percentages of the selection.`);
    if (profile.computed) notes.push('Computed from the calls embedded in this report; calls shorter than the embedded minimum count as their caller\'s self time.');
    const pruned = profile[which]?.pruned;
    if (pruned) notes.push(`${pruned.toLocaleString('en-US')} nodes under 0.01 % of the total are not shown.`);
    this.note.textContent = notes.join(' ');
    this.note.hidden = !notes.length;
    this.info.textContent = `${profile.unit === 'bytes' ? 'Total' : 'Duration'} ${fmtWeight(profile.total, profile.unit)}`;
    this.filter();
  }

  async filter() {
    const m = matcher(this.input.value.trim());
    const test = (d) => m(displayName(d.name)) || m(fmtLocation(d.url, d.line, d.column));
    if (!m) {
      this.table.setRoots(this.roots);
      if (this.kind === 'top_down') await this.table.expandHeaviest(8);
      return;
    }
    if (this.kind === 'functions') { this.table.setRoots(this.roots.filter(test)); return; }
    // Trees: roots that match or hold a match, opened down to the matches.
    const holds = new Map();
    const walk = (d) => { let h = test(d); for (const k of d.kids) h = walk(k) || h; holds.set(d, h); return h; };
    this.roots.forEach(walk);
    this.table.setRoots(this.roots.filter((d) => holds.get(d)));
    await this.table.expandAll((d) => d.kids.some((k) => holds.get(k)));
  }
}
