// Call tree (top-down), Bottom-up and the flat function table of a profile document, with search.
import { fmtWeight, fmtPct, fmtLocation, locationEl, displayName, frameLabel, el, matcher } from 'jsprof/format.js';
import { TreeTable, pctCell } from 'jsprof/table.js';

// Node objects of a flat tree document (a parent before its children). `more`: children the
// server left out for its node budget, fetched when the node is opened (`k` names it there).
export function treeNodes(doc, tree) {
  const t = tree.nodes, n = t.p.length, s = doc.strings, fns = doc.functions;
  const nodes = new Array(n), roots = [];
  for (let i = 0; i < n; i++) {
    const f = fns[t.f[i]];
    const node = { name: s[f[0]], url: s[f[1]], line: f[2], column: f[3], self: t.s[i], total: t.t[i], kids: [], k: t.k ? t.k[i] : null, more: t.m ? t.m[i] : 0 };
    nodes[i] = node;
    if (t.p[i] < 0) roots.push(node); else { node.up = nodes[t.p[i]]; nodes[t.p[i]].kids.push(node); }
  }
  return roots;
}

// A node's path from its tree's root, as `--focus-stack` takes it: root first in the call tree,
// leaf first in Bottom-up (whose roots are the functions on top of the stack).
export function nodeStack(d) {
  const labels = [];
  for (let n = d; n; n = n.up) labels.push(frameLabel(n.name, n.url, n.line, n.column));
  return labels.reverse();
}

// The columns; `compact` (a narrow pane): self, total and the function, its location in the
// function's tooltip.
function columns(profile, compact) {
  const u = profile.unit, T = profile.total || 1;
  if (compact) {
    return [
      { title: 'Self', num: true, value: (d) => d.self, render: (d) => fmtWeight(d.self, u), title_of: (d) => fmtPct((d.self * 100) / T) },
      { title: 'Total', num: true, value: (d) => d.total, render: (d) => fmtWeight(d.total, u), title_of: (d) => fmtPct((d.total * 100) / T) },
      { title: 'Function', cls: 'fn', value: (d) => displayName(d.name).toLowerCase(), render: (d) => displayName(d.name), title_of: (d) => `${displayName(d.name)} ${fmtLocation(d.url, d.line, d.column)}` },
    ];
  }
  return [
    { title: 'Self', num: true, value: (d) => d.self, render: (d) => fmtWeight(d.self, u) },
    { title: '', num: true, value: (d) => d.self, render: (d) => pctCell(fmtPct((d.self * 100) / T), (d.self * 100) / T) },
    { title: 'Total', num: true, value: (d) => d.total, render: (d) => fmtWeight(d.total, u), title_of: (d) => `${d.total} ${u}` },
    { title: '', num: true, value: (d) => d.total, render: (d) => pctCell(fmtPct((d.total * 100) / T), (d.total * 100) / T) },
    { title: 'Function', cls: 'fn', value: (d) => displayName(d.name).toLowerCase(), render: (d) => displayName(d.name), title_of: (d) => displayName(d.name) },
    { title: 'Location', cls: 'loc', value: (d) => d.url, render: (d) => locationEl(d.url, d.line, d.column) },
  ];
}

// A view of one tree kind: 'top_down', 'bottom_up' or 'functions'.
export class CallTreeView {
  constructor(root, profile, kind, opts = {}) {
    this.root = root;
    this.kind = kind;
    this.o = opts;
    const bar = el('div', { class: 'toolbar' });
    this.input = el('input', { type: 'search', placeholder: 'Search (regex)', title: 'Search functions or URLs (a regular expression) · Enter: next match, Shift+Enter: previous', 'aria-label': 'Search' });
    this.hitInfo = el('span', { class: 'hint', 'aria-live': 'polite' });
    this.info = el('span', { class: 'hint' });
    bar.append(this.input, this.hitInfo, this.info);
    this.hits = [];
    this.at = -1;
    this.test = null;
    // Enter / shift+Enter: the next / previous match, opened and selected.
    this.input.addEventListener('keydown', async (e) => {
      if (e.key !== 'Enter' || !this.hits.length) return;
      e.preventDefault();
      this.at = (this.at + (e.shiftKey ? -1 : 1) + this.hits.length) % this.hits.length;
      await this.table.reveal(this.hits[this.at]);
      this.hitInfo.textContent = `${this.at + 1} / ${this.hits.length.toLocaleString('en-US')} matches`;
    });
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
    this.roots = treeNodes(profile, profile[which]);
    const flat = this.kind === 'functions';
    this.table = new TreeTable({
      columns: columns(profile, this.o.compact),
      treeColumn: flat ? -1 : this.o.compact ? 2 : 4,
      flat,
      // Bottom-up and Functions by self time, as DevTools sorts them; the call tree by total.
      sortBy: this.kind === 'top_down' ? 2 : 0,
      label: { top_down: 'Call tree', bottom_up: 'Bottom-up', functions: 'Functions' }[this.kind],
      children: flat ? null : (d) => this.children(d, which),
      expandable: flat ? null : (d) => d.kids.length > 0 || d.more > 0,
      rootLimit: flat ? 300 : 200,
      rowClass: (d) => (this.test && this.test(d) ? 'match' : null),
      onSelect: this.o.onSelect,
      // A node of a tree knows its path: the menu's "Focus on subtree only" takes it.
      onContext: this.o.onContext && (flat ? this.o.onContext : (d, e) => this.o.onContext({ ...d, stack: nodeStack(d), inverted: which === 'bottom_up' }, e)),
    });
    this.scroll.textContent = '';
    this.scroll.append(this.table.table);
    const notes = [];
    if (profile.range) notes.push(`Selection ${fmtWeight(profile.range[0], 'ms')} – ${fmtWeight(profile.range[1], 'ms')} (${fmtWeight(profile.range[1] - profile.range[0], 'ms')}); percentages of the selection.`);
    if (profile.computed) notes.push('Computed from the calls embedded in this report; calls shorter than the embedded minimum count as their caller\'s self time.');
    const tree = profile[which] || {};
    if (tree.pruned) notes.push(`${tree.pruned.toLocaleString('en-US')} nodes under ${fmtPct((tree.min_fraction ?? 0.0001) * 100)} of the total are not shown (every function is${this.kind === 'top_down' ? ' in Bottom-up and Functions' : ' a root here'}).`);
    if (tree.over_budget) {
      notes.push(profile.loadChildren
        ? `${tree.over_budget.toLocaleString('en-US')} deeper nodes are loaded when their parent is opened (the first ${tree.nodes.p.length.toLocaleString('en-US')} came breadth-first).`
        : `${tree.over_budget.toLocaleString('en-US')} deeper nodes are not in this report (it holds the first ${tree.nodes.p.length.toLocaleString('en-US')}, breadth-first); \`jsprof tree\` or \`jsprof view\` shows them.`);
    }
    this.note.textContent = notes.join(' ');
    this.note.hidden = !notes.length;
    this.info.textContent = `${profile.unit === 'bytes' ? 'Total' : 'Duration'} ${fmtWeight(profile.total, profile.unit)}`;
    this.filter();
  }

  // A node's children: those sent, or when the server held some back, all of them from it.
  async children(d, which) {
    if (d.more > 0 && this.profile.loadChildren) {
      const doc = await this.profile.loadChildren(which, d.k);
      d.kids = treeNodes(doc, doc.nodes);
      for (const k of d.kids) k.up = d;
      d.more = 0;
    }
    return d.kids;
  }

  async filter() {
    const m = matcher(this.input.value.trim());
    const test = m ? (d) => m(displayName(d.name)) || m(fmtLocation(d.url, d.line, d.column)) : null;
    this.test = test;
    this.hits = [];
    this.at = -1;
    if (!m) {
      this.hitInfo.textContent = '';
      this.table.setRoots(this.roots);
      if (this.kind === 'top_down') await this.table.expandHeaviest(8);
      return;
    }
    if (this.kind === 'functions') {
      const rows = this.roots.filter(test);
      this.table.setRoots(rows);
      this.hits = this.table.roots.map((r) => r.d); // in the table's order
    } else {
      // Trees: roots that match or hold a match, opened down to the matches; the matches in
      // the order they are drawn (depth-first, heaviest first).
      const holds = new Map();
      const walk = (d) => { let h = test(d); for (const k of d.kids) h = walk(k) || h; holds.set(d, h); return h; };
      this.roots.forEach(walk);
      this.table.setRoots(this.roots.filter((d) => holds.get(d)));
      await this.table.expandAll((d) => d.kids.some((k) => holds.get(k)));
      const order = (list) => { for (const r of list) { if (test(r.d)) this.hits.push(r.d); if (r.kids) order(r.kids); } };
      order(this.table.roots);
    }
    this.hitInfo.textContent = `${this.hits.length.toLocaleString('en-US')} match${this.hits.length === 1 ? '' : 'es'}${this.hits.length ? ' · Enter: next' : ''}`;
  }
}
