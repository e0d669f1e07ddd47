// Heap views: Summary (a class expands to its objects, scrolled through however many there
// are), the dominator tree, Statistics, Comparison, detached DOM trees; each with the Retainers
// tree of the selected object (heapviews.js, with Containment, Duplicated strings and Allocation
// stacks).
import { fmtBytes, fmtPct, fmtCount, el, matcher } from 'jsprof/format.js';
import { TreeTable, pctCell } from 'jsprof/table.js';
import { RetainersPanel, distance, objectLabel, objectPlace, original } from 'jsprof/heapviews.js';

// Objects asked for at a time: a screenful (about 40 rows) falls within two pages.
export const PAGE = 100;
// The scrolled space is capped below every browser's element height (Chromium's is about 33.5
// million pixels); past it a pixel of scrollbar moves more than a pixel of rows.
const MAX_SPACE = 8_000_000;
// How long the scrollbar must rest before the rows under it are asked for: a drag across a
// class of millions asks only for where it stops.
const SETTLE_MS = 30;

function objectColumns(total) {
  return [
    { title: 'Constructor', cls: 'fn', value: (d) => (d.class ?? d.name).toLowerCase(), render: (d) => d.isClass ? el('span', null, el('strong', { text: d.name }), el('span', { class: 'muted', text: ` ×${fmtCount(d.count)}` }), original(d)) : el('span', null, objectLabel(d), objectPlace(d)) },
    { title: 'Distance', num: true, value: (d) => d.distance ?? Infinity, render: (d) => distance(d.distance) },
    { title: 'Shallow Size', num: true, value: (d) => d.self_size, render: (d) => fmtBytes(d.self_size) },
    { title: '', num: true, value: (d) => d.self_size, render: (d) => pctCell(fmtPct((d.self_size * 100) / total), (d.self_size * 100) / total) },
    { title: 'Retained Size', num: true, value: (d) => d.retained_size, render: (d) => fmtBytes(d.retained_size) },
    { title: '', num: true, value: (d) => d.retained_size, render: (d) => pctCell(fmtPct((d.retained_size * 100) / total), (d.retained_size * 100) / total) },
  ];
}

// The server's order of a class's objects for each column (`jsprof heap class --sort`): the
// Constructor column orders them by id (a class's objects share its name).
const SERVER_SORT = ['id', 'distance', 'self', 'self', 'retained', 'retained'];

// The children of one expanded row (or the roots): `total` rows of which only the loaded ones
// exist. Dense: every row at hand (the classes; what a report embeds). Paged: rows fetched by
// offset, in the server's order. `open` holds its expanded rows, by index.
class Level {
  constructor(owner, total, rows) {
    this.owner = owner;
    this.total = total;
    this.dense = !!rows;
    this.rows = rows || new Map();
    this.open = [];
    this.pending = new Map();
    this.gen = 0;
    this.error = null;
  }

  get(i) { return this.dense ? this.rows[i] : this.rows.get(i); }

  // Rows shown: its own and those of its expanded rows, all the way down.
  size() {
    let n = this.total;
    for (const r of this.open) n += r.level.size();
    return n;
  }

  // The row at position `p` of what this level shows, or a hole {level, index} not yet loaded.
  at(p) {
    let shift = 0;
    for (const r of this.open) {
      const pos = r.index + shift;
      if (p < pos) break;
      if (p === pos) return r;
      const s = r.level.size();
      if (p <= pos + s) return r.level.at(p - pos - 1);
      shift += s;
    }
    const i = p - shift;
    return this.get(i) || { hole: true, level: this, index: i };
  }

  // The position of its row `index` among what it shows.
  positionOf(index) {
    let p = index;
    for (const r of this.open) {
      if (r.index >= index) break;
      p += r.level.size();
    }
    return p;
  }

  loaded() {
    return this.dense ? this.rows : [...this.rows.keys()].sort((a, b) => a - b).map((i) => this.rows.get(i));
  }
}

// A tree table that draws only the rows in view: a class of millions of objects expanded
// scrolls as one list, whose scrollbar spans all of it; rows come from the server by offset,
// a page at a time, when they come into view. The table sits still at the top of its scroller
// (`.vport`, sticky) over a spacer as tall as the rows; the scroll position picks the first row.
// Sorting a paged list asks the server for that order (`page(d, offset, limit, order)`).
export class ScrollTable extends TreeTable {
  // options: TreeTable's, plus page(d | null, offset, limit, order) -> {total, objects,
  // embedded?, missing?} (d's children; null: the roots), order(sortBy, sortDir) -> the server
  // order of a paged list, or null when the server has one order only (the column then sorts
  // nothing), and sortable (false: no column sorts).
  constructor(scroller, options) {
    super(options);
    this.scroller = scroller;
    this.level = new Level(null, 0, []);
    this.first = 0;
    this.rowH = 0;
    this.table.classList.add('scrolled');
    this.box = el('div', { class: 'vport' }, this.table);
    this.space = el('div', { class: 'vspace' });
    scroller.append(this.box, this.space);
    this.listeners = [['scroll', () => this.onScroll(), undefined], ['wheel', (e) => this.onWheel(e), { passive: false }]];
    for (const [type, f, o] of this.listeners) scroller.addEventListener(type, f, o);
    this.resized = new ResizeObserver(() => this.render());
    this.resized.observe(scroller);
  }

  // Lets go of the scroller (a Summary reloaded draws a new table in it).
  destroy() {
    for (const [type, f, o] of this.listeners) this.scroller.removeEventListener(type, f, o);
    this.resized.disconnect();
    clearTimeout(this.settle);
    this.box.remove();
    this.space.remove();
  }

  // TreeTable's own fields: the roots are the top level's loaded rows.
  get roots() { return this.level ? this.level.loaded() : []; }
  set roots(_) {}

  // The header is TreeTable's; a click re-sorts the loaded levels, asking the server again where
  // a level is paged.
  resortAll() { this.resort(this.level); }

  wrap(d, depth, parent, index) {
    return { d, depth, parent, index, expanded: false, level: null, get kids() { return this.level ? this.level.loaded() : null; } };
  }

  order() { return this.o.order ? this.o.order(this.sortBy, this.sortDir) : null; }

  setRoots(list) {
    this.level = this.denseLevel(null, list.map((d, i) => this.wrap(d, 0, null, i)));
    this.selected = null;
    this.scrollTo(0);
  }

  // The roots from `page(null, …)`, paged like any child list.
  async loadRoots() {
    this.level = await this.makeLevel(null);
    this.selected = null;
    this.scrollTo(0);
  }

  denseLevel(owner, rows) {
    const level = new Level(owner, rows.length, rows);
    this.sortDense(level);
    return level;
  }

  // A dense level in the column's order, notes ("not embedded") last.
  sortDense(level) {
    const cmp = this.compare();
    const notes = level.rows.filter((r) => r.d.note);
    const rows = level.rows.filter((r) => !r.d.note);
    if (cmp) rows.sort(cmp);
    level.rows = rows.concat(notes);
    level.rows.forEach((r, i) => { r.index = i; });
    level.open.sort((a, b) => a.index - b.index);
  }

  // The children of `row` (null: the roots) from their first page: a paged level, or dense
  // where the source holds a bounded part (the report), with a note for the rest.
  async makeLevel(row) {
    const depth = row ? row.depth + 1 : 0;
    const order = this.order();
    const page = await this.o.page(row ? row.d : null, 0, PAGE, order);
    const note = (text) => this.wrap({ note: text, id: null }, depth, row, 0);
    if (page.missing) return this.denseLevel(row, [note(page.note || 'these objects are not embedded in this report: `jsprof view` on the snapshot shows them all')]);
    if (page.embedded != null) {
      const rows = page.objects.map((d) => this.wrap(d, depth, row, 0));
      if (page.total > rows.length) rows.push(note(`${fmtCount(page.total - rows.length)} more not embedded in this report (it keeps the largest): \`jsprof view\` on the snapshot scrolls through all ${fmtCount(page.total)}`));
      return this.denseLevel(row, rows);
    }
    const level = new Level(row, page.total, null);
    level.order = order;
    page.objects.forEach((d, i) => level.rows.set(i, this.wrap(d, depth, row, i)));
    return level;
  }

  // Loads page `k` of a paged level (once, however often asked).
  fetch(level, k) {
    if (level.pending.has(k)) return level.pending.get(k);
    const gen = level.gen;
    const owner = level.owner;
    const p = this.o.page(owner ? owner.d : null, k * PAGE, PAGE, level.order).then((page) => {
      if (level.gen !== gen) return;
      const depth = owner ? owner.depth + 1 : 0;
      page.objects.forEach((d, i) => { if (!level.rows.has(k * PAGE + i)) level.rows.set(k * PAGE + i, this.wrap(d, depth, owner, k * PAGE + i)); });
    }, (e) => { if (level.gen === gen) level.error = e.message; }).finally(() => {
      if (level.gen === gen) level.pending.delete(k);
      this.render();
    });
    level.pending.set(k, p);
    return p;
  }

  // After a column changed: dense levels sort here, paged ones are asked for in the new order.
  resort(level) {
    if (level.dense) this.sortDense(level);
    else {
      const order = this.order();
      if (order && JSON.stringify(order) !== JSON.stringify(level.order)) {
        level.order = order;
        level.gen++;
        level.rows = new Map();
        level.open = [];
        level.pending = new Map();
        if (this.selected && !this.live(this.selected)) this.selected = null;
      }
    }
    for (const r of level.open) this.resort(r.level);
  }

  // Whether a row is still where its level shows it.
  live(r) {
    for (let x = r; x; x = x.parent) {
      const level = x.parent ? x.parent.level : this.level;
      if (!level || level.get(x.index) !== x || (x.parent && !x.parent.expanded)) return false;
    }
    return true;
  }

  async expand(row, on = true) {
    if (!this.expandable(row) || row.hole) return;
    if (on && !row.level) row.level = await this.makeLevel(row);
    if (on === row.expanded) return;
    const level = row.parent ? row.parent.level : this.level;
    row.expanded = on;
    if (on) { level.open.push(row); level.open.sort((a, b) => a.index - b.index); } else level.open = level.open.filter((r) => r !== row);
  }

  // Opens or closes a row; a class closed deep in its objects stays in view.
  async toggle(r) {
    await this.expand(r, !r.expanded);
    const p = this.positionOf(r);
    if (!r.expanded && (p < this.first || p >= this.first + this.geometry().inView)) this.scrollTo(p);
    else this.render();
  }

  // The position of a row among all rows shown.
  positionOf(r) {
    const level = r.parent ? r.parent.level : this.level;
    const within = level.positionOf(r.index);
    return r.parent ? this.positionOf(r.parent) + 1 + within : within;
  }

  rowAt(p) { return this.level.at(p); }

  get count() { return this.level.size(); }

  // The geometry: rows in view, the last first row, the scrolled space.
  geometry() {
    const head = this.thead.offsetHeight;
    const h = this.rowH || 22;
    const inView = Math.max(1, Math.floor((this.scroller.clientHeight - head) / h));
    const maxFirst = Math.max(0, this.count - inView);
    return { inView, maxFirst, space: Math.min(maxFirst * h, MAX_SPACE) };
  }

  // Shows position `first` at the top.
  scrollTo(first) {
    const g = this.geometry();
    this.first = Math.max(0, Math.min(first, g.maxFirst));
    this.space.style.height = g.space + 'px';
    this.scroller.scrollTop = g.maxFirst ? (this.first / g.maxFirst) * g.space : 0;
    this.topSet = this.scroller.scrollTop;
    this.render();
  }

  // Scrolls so that position `p` is in view.
  showPosition(p) {
    const g = this.geometry();
    if (p < this.first) this.scrollTo(p);
    else if (p >= this.first + g.inView) this.scrollTo(p - g.inView + 1);
  }

  onScroll() {
    const top = this.scroller.scrollTop;
    if (top === this.topSet) return;
    const g = this.geometry();
    this.first = g.space ? Math.round((top / g.space) * g.maxFirst) : 0;
    this.topSet = null;
    this.render();
  }

  // Where a pixel of scrollbar is more than a pixel of rows, the wheel still moves the rows by
  // as many pixels as it turned (in whole rows), not by that many pixels of scrollbar.
  onWheel(e) {
    const g = this.geometry();
    const h = this.rowH || 22;
    if (!g.space || g.maxFirst * h <= g.space + 1 || e.ctrlKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) return;
    e.preventDefault();
    const px = e.deltaMode === 1 ? e.deltaY * h : e.deltaMode === 2 ? e.deltaY * g.inView * h : e.deltaY;
    this.wheel = (this.wheel || 0) + px / h;
    const step = Math.trunc(this.wheel);
    this.wheel -= step;
    if (step) this.scrollTo(this.first + step);
  }

  render() {
    if (!this.level) return;
    const g = this.geometry();
    this.space.style.height = g.space + 'px';
    this.box.style.height = this.scroller.clientHeight + 'px';
    this.first = Math.max(0, Math.min(this.first, g.maxFirst));
    const end = Math.min(this.count, this.first + g.inView + 1);
    const frag = document.createDocumentFragment();
    const shown = [];
    let holes = false;
    // Assistive technology counts every row, not the drawn ones (the header is row 1).
    this.table.setAttribute('aria-rowcount', this.count + 1);
    for (let p = this.first; p < end; p++) {
      const r = this.rowAt(p);
      if (r.hole) holes = true;
      shown.push(r);
      const tr = this.rowElement(r);
      tr.setAttribute('aria-rowindex', p + 2);
      frag.append(tr);
    }
    this.visible = shown;
    this.tbody.textContent = '';
    this.tbody.append(frag);
    // The first rows drawn give the height every row is drawn at.
    if (!this.rowH && shown.length && !shown[0].hole) {
      const h = this.tbody.firstChild.getBoundingClientRect().height;
      if (h > 0) { this.rowH = Math.round(h); this.render(); return; }
    }
    clearTimeout(this.settle);
    if (holes) this.settle = setTimeout(() => this.loadInView(), SETTLE_MS);
  }

  // Asks for the pages of the rows in view that are not loaded.
  loadInView() {
    const g = this.geometry();
    const end = Math.min(this.count, this.first + g.inView + 1);
    for (let p = this.first; p < end; p++) {
      const r = this.rowAt(p);
      if (r.hole && !r.level.error) this.fetch(r.level, Math.floor(r.index / PAGE));
    }
  }

  // Whether every row in view is drawn with its data (for tests and timing).
  get settled() { return this.visible.every((r) => !r.hole); }

  rowElement(r) {
    const cols = this.o.columns;
    const style = this.rowH ? `height:${this.rowH}px` : null;
    if (r.hole || r.d.note) {
      const text = r.hole ? (r.level.error ? `could not load: ${r.level.error}` : '…') : `… ${r.d.note}`;
      const td = el('td', { colspan: cols.length, class: 'muted', text });
      td.style.paddingLeft = 22 + (r.hole ? (r.level.owner ? r.level.owner.depth + 1 : 0) : r.depth) * 14 + 'px';
      const tr = el('tr', { class: r.hole ? 'hole' : 'note', style }, td);
      if (!r.hole) { r.tr = tr; tr.addEventListener('click', () => this.select(r)); }
      return tr;
    }
    const tr = el('tr', { 'aria-level': r.depth + 1, 'aria-selected': r === this.selected ? 'true' : null, style });
    this.fillRow(tr, r, () => this.toggle(r));
    tr.addEventListener('click', () => this.select(r));
    tr.addEventListener('dblclick', async () => { await this.toggle(r); if (this.o.onActivate) this.o.onActivate(r.d, r); });
    r.tr = tr;
    return tr;
  }

  select(r, scroll) {
    this.selected = r;
    if (scroll) this.showPosition(this.positionOf(r));
    for (const v of this.visible) if (v.tr) v.tr.setAttribute('aria-selected', v === r ? 'true' : 'false');
    if (this.o.onSelect && !r.d.note) this.o.onSelect(r.d, r);
  }

  // Selects the row at position `p`, loading its page first when it is not loaded.
  async selectAt(p) {
    let r = this.rowAt(p);
    if (r.hole) {
      await this.fetch(r.level, Math.floor(r.index / PAGE));
      r = this.rowAt(p);
      if (r.hole) return;
    }
    this.select(r, true);
  }

  // Keys are handled one after the other: a key held down across rows not loaded yet moves as
  // many rows as it was pressed.
  key(e) {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End', 'PageDown', 'PageUp', 'ArrowRight', 'ArrowLeft', 'Enter'].includes(e.key)) return;
    e.preventDefault();
    this.keys = (this.keys || Promise.resolve()).then(() => this.move(e.key));
  }

  async move(key) {
    const r = this.selected && this.live(this.selected) ? this.selected : null;
    const last = this.count - 1;
    let p = r ? this.positionOf(r) : -1;
    const page = this.geometry().inView;
    switch (key) {
      case 'ArrowDown': p = Math.min(last, p + 1); break;
      case 'ArrowUp': p = Math.max(0, p - 1); break;
      case 'Home': p = 0; break;
      case 'End': p = last; break;
      case 'PageDown': p = Math.min(last, p + page); break;
      case 'PageUp': p = Math.max(0, p - page); break;
      case 'ArrowRight':
        if (r && this.expandable(r)) {
          if (!r.expanded) { await this.expand(r, true); this.render(); } else if (r.level.total) await this.selectAt(this.positionOf(r) + 1);
        }
        return;
      case 'ArrowLeft':
        if (r && r.expanded) { await this.toggle(r); this.select(r, true); } else if (r && r.parent) this.select(r.parent, true);
        return;
      case 'Enter':
        if (r && this.o.onActivate) this.o.onActivate(r.d, r);
        return;
    }
    if (p >= 0) await this.selectAt(p);
  }
}

// A class's objects or a dominator's children, as a scrolled table.
function heapTable(scroller, total, { page, order, expandable, onSelect, label, sortable }) {
  const table = new ScrollTable(scroller, {
    columns: objectColumns(total), treeColumn: 0, sortBy: 4, label, sortable,
    page, order, expandable: (d) => !d.note && expandable(d),
    onSelect: (d, row) => onSelect(d, row),
  });
  return table;
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
      // Each pair once: the server takes the two in the order they were taken (V8's ids grow).
      snaps.forEach((a, i) => snaps.slice(i + 1).forEach((b) => {
        this.objects.append(el('option', { value: `${a.session}/${a.artifact} ${b.session}/${b.artifact}`, text: `Objects allocated between ${a.label} and ${b.label}` }));
      }));
      this.objects.addEventListener('change', () => this.reload());
      bar.append(this.objects);
    }
    // DevTools' "JavaScript context" select, filled once the contexts are known (shown only
    // when the snapshot has more than one).
    this.context = null; // a native context's id, 'shared' or 'none'; null: every context
    this.contexts = el('select', { 'aria-label': 'JavaScript context', hidden: true }, el('option', { value: '', text: 'All contexts' }));
    this.contexts.addEventListener('change', () => {
      this.objects.value = '';
      this.reload();
    });
    bar.append(this.contexts, this.input, this.info);
    const split = el('div', { class: 'split' });
    const top = el('div', { class: 'top' }), bottom = el('div', { class: 'bottom' });
    this.scroll = el('div', { class: 'scroll' });
    top.append(this.scroll);
    split.append(top, bottom);
    root.append(bar, split);
    this.retainers = new RetainersPanel(bottom, heap);
    this.input.addEventListener('input', () => { clearTimeout(this.t); this.t = setTimeout(() => this.filter(), 150); });
  }

  // The Summary again, of all objects, of those allocated between the two chosen snapshots
  // (`jsprof heap summary THIS --between FIRST SECOND`) or of one JavaScript context's
  // (`jsprof heap summary THIS --context C`).
  async reload() {
    this.range = this.objects.value ? this.objects.value.split(' ') : null;
    // One filter at a time: the server filters by allocation or by context, not both.
    if (this.range) this.contexts.value = '';
    this.context = this.contexts.value || null;
    if (this.table) this.table.destroy();
    this.scroll.textContent = '';
    await this.load();
  }

  // The select's options, from `jsprof heap contexts`: each context with the bytes it owns
  // alone, then the shared and the unattributed bytes.
  async listContexts() {
    if (!this.heap.contexts || this.contextsListed) return;
    this.contextsListed = true;
    const c = await this.heap.contexts();
    if (c.contexts.length < 2) return;
    for (const x of c.contexts) this.contexts.append(el('option', { value: String(x.id), text: `${x.name} @${x.id} (${fmtBytes(x.attributed_size)})` }));
    this.contexts.append(
      el('option', { value: 'shared', text: `Shared between contexts (${fmtBytes(c.shared_size)})` }),
      el('option', { value: 'none', text: `In no context (${fmtBytes(c.unattributed_size)})` }));
    this.contexts.hidden = false;
  }

  async load() {
    const range = this.range, context = this.context;
    const [s] = await Promise.all([
      range ? this.heap.summaryBetween(range[0], range[1]) : this.heap.summary(context),
      this.listContexts(),
    ]);
    if (range !== this.range || context !== this.context) return;
    this.summary = s;
    this.classes = s.classes.map((c) => Object.assign({ isClass: true }, c));
    const count = s.classes.reduce((n, c) => n + c.count, 0);
    const of = `${fmtCount(s.classes.length)} classes · of ${fmtBytes(s.total_size)}`;
    this.info.textContent = s.between
      ? `${fmtCount(count)} objects allocated between the two (ids after @${s.between.after_id} up to @${s.between.up_to_id}) · ${of}`
      : s.context
        ? `${fmtCount(count)} objects ${s.context.owner === 'context' ? `of ${s.context.name} @${s.context.id}` : s.context.owner === 'shared' ? 'shared between contexts' : 'in no context'} · ${of}`
        : `${fmtCount(s.node_count)} objects · total ${fmtBytes(s.total_size)} · ${fmtCount(s.classes.length)} classes`;
    // The server's notes (two snapshots given newest first were taken in time order).
    if (s.between && s.warnings && s.warnings.length) this.info.textContent += ' · ' + s.warnings.map((w) => w.message).join(' · ');
    // A class's objects in the order of the sorted column, as `jsprof heap class --sort`.
    const page = (d, offset, limit, order) => (range
      ? this.heap.classPageBetween(range[0], range[1], d.key, offset, limit, order)
      : this.heap.classPage(d.key, offset, limit, order, context));
    this.table = heapTable(this.scroll, s.total_size, {
      page, label: 'Summary',
      order: (by, dir) => ({ sort: SERVER_SORT[by], ascending: dir > 0 }),
      expandable: (d) => d.isClass,
      onSelect: (d) => { if (!d.isClass) this.retainers.show(d); },
    });
    this.filter();
  }

  filter() {
    const m = matcher(this.input.value.trim());
    this.table.setRoots(m ? this.classes.filter((c) => m(c.name) || (c.source_name && m(c.source_name))) : this.classes);
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
    // The server lists a node's children largest retained first, its one order: no column sorts.
    this.table = heapTable(scroll, total, {
      page: (d, offset, limit) => heap.dominated(d ? d.id : null, offset, limit),
      label: 'Dominators', sortable: false,
      expandable: (d) => d.retained_size > d.self_size,
      onSelect: (d) => retainers.show(d),
    });
    this.ready = this.table.loadRoots();
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
    this.table = table;
    this.ready = heap.detached().then((r) => {
      this.info.textContent = r.trees.length ? `${r.trees.length} detached DOM tree${r.trees.length === 1 ? '' : 's'}, ${fmtCount(r.trees.reduce((a, t) => a + t.node_count, 0))} nodes, ${fmtBytes(r.trees.reduce((a, t) => a + t.retained_size, 0))} retained` : 'No detached DOM trees.';
      table.setRoots(r.trees);
    });
  }
}

// Objects per page of a Comparison row, each page behind a "more" row.
const COMPARISON_PAGE = 20;

// DevTools' Comparison: per class, the objects new since the base and those deleted; a row
// expands to those objects (`jsprof heap diff BASE THIS --class KEY`), new ones first, a page of
// each at a time; selecting a new object shows its Retainers.
export class ComparisonView {
  // bases: [{label, session, artifact}]
  constructor(root, heap, bases) {
    const bar = el('div', { class: 'toolbar' });
    // A report embeds one comparison: the snapshot it opens on against the one before.
    const select = el('select', { 'aria-label': 'Base snapshot', disabled: !!heap.embedded });
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
      { title: 'Constructor', cls: 'fn', value: (d) => d.name.toLowerCase(), render: (d) => (d.more ? el('a', { href: '#', text: `… ${fmtCount(d.left)} more ${d.side} — show ${COMPARISON_PAGE} more` }) : d.object ? el('span', null, el('span', { class: d.side === 'new' ? 'added' : 'deleted', text: d.side === 'new' ? '+ ' : '− ' }), objectLabel(d.object)) : d.name) },
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
    const changes = async (key, offset) => heap.diffClass(base[0], base[1], key, offset, COMPARISON_PAGE);
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

// The report's heap views (`jsprof report SNAPSHOT…`): the documents it embedded, each as the CLI
// prints it, behind the interface the server's routes give (source.js' `ServerSource.artifact`).
// `heap` is the report's Summary and Dominators (source.js' `embeddedArtifact`); `data.views`
// holds `heap_containment` (the Containment pages it embedded, the root's first), `heap_strings`,
// `heap_advisors`, `heap_contexts` and `heap_context_summaries` (by context id, `shared`, `none`),
// `heap_process` (a recorded snapshot with its memoryUsage()),
// and with several snapshots `heap_diff` (the last against the one before), `heap_leaks` (three)
// or `heap_leak_series` (four or more); `data.snapshots` names them, oldest first.
export function embeddedHeap(heap, data) {
  const views = data.views || {};
  const names = data.snapshots || [];
  const pages = new Map();
  (views.heap_containment || []).forEach((p, i) => { pages.set(p.object.id, p); if (i === 0) pages.set('root', p); });
  const doc = (v) => (v ? async () => v : undefined);
  return {
    ...heap,
    embedded: true,
    // The earlier snapshots as `jsprof view` lists the others, and the one the report opens on.
    bases: names.slice(0, -1).map((label, i) => ({ label, session: 'report', artifact: String(i) })),
    self: { label: names[names.length - 1] || data.name, session: 'report', artifact: 'last' },
    // A page of an object's outgoing edges where the report embedded them; `missing` elsewhere.
    edges: views.heap_containment ? async (id, retainers, offset, limit) => {
      const p = !retainers && pages.get(id);
      if (!p || offset >= p.offset + p.edges.length) return { missing: true, total: p ? p.total : 0, offset, edges: [] };
      return { ...p, offset, edges: p.edges.slice(offset - p.offset, offset - p.offset + limit), embedded: p.offset + p.edges.length };
    } : undefined,
    // DevTools' "JavaScript context" select: `heap contexts`, less the contexts whose Summary
    // the report did not embed (it embeds the first 16), and each one's `heap summary --context`.
    contexts: views.heap_contexts && views.heap_context_summaries ? async () => ({
      ...views.heap_contexts,
      contexts: views.heap_contexts.contexts.filter((c) => views.heap_context_summaries[String(c.id)]),
    }) : undefined,
    summary: views.heap_context_summaries ? async (context) => (context ? views.heap_context_summaries[context] : heap.summary()) : heap.summary,
    // A context's class objects are not embedded (its Summary's rows are).
    classPage: async (key, offset, limit, order, context) => (context ? { total: 0, offset, objects: [], missing: true } : heap.classPage(key, offset, limit, order)),
    strings: doc(views.heap_strings),
    advisors: doc(views.heap_advisors),
    // A recorded snapshot's isolate with its memoryUsage() (`heap process FILE --limit 10`).
    process: views.heap_process ? async () => views.heap_process : undefined,
    diff: doc(views.heap_diff),
    leaks: doc(views.heap_leaks),
    leakSeries: doc(views.heap_leak_series),
  };
}

// Each verdict's colour (a growing group is a leak).
const VERDICT_COLOURS = { growing: '#cf222e', bounded: '#9a6700', 'one-off': '#57606a', flat: '#8c959f' };

// A group's series across the snapshots as a small chart (issue 36): one point per snapshot, of
// the values the document holds (in `data-values` and the chart's title, never recomputed), drawn
// in the verdict's colour. `what` is `count` or `retained`; `fmt` formats one value.
export function sparkline(values, verdict, what, fmt) {
  const ns = 'http://www.w3.org/2000/svg';
  const W = 84, H = 20, pad = 2;
  const max = Math.max(...values, 0);
  const x = (i) => pad + (values.length > 1 ? (i * (W - 2 * pad)) / (values.length - 1) : (W - 2 * pad) / 2);
  const y = (v) => H - pad - (max > 0 ? (v * (H - 2 * pad)) / max : 0);
  const colour = VERDICT_COLOURS[verdict] || VERDICT_COLOURS.flat;
  const svg = document.createElementNS(ns, 'svg');
  const label = `${what === 'count' ? 'Objects' : 'Retained size'} per snapshot: ${values.map(fmt).join(' → ')} (${verdict})`;
  for (const [k, v] of Object.entries({ width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'spark', role: 'img', 'aria-label': label, 'data-series': what, 'data-values': values.join(','), 'data-verdict': verdict })) svg.setAttribute(k, v);
  svg.style.verticalAlign = 'middle';
  const title = document.createElementNS(ns, 'title');
  title.textContent = label;
  const line = document.createElementNS(ns, 'polyline');
  line.setAttribute('points', values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '));
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke', colour);
  line.setAttribute('stroke-width', '1.5');
  const dot = document.createElementNS(ns, 'circle');
  dot.setAttribute('cx', x(values.length - 1).toFixed(1));
  dot.setAttribute('cy', y(values[values.length - 1] || 0).toFixed(1));
  dot.setAttribute('r', '2');
  dot.setAttribute('fill', colour);
  svg.append(title, line, dot);
  return svg;
}

// A series' cell: its chart, then its last value.
const seriesCell = (g, what, values, fmt) => el('span', { class: 'spark-cell' }, sparkline(values, g.verdict, what, fmt), el('span', { text: ' ' + fmt(values[values.length - 1] || 0) }));

// Leaks (as `jsprof heap leaks BASE TARGET FINAL`): the objects of this snapshot created between
// a baseline and a target snapshot, grouped by class and retaining path, largest retained first.
// Over a series of four or more snapshots (`jsprof heap leaks S1 … SN --all`), each group's count
// and retained size across them as small charts, with its verdict (growing, bounded, one-off).
export class LeaksView {
  // snaps: [{label, session, artifact}] other snapshots in the server; self: this one's
  // {label, session, artifact}
  constructor(root, heap, snaps, onObject, self) {
    const bar = el('div', { class: 'toolbar' });
    const pick = (label, k) => {
      const s = el('select', { 'aria-label': label, disabled: !!heap.embedded });
      for (const b of snaps) s.append(el('option', { value: `${b.session}/${b.artifact}`, text: b.label }));
      // Shown, not picked: where the server's order makes this snapshot the baseline or target.
      if (self) s.append(el('option', { value: `${self.session}/${self.artifact}`, text: 'this snapshot', disabled: true }));
      if (snaps[k]) s.value = `${snaps[k].session}/${snaps[k].artifact}`;
      return s;
    };
    // A first guess only: the server puts the three in the process's order (V8's object ids only
    // grow) and the selects follow the order it used (see load).
    this.base = pick('Baseline snapshot', 0);
    this.target = pick('Target snapshot', snaps.length > 1 ? 1 : 0);
    this.info = el('span', { class: 'hint' });
    // Four or more snapshots: the series (the default), or a baseline and a target.
    const canSeries = !!heap.leakSeries && snaps.length >= 3 && (!heap.embedded || !heap.leaks);
    const canTriple = !heap.embedded || !!heap.leaks;
    this.mode = el('select', { 'aria-label': 'Leaks over' });
    if (canSeries) this.mode.append(el('option', { value: 'series', text: `The series of all ${snaps.length + 1} snapshots` }));
    if (canTriple) this.mode.append(el('option', { value: 'triple', text: 'A baseline and a target' }));
    this.pickers = el('span', { class: 'pickers' }, el('span', { text: 'Baseline' }), this.base, el('span', { text: 'Target' }), this.target, el('span', { class: 'hint', text: '→ this snapshot is the final one' }));
    if (canSeries && canTriple) bar.append(this.mode);
    bar.append(this.pickers, this.info);
    const scroll = el('div', { class: 'scroll' });
    this.path = el('div', { class: 'retainers leak-path' });
    root.append(bar, scroll, this.path);
    const pathText = (g) => g.path.map((p) => `${p.class}${p.edge}`).join(' → ') || '(no path from a root)';
    const tripleCols = [
      { title: 'Class', cls: 'fn', value: (g) => g.class.toLowerCase(), render: (g) => g.class },
      { title: 'Count', num: true, value: (g) => g.count, render: (g) => fmtCount(g.count) },
      { title: 'Retained size', num: true, value: (g) => g.retained_size, render: (g) => fmtBytes(g.retained_size) },
      { title: 'Retained through (root → object)', value: (g) => pathText(g), render: (g) => pathText(g) },
    ];
    const last = (v) => v[v.length - 1] || 0;
    const seriesCols = [
      { title: 'Verdict', value: (g) => g.verdict, render: (g) => el('span', { class: 'verdict', style: `color:${VERDICT_COLOURS[g.verdict] || ''};font-weight:600`, text: g.verdict }) },
      { title: 'Class', cls: 'fn', value: (g) => g.class.toLowerCase(), render: (g) => g.class },
      { title: 'Count', num: true, value: (g) => last(g.count), render: (g) => seriesCell(g, 'count', g.count, fmtCount) },
      { title: 'Retained size', num: true, value: (g) => last(g.retained_size), render: (g) => seriesCell(g, 'retained', g.retained_size, fmtBytes) },
      { title: 'Retained through (root → object)', value: (g) => pathText(g), render: (g) => pathText(g) },
    ];
    const showPath = (g) => {
      this.path.textContent = '';
      if (!g) return;
      const seriesOf = Array.isArray(g.count);
      const head = seriesOf
        ? `${g.class} · ${g.verdict} · ${fmtCount(last(g.count))} objects, ${fmtBytes(last(g.retained_size))} in the last snapshot with it · e.g. @${g.sample_id}`
        : `${g.class} ×${fmtCount(g.count)} · ${fmtBytes(g.retained_size)} · e.g. @${g.sample_id}`;
      this.path.append(el('h3', { text: head }));
      const box = el('div', { class: 'path' });
      g.path.forEach((p, i) => box.append(el('div', { class: 'step', style: `padding-left:${i * 12}px`, text: `${p.class} ${p.edge}` })));
      box.append(el('div', { class: 'step', style: `padding-left:${g.path.length * 12}px`, text: `${g.class} @${g.sample_id}` }));
      this.path.append(box);
      if (onObject) onObject(g);
    };
    const makeTable = (columns, sortBy) => {
      scroll.textContent = '';
      const table = new TreeTable({ columns, treeColumn: -1, flat: true, sortBy, label: 'Leaks', onSelect: showPath });
      scroll.append(table.table);
      this.table = table;
      return table;
    };
    const loadTriple = async () => {
      const table = makeTable(tripleCols, 2);
      const [bs, ba] = this.base.value.split('/'), [ts, ta] = this.target.value.split('/');
      this.info.textContent = 'Finding leaks…';
      try {
        const r = await heap.leaks(`${bs}/${ba}`, `${ts}/${ta}`);
        this.report = r;
        this.groups = r.groups;
        // Reordered by the server (V8's object ids only grow): the pickers show the baseline and
        // the target it used, and a word says when this snapshot is not the final one.
        const here = self ? `${self.session}/${self.artifact}` : null;
        const given = { base: this.base.value, target: this.target.value, final: here };
        const label = (v) => (v === here ? 'this snapshot' : ([...this.base.options].find((o) => o.value === v) || {}).text || v);
        let finalIs = here;
        for (const s of r.snapshots || []) {
          const v = given[s.given];
          if (s.role === 'final') finalIs = v;
          else if (v && [...this[s.role].options].some((o) => o.value === v)) this[s.role].value = v;
        }
        this.reordered = finalIs !== here;
        const note = this.reordered ? ` · in the order the process took them, ${label(finalIs)} is the final snapshot: these are the objects it still holds, and this snapshot is the ${(r.snapshots.find((s) => s.given === 'final') || {}).role}` : '';
        this.info.textContent = `${r.total} group${r.total === 1 ? '' : 's'} of objects created between the baseline and the target and still alive` + (r.total > r.groups.length ? ` (the ${r.groups.length} largest shown)` : '') + note + r.warnings.map((w) => ` · ${w.message}`).join('');
        table.setRoots(r.groups);
        showPath(r.groups[0]);
      } catch (e) { this.info.textContent = e.message; }
    };
    // The series ends with this snapshot; the server orders them by their names, as `jsprof heap
    // leaks` does.
    const loadSeries = async () => {
      const table = makeTable(seriesCols, -1);
      this.info.textContent = 'Following the groups across the snapshots…';
      try {
        const r = await heap.leakSeries(snaps.map((s) => `${s.session}/${s.artifact}`));
        this.report = r;
        this.groups = r.groups;
        const v = r.verdicts;
        this.info.textContent = `${r.snapshots.length} snapshots · ${v.growing} growing, ${v.bounded} bounded, ${v.one_off} one-off group${v.growing + v.bounded + v.one_off === 1 ? '' : 's'} (Mann-Kendall, alpha ${r.alpha})` +
          (r.total > r.groups.length ? ` · the ${r.groups.length} first of ${r.total} shown` : '') + r.warnings.map((w) => ` · ${w.message}`).join('');
        table.setRoots(r.groups);
        showPath(r.groups[0]);
      } catch (e) { this.info.textContent = e.message; }
    };
    const load = () => {
      const series = this.mode.value === 'series';
      this.pickers.hidden = series;
      return series ? loadSeries() : loadTriple();
    };
    this.base.addEventListener('change', load);
    this.target.addEventListener('change', load);
    this.mode.addEventListener('change', load);
    this.ready = snaps.length >= 2 ? load() : (this.info.textContent = 'Open three snapshots (jsprof view BASE TARGET FINAL) to find leaks.', Promise.resolve());
  }
}
