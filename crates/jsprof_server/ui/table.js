// A sortable tree table with keyboard navigation (↑ ↓ move, → expand, ← collapse, Enter opens),
// lazily loaded children and a cap on rows per level ("… N more").
import { el } from 'jsprof/format.js';

export class TreeTable {
  // options: columns [{title, num, value(d), render(d, row)}], children(d) -> array | Promise |
  // null, expandable(d), onSelect(d, row), onActivate(d, row), onContext(d, event) (right
  // click), rowClass(d) (a class for the row: search matches), sortBy, limit, label,
  // sortable (false: no column sorts)
  constructor(options) {
    this.o = Object.assign({ limit: 200, sortDir: -1 }, options);
    this.sortBy = this.o.sortBy ?? 0;
    this.sortDir = this.o.sortDir;
    this.table = el('table', { class: 'grid', tabindex: 0, role: this.o.flat ? 'grid' : 'treegrid', 'aria-label': this.o.label || '' });
    this.thead = el('thead');
    this.tbody = el('tbody');
    this.table.append(this.thead, this.tbody);
    this.roots = [];
    this.visible = [];
    this.selected = null;
    this.table.addEventListener('keydown', (e) => this.key(e));
    this.header();
  }

  header() {
    const tr = el('tr');
    this.o.columns.forEach((c, i) => {
      const th = el('th', { class: c.num ? 'num' : null, text: c.title, title: c.tip || null, scope: 'col' });
      if (i === this.sortBy) th.setAttribute('aria-sort', this.sortDir < 0 ? 'descending' : 'ascending');
      if (c.value && this.o.sortable !== false) th.addEventListener('click', () => {
        if (this.sortBy === i) this.sortDir = -this.sortDir; else { this.sortBy = i; this.sortDir = c.num ? -1 : 1; }
        this.thead.textContent = '';
        this.header();
        this.resortAll();
        this.render();
      });
      tr.append(th);
    });
    this.thead.append(tr);
  }

  wrap(d, depth, parent) {
    return { d, depth, parent, expanded: false, kids: null, limit: this.o.limit };
  }

  // Sorts every loaded row again after a click on a column's header.
  resortAll() { this.sortAll(this.roots); }

  setRoots(list) {
    this.roots = list.map((d) => this.wrap(d, 0, null));
    this.sortAll(this.roots);
    this.rootLimit = this.o.rootLimit || this.o.limit;
    this.selected = null;
    this.render();
  }

  compare() {
    const c = this.o.columns[this.sortBy];
    if (!c || !c.value) return null;
    const dir = this.sortDir;
    return (a, b) => {
      const x = c.value(a.d), y = c.value(b.d);
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    };
  }

  sortAll(list) {
    const cmp = this.compare();
    if (!cmp || !list) return;
    list.sort(cmp);
    for (const r of list) if (r.kids) this.sortAll(r.kids);
  }

  async expand(row, on = true) {
    if (!this.o.children || !this.expandable(row)) return;
    if (on && !row.kids) {
      const got = await this.o.children(row.d);
      row.kids = (got || []).map((d) => this.wrap(d, row.depth + 1, row));
      this.sortAll(row.kids);
    }
    row.expanded = on;
  }

  expandable(row) {
    return this.o.expandable ? this.o.expandable(row.d) : false;
  }

  // Expands the heaviest path `depth` levels down (as DevTools opens the call tree).
  async expandHeaviest(levels) {
    let list = this.roots;
    for (let i = 0; i < levels && list && list.length; i++) {
      const r = list[0];
      if (!this.expandable(r)) break;
      await this.expand(r, true);
      list = r.kids;
    }
    this.render();
  }

  async expandAll(pred, maxRows = 2000) {
    let count = 0;
    const walk = async (list) => {
      for (const r of list) {
        if (count++ > maxRows) return;
        if (this.expandable(r) && (!pred || pred(r.d))) { await this.expand(r, true); await walk(r.kids); }
      }
    };
    await walk(this.roots);
    this.render();
  }

  flatten() {
    const out = [];
    const walk = (list, limit, parent) => {
      list.slice(0, limit).forEach((r) => {
        out.push(r);
        if (r.expanded && r.kids) walk(r.kids, r.limit, r);
      });
      if (list.length > limit) out.push({ more: true, parent, count: list.length - limit, depth: parent ? parent.depth + 1 : 0 });
    };
    walk(this.roots, this.rootLimit ?? this.o.limit, null);
    return out;
  }

  render() {
    this.visible = this.flatten();
    const frag = document.createDocumentFragment();
    const cols = this.o.columns;
    this.visible.forEach((r, i) => {
      if (r.more) {
        const tr = el('tr', { class: 'more' }, el('td', { colspan: cols.length, text: `${'\u2003'.repeat(r.depth)}… ${r.count.toLocaleString('en-US')} more (click)` }));
        tr.addEventListener('click', () => this.showMore(r));
        frag.append(tr);
        return;
      }
      const tr = el('tr', { 'aria-level': r.depth + 1, 'aria-selected': r === this.selected ? 'true' : null, class: this.o.rowClass ? this.o.rowClass(r.d) : null });
      this.fillRow(tr, r, async () => { await this.expand(r, !r.expanded); this.render(); });
      tr.addEventListener('click', () => this.select(r));
      if (this.o.onContext) tr.addEventListener('contextmenu', (e) => { e.preventDefault(); this.select(r); this.o.onContext(r.d, e); });
      tr.addEventListener('dblclick', async () => { await this.expand(r, !r.expanded); this.render(); if (this.o.onActivate) this.o.onActivate(r.d, r); });
      r.tr = tr;
      frag.append(tr);
    });
    this.tbody.textContent = '';
    this.tbody.append(frag);
  }

  // A data row's cells (and its aria-expanded): the tree column is indented to the row's depth
  // and carries the triangle, whose click calls toggle().
  fillRow(tr, r, toggle) {
    if (this.expandable(r)) tr.setAttribute('aria-expanded', r.expanded ? 'true' : 'false');
    this.o.columns.forEach((c, j) => {
      const td = el('td', { class: c.cls || (c.num ? 'num' : null) });
      if (j === this.o.treeColumn) {
        td.style.paddingLeft = 8 + r.depth * 14 + 'px';
        const tw = el('span', { class: 'tw', text: this.expandable(r) ? (r.expanded ? '▾' : '▸') : '' });
        tw.addEventListener('click', async (e) => { e.stopPropagation(); await toggle(); });
        td.append(tw);
      }
      const v = c.render(r.d, r);
      if (v instanceof Node) td.append(v); else td.append(document.createTextNode(v ?? ''));
      if (c.title_of) td.title = c.title_of(r.d);
      tr.append(td);
    });
  }

  showMore(r) {
    if (r.parent) r.parent.limit += 500; else this.rootLimit = (this.rootLimit ?? this.o.limit) + 500;
    this.render();
  }

  // Shows row data `d` (opening its ancestors and the "more" rows above it) and selects it.
  async reveal(d) {
    const find = (list) => {
      for (const r of list || []) {
        if (r.d === d) return [r];
        const below = r.kids && find(r.kids);
        if (below) return [r, ...below];
      }
      return null;
    };
    const path = find(this.roots);
    if (!path) return false;
    for (const r of path.slice(0, -1)) {
      if (!r.expanded) await this.expand(r, true);
      const i = r.kids.indexOf(path[path.indexOf(r) + 1]);
      if (i >= r.limit) r.limit = i + 50;
    }
    const i = this.roots.indexOf(path[0]);
    if (i >= (this.rootLimit ?? this.o.limit)) this.rootLimit = i + 50;
    this.render();
    this.select(path[path.length - 1], true);
    return true;
  }

  select(r, scroll) {
    this.selected = r;
    for (const v of this.visible) if (v.tr) v.tr.setAttribute('aria-selected', v === r ? 'true' : 'false');
    if (scroll && r.tr) r.tr.scrollIntoView({ block: 'nearest' });
    if (this.o.onSelect) this.o.onSelect(r.d, r);
  }

  async key(e) {
    const rows = this.visible.filter((r) => !r.more);
    let i = rows.indexOf(this.selected);
    const r = this.selected;
    switch (e.key) {
      case 'ArrowDown': i = Math.min(rows.length - 1, i + 1); break;
      case 'ArrowUp': i = Math.max(0, i - 1); break;
      case 'Home': i = 0; break;
      case 'End': i = rows.length - 1; break;
      case 'PageDown': i = Math.min(rows.length - 1, i + 20); break;
      case 'PageUp': i = Math.max(0, i - 20); break;
      case 'ArrowRight':
        if (r && this.expandable(r)) {
          if (!r.expanded) { await this.expand(r, true); this.render(); this.select(r, true); }
          else if (r.kids && r.kids.length) this.select(r.kids[0], true);
        }
        e.preventDefault();
        return;
      case 'ArrowLeft':
        if (r && r.expanded) { await this.expand(r, false); this.render(); this.select(r, true); }
        else if (r && r.parent) this.select(r.parent, true);
        e.preventDefault();
        return;
      case 'Enter':
        if (r && this.o.onActivate) this.o.onActivate(r.d, r);
        return;
      default: return;
    }
    e.preventDefault();
    if (rows[i]) this.select(rows[i], true);
  }
}

// A horizontal bar and a percentage, for weight columns.
export function pctCell(text, pct) {
  return el('span', null,
    el('span', { class: 'bar', style: `width:${Math.max(0, Math.min(60, pct * 0.6)).toFixed(1)}px` }),
    el('span', { class: 'pct', text }));
}
