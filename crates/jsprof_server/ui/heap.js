// Heap views: Summary (a class expands to its objects, a page at a time), the dominator tree,
// Statistics, Comparison, detached DOM trees; each with the Retainers tree of the selected
// object (heapviews.js, with Containment, Duplicated strings and Allocation stacks).
import { fmtBytes, fmtPct, fmtCount, el, matcher } from 'jsprof/format.js';
import { TreeTable, pctCell } from 'jsprof/table.js';
import { RetainersPanel, distance, objectLabel } from 'jsprof/heapviews.js';

const PAGE = 20;

function objectColumns(total) {
  return [
    { title: 'Constructor', cls: 'fn', value: (d) => (d.class ?? d.name).toLowerCase(), render: (d) => d.isClass ? el('span', null, el('strong', { text: d.name }), el('span', { class: 'muted', text: ` ×${fmtCount(d.count)}` })) : objectLabel(d) },
    { title: 'Distance', num: true, value: (d) => d.distance ?? Infinity, render: (d) => distance(d.distance) },
    { title: 'Shallow Size', num: true, value: (d) => d.self_size, render: (d) => fmtBytes(d.self_size) },
    { title: '', num: true, value: (d) => d.self_size, render: (d) => pctCell(fmtPct((d.self_size * 100) / total), (d.self_size * 100) / total) },
    { title: 'Retained Size', num: true, value: (d) => d.retained_size, render: (d) => fmtBytes(d.retained_size) },
    { title: '', num: true, value: (d) => d.retained_size, render: (d) => pctCell(fmtPct((d.retained_size * 100) / total), (d.retained_size * 100) / total) },
  ];
}

// Children fetched a page at a time; a "load more" pseudo-object asks for the next page.
function pager(load) {
  return async (d, offset = 0) => {
    const page = await load(d, offset, PAGE);
    const list = page.objects.slice();
    const shown = offset + list.length;
    if (page.missing) list.push({ more: true, note: 'not embedded in this report', class: '', id: null });
    else if (page.total > shown) {
      const bound = page.embedded != null ? Math.min(page.total, page.embedded) : page.total;
      list.push({ more: true, parent: d, offset: shown, left: page.total - shown, bound, class: '', id: null });
    }
    return list;
  };
}

function moreRow(d) {
  if (d.note) return el('span', { class: 'muted', text: `… ${d.note}` });
  if (d.offset >= d.bound) return el('span', { class: 'muted', text: `… ${fmtCount(d.left)} more (not embedded in this report)` });
  return el('a', { href: '#', text: `… ${fmtCount(d.left)} more — show ${PAGE} more` });
}

function heapTable(root, total, children, expandable, onSelect, label) {
  const cols = objectColumns(total);
  const first = cols[0];
  first.render = ((orig) => (d) => (d.more ? moreRow(d) : orig(d)))(first.render);
  const table = new TreeTable({
    columns: cols, treeColumn: 0, sortBy: 4, label,
    children, expandable: (d) => !d.more && expandable(d),
    rootLimit: 300,
    onSelect: (d, row) => onSelect(d, row, table),
    onActivate: (d, row) => onSelect(d, row, table, true),
  });
  root.append(table.table);
  return table;
}

// Loads the next page in place of a "more" row.
async function loadMore(table, row, load) {
  const d = row.d;
  if (!d.more || d.note || d.offset >= d.bound) return;
  const list = row.parent ? row.parent.kids : table.roots;
  const got = await load(d.parent, d.offset);
  const at = list.indexOf(row);
  const wrapped = got.map((x) => table.wrap(x, row.depth, row.parent));
  list.splice(at, 1, ...wrapped);
  if (row.parent) row.parent.limit = Math.max(row.parent.limit, list.length);
  table.render();
}

export class SummaryView {
  // snaps: [{label, session, artifact}] every snapshot in the server, this one included, for
  // DevTools' filter "Objects allocated between Snapshot 1 and Snapshot 2".
  constructor(root, heap, snaps = []) {
    this.heap = heap;
    const bar = el('div', { class: 'toolbar' });
    this.input = el('input', { type: 'search', placeholder: 'Class filter', 'aria-label': 'Class filter' });
    this.info = el('span', { class: 'hint' });
    this.range = null; // [first, second] as SESSION/ARTIFACT, or null: all objects
    this.objects = el('select', { 'aria-label': 'Objects' }, el('option', { value: '', text: 'All objects' }));
    if (heap.summaryBetween && snaps.length >= 2) {
      for (const a of snaps) for (const b of snaps) {
        if (a === b) continue;
        this.objects.append(el('option', { value: `${a.session}/${a.artifact} ${b.session}/${b.artifact}`, text: `Objects allocated between ${a.label} and ${b.label}` }));
      }
      this.objects.addEventListener('change', () => this.reload());
      bar.append(this.objects);
    }
    bar.append(this.input, this.info);
    const split = el('div', { class: 'split' });
    const top = el('div', { class: 'top' }), bottom = el('div', { class: 'bottom' });
    this.scroll = el('div', { class: 'scroll' });
    top.append(this.scroll);
    split.append(top, bottom);
    root.append(bar, split);
    this.retainers = new RetainersPanel(bottom, heap);
    this.input.addEventListener('input', () => { clearTimeout(this.t); this.t = setTimeout(() => this.filter(), 150); });
  }

  // The Summary again, of all objects or of those allocated between the two chosen snapshots
  // (`jsprof heap summary THIS --between FIRST SECOND`).
  async reload() {
    this.range = this.objects.value ? this.objects.value.split(' ') : null;
    this.scroll.textContent = '';
    await this.load();
  }

  async load() {
    const range = this.range;
    const s = range ? await this.heap.summaryBetween(range[0], range[1]) : await this.heap.summary();
    if (range !== this.range) return;
    this.summary = s;
    this.classes = s.classes.map((c) => Object.assign({ isClass: true }, c));
    const count = s.classes.reduce((n, c) => n + c.count, 0);
    this.info.textContent = s.between
      ? `${fmtCount(count)} objects allocated between the two (ids after @${s.between.after_id} up to @${s.between.up_to_id}) · ${fmtCount(s.classes.length)} classes · of ${fmtBytes(s.total_size)}`
      : `${fmtCount(s.node_count)} objects · total ${fmtBytes(s.total_size)} · ${fmtCount(s.classes.length)} classes`;
    const load = pager((d, offset, limit) => (range ? this.heap.classPageBetween(range[0], range[1], d.key, offset, limit) : this.heap.classPage(d.key, offset, limit)));
    this.loadPage = load;
    this.table = heapTable(this.scroll, s.total_size, (d, offset) => load(d, offset), (d) => d.isClass, async (d, row, table, activate) => {
      if (d.more) { await loadMore(table, row, load); return; }
      if (!d.isClass) this.retainers.show(d);
    }, 'Summary');
    this.filter();
  }

  filter() {
    const m = matcher(this.input.value.trim());
    this.table.setRoots(m ? this.classes.filter((c) => m(c.name)) : this.classes);
  }

  // For tests: expand a class row by name.
  async open(name) {
    const row = this.table.roots.find((r) => r.d.name === name);
    if (!row) return false;
    await this.table.expand(row, true);
    this.table.render();
    return true;
  }
}

export class DominatorsView {
  constructor(root, heap, total) {
    this.heap = heap;
    const split = el('div', { class: 'split' });
    const top = el('div', { class: 'top' }), bottom = el('div', { class: 'bottom' });
    const scroll = el('div', { class: 'scroll' });
    top.append(el('div', { class: 'toolbar' }, el('span', { class: 'hint', text: 'The dominator tree: each object holds what it alone keeps alive. Expand to walk it.' })), scroll);
    split.append(top, bottom);
    root.append(split);
    const retainers = new RetainersPanel(bottom, heap);
    const load = pager((d, offset, limit) => heap.dominated(d ? d.id : null, offset, limit));
    this.table = heapTable(scroll, total, (d, offset) => load(d, offset), (d) => d.retained_size > d.self_size, async (d, row, table) => {
      if (d.more) { await loadMore(table, row, load); return; }
      retainers.show(d);
    }, 'Dominators');
    load(null, 0).then((list) => this.table.setRoots(list));
  }
}

export function statisticsView(root, summary) {
  const st = summary.statistics;
  // DevTools' pie, as `jsprof heap stats` prints it: the named slices, then what is left of
  // the V8 heap (other JS objects) and of native memory (other non-JS objects) — native memory
  // is not JS objects.
  const parts = [
    ['Code', st.v8heap.code, '#f0a04b'],
    ['Strings', st.v8heap.strings, '#6fa8dc'],
    ['JS arrays', st.v8heap.jsArrays, '#79c07f'],
    ['Typed arrays', st.native.typedArrays, '#e06666'],
    ['System objects', st.v8heap.system, '#b48ee0'],
    ['Other JS objects', Math.max(0, st.v8heap.total - st.v8heap.code - st.v8heap.strings - st.v8heap.jsArrays - st.v8heap.system), '#d6dbe0'],
    ['Other non-JS objects (such as HTML and CSS)', Math.max(0, st.native.total - st.native.typedArrays), '#a7b0ba'],
  ];
  const wrap = el('div', { class: 'stats' });
  const canvas = el('canvas', { width: 220, height: 220, 'aria-label': 'Statistics chart' });
  canvas.style.width = '220px'; canvas.style.height = '220px';
  const ctx = canvas.getContext('2d');
  let a = -Math.PI / 2;
  for (const [, v, c] of parts) {
    const da = st.total ? (v / st.total) * Math.PI * 2 : 0;
    ctx.beginPath(); ctx.moveTo(110, 110); ctx.arc(110, 110, 100, a, a + da); ctx.closePath();
    ctx.fillStyle = c; ctx.fill();
    a += da;
  }
  ctx.beginPath(); ctx.arc(110, 110, 58, 0, Math.PI * 2); ctx.fillStyle = '#fff'; ctx.fill();
  ctx.fillStyle = '#1f2328'; ctx.font = '600 15px system-ui, sans-serif'; ctx.textAlign = 'center';
  ctx.fillText(fmtBytes(st.total), 110, 108);
  ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#656d76'; ctx.fillText('total', 110, 126);
  const table = el('table', { class: 'legend' });
  for (const [name, v, c] of parts) {
    table.append(el('tr', { 'data-bytes': v },
      el('td', null, el('span', { class: 'swatch', style: `background:${c}` }), name),
      el('td', { class: 'num', text: fmtBytes(v) }),
      el('td', { class: 'num muted', text: fmtPct(st.total ? (v * 100) / st.total : 0) })));
  }
  table.append(el('tr', null, el('td', { text: 'V8 heap' }), el('td', { class: 'num', text: fmtBytes(st.v8heap.total) }), el('td')));
  table.append(el('tr', null, el('td', { text: 'Native' }), el('td', { class: 'num', text: fmtBytes(st.native.total) }), el('td')));
  wrap.append(canvas, table);
  root.append(wrap);
}

export class DetachedView {
  constructor(root, heap, total) {
    const split = el('div', { class: 'split' });
    const top = el('div', { class: 'top' }), bottom = el('div', { class: 'bottom' });
    const scroll = el('div', { class: 'scroll' });
    this.info = el('span', { class: 'hint' });
    top.append(el('div', { class: 'toolbar' }, this.info), scroll);
    split.append(top, bottom);
    root.append(split);
    const retainers = new RetainersPanel(bottom, heap);
    const cols = [
      { title: 'Detached tree', cls: 'fn', value: (d) => d.root.class, render: (d) => objectLabel(d.root) },
      { title: 'Nodes', num: true, value: (d) => d.node_count, render: (d) => fmtCount(d.node_count) },
      { title: 'Retained Size', num: true, value: (d) => d.retained_size, render: (d) => fmtBytes(d.retained_size) },
      { title: '', num: true, value: (d) => d.retained_size, render: (d) => pctCell(fmtPct((d.retained_size * 100) / total), (d.retained_size * 100) / total) },
    ];
    const table = new TreeTable({ columns: cols, treeColumn: -1, flat: true, sortBy: 2, label: 'Detached DOM trees', onSelect: (d) => retainers.show(d.root) });
    scroll.append(table.table);
    heap.detached().then((r) => {
      this.info.textContent = r.trees.length ? `${r.trees.length} detached DOM tree${r.trees.length === 1 ? '' : 's'}, ${fmtCount(r.trees.reduce((a, t) => a + t.node_count, 0))} nodes, ${fmtBytes(r.trees.reduce((a, t) => a + t.retained_size, 0))} retained` : 'No detached DOM trees.';
      table.setRoots(r.trees);
    });
  }
}

// DevTools' Comparison: per class, the objects new since the base and those deleted; a row
// expands to those objects (`jsprof heap diff BASE THIS --class KEY`), new ones first, a page of
// each at a time; selecting a new object shows its Retainers.
export class ComparisonView {
  // bases: [{label, session, artifact}]
  constructor(root, heap, bases) {
    const bar = el('div', { class: 'toolbar' });
    const select = el('select', { 'aria-label': 'Base snapshot' });
    for (const b of bases) select.append(el('option', { value: `${b.session}/${b.artifact}`, text: b.label }));
    this.info = el('span', { class: 'hint' });
    bar.append(el('span', { text: 'Compared with' }), select, this.info);
    const { scroll, bottom } = (() => {
      const split = el('div', { class: 'split' });
      const top = el('div', { class: 'top' }), bottom = el('div', { class: 'bottom' });
      const scroll = el('div', { class: 'scroll' });
      top.append(scroll);
      split.append(top, bottom);
      root.append(bar, split);
      return { scroll, bottom };
    })();
    const retainers = heap.diffClass ? new RetainersPanel(bottom, heap) : null;
    const sign = (v, f) => (v > 0 ? '+' : v < 0 ? '−' : '') + f(Math.abs(v));
    const blank = (f) => (d) => (d.object || d.more ? '' : f(d));
    const cols = [
      { title: 'Constructor', cls: 'fn', value: (d) => d.name.toLowerCase(), render: (d) => (d.more ? el('a', { href: '#', text: `… ${fmtCount(d.left)} more ${d.side} — show ${PAGE} more` }) : d.object ? el('span', null, el('span', { class: d.side === 'new' ? 'added' : 'deleted', text: d.side === 'new' ? '+ ' : '− ' }), objectLabel(d.object)) : d.name) },
      { title: '# New', num: true, value: (d) => d.new_count, render: blank((d) => fmtCount(d.new_count)) },
      { title: '# Deleted', num: true, value: (d) => d.deleted_count, render: blank((d) => fmtCount(d.deleted_count)) },
      { title: '# Delta', num: true, value: (d) => d.count_delta, render: blank((d) => sign(d.count_delta, fmtCount)) },
      { title: 'Alloc. Size', num: true, value: (d) => d.alloc_size, render: (d) => (d.more || (d.object && d.side !== 'new') ? '' : fmtBytes(d.alloc_size)) },
      { title: 'Freed Size', num: true, value: (d) => d.freed_size, render: (d) => (d.more || (d.object && d.side !== 'deleted') ? '' : fmtBytes(d.freed_size)) },
      { title: 'Size Delta', num: true, value: (d) => d.size_delta, render: blank((d) => sign(d.size_delta, fmtBytes)) },
      { title: 'Retained Delta', num: true, value: (d) => d.retained_delta, render: blank((d) => sign(d.retained_delta, fmtBytes)) },
    ];
    let base = null;
    // A page of one side's objects as rows that sort with the classes' columns (new objects by
    // their size, deleted ones after them), then a "more" row.
    const rows = (key, side, page) => {
      const list = page.objects.map((o) => ({
        object: o, side, key, name: objectLabel(o),
        new_count: side === 'new' ? 1 : 0, deleted_count: side === 'deleted' ? 1 : 0, count_delta: side === 'new' ? 1 : -1,
        alloc_size: side === 'new' ? o.self_size : 0, freed_size: side === 'deleted' ? o.self_size : 0,
        size_delta: side === 'new' ? o.self_size : -o.self_size, retained_delta: 0,
      }));
      const shown = page.offset + page.objects.length;
      if (page.total > shown) list.push({ more: true, side, key, offset: shown, left: page.total - shown, name: '', new_count: -1, deleted_count: -1, count_delta: -Infinity, alloc_size: -1, freed_size: -1, size_delta: -Infinity, retained_delta: -Infinity });
      return list;
    };
    const changes = async (key, offset) => heap.diffClass(base[0], base[1], key, offset, PAGE);
    const table = new TreeTable({
      columns: cols, treeColumn: 0, sortBy: 6, label: 'Comparison',
      expandable: (d) => !!heap.diffClass && !d.object && !d.more,
      children: async (d) => {
        const r = await changes(d.key, 0);
        return [...rows(d.key, 'new', r.new), ...rows(d.key, 'deleted', r.deleted)];
      },
      onSelect: async (d, row) => {
        if (d.more) {
          const r = await changes(d.key, d.offset);
          const list = row.parent.kids;
          list.splice(list.indexOf(row), 1, ...rows(d.key, d.side, r[d.side]).map((x) => table.wrap(x, row.depth, row.parent)));
          table.sortAll(list);
          row.parent.limit = Math.max(row.parent.limit, list.length);
          table.render();
        } else if (d.object && d.side === 'new' && retainers) retainers.show(d.object);
      },
    });
    this.table = table;
    scroll.append(table.table);
    const load = async () => {
      base = select.value.split('/');
      this.info.textContent = 'Comparing…';
      try {
        const r = await heap.diff(base[0], base[1]);
        this.info.textContent = `${r.classes.length} classes changed` + (r.warnings.length ? ` · ${r.warnings.map((w) => w.message).join('; ')}` : '') + (heap.diffClass ? ' · expand a class for its new and deleted objects' : '');
        table.setRoots(r.classes);
      } catch (e) { this.info.textContent = e.message; }
    };
    select.addEventListener('change', load);
    this.ready = bases.length ? load() : Promise.resolve(this.info.textContent = 'Open a second snapshot (jsprof view A.heapsnapshot B.heapsnapshot) to compare.');
  }
}

// Leaks (as `jsprof heap leaks BASE TARGET FINAL`): the objects of this snapshot created between
// a baseline and a target snapshot, grouped by class and retaining path, largest retained first.
export class LeaksView {
  // snaps: [{label, session, artifact}] other snapshots in the server
  constructor(root, heap, snaps, onObject) {
    const bar = el('div', { class: 'toolbar' });
    const pick = (label, k) => {
      const s = el('select', { 'aria-label': label });
      for (const b of snaps) s.append(el('option', { value: `${b.session}/${b.artifact}`, text: b.label }));
      if (snaps[k]) s.value = `${snaps[k].session}/${snaps[k].artifact}`;
      return s;
    };
    // A first guess only: the server puts the three in the process's order (V8's object ids only
    // grow) and the selects follow the order it used (see load).
    this.base = pick('Baseline snapshot', 0);
    this.target = pick('Target snapshot', snaps.length > 1 ? 1 : 0);
    this.info = el('span', { class: 'hint' });
    bar.append(el('span', { text: 'Baseline' }), this.base, el('span', { text: 'Target' }), this.target, el('span', { class: 'hint', text: '→ this snapshot is the final one' }), this.info);
    const scroll = el('div', { class: 'scroll' });
    this.path = el('div', { class: 'retainers leak-path' });
    root.append(bar, scroll, this.path);
    const pathText = (g) => g.path.map((p) => `${p.class}${p.edge}`).join(' → ') || '(no path from a root)';
    const cols = [
      { title: 'Class', cls: 'fn', value: (g) => g.class.toLowerCase(), render: (g) => g.class },
      { title: 'Count', num: true, value: (g) => g.count, render: (g) => fmtCount(g.count) },
      { title: 'Retained size', num: true, value: (g) => g.retained_size, render: (g) => fmtBytes(g.retained_size) },
      { title: 'Retained through (root → object)', value: (g) => pathText(g), render: (g) => pathText(g) },
    ];
    const showPath = (g) => {
      this.path.textContent = '';
      if (!g) return;
      this.path.append(el('h3', { text: `${g.class} ×${fmtCount(g.count)} · ${fmtBytes(g.retained_size)} · e.g. @${g.sample_id}` }));
      const box = el('div', { class: 'path' });
      g.path.forEach((p, i) => box.append(el('div', { class: 'step', style: `padding-left:${i * 12}px`, text: `${p.class} ${p.edge}` })));
      box.append(el('div', { class: 'step', style: `padding-left:${g.path.length * 12}px`, text: `${g.class} @${g.sample_id}` }));
      this.path.append(box);
      if (onObject) onObject(g);
    };
    const table = new TreeTable({ columns: cols, treeColumn: -1, flat: true, sortBy: 2, label: 'Leaks', onSelect: showPath });
    scroll.append(table.table);
    this.table = table;
    const load = async () => {
      const [bs, ba] = this.base.value.split('/'), [ts, ta] = this.target.value.split('/');
      this.info.textContent = 'Finding leaks…';
      try {
        const r = await heap.leaks(`${bs}/${ba}`, `${ts}/${ta}`);
        this.groups = r.groups;
        // Reordered by the server: show the baseline and target it used.
        const given = { base: this.base.value, target: this.target.value };
        for (const s of r.snapshots || []) if (s.role !== 'final' && given[s.given]) this[s.role].value = given[s.given];
        this.info.textContent = `${r.total} group${r.total === 1 ? '' : 's'} of objects created between the baseline and the target and still alive` + (r.total > r.groups.length ? ` (the ${r.groups.length} largest shown)` : '') + r.warnings.map((w) => ` · ${w.message}`).join('');
        table.setRoots(r.groups);
        showPath(r.groups[0]);
      } catch (e) { this.info.textContent = e.message; }
    };
    this.base.addEventListener('change', load);
    this.target.addEventListener('change', load);
    this.ready = snaps.length >= 2 ? load() : (this.info.textContent = 'Open three snapshots (jsprof view BASE TARGET FINAL) to find leaks.', Promise.resolve());
  }
}
