// Speedscope's sandwich: pick a function in the table on the left; on the right, the functions
// that called it (above, as Bottom-up shows them under it) and those it called (below, every call
// of it merged), each with self and total. The numbers are the server's (`…/sandwich`, the same
// engine as `jsprof tree --sandwich`).
import { fmtWeight, fmtPct, fmtLocation, displayName, el, esc } from 'jsprof/format.js';
import { CallTreeView } from 'jsprof/calltree.js';

export class SandwichView {
  // art: the artifact (its `sandwich` and `children`); profileFor(range) -> the range's trees;
  // opts: {onSelect(d, view), onContext, range(), timeline()}
  constructor(root, art, opts) {
    this.art = art;
    this.o = opts;
    this.fn = null; // {name, url, line, column}
    this.doc = null;
    const box = el('div', { class: 'sandwich' });
    this.left = el('div', { class: 'pane sandwich-pick' });
    const right = el('div', { class: 'pane sandwich-main' });
    this.head = el('div', { class: 'details sandwich-head', html: '<span class="muted">Pick a function on the left (or right-click one anywhere → <em>Show in sandwich</em>) to see who calls it and what it calls.</span>' });
    const callersBox = el('div', { class: 'pane' }), calleesBox = el('div', { class: 'pane' });
    this.callersNode = callersBox;
    this.calleesNode = calleesBox;
    right.append(this.head, el('div', { class: 'sandwich-label', text: 'Callers ↑ (who called it)' }), callersBox, el('div', { class: 'sandwich-label', text: 'Callees ↓ (what it called)' }), calleesBox);
    box.append(this.left, right);
    root.append(box);
    this.table = null;
    this.callers = null;
    this.callees = null;
  }

  // The range's (or the whole profile's) function table on the left; the sandwich follows.
  async setProfile(p) {
    if (this.table) this.table.setProfile(p);
    else this.table = new CallTreeView(this.left, p, 'functions', { compact: true, onSelect: (d) => { this.show(d); if (this.o.onSelect) this.o.onSelect(d, this.table); }, onContext: this.o.onContext });
    this.unit = p.unit;
    if (this.fn) await this.show(this.fn);
  }

  // Shows the sandwich of `d` (any object with name, url, line, column).
  async show(d) {
    const fn = { name: d.name, url: d.url || '', line: d.line ?? null, column: d.column ?? null };
    this.fn = fn;
    const range = this.o.range(), timeline = this.o.timeline();
    let doc;
    try {
      doc = await this.art.sandwich(range, timeline, fn);
    } catch (e) {
      this.head.innerHTML = `<span class="error">${esc(e.message)}</span>`;
      this.doc = null;
      return;
    }
    if (this.fn !== fn) return; // a later pick won
    this.doc = doc;
    const T = doc.total || 1, u = doc.unit;
    const loc = fmtLocation(fn.url, fn.line, fn.column);
    this.head.innerHTML = `<span class="name">${esc(displayName(fn.name))}</span> ${loc ? `<span class="loc">${esc(loc)}</span>` : ''}` +
      ` · self <b>${fmtWeight(doc.function_self, u)}</b> (${fmtPct((doc.function_self * 100) / T)})` +
      ` · total <b>${fmtWeight(doc.function_total, u)}</b> (${fmtPct((doc.function_total * 100) / T)})` +
      (doc.callers.nodes.p.length ? '' : ' · <span class="muted">no samples in this view</span>');
    // Each half as a profile document of one tree, so the tree tables draw it as they draw the
    // Call tree and Bottom-up; opening a node the budget held back asks the server.
    const half = (key, tree, kind) => {
      const p = { unit: doc.unit, total: doc.total, range: doc.range, computed: doc.computed, strings: doc.strings, functions: doc.functions, [key]: tree };
      if (this.art.children) p.loadChildren = (_which, node) => this.art.children(range, timeline, kind, node, kind === 'callees' ? fn : null);
      return p;
    };
    const callers = half('bottom_up', doc.callers, 'bottom_up');
    const callees = half('top_down', doc.callees, 'callees');
    if (this.callers) this.callers.setProfile(callers);
    else this.callers = new CallTreeView(this.callersNode, callers, 'bottom_up', { onSelect: (x) => this.pick(x), onContext: this.o.onContext });
    if (this.callees) this.callees.setProfile(callees);
    else this.callees = new CallTreeView(this.calleesNode, callees, 'top_down', { onSelect: (x) => this.pick(x), onContext: this.o.onContext });
    // The function's own row opened: its callers, level by level.
    await this.callers.table.expandHeaviest(4);
    this.callers.table.render();
  }

  // A row of either half selects that function in the other views; a double-click (activate)
  // is left to the tables (open/close).
  pick(d) {
    if (this.o.onSelect) this.o.onSelect(d, null);
  }
}
