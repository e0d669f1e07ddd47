// Heap views walked one object at a time (`jsprof heap edges|strings|advisors|allocations --json`, served
// by ui_heap.rs): the Retainers tree (each retainer expands to its own retainers), the Containment
// view (from the snapshot's root down its edges), Duplicated strings and a .heaptimeline's
// Allocation stacks. The server lists edges in DevTools' order, a page at a time; the tables keep
// that order (no column sorts them).
import { fmtBytes, fmtPct, fmtCount, el, esc } from 'jsprof/format.js';
import { TreeTable, pctCell } from 'jsprof/table.js';

export const EDGE_PAGE = 50;

// DevTools' Distance column: `−` when nothing, or only the GC roots, reach the object (the JSON's
// null; older documents carried the raw 100000000+ or -5).
export function distance(d) {
  if (d == null || d < 0 || d >= 100000000) return '−';
  return String(d);
}

export function objectLabel(o) {
  const name = o.name && o.name !== o.class ? ` ${o.name.length > 80 ? o.name.slice(0, 80) + '…' : o.name}` : '';
  return `${o.class}${name} @${o.id}`;
}

// A bundled class's or function's original name and position, from its script's source map
// (`source_name` and `source_location` of a Summary row or an object), beside DevTools' name.
export function original(d) {
  if (!d.source_name && !d.source_location) return null;
  const text = [d.source_name, d.source_location].filter(Boolean).join(' ');
  return el('span', { class: 'original', text: ` ← ${text}`, title: `From the script's source map: ${text}` });
}

// Where an object's function is (a closure's own, an object's constructor's: `location`), as
// DevTools links it beside the object — the file's last name, line and column, the whole URL on
// hover — then the source map's original.
export function objectPlace(o) {
  if (!o.location) return original(o);
  const short = o.location.slice(o.location.lastIndexOf('/', o.location.length - 1) + 1);
  return el('span', null, el('span', { class: 'muted loc', text: ` ${short}`, title: o.location }), original(o));
}

// An edge row: `.next in Node @123` (a retainer) or `.next :: Node @123` (containment), as
// DevTools writes them, then where the object's function is.
function edgeCell(e, retainers) {
  const o = e.object;
  const name = o.name && o.name !== o.class ? ` ${o.name.length > 60 ? o.name.slice(0, 60) + '…' : o.name}` : '';
  return el('span', null,
    el('span', { class: 'edge', text: e.edge }),
    el('span', { class: 'muted', text: retainers ? ' in ' : ' :: ' }),
    el('span', { class: 'cls', text: o.class }),
    document.createTextNode(name + ' '),
    el('span', { class: 'id', text: `@${o.id}` }),
    objectPlace(o));
}

// A tree of edges: the roots are `node`'s edges, each row expands to the edges of the object at
// its other end. `load(id, offset, limit)` returns an EdgesReport page.
export class EdgeTree {
  constructor(root, { load, retainers, total, label, onSelect }) {
    this.load = load;
    this.retainers = retainers;
    const pct = (v) => (total ? (v * 100) / total : 0);
    const cols = [
      { title: retainers ? 'Retainer' : 'Object', cls: 'fn', render: (d) => (d.more ? this.moreCell(d) : edgeCell(d, retainers)) },
      { title: 'Distance', num: true, render: (d) => (d.more ? '' : distance(d.object.distance)) },
      { title: 'Shallow Size', num: true, render: (d) => (d.more ? '' : fmtBytes(d.object.self_size)) },
      { title: 'Retained Size', num: true, render: (d) => (d.more ? '' : fmtBytes(d.object.retained_size)) },
      { title: '', num: true, render: (d) => (d.more || !total ? '' : pctCell(fmtPct(pct(d.object.retained_size)), pct(d.object.retained_size))) },
    ];
    this.table = new TreeTable({
      columns: cols, treeColumn: 0, sortBy: -1, label, limit: 100000,
      children: (d) => this.page(d.object.id, 0, d),
      expandable: (d) => !d.more && d.edge_count > 0,
      onSelect: (d, row) => (d.note ? null : d.more ? this.more(row) : onSelect && onSelect(d.object, d)),
    });
    root.append(this.table.table);
  }

  moreCell(d) {
    if (d.note) return el('span', { class: 'muted', text: `… ${d.note}` });
    return el('a', { href: '#', text: `… ${fmtCount(d.left)} more — show ${Math.min(EDGE_PAGE, d.left)} more` });
  }

  // One page of `id`'s edges as rows, with a "more" row when there are more. A report holds
  // some pages only (`embedded`: the edges it has; `missing`: none): a note says where they end.
  async page(id, offset, parent) {
    const r = await this.load(id, offset, EDGE_PAGE);
    const elsewhere = '`jsprof view` on the snapshot walks every edge';
    if (r.missing) {
      const what = r.total ? `${fmtCount(r.total)} edge${r.total === 1 ? '' : 's'}` : 'its edges';
      return [{ more: true, note: `${what} not embedded: this report embeds the Containment a few levels down the largest objects only; ${elsewhere}` }];
    }
    const rows = r.edges.slice();
    const shown = offset + rows.length;
    if (r.total > shown && r.embedded != null && shown >= r.embedded) rows.push({ more: true, note: `${fmtCount(r.total - shown)} more not embedded in this report (it keeps the largest); ${elsewhere}` });
    else if (r.total > shown) rows.push({ more: true, id, offset: shown, left: r.total - shown });
    this.last = r;
    return rows;
  }

  async show(id) {
    const rows = await this.page(id, 0);
    const first = this.last;
    this.table.setRoots(rows);
    if (this.retainers) await this.expandChain(20);
    return first;
  }

  // DevTools' `expandRetainersChain(20)`: the object's retainers are listed, and the first
  // (closest) retainer opens while it is more than one step from a root, then its first, and so
  // on, `levels` deep in all: the shortest way out shows without a click.
  async expandChain(levels) {
    let list = this.table.roots;
    for (let i = 1; i < levels && list && list.length; i++) {
      const row = list[0];
      if (row.d.more || !(row.d.edge_count > 0)) break;
      const d = row.d.object.distance;
      if (d == null || d <= 1) break;
      await this.table.expand(row, true);
      list = row.kids;
    }
    this.table.render();
  }

  // Replaces a "more" row with the next page.
  async more(row) {
    const d = row.d;
    const got = await this.page(d.id, d.offset);
    const list = row.parent ? row.parent.kids : this.table.roots;
    const at = list.indexOf(row);
    list.splice(at, 1, ...got.map((x) => this.table.wrap(x, row.depth, row.parent)));
    this.table.render();
  }

  // For tests: the visible rows as [depth, edge, id].
  rows() {
    return this.table.visible.filter((r) => !r.more && !r.d.more).map((r) => [r.depth, r.d.edge, r.d.object.id]);
  }

  // For tests: expands the visible row of object `id` (the first one).
  async open(id) {
    const row = this.table.visible.find((r) => !r.more && !r.d.more && r.d.object.id === id);
    if (!row) return false;
    await this.table.expand(row, true);
    this.table.render();
    return true;
  }
}

// DevTools' Retainers panel as a tree: the selected object's retainers, closest first, each
// expanding to its own retainers. Where the edges are not served (the report), its embedded
// retaining paths.
export class RetainersPanel {
  constructor(root, heap) {
    this.heap = heap;
    this.head = el('div', { class: 'toolbar' }, el('strong', { text: 'Retainers' }));
    this.body = el('div', { class: 'scroll retainers', role: 'region', 'aria-label': 'Retainers' });
    this.info = el('span', { class: 'hint', text: 'Select an object to see what keeps it alive.' });
    this.head.append(this.info);
    root.append(this.head, this.body);
    // A report embeds no retainers' edges: its retaining paths instead (below).
    if (heap.edges && !heap.embedded) {
      this.tree = new EdgeTree(this.body, {
        retainers: true, label: 'Retainers',
        load: (id, offset, limit) => heap.edges(id, true, offset, limit),
      });
    }
  }

  async show(o) {
    if (!o || o.id == null) return;
    this.info.textContent = objectLabel(o);
    if (this.tree) {
      this.shown = o.id;
      try {
        const r = await this.tree.show(o.id);
        if (this.shown !== o.id) return;
        this.info.textContent = `${objectLabel(o)} · ${fmtCount(r.total)} retainer${r.total === 1 ? '' : 's'}` +
          (r.total ? '' : o.distance === 1 || o.distance === 0 ? ' — held by the snapshot\'s root only (a GC root)' : ' — nothing but weak references holds it');
      } catch (e) { this.info.textContent = e.message; }
      return;
    }
    this.body.textContent = '';
    let r;
    try { r = await this.heap.retainers(o.id); } catch (e) { this.body.append(el('div', { class: 'empty', text: e.message })); return; }
    if (r.missing) { this.body.append(el('div', { class: 'empty', text: 'The report embeds retainers for the largest objects of the largest classes only; open the snapshot with `jsprof view` for every object.' })); return; }
    if (!r.paths.length) { this.body.append(el('div', { class: 'empty', text: 'No path from a GC root (unreachable or only held by weak references).' })); return; }
    r.paths.forEach((p, n) => {
      const div = el('div', { class: 'path', role: 'listitem' });
      // A path of no steps: the object is itself one of the roots' children (a GC root), held by
      // the snapshot's root and nothing in between.
      div.append(el('div', { class: 'muted', text: p.steps.length
        ? `Path ${n + 1}: ${p.steps.length} step${p.steps.length === 1 ? '' : 's'} to a root`
        : `Path ${n + 1}: held directly by the snapshot's root — this object is a GC root (distance ${distance(o.distance)}).` }));
      p.steps.forEach((s, depth) => {
        const ret = s.retainer;
        const row = el('div', { class: 'step' });
        row.style.paddingLeft = 14 + depth * 14 + 'px';
        row.innerHTML = `<span class="edge">${esc(s.edge)}</span> in <span class="cls">${esc(ret.class)}</span>` +
          (ret.name && ret.name !== ret.class ? ` ${esc(ret.name.slice(0, 60))}` : '') +
          ` <span class="id">@${ret.id}</span> <span class="muted">· distance ${distance(ret.distance)} · shallow ${fmtBytes(ret.self_size)} · retained ${fmtBytes(ret.retained_size)}</span>`;
        div.append(row);
      });
      this.body.append(div);
    });
  }
}

// A view over a split: a table on top, the Retainers of the selected object below.
function split(root, toolbar) {
  const s = el('div', { class: 'split' });
  const top = el('div', { class: 'top' }), bottom = el('div', { class: 'bottom' });
  const scroll = el('div', { class: 'scroll' });
  top.append(toolbar, scroll);
  s.append(top, bottom);
  root.append(s);
  return { scroll, bottom };
}

// DevTools' Containment view: the snapshot's root, its edges to the GC roots and the user roots,
// and down from there, each object expanding to its outgoing edges.
export class ContainmentView {
  constructor(root, heap, total) {
    this.info = el('span', { class: 'hint', text: 'Loading…' });
    const { scroll, bottom } = split(root, el('div', { class: 'toolbar' }, this.info));
    const retainers = new RetainersPanel(bottom, heap);
    this.tree = new EdgeTree(scroll, {
      retainers: false, total, label: 'Containment',
      load: (id, offset, limit) => heap.edges(id, false, offset, limit),
      onSelect: (o) => retainers.show(o),
    });
    this.ready = this.tree.show('root').then((r) => {
      this.info.textContent = `${objectLabel(r.object)}: ${fmtCount(r.total)} edges, largest retained first (DevTools' Containment). Expand an object to walk its edges.` +
        (heap.embedded ? ' This report embeds the largest paths a few levels down.' : '');
    }, (e) => { this.info.textContent = e.message; });
  }
}

// `jsprof heap strings`: values held more than once, largest waste first.
export class StringsView {
  constructor(root, heap) {
    this.info = el('span', { class: 'hint', text: 'Loading…' });
    const { scroll, bottom } = split(root, el('div', { class: 'toolbar' }, this.info));
    const retainers = new RetainersPanel(bottom, heap);
    const cols = [
      { title: 'Value', cls: 'fn', value: (g) => g.value, render: (g) => JSON.stringify(g.value.length > 120 ? g.value.slice(0, 120) + '…' : g.value) + (g.truncated ? ' (cut by V8)' : ''), title_of: (g) => g.value.slice(0, 2000) },
      { title: 'Count', num: true, value: (g) => g.count, render: (g) => fmtCount(g.count) },
      { title: 'Total size', num: true, value: (g) => g.total_size, render: (g) => fmtBytes(g.total_size) },
      { title: 'Wasted', num: true, value: (g) => g.wasted_size, render: (g) => fmtBytes(g.wasted_size) },
      { title: 'Sample', num: true, value: (g) => g.sample_id, render: (g) => `@${g.sample_id}` },
    ];
    this.table = new TreeTable({ columns: cols, treeColumn: -1, flat: true, sortBy: 3, label: 'Duplicated strings',
      onSelect: (g) => retainers.show({ id: g.sample_id, class: '(string)', name: g.value.slice(0, 60) }) });
    scroll.append(this.table.table);
    this.ready = heap.strings().then((r) => {
      this.report = r;
      const wasted = r.strings.reduce((a, g) => a + g.wasted_size, 0);
      this.info.textContent = r.total
        ? `${fmtCount(r.total)} duplicated value${r.total === 1 ? '' : 's'}` + (r.total > r.strings.length ? ` (the ${fmtCount(r.strings.length)} most wasteful shown)` : '') + ` · ${fmtBytes(wasted)} wasted in those shown · select one for the retainers of a copy`
        : 'No string is held more than once.';
      this.table.setRoots(r.strings);
    }, (e) => { this.info.textContent = e.message; });
  }
}

// `jsprof heap advisors`: memory the program could give back, largest saving first, each finding
// with what holds it; selecting one shows the retainers of its largest object.
const ADVISORS = {
  duplicate_objects: 'Duplicated objects',
  empty_collections: 'Empty collections',
  low_cardinality_maps: 'Low-cardinality maps',
  sparse_arrays: 'Sparse arrays',
  unread_context_variables: 'Unread context variables',
  detached_by_listeners: 'Detached DOM kept by listeners',
  duplicate_strings: 'Duplicated strings',
};
export class AdvisorsView {
  constructor(root, heap) {
    this.info = el('span', { class: 'hint', text: 'Loading…' });
    const { scroll, bottom } = split(root, el('div', { class: 'toolbar' }, this.info));
    const retainers = new RetainersPanel(bottom, heap);
    const what = (f) => (f.value != null ? JSON.stringify(f.value.length > 80 ? f.value.slice(0, 80) + '…' : f.value)
      : f.entries != null ? `${f.class} (${fmtCount(f.entries)} entries, ${fmtCount(f.distinct_values)} values)` : f.class);
    const cols = [
      { title: 'Advisor', value: (f) => f.advisor, render: (f) => ADVISORS[f.advisor] || f.advisor },
      { title: 'Objects', cls: 'fn', value: (f) => what(f), render: (f) => what(f) + (f.smi_blind ? ' *' : ''), title_of: (f) => (f.smi_blind ? 'Small integers have no node in a snapshot: objects that differ only in them look alike here.' : what(f)) },
      { title: 'Held by', cls: 'fn', value: (f) => f.held_by, render: (f) => f.held_by, title_of: (f) => f.held_by },
      { title: 'Where', cls: 'loc', value: (f) => f.location || '', render: (f) => f.location || '', title_of: (f) => f.location || '' },
      { title: 'Count', num: true, value: (f) => f.count, render: (f) => fmtCount(f.count) },
      { title: 'Saving', num: true, value: (f) => f.saving, render: (f) => fmtBytes(f.saving) },
      { title: 'Sample', num: true, value: (f) => f.sample_id, render: (f) => `@${f.sample_id}` },
    ];
    this.table = new TreeTable({ columns: cols, treeColumn: -1, flat: true, sortBy: 5, label: 'Advisors',
      onSelect: (f) => retainers.show({ id: f.sample_id, class: f.class, name: f.class }) });
    scroll.append(this.table.table);
    this.ready = heap.advisors().then((r) => {
      this.report = r;
      this.info.textContent = r.total
        ? `${fmtCount(r.total)} finding${r.total === 1 ? '' : 's'} · ${fmtBytes(r.total_saving)} to save in all` + (r.total > r.advice.length ? ` (the ${fmtCount(r.advice.length)} largest shown)` : '') + ' · select one for the retainers of its largest object'
        : 'No advisor found memory to give back.';
      this.table.setRoots(r.advice);
    }, (e) => { this.info.textContent = e.message; });
  }
}

// `jsprof heap process`: a Node process's memory, isolate by isolate (this snapshot and the others
// open, each isolate's latest), with the RSS none of them explains; every figure is the
// document's, formatted, never recomputed.
export class ProcessView {
  constructor(root, heap, others) {
    this.info = el('span', { class: 'hint', text: 'Loading…' });
    const scroll = el('div', { class: 'scroll process' });
    root.append(el('div', { class: 'toolbar' }, this.info), scroll);
    const usage = (i, k) => (i.memory_usage ? fmtBytes(i.memory_usage[k]) : '–');
    const cols = [
      { title: 'Isolate', cls: 'fn', value: (i) => i.isolate, render: (i) => i.isolate },
      { title: 'JS heap', num: true, value: (i) => i.js_heap, render: (i) => fmtBytes(i.js_heap) },
      { title: 'heapUsed', num: true, value: (i) => i.memory_usage?.heapUsed ?? -1, render: (i) => usage(i, 'heapUsed') },
      { title: 'heapTotal', num: true, value: (i) => i.memory_usage?.heapTotal ?? -1, render: (i) => usage(i, 'heapTotal') },
      { title: 'Buffers', num: true, value: (i) => i.external_buffers, render: (i) => fmtBytes(i.external_buffers) },
      { title: 'arrayBuffers', num: true, value: (i) => i.memory_usage?.arrayBuffers ?? -1, render: (i) => usage(i, 'arrayBuffers') },
      { title: 'external', num: true, value: (i) => i.memory_usage?.external ?? -1, render: (i) => usage(i, 'external') },
      { title: 'Snapshot', cls: 'loc', value: (i) => i.snapshot, render: (i) => `${i.snapshot} (of ${i.snapshots})`, title_of: (i) => i.snapshot },
    ];
    this.tables = [];
    this.ready = heap.process(others).then((r) => {
      this.report = r;
      const n = r.processes.reduce((a, p) => a + p.isolates.length, 0);
      this.info.textContent = `${r.processes.length} process${r.processes.length === 1 ? '' : 'es'}, ${n} isolate${n === 1 ? '' : 's'}` +
        // A report embeds its process document whole (its other snapshots are a series, not
        // the isolates); live, the document is this snapshot's and the others open.
        (heap.embedded ? (n === 1 ? ' (`jsprof report DIR` of a recording shows every isolate)' : ', each one\'s latest snapshot as recorded')
          : others.length ? ` from this snapshot and the ${others.length} other${others.length === 1 ? '' : 's'} open`
            : ' (open the process\'s other snapshots beside this one to see its workers)') +
        (r.warnings.length ? ` · ${r.warnings.map((w) => `${w.at}: ${w.message}`).join(' · ')}` : '');
      for (const p of r.processes) {
        const section = el('section', { class: 'process-one' });
        section.append(el('h3', { text: p.process + (p.pid != null ? ` (pid ${p.pid})` : '') }));
        if (p.rss != null && p.js_heaps != null && p.external != null && p.unexplained != null) {
          const parts = [['V8 heaps', p.js_heaps, '#6fa8dc'], ['external', p.external, '#f6b26b'], ['not explained by any isolate', Math.max(0, p.unexplained), '#d6dbe0']];
          const bar = el('div', { class: 'process-bar', role: 'img', 'aria-label': 'RSS' });
          for (const [label, bytes, colour] of parts) {
            bar.append(el('span', { title: `${label}: ${fmtBytes(bytes)}`, style: `flex-grow:${bytes};background:${colour}` }));
          }
          const signed = p.unexplained < 0 ? `-${fmtBytes(-p.unexplained)}` : fmtBytes(p.unexplained);
          section.append(el('p', { class: 'process-rss', text: `RSS ${fmtBytes(p.rss)} = V8 heaps ${fmtBytes(p.js_heaps)} + external ${fmtBytes(p.external)} + not explained by any isolate ${signed}` }), bar);
        }
        const table = new TreeTable({ columns: cols, treeColumn: -1, flat: true, sortBy: 1, label: `${p.process}'s isolates` });
        table.setRoots(p.isolates);
        this.tables.push(table);
        section.append(table.table);
        for (const i of p.isolates) {
          if (!i.owners.length) continue;
          const list = el('ul', { class: 'process-owners' });
          for (const o of i.owners) list.append(el('li', { text: `${fmtBytes(o.bytes)}  ${o.class} (${fmtCount(o.count)} buffer${o.count === 1 ? '' : 's'}${o.sample_id != null ? `, e.g. @${o.sample_id}` : ''})` }));
          section.append(el('p', { class: 'hint', text: `${i.isolate}'s buffers are owned by:` }), list);
        }
        scroll.append(section);
      }
    }, (e) => { this.info.textContent = e.message; });
  }
}

// `jsprof heap allocations`: the allocation stacks of a .heaptimeline, top-down or per allocating
// function with its callers (DevTools' Allocation view).
export class AllocationsView {
  constructor(root, heap) {
    const bar = el('div', { class: 'toolbar' });
    this.mode = el('select', { 'aria-label': 'Allocation tree' },
      el('option', { value: 'bottom-up', text: 'Allocating functions (bottom-up)' }),
      el('option', { value: 'top-down', text: 'Call tree (top-down)' }));
    this.info = el('span', { class: 'hint' });
    bar.append(this.mode, this.info);
    const scroll = el('div', { class: 'scroll' });
    root.append(bar, scroll);
    const fname = (s) => s.name || '(anonymous)';
    const loc = (s) => (s.url ? `${s.url}${s.line ? `:${s.line}${s.column ? `:${s.column}` : ''}` : ''}` : '');
    const cols = [
      { title: 'Function', cls: 'fn', value: (s) => fname(s).toLowerCase(), render: (s) => fname(s) },
      { title: 'Count', num: true, value: (s) => s.count, render: (s) => fmtCount(s.count) },
      { title: 'Size', num: true, value: (s) => s.size, render: (s) => fmtBytes(s.size) },
      { title: 'Live Count', num: true, value: (s) => s.live_count, render: (s) => fmtCount(s.live_count) },
      { title: 'Live Size', num: true, value: (s) => s.live_size, render: (s) => fmtBytes(s.live_size) },
      { title: 'Location', cls: 'loc', value: (s) => loc(s), render: (s) => loc(s), title_of: (s) => loc(s) },
    ];
    this.table = new TreeTable({ columns: cols, treeColumn: 0, sortBy: 4, label: 'Allocation stacks',
      children: (s) => s.children || s.callers || [],
      expandable: (s) => (s.children || s.callers || []).length > 0 });
    scroll.append(this.table.table);
    const load = async () => {
      this.info.textContent = 'Loading…';
      try {
        const r = await heap.allocations(this.mode.value === 'bottom-up');
        this.report = r;
        const sum = (k) => r.stacks.reduce((a, s) => a + s[k], 0);
        this.info.textContent = r.view === 'bottom-up'
          ? `${fmtCount(r.stacks.length)} allocating functions · expand one for its callers`
          : `${fmtCount(sum('count'))} objects allocated at the top level, ${fmtCount(sum('live_count'))} still live`;
        this.table.setRoots(r.stacks);
      } catch (e) { this.info.textContent = e.message; }
    };
    this.mode.addEventListener('change', load);
    this.ready = load();
  }
}
